import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { defaultSeed, startSandbox, type SandboxFirewallRule, type SandboxSeed } from '@vs-chatops/cloud-sandbox';
import { firewallPreviewText } from '../../src/slack/blocks/firewall-rule';
import { firewallRisk, previewFirewallRule, type FirewallAddParams } from '../../src/changes/firewall-changes';
import { READS } from '../../src/cloud/reads';
import type { FirewallRule } from '../../src/cloud/schemas';
import { BOT_TOKEN, SIGNING_SECRET } from '../../test/helpers/app-harness';
import { newViewId } from '../../test/helpers/drive';
import { input, viewSubmission, type StateValue } from '../../test/helpers/payloads';
import { startSlackFake } from '../../test/helpers/slack-fake';
import { spawnBot, type SpawnedBot } from '../../test/helpers/spawned-bot';
import { BOT_NODE_FLAGS } from '../launch-targets';
import { percentile, round } from '../stats';

// Scenarios 21 and 22: more of the control panel (docs/product.md), the firewall forms and the three changes.
//
// 21. What a new rule would do, on a server of `rules` firewall rules on one network interface (the worst case: the
//     preview walks only the rules of the rule's interface): the pure engine the form uses (previewFirewallRule and its
//     sentence, as `/vs firewall block|allow` computes them), timed call by call in the bench process for four kinds of
//     rule (one address on one port; every address on a list of ports; a CIDR block on every port, which asks about
//     every port the other rules name, up to 20; a range of addresses on a port range), `previews` calls each after a
//     warm-up. Beside it, the form's open through the real bot process: `/vs firewall block` typed, to Slack's
//     views.open, on that server and on VS 42 (8 rules), `forms` times each: the rules' read and the preview included.
//
// 22. The change path of backup_take, firewall_add and firewall_remove beside power reboot's, in the same run on the
//     same bot process (SQLite, as `npm start` runs it), the cloud answering at once and its transactions ending within
//     a few tens of ms: for each change, `changes` times in rotating order, the form opened by its command (not timed),
//     then the submission timed to its ack (the outcome shown in the form), and to the change's message in the channel
//     (the first post of the change, which its follow then keeps up to date).

export interface FirewallLoad {
  rules: number;
  previews: number;
  forms: number;
  changes: number;
}

export interface PreviewFigures {
  rules: number;
  previewsEach: number;
  /** p50 / p99 of one preview computed (engine and sentence), ms, per kind of rule. */
  oneAddressOnePort: { p50Ms: number; p99Ms: number };
  everyAddressPortList: { p50Ms: number; p99Ms: number };
  cidrEveryPort: { p50Ms: number; p99Ms: number };
  rangeOnPortRange: { p50Ms: number; p99Ms: number };
  /** The highest p99 of the four. */
  worstP99Ms: number;
  /** `/vs firewall block` typed → views.open, through the bot process. */
  formOpen: { forms: number; bigP50Ms: number; bigP99Ms: number; smallP50Ms: number; smallP99Ms: number };
}

export interface ChangeFigures {
  changes: number;
  /** Submissions the bot answered with the outcome "Scheduled" (each must be). */
  scheduled: number;
  ackP50Ms: number;
  ackP99Ms: number;
  /** Submission → the change's message in the channel. */
  postedP50Ms: number;
  postedP99Ms: number;
}

export interface PanelChangesFigures {
  changesEach: number;
  /** Commands answered instead of opening their form (a server still locked by its last change), typed again. */
  formsTypedAgain: number;
  powerReboot: ChangeFigures;
  backupTake: ChangeFigures;
  firewallAdd: ChangeFigures;
  firewallRemove: ChangeFigures;
}

export interface FirewallFigures {
  firewallPreview: PreviewFigures;
  panelChanges: PanelChangesFigures;
}

