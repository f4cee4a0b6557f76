import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { openPostgresStore } from '../../src/store/postgres';
import { BOT_TOKEN, SIGNING_SECRET } from '../../test/helpers/app-harness';
import { appHomeOpened, FORM, JSON_CONTENT_TYPE, slashCommandBody } from '../../test/helpers/payloads';
import { createTestDatabase } from '../../test/helpers/postgres';
import { postToSlackEndpoint } from '../../test/helpers/signed-requests';
import { startSlackFake } from '../../test/helpers/slack-fake';
import { spawnBot, type SpawnedBot } from '../../test/helpers/spawned-bot';
import { percentile, round } from '../stats';

// Scenario 10: the Home tab on a PostgreSQL holding `records` audit records
// (100,000 in the full run). One bot process, as production runs it; signed
// app_home_opened events one at a time, in turn from an admin (who sees every
// change), an operator with hundreds of records of their own and a viewer
// with none, while 25 approval requests are open (the admin may decide each);
// the time from sending the event to the bot's views.publish arriving at the
// Slack stand-in. Its reads (the freeze, the open requests, the latest
// changes, all or one user's) are served by indexes: the primary key,
// audit_records (user_id, id), approvals_open.
// On the same bot and database, `/vs audit` typed by the admin, one at a
// time: the time from sending the signed command to its answer (the latest
// records, rendered) arriving at its response_url; `/vs audit` (10 records)
// and `/vs audit 50` (the most it shows). It reads the latest records by the
// primary key.

export interface AppHomeFigures {
  records: number;
  opens: number;
  publishP50Ms: number;
  publishP99Ms: number;
  /** `/vs audit` typed this many times (and as many `/vs audit 50`). */
  audits: number;
  auditP50Ms: number;
  auditP99Ms: number;
  audit50P50Ms: number;
  audit50P99Ms: number;
}

export interface AppHomeLoad {
  records: number;
  opens: number;
  audits: number;
}

export const ADMIN = 'UBENCHADMIN';
/** Users the seeded records are spread over; an operator among them has records / USERS of their own. */
const USERS = 200;
const OPERATOR = 'UBENCH7';
const VIEWER = 'UBENCHNEW';
const WARMUP = 20;
/** Open approval requests, each one the admin may decide (the Home tab lists 10 of them, with their buttons). */
const OPEN_APPROVALS = 25;

