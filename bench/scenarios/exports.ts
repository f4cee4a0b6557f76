import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { defaultSeed, startSandbox, type SandboxFirewallRule, type SandboxSeed } from '@vs-chatops/cloud-sandbox';
import { READS } from '../../src/cloud/reads';
import { openPostgresStore } from '../../src/store/postgres';
import { BOT_TOKEN, SIGNING_SECRET } from '../../test/helpers/app-harness';
import { buttonClick, FORM, interactiveBody, slashCommandBody } from '../../test/helpers/payloads';
import { createTestDatabase } from '../../test/helpers/postgres';
import { postToSlackEndpoint } from '../../test/helpers/signed-requests';
import { startSlackFake } from '../../test/helpers/slack-fake';
import { spawnBot, type SpawnedBot } from '../../test/helpers/spawned-bot';
import { percentile, round } from '../stats';
import { ADMIN, seedAuditRecords } from './app-home';

// Scenario 14: Export CSV and /vs audit's filter (docs/product.md, Long lists; Audit). One bot process, as production
// runs it, on a PostgreSQL holding `records` audit records (seeded as scenario 10 seeds them, over 1,000 servers) and
// a sandbox with one server of `rules` firewall rules. An admin clicks Export CSV of that server's rules, then of the
// whole audit trail (cut at 10,000 rows), one click at a time; the figure is the time from sending the signed click
// to the stand-in taking files.completeUploadExternal (the file shared in their DM: conversations.open, the upload
// URL asked for, the bytes posted, the upload completed), and the bot's RSS growth, sampled every 50 ms after
// unmeasured warm-up exports: what one export takes (its peak over the RSS just before it, the largest of the
// clicks: the target's figure), and over the clicks together (their garbage, collected when V8 runs a full
// collection, included). Then `/vs audit vs <id>` typed one at a time: from the signed command to its answer at its
// response_url, served by audit_records (target, id).

export interface ExportsLoad {
  rules: number;
  records: number;
  exports: number;
  audits: number;
}

export interface ExportFigures {
  exports: number;
  rows: number;
  p50Ms: number;
  p99Ms: number;
  /** The most one export took: the peak RSS while it ran over the RSS just before it, in MB (the largest of the clicks). */
  rssGrowthMb: number;
  /** Over the clicks together: the peak RSS over the RSS before the first (garbage waiting for a full collection included). */
  rssGrowthOverAllMb: number;
}

export interface ExportsFigures {
  records: number;
  firewall: ExportFigures;
  audit: ExportFigures;
  auditVs: { commands: number; p50Ms: number; p99Ms: number };
}

/** The server whose rules are exported. */
const BIG_VS = 4242;
const WARMUP_EXPORTS = 2;
const WARMUP_AUDITS = 20;

/** The default seed, and a server of `count` rules over four interfaces. */
function seedWithRules(count: number): SandboxSeed {
  const seed = defaultSeed();
  const at = new Date('2026-01-01T00:00:00Z').toISOString();
  const firewallRules = Array.from({ length: count }, (_, i): SandboxFirewallRule => ({
    id: 100_000 + i,
    identifier: `bench${i}`,
    network_interface_id: 1 + (i % 4),
    position: 1 + Math.floor(i / 4),
    address: i % 3 === 0 ? null : `198.51.${Math.floor(i / 250) % 250}.${i % 250}/32`,
    port: String(1 + (i % 65_000)),
    protocol: i % 5 === 0 ? 'UDP' : 'TCP',
    command: i % 7 === 0 ? 'DROP' : 'ACCEPT',
    created_at: at,
    updated_at: at,
    description: i % 2 === 0 ? `rule ${i}, from the bench` : null,
    destination_ip: null,
    enable_logging: i % 11 === 0,
    enabled: true,
    firewall_service_id: null,
    source_port: null,
  }));
  // One of the seed's servers, again, under another id and with the rules.
  const [model] = seed.servers;
  if (!model) throw new Error('the sandbox seed holds no server');
  seed.servers.push({ ...model, id: BIG_VS, label: 'bench-exports', firewallRules, autoscaling: [], disks: [] });
  return seed;
}

/** Resident set size of a process, in bytes (Linux /proc). */
function rssBytes(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Number.isFinite(kb) ? kb * 1024 : 0;
}

