import { Counter, Gauge, Histogram } from 'prom-client';

// Preloaded into the bot by bench/command-costs.ts `--without metrics`, for
// that run only: prom-client's counters, gauges and histograms count nothing,
// so that the difference of CPU time per command is what counting costs.
// Nothing in the product loads it. A counter's and a histogram's constructor
// picks its `inc` or `observe` among these prototype methods.

const nothing = () => undefined;
const patched = [
  [Counter.prototype, ['incWithoutExemplar', 'incWithExemplar']],
  [Histogram.prototype, ['observeWithoutExemplar', 'observeWithExemplar']],
  [Gauge.prototype, ['set', 'inc', 'dec']],
] as const;
for (const [prototype, methods] of patched) for (const method of methods) (prototype as unknown as Record<string, unknown>)[method] = nothing;
