// A store as every caller sees it, reporting what its answers say about the
// database: any method rejecting with StoreUnavailableError reports it
// unreachable at once (the periodic ping would say so only on its next
// round), any answer reports it reachable. The store itself is unchanged.

/** StoreUnavailableError's code (src/store/audit-store.ts); matched by code so no import cycle forms. */
const STORE_UNAVAILABLE = 'STORE_UNAVAILABLE';

export function isStoreUnavailableError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === STORE_UNAVAILABLE;
}

export function watchStore<S extends object>(store: S, report: (state: 'ok' | 'unreachable') => void): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'close') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer: unknown) => {
            report('ok');
            return answer;
          },
          (error: unknown) => {
            if (isStoreUnavailableError(error)) report('unreachable');
            throw error;
          },
        );
      };
    },
  });
}
