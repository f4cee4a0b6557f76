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