const ADMIN = 'UBENCHFW';
const CHANNEL = 'CBENCHFW';
/** The server of `rules` rules (21), the one rules are added to and the one they are removed from (22). */
const BIG_VS = 4250;
const ADD_VS = 4251;
const REMOVE_VS = 4252;
const REMOVABLE_FIRST_ID = 500_000;
const WARMUP_PREVIEWS = 30;
const WARMUP_FORMS = 2;
const WARMUP_CHANGES = 5;

const stamp = new Date('2026-01-01T00:00:00Z').toISOString();

/** `count` rules on one network interface: addresses, CIDR blocks and ranges; ports, lists and ranges; mostly ACCEPT. */
function manyRules(count: number, firstId: number, nic: number): SandboxFirewallRule[] {
  return Array.from({ length: count }, (_, i): SandboxFirewallRule => {
    const address =
      i % 4 === 0
        ? `198.51.${Math.floor(i / 250) % 250}.${i % 250}`
        : i % 4 === 1
          ? `10.${Math.floor(i / 250) % 250}.${i % 250}.0/24`
          : i % 4 === 2
            ? `192.0.2.${i % 200}-192.0.2.${(i % 200) + 20}`
            : null;
    const port =
      i % 3 === 0 ? String(1024 + (i % 60_000)) : i % 3 === 1 ? `${2000 + (i % 500)},${3000 + (i % 500)}` : `${4000 + (i % 500)}:${4100 + (i % 500)}`;
    return {
      id: firstId + i,
      identifier: `benchfw${firstId + i}`,
      network_interface_id: nic,
      position: 1 + i,
      address,
      port,
      protocol: i % 5 === 0 ? 'UDP' : 'TCP',
      command: i % 7 === 0 ? 'DROP' : 'ACCEPT',
      created_at: stamp,
      updated_at: stamp,
      description: i % 2 === 0 ? `rule ${i}, from the bench` : null,
      destination_ip: null,
      enable_logging: false,
      enabled: true,
      firewall_service_id: null,
      source_port: null,
    };
  });
}

/** The default seed and three more servers (copies of its first): `rules` rules, 20 rules, and 20 + as many as will be removed. */
function seedFor(load: FirewallLoad): SandboxSeed {
  const seed = defaultSeed();
  const [model] = seed.servers;
  if (!model) throw new Error('the sandbox seed holds no server');
  const server = (id: number, label: string, firewallRules: SandboxFirewallRule[]) => ({
    ...model,
    id,
    identifier: `benchfw${id}`,
    label,
    hostname: `${label}.bench.example`,
    ip_addresses: [],
    firewallRules,
    autoscaling: [],
    disks: [],
  });
  seed.servers.push(
    server(BIG_VS, 'bench-firewall-big', manyRules(load.rules, 100_000, 1)),
    server(ADD_VS, 'bench-firewall-add', manyRules(20, 400_000, 2)),
    server(REMOVE_VS, 'bench-firewall-remove', manyRules(20 + WARMUP_CHANGES + load.changes, REMOVABLE_FIRST_ID, 3)),
  );
  return seed;
}

const figures = (samples: readonly number[]) => ({ p50Ms: round(percentile(samples, 50), 3), p99Ms: round(percentile(samples, 99), 3) });

type RuleAsked = Pick<FirewallAddParams, 'network_interface_id' | 'command' | 'address' | 'port' | 'protocol'>;

