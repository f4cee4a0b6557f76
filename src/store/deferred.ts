import type { Store } from './store';
import { StoreUnavailableError } from './unavailable';

// The store an instance is built with before its database answers (start-up
// waits for it: wait.ts). Every part is wired to this one at once; until the
// real store is opened, each method rejects with StoreUnavailableError, as an
// unreachable database does (and every caller already answers that), then
// each call goes to the opened store.

/** The slices of Store (its objects of methods), listed at run time; the compiler checks that none is missing. */
const SLICES = [
  'audit',
  'claims',
  'leases',
  'outbox',
  'retention',
  'approvals',
  'freeze',
  'rates',
  'follows',
  'breakGlass',
  'changeEvents',
  'agentTokens',
  'watches',
] as const;

type SliceName = { [K in keyof Store]: Store[K] extends object ? (Store[K] extends (...args: never[]) => unknown ? never : K) : never }[keyof Store];
/** A slice added to Store but not to SLICES fails here. */
const everySlice: [Exclude<SliceName, (typeof SLICES)[number]>] extends [never] ? true : never = true;
void everySlice;

export interface DeferredStore {
  /** Wired everywhere from the start. */
  readonly store: Store;
  /** From now on, calls go to `opened`. */
  open(opened: Store): void;
  /** The opened store, once there is one. */
  readonly opened: Store | undefined;
}

export function deferStore(dialect: Store['dialect']): DeferredStore {
  let opened: Store | undefined;
  let closed = false;
  const notOpen = () =>
    new StoreUnavailableError(`The store is not open yet: start-up is waiting for ${dialect === 'postgres' ? 'DATABASE_URL' : 'VS_DB_PATH'} to answer.`);

  const slice = (name: (typeof SLICES)[number]): object => {
    const methods = new Map<string, (...args: unknown[]) => unknown>();
    return new Proxy(
      {},
      {
        get(target, method) {
          // A method set on the slice (a test standing in for a failing write) is what callers get.
          if (Object.hasOwn(target, method)) return Reflect.get(target, method) as unknown;
          if (typeof method !== 'string') return undefined;
          let forward = methods.get(method);
          if (!forward) {
            forward = (...args: unknown[]) => {
              if (!opened) return Promise.reject(notOpen());
              const real = opened[name] as unknown as Record<string, (...a: unknown[]) => unknown>;
              return real[method]!(...args);
            };
            methods.set(method, forward);
          }
          return forward;
        },
      },
    );
  };

  const store = {
    dialect,
    ...Object.fromEntries(SLICES.map((name) => [name, slice(name)])),
    ping: () => (opened ? opened.ping() : Promise.reject(notOpen())),
    close: async () => {
      closed = true;
      await opened?.close();
    },
  } as unknown as Store;

  return {
    store,
    get opened() {
      return opened;
    },
    open(real) {
      // Closed meanwhile (the instance was stopped while the database came back): nothing may use it.
      if (closed) {
        void real.close();
        return;
      }
      opened = real;
    },
  };
}
