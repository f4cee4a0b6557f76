import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startSandbox } from '@vs-chatops/cloud-sandbox';
import * as faults from '../../test/helpers/cloud-fault-server';
import { FORM, input, buttonClick, interactiveBody, slashCommandBody, viewSubmission, type StateValue } from '../../test/helpers/payloads';
import { postToSlackEndpoint } from '../../test/helpers/signed-requests';
import { startSlackFake, type SlackFake } from '../../test/helpers/slack-fake';
import { spawnBot, type SpawnedBot } from '../../test/helpers/spawned-bot';
import { judgeMemory, type MemorySample, type MemoryVerdict } from './memory';
import { READS } from '../../src/cloud/reads';

// The soak: the real bot as a process (`node --import tsx src/main.ts`, HTTP
// mode), a loopback Slack fake, and a cloud API that is the sandbox behind a
// fault injector. Virtual users type read commands, page through firewall
// rules, add disks and restore backups while the cloud API and Slack fail now
// and then. Every outcome a user would see is classified; an outcome that no
// injected fault explains (no answer, a 5xx, a stack trace, "something went
// wrong on our side", an error logged as unhandled, the process dying) is an
// unexplained error. The bot's RSS is sampled from outside the process, and
// its heap after a forced GC through a probe preloaded into it (memory.ts).

export interface SoakOptions {
  seconds: number;
  /** Virtual users acting at once. */
  users: number;
  /** Share of cloud API requests that get a fault, 0..1. */
  faultRate: number;
  /** How often memory is sampled and a progress line printed. */
  sampleEverySeconds: number;
  log?: (line: string) => void;
}

export const DEFAULT_SOAK: SoakOptions = { seconds: 120, users: 6, faultRate: 0.08, sampleEverySeconds: 5 };

type Kind = 'read' | 'page' | 'change' | 'restore';

export interface SoakReport {
  seconds: number;
  requests: number;
  byKind: Record<Kind, number>;
  /** Outcomes users saw, by what they were: ok, and each explained error kind. */
  outcomes: Record<string, number>;
  /** Outcomes nothing explains, with a few examples. */
  unexplained: { count: number; examples: string[] };
  faultsInjected: number;
  latencyMs: { p50: number; p99: number; max: number };
  memorySamples: MemorySample[];
  memory: MemoryVerdict;
  verdict: { ok: boolean; reasons: string[] };
}

const SECRET = 'soak-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-soak-bot-token-0123456789';
const API_KEY = 'soak-cloud-api-key-0123456789';

/** Messages of docs/product.md, Errors the user sees (and Slack-side refusals): explained when a fault was injected. */
const EXPLAINED: [string, RegExp][] = [
  ['cloud_timeout', /did not answer within/],
  ['cloud_failed', /The cloud API failed/],
  ['cloud_rate_limited', /rate-limiting requests/],
  ['cloud_refused', /The cloud API refused/],
  ['cloud_rejected', /The cloud API rejected/],
  ['target_busy', /in progress; wait until it has finished/],
  ['modal_not_opened', /Could not open the form/],
];
const UNEXPLAINED = /Something went wrong on our side|\n\s+at |node_modules|\.ts:\d+/;