/** 21a: the preview as the form computes it (its engine, its sentence, the risk check), timed call by call. */
function previewTimes(load: FirewallLoad): Omit<PreviewFigures, 'formOpen'> {
  // The rules as the cloud client hands them over (blank address and port read as null).
  const rules: FirewallRule[] = manyRules(load.rules, 100_000, 1).map((r) => ({ ...r, address: r.address || null, port: r.port || null }));
  const kinds: Record<'oneAddressOnePort' | 'everyAddressPortList' | 'cidrEveryPort' | 'rangeOnPortRange', RuleAsked> = {
    oneAddressOnePort: { network_interface_id: 1, command: 'DROP', address: '203.0.113.5', port: '443', protocol: 'TCP' },
    everyAddressPortList: { network_interface_id: 1, command: 'ACCEPT', address: '', port: '80,443,8080', protocol: 'TCP' },
    cidrEveryPort: { network_interface_id: 1, command: 'DROP', address: '198.51.100.0/24', port: '', protocol: 'TCP' },
    rangeOnPortRange: { network_interface_id: 1, command: 'DROP', address: '192.0.2.1-192.0.2.10', port: '1024:2048', protocol: 'UDP' },
  };
  let sink = 0;
  const once = (rule: RuleAsked): number => {
    // Fresh objects each time, as each read of the cloud hands over: nothing read of them before is kept (the engine
    // reads each rule object once), so the rules' parse is in every figure.
    const read = rules.map((r) => ({ ...r }));
    const t = performance.now();
    const text = firewallPreviewText(rule, previewFirewallRule(read, rule));
    sink += text.length + (firewallRisk(rule) === null ? 0 : 1);
    return performance.now() - t;
  };
  const times = {} as Record<keyof typeof kinds, number[]>;
  for (const name of Object.keys(kinds) as (keyof typeof kinds)[]) times[name] = [];
  for (let i = 0; i < Math.min(WARMUP_PREVIEWS, load.previews); i++) for (const rule of Object.values(kinds)) once(rule);
  // Interleaved: a slow spell of the shared machine hits every kind alike.
  for (let i = 0; i < load.previews; i++) for (const name of Object.keys(kinds) as (keyof typeof kinds)[]) times[name].push(once(kinds[name]));
  if (sink === 0) throw new Error('the previews said nothing');
  const each = {
    oneAddressOnePort: figures(times.oneAddressOnePort),
    everyAddressPortList: figures(times.everyAddressPortList),
    cidrEveryPort: figures(times.cidrEveryPort),
    rangeOnPortRange: figures(times.rangeOnPortRange),
  };
  return { rules: load.rules, previewsEach: load.previews, ...each, worstP99Ms: Math.max(...Object.values(each).map((f) => f.p99Ms)) };
}

interface Opened {
  view: { private_metadata: string; callback_id: string };
  ms: number;
}