/** Seeds `count` records in one statement, newest last, spread over USERS users (and the admin), as a busy trail would be. */
export async function seedAuditRecords(url: string, count: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO audit_records (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail, api_request)
       SELECT now() - make_interval(secs => $1::int - g),
              CASE WHEN g % 50 = 0 THEN $2 ELSE 'UBENCH' || (g % $3) END,
              'CBENCH',
              CASE WHEN g % 3 = 0 THEN 'backup_restore' ELSE 'disk_add' END,
              'vs:' || (g % 1000),
              '{"disk_type":"SSD","disk_size":20,"label":"bench"}'::json,
              CASE WHEN g % 10 = 0 THEN 'refused' WHEN g % 7 = 0 THEN 'failed' ELSE 'done' END,
              CASE WHEN g % 10 = 0 THEN NULL ELSE 201 END,
              12 + g % 300,
              CASE WHEN g % 10 = 0 THEN 'Adding a disk needs the operator role' ELSE NULL END,
              -- The exact request, as every executed change keeps it (and /vs audit shows it).
              CASE WHEN g % 10 = 0 THEN NULL
                   ELSE json_build_object('method', 'POST', 'path', '/virtual_machines/' || (g % 1000) || '/disks.json',
                                          'body', '{"disk":{"disk_type":"SSD","disk_size":20,"label":"bench"}}') END
       FROM generate_series(1, $1::int) AS g`,
      [count, ADMIN, USERS],
    );
    // Open approval requests (VS_APPROVALS), asked by one of the 200: the admin may decide every one and sees them with their buttons.
    await client.query(
      `INSERT INTO approvals (id, action, target, params, channel_id, requested_by, requested_at, expires_at_ms, reason, api_request, status)
       SELECT 'bench-approval-' || g, 'backup_restore', 'backup:' || g, '{"confirm":9,"reason":"bench"}', 'CBENCH', 'UBENCH1', now(),
              (extract(epoch FROM now()) * 1000)::bigint + 3600000, 'a restore the bench asks for',
              json_build_object('method', 'POST', 'path', '/backups/' || g || '/restore.json', 'body', NULL), 'requested'
       FROM generate_series(1, $1::int) AS g`,
      [OPEN_APPROVALS],
    );
    await client.query('ANALYZE audit_records');
    await client.query('ANALYZE approvals');
  } finally {
    await client.end();
  }
}

/** `serverUrl`: a PostgreSQL server (its maintenance database); the scenario makes a database of its own there. */
export async function runAppHome(serverUrl: string, load: AppHomeLoad, progress: (message: string) => void): Promise<AppHomeFigures> {
  let bot: SpawnedBot | undefined;
  const slack = await startSlackFake();
  const database = await createTestDatabase(serverUrl);
  try {
    const url = database.url;
    // Migrated as the bot would, then seeded.
    await (await openPostgresStore(url)).close();
    progress(`10. seeding ${load.records.toLocaleString('en')} audit records`);
    await seedAuditRecords(url, load.records);
    bot = await spawnBot(
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        VS_API_URL: 'sandbox',
        DATABASE_URL: url,
        VS_ADMINS: ADMIN,
        VS_OPERATORS: OPERATOR,
        LOG_LEVEL: 'warn',
        // One admin types every /vs audit: the bench measures the bot, not the per-person read limit.
        VS_READS_PER_USER_PER_MINUTE: '1000000',
      },
      { readyTimeoutMs: 40_000, nodeArgs: ['--max-semi-space-size=32'] },
    );
    const eventsUrl = bot.eventsUrl;
    const users = [ADMIN, OPERATOR, VIEWER];
    /** One Home tab opened: the time from sending the event to its views.publish at the stand-in. */
    const open = async (i: number): Promise<number> => {
      const user = users[i % users.length]!;
      const before = slack.callsTo('views.publish').length;
      const sent = performance.now();
      const res = await postToSlackEndpoint(eventsUrl, SIGNING_SECRET, JSON.stringify(appHomeOpened({ user })), JSON_CONTENT_TYPE);
      if (res.status !== 200) throw new Error(`app_home_opened was answered HTTP ${res.status}`);
      const call = (await slack.waitForCalls('views.publish', before + 1, 10_000))[before]!;
      const ms = performance.now() - sent;
      if (!call.ok || call.args.user_id !== user) throw new Error(`the Home tab of ${user} was not published (${call.error ?? String(call.args.user_id)})`);
      // The admin's lists the open requests, with their buttons: the figure is of the whole tab.
      if (user === ADMIN && !JSON.stringify(call.args.view).includes('"approval_approve"')) throw new Error('the admin’s Home tab lists no approval request');
      return ms;
    };
    progress(`10. the Home tab opened ${load.opens} times, one at a time`);
    for (let i = 0; i < WARMUP; i++) await open(i);
    const latencies: number[] = [];
    for (let i = 0; i < load.opens; i++) latencies.push(await open(i));

    let commands = 0;
    /** `/vs <text>` typed by the admin: the time from sending it to its answer arriving at its response_url. */
    const audit = async (text: string, shown: number): Promise<number> => {
      const id = `audit-${++commands}`;
      const body = slashCommandBody({ text, user: ADMIN, channel: 'CBENCH', responseUrl: slack.responseUrl(id) });
      const sent = performance.now();
      const res = await postToSlackEndpoint(eventsUrl, SIGNING_SECRET, body, FORM);
      if (res.status !== 200) throw new Error(`/vs ${text} was answered HTTP ${res.status}`);
      const arrived = await slack.arrival(id, 10_000);
      if (!arrived) throw new Error(`/vs ${text} got no answer`);
      const answer = JSON.stringify(slack.responses.find((r) => r.id === id)?.body);
      if (!answer.includes(`latest ${shown} records · page 1 of`))
        throw new Error(`/vs ${text} did not show the latest ${shown} records: ${answer.slice(0, 200)}`);
      return arrived.at - sent;
    };
    progress(`10. /vs audit and /vs audit 50 typed ${load.audits} times each, one at a time`);
    for (let i = 0; i < WARMUP; i++) await audit(i % 2 === 0 ? 'audit' : 'audit 50', i % 2 === 0 ? 10 : 50);
    const audits: number[] = [];
    const audits50: number[] = [];
    for (let i = 0; i < load.audits; i++) {
      audits.push(await audit('audit', 10));
      audits50.push(await audit('audit 50', 50));
    }
    return {
      records: load.records,
      opens: latencies.length,
      publishP50Ms: round(percentile(latencies, 50), 2),
      publishP99Ms: round(percentile(latencies, 99), 2),
      audits: audits.length,
      auditP50Ms: round(percentile(audits, 50), 2),
      auditP99Ms: round(percentile(audits, 99), 2),
      audit50P50Ms: round(percentile(audits50, 50), 2),
      audit50P99Ms: round(percentile(audits50, 99), 2),
    };
  } finally {
    await bot?.kill('SIGTERM');
    await slack.close();
    await database.drop();
  }
}