/** `serverUrl`: a PostgreSQL server (its maintenance database); the scenario makes a database of its own there. */
export async function runExports(serverUrl: string, load: ExportsLoad, progress: (message: string) => void): Promise<ExportsFigures> {
  let bot: SpawnedBot | undefined;
  const slack = await startSlackFake();
  const sandbox = await startSandbox({ reads: READS, port: 0, seed: seedWithRules(load.rules) });
  const database = await createTestDatabase(serverUrl);
  try {
    const url = database.url;
    await (await openPostgresStore(url)).close();
    progress(`14. seeding ${load.records.toLocaleString('en')} audit records and a server of ${load.rules.toLocaleString('en')} firewall rules`);
    await seedAuditRecords(url, load.records);
    bot = await spawnBot(
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        VS_API_URL: sandbox.url,
        VS_ACCOUNT_ID: sandbox.accountId,
        VS_API_KEY: sandbox.apiKey,
        DATABASE_URL: url,
        VS_ADMINS: ADMIN,
        LOG_LEVEL: 'warn',
        // One admin clicks every export and types every command: the bench measures the bot, not the per-person limit.
        VS_READS_PER_USER_PER_MINUTE: '1000000',
      },
      { readyTimeoutMs: 40_000, nodeArgs: ['--max-semi-space-size=32'] },
    );
    const { eventsUrl } = bot;
    const pid = bot.child.pid!;

    let clicks = 0;
    /** One Export CSV click: the time from the signed click to the file shared, and the rows of the file. */
    const exportOnce = async (actionId: string, value: string): Promise<{ ms: number; rows: number }> => {
      const before = slack.callsTo('files.completeUploadExternal').length;
      const payload = buttonClick({ user: ADMIN, channel: 'CBENCH', actionId, value, responseUrl: slack.responseUrl(`export-${++clicks}`) });
      const sent = performance.now();
      const res = await postToSlackEndpoint(eventsUrl, SIGNING_SECRET, interactiveBody(payload), FORM);
      if (res.status !== 200) throw new Error(`${actionId} was answered HTTP ${res.status}`);
      const call = (await slack.waitForCalls('files.completeUploadExternal', before + 1, 20_000))[before]!;
      const ms = performance.now() - sent;
      if (!call.ok) throw new Error(`the export was not shared: ${call.error ?? 'refused'}`);
      const fileId = (call.args.files as { id: string }[])[0]!.id;
      const bytes = slack.state.files.get(fileId)?.bytes;
      const rows = bytes ? bytes.toString('utf8').split('\r\n').length - 2 : 0;
      return { ms, rows };
    };
    const exportsOf = async (what: string, actionId: string, value: string): Promise<ExportFigures> => {
      progress(`14. Export CSV of ${what}: ${load.exports} clicks, one at a time`);
      for (let i = 0; i < WARMUP_EXPORTS; i++) await exportOnce(actionId, value);
      const before = rssBytes(pid);
      let peak = before;
      let exportPeak = before;
      const sampler = setInterval(() => {
        const now = rssBytes(pid);
        peak = Math.max(peak, now);
        exportPeak = Math.max(exportPeak, now);
      }, 50);
      const latencies: number[] = [];
      let rows = 0;
      let mostForOne = 0;
      try {
        for (let i = 0; i < load.exports; i++) {
          const start = rssBytes(pid);
          exportPeak = start;
          const done = await exportOnce(actionId, value);
          exportPeak = Math.max(exportPeak, rssBytes(pid));
          mostForOne = Math.max(mostForOne, exportPeak - start);
          latencies.push(done.ms);
          rows = done.rows;
        }
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssBytes(pid));
      return {
        exports: latencies.length,
        rows,
        p50Ms: round(percentile(latencies, 50), 1),
        p99Ms: round(percentile(latencies, 99), 1),
        rssGrowthMb: round(mostForOne / 1024 / 1024, 1),
        rssGrowthOverAllMb: round((peak - before) / 1024 / 1024, 1),
      };
    };
    const firewall = await exportsOf(`VS ${BIG_VS}'s ${load.rules.toLocaleString('en')} firewall rules`, 'firewall_export', String(BIG_VS));
    const audit = await exportsOf('the audit trail (cut at 10,000 rows)', 'audit_export', '{}');

    let commands = 0;
    /** `/vs audit vs <id>` typed by the admin: the time from sending it to its answer at its response_url. */
    const auditVs = async (vsId: number): Promise<number> => {
      const id = `audit-${++commands}`;
      const body = slashCommandBody({ text: `audit vs ${vsId}`, user: ADMIN, channel: 'CBENCH', responseUrl: slack.responseUrl(id) });
      const sent = performance.now();
      const res = await postToSlackEndpoint(eventsUrl, SIGNING_SECRET, body, FORM);
      if (res.status !== 200) throw new Error(`/vs audit vs ${vsId} was answered HTTP ${res.status}`);
      const arrived = await slack.arrival(id, 10_000);
      if (!arrived) throw new Error(`/vs audit vs ${vsId} got no answer`);
      const answer = JSON.stringify(slack.responses.find((r) => r.id === id)?.body);
      if (!answer.includes(`records · VS ${vsId} · page 1 of`)) throw new Error(`/vs audit vs ${vsId} did not list its records: ${answer.slice(0, 200)}`);
      return arrived.at - sent;
    };
    progress(`14. /vs audit vs <id> typed ${load.audits} times, one at a time`);
    // The seeded records are about VS 0…999: a different server each time, so that no page of the index stays warm for the next.
    for (let i = 0; i < WARMUP_AUDITS; i++) await auditVs(1 + ((i * 37) % 999));
    const latencies: number[] = [];
    for (let i = 0; i < load.audits; i++) latencies.push(await auditVs(1 + ((i * 53) % 999)));
    return {
      records: load.records,
      firewall,
      audit,
      auditVs: { commands: latencies.length, p50Ms: round(percentile(latencies, 50), 2), p99Ms: round(percentile(latencies, 99), 2) },
    };
  } finally {
    await bot?.kill('SIGTERM');
    await sandbox.close();
    await slack.close();
    await database.drop();
  }
}