export async function runFirewall(load: FirewallLoad, progress: (message: string) => void): Promise<FirewallFigures> {
  progress(`21. the preview of a new firewall rule over ${load.rules.toLocaleString('en')} rules, ${load.previews} of each of four kinds`);
  const preview = previewTimes(load);

  const dir = mkdtempSync(join(tmpdir(), 'vs-bench-firewall-'));
  const slack = await startSlackFake();
  // Transactions end within tens of ms: a server is unlocked again before its next change comes round.
  const sandbox = await startSandbox({ reads: READS, port: 0, seed: seedFor(load), transactionMs: { pending: 5, running: 20 } });
  let bot: SpawnedBot | undefined;
  try {
    bot = await spawnBot(
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        VS_API_URL: sandbox.url,
        VS_ACCOUNT_ID: sandbox.accountId,
        VS_API_KEY: sandbox.apiKey,
        VS_DB_PATH: join(dir, 'bench.sqlite'),
        VS_ADMINS: ADMIN,
        VS_FOLLOW_INTERVAL_S: '1',
        LOG_LEVEL: 'warn',
        // One admin does everything: the bench measures the bot, not the per-person limits.
        VS_READS_PER_USER_PER_MINUTE: '1000000',
        VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
      },
      { readyTimeoutMs: 40_000, nodeArgs: [...BOT_NODE_FLAGS] },
    );
    const spawned = bot;
    let commands = 0;

    let refusals = 0;
    /**
     * `/vs <text>` typed with a trigger id, to the form Slack is asked to open (its time: command → views.open). A
     * command answered instead (the server still locked by its last change's transaction: the form is not opened on a
     * busy server) is typed again a little later, up to 100 times; the times of those tries are not kept.
     */
    const open = async (text: string): Promise<Opened> => {
      let said = '';
      for (let attempt = 0; attempt < 100; attempt++) {
        const id = `fw-${++commands}`;
        const triggerId = `trigger.benchfw.${commands}`;
        const before = slack.callsTo('views.open').length;
        const sent = performance.now();
        const ack = await spawned.command(text, { user: ADMIN, channel: CHANNEL, responseUrl: slack.responseUrl(id), triggerId });
        if (ack.status !== 200) throw new Error(`"/vs ${text}" was answered HTTP ${ack.status}`);
        const started = performance.now();
        for (;;) {
          const call = slack
            .callsTo('views.open')
            .slice(before)
            .find((c) => c.args.trigger_id === triggerId);
          if (call) {
            if (!call.ok) throw new Error(`"/vs ${text}" opened no form: ${call.error ?? 'refused'}`);
            return { view: call.args.view as Opened['view'], ms: performance.now() - sent };
          }
          const answer = slack.responses.find((r) => r.id === id);
          if (answer) {
            said = JSON.stringify(answer.body).slice(0, 300);
            break;
          }
          if (performance.now() - started > 20_000) throw new Error(`"/vs ${text}" was neither answered nor opened a form within 20 s`);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        refusals++;
        if (process.env.VS_BENCH_DEBUG) process.stderr.write(`typed again: /vs ${text}: ${said}\n`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`"/vs ${text}" opened no form in 100 tries; the last answer: ${said}`);
    };

    progress(`21. /vs firewall block → its form, ${load.forms} times on a server of ${load.rules.toLocaleString('en')} rules and on one of 8`);
    const big: number[] = [];
    const small: number[] = [];
    const warmupForms = Math.min(WARMUP_FORMS, load.forms);
    for (let i = 0; i < warmupForms + load.forms; i++) {
      const bigOpen = await open(`firewall block ${BIG_VS} 203.0.113.5 443`);
      const smallOpen = await open('firewall block 42 203.0.113.5 443');
      if (i >= warmupForms) {
        big.push(bigOpen.ms);
        small.push(smallOpen.ms);
      }
    }
    const formOpen = {
      forms: load.forms,
      bigP50Ms: round(percentile(big, 50), 1),
      bigP99Ms: round(percentile(big, 99), 1),
      smallP50Ms: round(percentile(small, 50), 1),
      smallP99Ms: round(percentile(small, 99), 1),
    };

    progress(`22. the change path: power reboot, backup_take, firewall_add and firewall_remove, ${load.changes} each in rotating order`);
    const auth = `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}`;
    /**
     * Waits (untimed) until the cloud says the server is unlocked: its last change's transactions end within tens of
     * ms, but a change sent on a locked server is refused, and one of two requests (a rule removed, then the rules
     * applied) may be refused after the first was done, which no retry can mend.
     */
    const unlocked = async (vsId: number): Promise<void> => {
      for (let attempt = 0; attempt < 500; attempt++) {
        const res = await request(`${sandbox.url}/virtual_machines/${vsId}.json`, { headers: { authorization: auth } });
        const body = (await res.body.json()) as { virtual_machine?: { locked?: boolean } };
        if (!body.virtual_machine) throw new Error(`VS ${vsId} was read as ${JSON.stringify(body).slice(0, 200)}`);
        if (body.virtual_machine.locked !== true) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`VS ${vsId} stayed locked`);
    };
    const kinds = {
      powerReboot: {
        server: 44,
        command: () => 'reboot 44',
        fields: (): Record<string, StateValue> => ({ power_action: input.select('reboot'), confirm: input.text('44'), reason: input.text('bench') }),
      },
      backupTake: {
        server: 42,
        command: () => 'backup take 42',
        fields: (): Record<string, StateValue> => ({ disk_id: input.select('101'), note: input.text('bench'), reason: input.text('bench') }),
      },
      firewallAdd: {
        server: ADD_VS,
        command: (n: number) => `firewall block ${ADD_VS} 203.0.113.${1 + (n % 250)} ${1000 + n}`,
        fields: (n: number): Record<string, StateValue> => ({
          command: input.select('DROP'),
          address: input.text(`203.0.113.${1 + (n % 250)}`),
          port: input.text(String(1000 + n)),
          protocol: input.select('TCP'),
          confirm_risk: input.check(false),
          reason: input.text('bench'),
        }),
      },
      firewallRemove: {
        server: REMOVE_VS,
        command: (n: number) => `firewall remove ${REMOVE_VS} ${REMOVABLE_FIRST_ID + n}`,
        fields: (n: number): Record<string, StateValue> => ({ confirm: input.text(String(REMOVABLE_FIRST_ID + n)), reason: input.text('bench') }),
      },
    } as const;
    type Kind = keyof typeof kinds;
    const names = Object.keys(kinds) as Kind[];
    const acks = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
    const posted = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
    const scheduled = Object.fromEntries(names.map((k) => [k, 0])) as Record<Kind, number>;
    const channelPosts = () => slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts).length;

    const warmupChanges = Math.min(WARMUP_CHANGES, load.changes);
    for (let i = 0; i < warmupChanges + load.changes; i++) {
      // Rotated order: each change goes first in some rounds and last in others.
      const order = names.map((_, k) => names[(k + i) % names.length]!);
      for (const kind of order) {
        const { view } = await open(kinds[kind].command(i));
        await unlocked(kinds[kind].server);
        let before = channelPosts();
        let sent = performance.now();
        let ack: Awaited<ReturnType<typeof spawned.interact>> | undefined;
        // A form opens on a server its last change still locks (only the power forms read the lock first): the cloud
        // then refuses the submission as locked, and it is sent again a little later, untimed, up to 100 times.
        for (let attempt = 0; attempt < 100; attempt++) {
          const submission = viewSubmission({
            callbackId: view.callback_id,
            viewId: newViewId(),
            user: ADMIN,
            privateMetadata: view.private_metadata,
            fields: kinds[kind].fields(i),
          });
          before = channelPosts();
          sent = performance.now();
          ack = await spawned.interact(submission);
          if (ack.status !== 200) throw new Error(`the ${kind} form was answered HTTP ${ack.status}`);
          if (!/is locked/.test(ack.body)) break;
          refusals++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const outcome = ack!.body;
        const ok = /Scheduled/.test(outcome);
        if (!ok) throw new Error(`the ${kind} form was not scheduled: ${outcome.slice(0, 400)}`);
        const waitedFrom = performance.now();
        while (channelPosts() <= before) {
          if (performance.now() - waitedFrom > 20_000) throw new Error(`the ${kind} change was never posted in the channel`);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        const ms = performance.now() - sent;
        if (i >= warmupChanges) {
          acks[kind].push(ack!.ms);
          posted[kind].push(ms);
          scheduled[kind] += 1;
        }
      }
    }
    const changeFigures = (kind: Kind): ChangeFigures => ({
      changes: acks[kind].length,
      scheduled: scheduled[kind],
      ackP50Ms: round(percentile(acks[kind], 50), 2),
      ackP99Ms: round(percentile(acks[kind], 99), 2),
      postedP50Ms: round(percentile(posted[kind], 50), 2),
      postedP99Ms: round(percentile(posted[kind], 99), 2),
    });
    return {
      firewallPreview: { ...preview, formOpen },
      panelChanges: {
        changesEach: load.changes,
        formsTypedAgain: refusals,
        powerReboot: changeFigures('powerReboot'),
        backupTake: changeFigures('backupTake'),
        firewallAdd: changeFigures('firewallAdd'),
        firewallRemove: changeFigures('firewallRemove'),
      },
    };
  } finally {
    await bot?.kill();
    await sandbox.close();
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
