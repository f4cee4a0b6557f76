// Identical reads that overlap share one upstream request: during an incident
// twenty people typing `/vs firewall 42` cost the API one call. This is not a
// cache: the entry is gone the moment the request settles, so a read that
// starts afterwards always asks the API again. Every caller gets the same
// value, so what `load` returns must be immutable (the client freezes it):
// copying it per caller cost more than the rest of a burst's answers.

export interface SingleFlight {
  /** Runs `load` unless a call with the same key is in flight, in which case it joins that call and gets the same value. */
  run<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Keys in flight now (for tests and metrics). */
  readonly inFlight: number;
}

export function createSingleFlight(): SingleFlight {
  const flights = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, load: () => Promise<T>): Promise<T> {
      let flight = flights.get(key) as Promise<T> | undefined;
      if (flight === undefined) {
        flight = load().finally(() => flights.delete(key));
        flights.set(key, flight);
      }
      return flight;
    },
    get inFlight() {
      return flights.size;
    },
  };
}
