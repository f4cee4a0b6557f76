import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createChanges } from '../../src/changes/changes';
import { createPolicy } from '../../src/changes/policy';
import { loadConfig } from '../../src/config';
import type { AuditStore } from '../../src/store/audit-store';
import { openPostgresAuditStore } from '../../src/store/postgres-audit-store';
import { openSqliteAuditStore } from '../../src/store/sqlite-audit-store';
import { createTestDatabase, startPostgresServer } from '../../test/helpers/postgres';
import type { BenchProfile } from '../profile';
import { percentile, round } from '../stats';

// Scenario 9: the change path through the real door and the real store, with
// a cloud API that answers at once, so that what is timed is the door's own
// work: policy, validation, the submission claim, the target lease, the
// `started` record, its settlement with its audit post queued, the release.
// Submissions go to distinct servers. On SQLite (a file, WAL, synchronous=FULL)
// and on PostgreSQL (a local server with fsync on, as in production; over
// loopback, so a network hop to a managed database adds its round trips).
// Overhead: one change at a time. Throughput: `concurrency` at once.

export interface StoreChangeFigures {
  overheadP50Ms: number;
  overheadP99Ms: number;
  changesPerSecond: number;
}

export interface ChangePathFigures {
  changes: number;
  concurrency: number;
  sqlite: StoreChangeFigures;
  postgres: StoreChangeFigures;
}

const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_SIGNING_SECRET: 'bench-secret', VS_OPERATORS: 'UBENCH' });

async function measure(store: AuditStore, load: BenchProfile['changePath'], tag: string): Promise<StoreChangeFigures> {
  let disk = 0;
  const changes = createChanges({
    store,
    policy: createPolicy(config.roles, { membersOf: async () => [] }),
    cloud: {
      addDisk: async (_vsId, params) => ({ id: ++disk, disk_size: params.disk_size, disk_type: params.disk_type }),
      restoreBackup: async (backupId) => ({ id: backupId }),
    },
  });
  let next = 0;
  const change = async (): Promise<number> => {
    const i = next++;
    const started = performance.now();
    const result = await changes.addDisk({ userId: 'UBENCH', channelId: 'CBENCH', submissionKey: `${tag}-${i}` }, 1 + i, { disk_type: 'SSD', disk_size: '20', label: `bench ${i}` });
    if (result.outcome !== 'succeeded') throw new Error(`change path: a change ended ${result.outcome}`);
    return performance.now() - started;
  };
  for (let i = 0; i < Math.min(100, load.changes); i++) await change(); // warm-up: JIT, pool, statement caches
  const overhead: number[] = [];
  for (let i = 0; i < load.changes; i++) overhead.push(await change());
  const began = performance.now();
  await Promise.all(
    Array.from({ length: load.concurrency }, async () => {
      for (let i = 0; i < Math.ceil(load.changes / load.concurrency); i++) await change();
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  return {
    overheadP50Ms: round(percentile(overhead, 50), 2),
    overheadP99Ms: round(percentile(overhead, 99), 2),
    changesPerSecond: round((load.concurrency * Math.ceil(load.changes / load.concurrency)) / seconds, 0),
  };
}

export async function runChangePath(load: BenchProfile['changePath']): Promise<ChangePathFigures> {
  const folder = mkdtempSync(join(tmpdir(), 'vs-bench-store-'));
  let sqlite: StoreChangeFigures;
  const file = openSqliteAuditStore(join(folder, 'bench.sqlite'));
  try {
    sqlite = await measure(file, load, 'sqlite');
  } finally {
    await file.close();
    rmSync(folder, { recursive: true, force: true });
  }

  const server = await startPostgresServer({ durable: true });
  try {
    const database = await createTestDatabase(server.url);
    const store = await openPostgresAuditStore(database.url);
    try {
      return { changes: load.changes, concurrency: load.concurrency, sqlite, postgres: await measure(store, load, 'postgres') };
    } finally {
      await store.close();
    }
  } finally {
    await server.close();
  }
}
