import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { openPostgresStore } from '../src/store/postgres';
import { openSqliteStore } from '../src/store/sqlite';
import { createTestDatabase, startPostgresServer } from '../test/helpers/postgres';
import { seedAuditRecords } from './scenarios/app-home';

// `node --import tsx bench/audit-plans.ts [records]`: the plans of the audit trail's reads on 100,000 records (by
// default), on PostgreSQL (EXPLAIN (ANALYZE, BUFFERS)) and on SQLite (EXPLAIN QUERY PLAN), as the store asks them
// (src/store/kysely/audit.ts): `/vs audit` with each filter, a page of its export, and the count an export cut at
// 10,000 rows says. docs/benchmark.md quotes them: each reads an index, never the table in full.

const QUERIES: { what: string; sql: string; params: unknown[] }[] = [
  { what: '/vs audit vs 7', sql: 'SELECT * FROM audit_records WHERE target = $1 ORDER BY id DESC LIMIT 10', params: ['vs:7'] },
  {
    what: '/vs audit 50 @person',
    sql: 'SELECT * FROM audit_records WHERE (user_id = $1 OR requested_by = $2) ORDER BY id DESC LIMIT 50',
    params: ['UBENCH7', 'UBENCH7'],
  },
  { what: '/vs audit failed', sql: 'SELECT * FROM audit_records WHERE outcome = $1 ORDER BY id DESC LIMIT 10', params: ['failed'] },
  // The seed's failures are one record in seven: walking the newest records finds ten at once. Where an outcome is
  // rare (as failures are in a healthy trail), the planner takes its index instead; this seed holds none of this one.
  { what: '/vs audit with a rare outcome', sql: 'SELECT * FROM audit_records WHERE outcome = $1 ORDER BY id DESC LIMIT 10', params: ['cancelled'] },
  {
    what: '/vs audit 50 refused, page 5',
    sql: 'SELECT * FROM audit_records WHERE outcome = $1 AND id <= $2 ORDER BY id DESC LIMIT 10 OFFSET 40',
    params: ['refused', 99_000],
  },
  { what: 'Export CSV of the trail, a page of 1,000', sql: 'SELECT * FROM audit_records WHERE id <= $1 ORDER BY id DESC LIMIT 1000', params: [50_000] },
  { what: 'Export CSV of VS 7, how many match', sql: 'SELECT count(*) FROM audit_records WHERE target = $1', params: ['vs:7'] },
];

async function postgresPlans(records: number): Promise<void> {
  const server = await startPostgresServer();
  const database = await createTestDatabase(server.url);
  try {
    await (await openPostgresStore(database.url)).close();
    await seedAuditRecords(database.url, records);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const q of QUERIES) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.sql}`, q.params);
        process.stdout.write(`\nPostgreSQL · ${q.what}\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`);
      }
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
    await server.close();
  }
}

function sqlitePlans(records: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-plans-'));
  const path = join(dir, 'audit.sqlite');
  try {
    void openSqliteStore(path).close();
    const db = new Database(path);
    db.prepare(
      `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
       INSERT INTO audit_records (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail)
       SELECT datetime('now'), 'UBENCH' || (n % 200), 'CBENCH', 'disk_add', 'vs:' || (n % 1000), '{}',
              CASE WHEN n % 10 = 0 THEN 'refused' WHEN n % 7 = 0 THEN 'failed' ELSE 'done' END, 201, 12, NULL FROM g`,
    ).run(records);
    db.exec('ANALYZE');
    for (const q of QUERIES) {
      const sql = q.sql.replace(/\$\d/g, '?');
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...q.params) as { detail: string }[];
      process.stdout.write(`\nSQLite · ${q.what}\n${plan.map((p) => `  ${p.detail}`).join('\n')}\n`);
    }
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const records = Number(process.argv[2] ?? 100_000);
sqlitePlans(records);
void postgresPlans(records);
