// Identical reads that overlap share one upstream request: during an incident
// twenty people typing `/vs firewall 42` cost the API one call. This is not a
// cache: the entry is gone the moment the request settles, so a read that
// starts afterwards always asks the API again.

export interface SingleFlight {
  /**
   * Runs `load` unless a call with the same key is in flight, in which case it
   * joins that call. `copy` gives each joined caller its own value, so no
   * caller can change what another one sees; a lone caller gets the original.
   */
  run<T>(key: string, load: () => Promise<T>, copy: (value: T) => T): Promise<T>;
  /** Keys in flight now (for tests and metrics). */
  readonly inFlight: number;
}

interface Flight {
  promise: Promise<unknown>;
  callers: number;
}

export function createSingleFlight(): SingleFlight {
  const flights = new Map<string, Flight>();
  return {
    async run<T>(key: string, load: () => Promise<T>, copy: (value: T) => T): Promise<T> {
      let flight = flights.get(key);
      if (flight === undefined) {
        // Removed before any caller resumes: `callers` is final when read below.
        const promise = load().finally(() => flights.delete(key));
        flight = { promise, callers: 0 };
        flights.set(key, flight);
      }
      flight.callers += 1;
      const joined = flight;
      const value = (await joined.promise) as T;
      return joined.callers === 1 ? value : copy(value);
    },
    get inFlight() {
      return flights.size;
    },
  };
}
