import { isStoreUnavailable } from '../store/unavailable';

// A store as every caller sees it, reporting what its answers say about the
// database: any method rejecting with StoreUnavailableError reports it
// unreachable at once (the periodic ping would say so only on its next
// round), any answer reports it reachable. The methods of nested slices
// (`store.audit.record`) are watched alike. The store itself is unchanged.

export function watchStore<S extends object>(store: S, report: (state: 'ok' | 'unreachable') => void): S {
  const watched = new WeakMap<object, object>();
  const watch = <T extends object>(target: T): T => {
    const known = watched.get(target);
    if (known) return known as T;
    const proxy = new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        // A slice: watched too (the same proxy each time it is read).
        if (typeof value === 'object' && value !== null) return watch(value);
        if (typeof value !== 'function' || property === 'close') return value;
        return (...args: unknown[]) => {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (!(result instanceof Promise)) return result;
          return result.then(
            (answer: unknown) => {
              report('ok');
              return answer;
            },
            (error: unknown) => {
              if (isStoreUnavailable(error)) report('unreachable');
              throw error;
            },
          );
        };
      },
    });
    watched.set(target, proxy);
    return proxy;
  };
  return watch(store);
}