export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const options: SoakOptions = { ...DEFAULT_SOAK, ...partial };
  const log = options.log ?? ((line: string) => process.stdout.write(line + '\n'));
  const dir = mkdtempSync(join(tmpdir(), 'vs-soak-'));
  const sandbox = await startSandbox({ reads: READS, port: 0, apiKey: API_KEY });
  const cloud = await faults.startCloudFaultServer({ upstream: sandbox.url });
  const slack = await startSlackFake();
  let bot: SpawnedBot | undefined;

  const outcomes: Record<string, number> = {};
  const unexplained: string[] = [];
  const latencies: number[] = [];
  const byKind: Record<Kind, number> = { read: 0, page: 0, change: 0, restore: 0 };
  const memorySamples: MemorySample[] = [];
  let requests = 0;
  let injected = 0;
  const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
  const unexplain = (what: string) => {
    count('unexplained');
    if (unexplained.length < 20) unexplained.push(what.slice(0, 300));
  };

  // The cloud API fails now and then, in every way the reliability tests know.
  const menu: faults.FaultHandler[] = [
    faults.body(500, '{"errors":["internal error"]}'),
    faults.body(503, '<html><body>Service Unavailable</body></html>', { 'content-type': 'text/html' }),
    faults.garbageJson,
    faults.truncatedJson,
    faults.resetBeforeAnswer,
    faults.resetMidBody,
    faults.rateLimited(60),
    faults.multiStatus,
    faults.huge(6 * 1024 * 1024, false),
    faults.trickle(200),
    faults.hang,
  ];
  const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
  cloud.handle((req, res, index) => {
    if (Math.random() < options.faultRate) {
      injected += 1;
      return pick(menu)(req, res, index);
    }
    return faults.forward(sandbox.url, req, res);
  });
  // …and so does Slack, a little.
  slack.on('views.open', () => (Math.random() < options.faultRate / 2 ? { body: { ok: false, error: 'expired_trigger_id' } } : undefined));

  try {
    bot = await spawnBot(
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
        VS_API_URL: cloud.url,
        VS_ACCOUNT_ID: sandbox.accountId,
        VS_API_KEY: API_KEY,
        VS_API_TIMEOUT_MS: '1500',
        VS_DB_PATH: join(dir, 'audit.sqlite'),
        VS_OPERATORS: 'UOPER1,UOPER2,UOPER3',
        VS_ADMINS: 'UADMIN',
        VS_AUDIT_CHANNEL: 'CAUDIT',
        LOG_LEVEL: 'warn',
        // Six virtual users read and change far faster than people do; the soak is not about the per-person limits.
        VS_READS_PER_USER_PER_MINUTE: '1000000',
        VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
      },
      { nodeArgs: ['--expose-gc', '--require', join(__dirname, 'heap-probe.cjs')] },
    );
    const pid = bot.child.pid!;
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    const probe = heapProbe(bot);
    const sample = async () => {
      const at = Math.round((Date.now() - started) / 1000);
      const rssNow = rssMb(pid);
      const heapAfterGcMb = await probe();
      memorySamples.push({ at, rssMb: rssNow, ...(heapAfterGcMb !== undefined ? { heapAfterGcMb } : {}) });
      return { at, rssNow, heapAfterGcMb };
    };
    await sample();

    const sampler = setInterval(() => {
      void sample().then(({ at, rssNow, heapAfterGcMb }) => {
        const p = percentiles(latencies);
        log(
          `[soak] ${at}s requests=${requests} unexplained=${outcomes.unexplained ?? 0} faults=${injected} ` +
            `p99=${p.p99}ms rss=${rssNow}MB heap-after-gc=${heapAfterGcMb ?? '?'}MB`,
        );
      });
    }, options.sampleEverySeconds * 1000);

    const answerAt = (id: string, timeoutMs: number) => waitFor(slack, (s) => s.responses.find((r) => r.id === id)?.body, timeoutMs);
    let seq = 0;

    const user = async (n: number) => {
      while (Date.now() < deadline) {
        const roll = Math.random();
        const kind: Kind = roll < 0.55 ? 'read' : roll < 0.7 ? 'page' : roll < 0.92 ? 'change' : 'restore';
        byKind[kind] += 1;
        requests += 1;
        const id = `s${n}x${++seq}`;
        const t0 = Date.now();
        try {
          let seen: unknown;
          if (kind === 'read') {
            const text = pick([
              'firewall 42',
              'firewall 45',
              'autoscaling 42',
              'as 44',
              'templates',
              'templates centos',
              'whoami',
              'firewall 999',
              'firewall x',
            ]);
            const ack = await postToSlackEndpoint(
              bot!.eventsUrl,
              SECRET,
              slashCommandBody({ text, user: `UVIEW${n}`, channel: 'CSOAK', responseUrl: slack.responseUrl(id) }),
              FORM,
            );
            if (ack.status !== 200) throw new Error(`ack HTTP ${ack.status}`);
            seen = await answerAt(id, 6000);
          } else if (kind === 'page') {
            const ack = await postToSlackEndpoint(
              bot!.eventsUrl,
              SECRET,
              interactiveBody(
                buttonClick({
                  user: `UVIEW${n}`,
                  channel: 'CSOAK',
                  actionId: 'firewall_page_next',
                  value: `45:${2 + (seq % 10)}`,
                  responseUrl: slack.responseUrl(id),
                }),
              ),
              FORM,
            );
            if (ack.status !== 200) throw new Error(`ack HTTP ${ack.status}`);
            seen = await answerAt(id, 6000);
          } else {
            // The form is opened by the command (views.open may fail), then submitted.
            const restore = kind === 'restore';
            const userId = restore ? 'UADMIN' : pick(['UOPER1', 'UOPER2', 'UOPER3']);
            const triggerId = `trigger.${id}`;
            const text = restore ? `backup restore ${pick([9, 10, 11])}` : `disk add ${pick([42, 43, 44, 46])}`;
            const ack = await postToSlackEndpoint(
              bot!.eventsUrl,
              SECRET,
              slashCommandBody({ text, user: userId, channel: 'CSOAK', responseUrl: slack.responseUrl(id), triggerId: triggerId }),
              FORM,
            );
            if (ack.status !== 200) throw new Error(`ack HTTP ${ack.status}`);
            const opened = await waitFor(
              slack,
              (s) => s.responses.find((r) => r.id === id)?.body ?? s.calls.find((c) => c.method === 'views.open' && c.args.trigger_id === triggerId)?.args.view,
              6000,
            );
            const view = opened as { callback_id?: string; private_metadata?: string };
            if (!view.callback_id) {
              seen = opened; // the user was told the form could not open
            } else {
              const fields: Record<string, StateValue> = restore
                ? { confirm: input.text(text.split(' ').pop()!), reason: input.text('soak') }
                : {
                    disk_type: input.select('SSD'),
                    disk_size: input.number(String(1 + (seq % 50))),
                    label: input.text(`soak ${id}`),
                    require_format_disk: input.check(false),
                  };
              const res = await postToSlackEndpoint(
                bot!.eventsUrl,
                SECRET,
                interactiveBody(
                  viewSubmission({ callbackId: view.callback_id, viewId: `V${id}`, user: userId, privateMetadata: view.private_metadata ?? '{}', fields }),
                ),
                FORM,
              );
              if (res.status !== 200) throw new Error(`submission HTTP ${res.status}`);
              seen = res.body ? res.json() : {};
            }
          }
          latencies.push(Date.now() - t0);
          classify(JSON.stringify(seen));
        } catch (error) {
          latencies.push(Date.now() - t0);
          unexplain(`${kind}: ${(error as Error).message}`);
        }
      }
    };

    const classify = (text: string) => {
      if (UNEXPLAINED.test(text)) return unexplain(text);
      for (const [name, pattern] of EXPLAINED) if (pattern.test(text)) return count(name);
      count('ok');
    };

    await Promise.all(Array.from({ length: options.users }, (_, n) => user(n)));
    clearInterval(sampler);
    await sample();

    // The bot's own account of trouble: anything logged as unhandled is unexplained.
    for (const line of bot.output().split('\n')) {
      if (/unhandled (rejection|error)|uncaught/i.test(line)) unexplain(`bot log: ${line}`);
    }
    if (bot.child.exitCode !== null || bot.child.signalCode !== null) unexplain('the bot process died');

    const errorsShown = Object.entries(outcomes)
      .filter(([k]) => k.startsWith('cloud_'))
      .reduce((n, [, v]) => n + v, 0);
    const reasons: string[] = [];
    const unexplainedCount = outcomes.unexplained ?? 0;
    if (unexplainedCount > 0) reasons.push(`${unexplainedCount} unexplained error(s)`);
    // Every cloud error a user saw must come from an injected fault (single-flight may share one among readers).
    if (errorsShown > 0 && injected === 0) reasons.push('cloud errors were shown though no fault was injected');

    const memory = judgeMemory(memorySamples, options.seconds);
    if (memory.judged && !memory.flat) reasons.push(`the heap after GC grew ${memory.heapAfterGcMb.growth} MB`);
    const report: SoakReport = {
      seconds: options.seconds,
      requests,
      byKind,
      outcomes,
      unexplained: { count: unexplainedCount, examples: unexplained },
      faultsInjected: injected,
      latencyMs: percentiles(latencies),
      memorySamples,
      memory,
      verdict: { ok: reasons.length === 0, reasons },
    };
    return report;
  } finally {
    await bot?.kill('SIGTERM');
    await cloud.close();
    await sandbox.close();
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function waitFor<T>(slack: SlackFake, find: (s: SlackFake) => T | undefined, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const found = find(slack);
      if (found !== undefined) return resolve(found);
      if (Date.now() - started > timeoutMs) return reject(new Error(`no answer within ${timeoutMs} ms`));
      setTimeout(tick, 10);
    };
    tick();
  });
}

/** Resident set size of a process, in MB, read from outside it. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    if (Number.isFinite(kb)) return Math.round(kb / 1024);
  } catch {
    // not Linux
  }
  try {
    return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024);
  } catch {
    return 0;
  }
}

function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

/**
 * Asks the bot's heap probe (SIGUSR2) for its heap after a forced GC and
 * reads the answer from its stderr; undefined if none comes within a second.
 */
function heapProbe(bot: SpawnedBot): () => Promise<number | undefined> {
  let seen = 0;
  return async () => {
    const before = bot.output().length;
    bot.child.kill('SIGUSR2');
    for (let waited = 0; waited < 1000; waited += 20) {
      const lines = bot
        .output()
        .slice(Math.max(before, seen))
        .match(/\[heap-probe\] (\{.*\})/g);
      if (lines && lines.length > 0) {
        seen = bot.output().length;
        const last = JSON.parse(lines[lines.length - 1]!.slice('[heap-probe] '.length)) as { heapUsedMb: number };
        return last.heapUsedMb;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return undefined;
  };
}
