// Work still running after its ack (a change waiting on the cloud API, an
// audit post): stop() waits for it before closing.

export interface InFlight {
  track<T>(work: Promise<T>): Promise<T>;
  readonly size: number;
  /** Resolves once nothing is in flight, including work started meanwhile. */
  drain(): Promise<void>;
  /** What is in flight now. */
  settled(): Promise<unknown>;
}

export function createInFlight(): InFlight {
  const running = new Set<Promise<unknown>>();
  return {
    track(work) {
      running.add(work);
      void work.finally(() => running.delete(work)).catch(() => undefined);
      return work;
    },
    get size() {
      return running.size;
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    settled: () => Promise.allSettled([...running]),
  };
}
