import { Counter, Gauge, Histogram } from 'prom-client';

// Preloaded into the bot by bench/command-costs.ts `--without metrics`, for
// that run only: prom-client's counters, gauges and histograms count nothing,
// so that the difference of CPU time per command is what counting costs.
// Nothing in the product loads it.

const nothing = () => undefined;
for (const method of ['inc'] as const) Counter.prototype[method] = nothing;
for (const method of ['set', 'inc', 'dec'] as const) Gauge.prototype[method] = nothing;
Histogram.prototype.observe = nothing;
