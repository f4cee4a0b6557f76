import { ConfigError } from '../../src/errors';
import { createLogger } from '../../src/log';
import { deferStore, openStoreWhenReachable, STORE_UNAVAILABLE, StoreUnavailableError, type Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { backoffMs } from '../../src/store/wait';
import { waitFor } from '../helpers/wait';

// Start-up's wait for the store, in parts: the tries and their pauses, and
// the store every part is wired to before the database answers.

const quiet = createLogger({ level: 'error', write: () => undefined });
/** A store whose closing is seen. */
function closable(): { store: Store; closed: () => boolean } {
  const real = openSqliteStore(':memory:');
  let closed = false;
  return {
    store: {
      ...real,
      close: () => {
        closed = true;
        return real.close();
      },
    },
    closed: () => closed,
  };
}
const unreachable = () => new StoreUnavailableError('The store cannot reach the PostgreSQL database (DATABASE_URL) (ECONNREFUSED).');

describe('openStoreWhenReachable', () => {
  test('pauses 1 s, 2 s, 4 s … up to 30 s between tries, each within ±20 %', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffMs(n, () => 0.5))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoffMs(1, () => 0)).toBe(800);
    expect(backoffMs(6, () => 0.999_999)).toBe(36_000);
  });

  test('tries again while the database is unreachable, and resolves with the store once it opens', async () => {
    const store = openSqliteStore(':memory:');
    let tries = 0;
    const pauses: number[] = [];
    const opened = await openStoreWhenReachable({
      open: () => (++tries < 3 ? Promise.reject(unreachable()) : Promise.resolve(store)),
      logger: quiet,
      signal: new AbortController().signal,
      sleep: (ms) => Promise.resolve(void pauses.push(ms)),
      delayMs: (attempt) => attempt * 10,
    });
    expect(opened).toBe(store);
    expect(pauses).toEqual([10, 20]);
    await store.close();
  });

  test('a configuration problem, or any error but "unreachable", ends the wait at once with that error', async () => {
    const problem = new ConfigError(['VS_DB_PATH (/srv) is a directory, not a file']);
    let tries = 0;
    const wait = (error: Error) =>
      openStoreWhenReachable({
        open: () => Promise.reject(error),
        logger: quiet,
        signal: new AbortController().signal,
        sleep: () => Promise.resolve(void tries++),
      });
    await expect(wait(problem)).rejects.toBe(problem);
    await expect(wait(new Error('migration 4 failed'))).rejects.toThrow('migration 4 failed');
    expect(tries).toBe(0);
  });

  test('aborted while a try is on its way: resolves undefined at once, and closes the store that try opens later', async () => {
    const controller = new AbortController();
    let finish!: (store: Store) => void;
    const waiting = openStoreWhenReachable({ open: () => new Promise<Store>((resolve) => (finish = resolve)), logger: quiet, signal: controller.signal });
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    const late = closable();
    finish(late.store);
    await waitFor('the late store to be closed', late.closed);
  });

  test('aborted during a pause: the default pause ends at once', async () => {
    const controller = new AbortController();
    let tries = 0;
    const waiting = openStoreWhenReachable({
      open: () => Promise.reject(unreachable()),
      logger: quiet,
      signal: controller.signal,
      onUnreachable: () => tries++,
      delayMs: () => 3_600_000,
    });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(tries).toBe(1);
  });
});

describe('deferStore', () => {
  test('before the store is opened every method rejects as an unreachable database does; after, each call reaches it', async () => {
    const deferred = deferStore('sqlite');
    const { store } = deferred;
    expect(store.dialect).toBe('sqlite');
    await expect(store.audit.latest(1)).rejects.toMatchObject({ code: STORE_UNAVAILABLE });
    await expect(store.claims.claim('k', '2024-01-01T00:00:00.000Z')).rejects.toThrow(/not open yet: start-up is waiting for VS_DB_PATH/);
    await expect(store.ping()).rejects.toMatchObject({ code: STORE_UNAVAILABLE });
    // Parts keep the slices they were given at wiring time: those reach the store too once it is open.
    const claims = store.claims;
    const real = closable();
    deferred.open(real.store);
    expect(deferred.opened).toBe(real.store);
    expect(await claims.claim('k', '2024-01-01T00:00:00.000Z')).toBe(true);
    expect(await real.store.claims.claim('k', '2024-01-01T00:00:00.000Z')).toBe(false);
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    expect(real.closed()).toBe(true);
  });

  test('it has every slice of the store', () => {
    const real = openSqliteStore(':memory:');
    const deferred = deferStore('postgres').store;
    const slices = (s: object) => Object.keys(s).filter((k) => typeof (s as Record<string, unknown>)[k] === 'object');
    expect(slices(deferred).sort()).toEqual(slices(real).sort());
    return real.close();
  });

  test('closed before its database answered: the store opened afterwards is closed at once', async () => {
    const deferred = deferStore('postgres');
    await deferred.store.close();
    const real = closable();
    deferred.open(real.store);
    expect(deferred.opened).toBeUndefined();
    await waitFor('the store opened afterwards to be closed', real.closed);
  });
});
