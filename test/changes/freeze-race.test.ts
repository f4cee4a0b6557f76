import { Client } from 'pg';
import type { Store } from '../../src/store';
import { openPostgresStore } from '../../src/store/postgres';
import { openDoor } from '../helpers/door';
import { goodDiskForm } from '../helpers/forms';
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';
import { entry } from '../store/contract/entries';

// A freeze against the start of a change, across instances on one PostgreSQL
// (docs/product.md "Security": the freeze is checked in the same transaction that
// starts a change, so nothing starts after a freeze commits). Two stores on one
// database stand for two instances; a third connection holds a table lock to
// stop a transaction half-way, where the race would happen.

const ROLES = { admins: ['UADMIN'], operators: ['UOPER'], viewers: null, mutationChannels: null, groupCacheMs: 1000, workflowReads: 'viewers' as const };
const FREEZE = { by: 'UADMIN', at: '2024-05-01T10:00:00.000Z', reason: 'storage migration' };

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** Two instances on one fresh schema, and a plain connection to it. */
async function twoInstances() {
  const url = await createTestSchema(database.url);
  const [one, two] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
  opened.push(one, two);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  return { one, two, sql };
}

/** How many of this database's connections wait for a lock of `kind` (relation, advisory). */
async function waitingOn(sql: Client, kind: string): Promise<number> {
  const { rows } = await sql.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = $1",
    [kind],
  );
  return Number(rows[0]!.n);
}

const begin = (store: Store, key: string) =>
  store.audit.beginChange({
    submissionKey: key,
    at: '2024-05-01T10:00:01.000Z',
    lease: { target: 'vs:42', owner: `${key}#a`, nowMs: 0, ttlMs: 60_000 },
    started: entry({ outcome: 'started', apiStatus: null }),
  });

test('a freeze committed on another instance after the door read the freeze, before the change started: refused at its start, nothing sent', async () => {
  const { one, two, sql } = await twoInstances();
  await sql.end();
  // Instance two freezes just after instance one's door has read "not frozen" (the read before the start's transaction).
  const racing: Store = {
    ...one,
    freeze: {
      ...one.freeze,
      current: async () => {
        const read = await one.freeze.current();
        await two.freeze.start(FREEZE);
        return read;
      },
    },
  };
  const t = openDoor({ roles: ROLES, store: racing });
  try {
    const result = await t.changes.submit({ userId: 'UOPER', channelId: 'CINCIDENT', submissionKey: 'V1' }, 'disk_add', 42, goodDiskForm);
    expect(result).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen', freeze: FREEZE } }, record: { outcome: 'refused' } });
    expect(t.calls).toEqual([]);
    expect((await one.audit.latest(10)).map((r) => r.outcome)).toEqual(['refused']);
    // Nothing was claimed: once unfrozen, the same form may be sent again.
    expect(await one.claims.claim('V1', '2024-05-01T10:00:02.000Z')).toBe(true);
  } finally {
    await t.store.close();
  }
});

/**
 * Holds `table` (a third connection locks it against writes) so that `first` stops at its write into it, then starts
 * `second`, which must wait for the freeze lock (neither may end while `table` is held); then lets both go, and gives
 * what each came to.
 */
async function heldAt<A, B>(sql: Client, table: string, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  let ended = 0;
  const tracked = <T>(running: Promise<T>) => running.finally(() => (ended += 1));
  await sql.query('BEGIN');
  try {
    await sql.query(`LOCK TABLE ${table} IN SHARE MODE`);
    const a = tracked(first());
    await waitFor(`the first to wait at ${table}`, async () => (await waitingOn(sql, 'relation')) === 1);
    const b = tracked(second());
    await waitFor('the second to wait for the freeze lock', async () => ended > 0 || (await waitingOn(sql, 'advisory')) === 1);
    expect(ended).toBe(0);
    await sql.query('COMMIT');
    return [await a, await b];
  } finally {
    await sql.query('ROLLBACK').catch(() => undefined);
    await sql.end();
  }
}

test("a start under way when another instance freezes commits first; the freeze waits for it, so no start commits after the freeze's", async () => {
  const { one, two, sql } = await twoInstances();
  // Instance one's start is stopped after it read the freeze, at its claim (an insert into submissions); the freeze
  // waits for it (the freeze lock): it does not commit while the start is open.
  const [started, frozen] = await heldAt(
    sql,
    'submissions',
    () => begin(one, 'V1'),
    () => two.freeze.start(FREEZE),
  );
  expect(started).toMatchObject({ outcome: 'started' });
  expect(frozen).toMatchObject({ started: true });
  // Any start from now on is refused.
  expect(await begin(one, 'V2')).toEqual({ outcome: 'frozen', freeze: FREEZE });
});

test('a start that comes while another instance is committing a freeze waits for it, then is refused by it', async () => {
  const { one, two, sql } = await twoInstances();
  // Instance two's freeze is stopped after its freeze lock and its row, at its record (an insert into audit_records).
  const record = entry({ userId: 'UADMIN', action: 'freeze', target: 'changes', apiStatus: null });
  const [frozen, started] = await heldAt(
    sql,
    'audit_records',
    () => two.freeze.start(FREEZE, record),
    () => begin(one, 'V1'),
  );
  expect(frozen).toMatchObject({ started: true });
  expect(started).toEqual({ outcome: 'frozen', freeze: FREEZE });
});
