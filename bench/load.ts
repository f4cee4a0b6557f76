import autocannon from 'autocannon';

// autocannon as a promise, with every ack's latency kept (the histogram it
// reports rounds to whole milliseconds; the percentiles here are exact).

export interface LoadResult {
  result: autocannon.Result;
  /** Latency of every answered request, ms. */
  latenciesMs: number[];
}

export function runLoad(options: autocannon.Options): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(options, (error, result) => {
      if (error) reject(error);
      else resolve({ result, latenciesMs });
    });
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
      latenciesMs.push(responseTimeMs);
    });
  });
}

/**
 * An open loop whose commands arrive spread over each second. autocannon's
 * rate option alone lets every connection send its share of a second back to
 * back and then wait for the next second, so `overallRate: 100` arrives as
 * one burst of 100 each second. Here the rate is split over `slices`
 * autocannon instances started 1/slices of a second apart: the same
 * commands per second, arriving in small groups all through the second.
 */
export async function runPacedLoad(options: autocannon.Options & { overallRate: number; duration: number }, slices: number): Promise<LoadResult> {
  if (!Number.isInteger(slices) || slices < 1) throw new RangeError(`slices must be a positive integer, got ${slices}`);
  const count = Math.min(slices, options.overallRate);
  const spacingMs = 1000 / count;
  const runs: Promise<LoadResult>[] = [];
  for (let slice = 0; slice < count; slice++) {
    if (slice > 0) await new Promise((resolve) => setTimeout(resolve, spacingMs));
    // The rate of this slice: overallRate shared out, the remainder to the first slices.
    const rate = Math.floor(options.overallRate / count) + (slice < options.overallRate % count ? 1 : 0);
    const connections = Math.max(1, Math.min(rate, Math.round((options.connections ?? count) / count)));
    runs.push(runLoad({ ...options, overallRate: rate, connections }));
  }
  const results = await Promise.all(runs);
  const first = results[0] as LoadResult;
  return {
    // Only the counters the scenarios read are summed; the rest is the first slice's.
    result: {
      ...first.result,
      errors: sum(results, (r) => r.result.errors),
      timeouts: sum(results, (r) => r.result.timeouts),
      non2xx: sum(results, (r) => r.result.non2xx),
      '2xx': sum(results, (r) => r.result['2xx']),
    },
    latenciesMs: results.flatMap((r) => r.latenciesMs),
  };
}

const sum = (results: LoadResult[], pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
