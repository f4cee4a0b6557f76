import type { FollowLoad } from './scenarios/follow';
import type { OnCallLoad } from './scenarios/on-call';
import type { WatchLoad } from './scenarios/watch';
import type { AgentsLoad } from './scenarios/agents';
import type { FirewallLoad } from './scenarios/firewall';

// How long and how hard each scenario runs: the full run (`npm run bench`,
// under 5 minutes on 2 cores) and the smoke run (`--smoke`, a few seconds,
// tiny load: it only proves every scenario still produces figures).

export interface BenchProfile {
  readonly mode: 'full' | 'smoke';
  /** `slices`: autocannon instances the rate is spread over (bench/load.ts, runPacedLoad). */
  readonly openLoop: { rate: number; seconds: number; upstreamDelayMs: number; connections: number; slices: number };
  readonly closedLoop: { connections: number; warmupSeconds: number; seconds: number; drainMs: number };
  readonly singleFlight: { commands: number; upstreamDelayMs: number };
  /** tinybench budget per task; side-by-side figures take `rounds` rounds of `roundIterations` calls per task (bench/side-by-side.ts). */
  readonly micro: { timeMs: number; warmupMs: number; rounds: number; roundIterations: number };
  /** The sustained load of the memory scenario: the open loop's rate in autocannon's per-second bursts. */
  readonly sustained: { rate: number; warmupSeconds: number; seconds: number; upstreamDelayMs: number; connections: number };
  /** Local mode: commands typed on the page, one after the other. */
  readonly localMode: { commands: number };
  /** Several instances on PostgreSQL (bench/scenarios/several-instances.ts). */
  readonly severalInstances: { changes: number; concurrency: number; deliveries: number; rate: number; seconds: number };
  /**
   * Scenario 8: unsigned hostile requests a second beside the open loop (which runs as in scenario 1), and
   * connections held with a stalled 1 MB body, each one the bot closes opened again `stalledReopenMs` later on average.
   */
  readonly hostile: { rate: number; stalledConnections: number; stalledReopenMs: number };
  /**
   * Scenario 17: one client holding `connections` slow connections (a byte every `trickleMs`), each the bot closes
   * opened again `reopenMs` later on average, beside the open loop (which runs as in scenario 1).
   */
  readonly slowClient: { connections: number; trickleMs: number; reopenMs: number };
  /** Scenario 11: one control-panel link unfurled in `unfurls` channels at once, the cloud API answering after `upstreamDelayMs`. */
  readonly unfurls: { unfurls: number; upstreamDelayMs: number };
  /**
   * Scenario 16: `commands` `/vs server` cards, `connections` at a time on different servers, then `sameServer` identical
   * `/vs server 45` at once, the cloud API answering after `upstreamDelayMs`.
   */
  readonly serverCard: { commands: number; connections: number; sameServer: number; upstreamDelayMs: number };
  readonly names: { coldLookups: number; connections: number; rounds: number; commandsPerRound: number };
  /**
   * Scenario 10: the Home tab opened `opens` times on a PostgreSQL holding `records` audit records, then `/vs audit` and
   * `/vs audit 50` typed `audits` times each (bench/scenarios/app-home.ts).
   */
  readonly appHome: { records: number; opens: number; audits: number };
  /** Scenario 13: approval clicks timed through the door on each store, and against the bot process (bench/scenarios/approval-clicks.ts). */
  readonly approvalClicks: { doorClicks: number; botClicks: number };
  /** Scenario 12: workflow read steps, `rate` a second for `seconds`, the cloud API answering after `upstreamDelayMs`. */
  readonly steps: { rate: number; seconds: number; upstreamDelayMs: number };
  /**
   * Scenario 14: `exports` Export CSV clicks of a server's `rules` firewall rules and of the audit trail on a PostgreSQL
   * holding `records` audit records, then `/vs audit vs <id>` typed `audits` times (bench/scenarios/exports.ts).
   */
  readonly exports: { rules: number; records: number; exports: number; audits: number };
  /**
   * Scenario 15: the power path through the door, followed, `doorChanges` times on each store; then `changes` changes
   * followed at once over three instances on PostgreSQL (the sandbox's transactions lasting `transactionMs`), beside
   * `/vs firewall` at `rate`/s for `seconds`, the cloud answering after `upstreamDelayMs` (bench/scenarios/follow.ts).
   */
  readonly follow: FollowLoad;
  /**
   * Scenario 19: `/vs firewall` at `rate`/s for `seconds` from `people` people whose role comes from on call, PagerDuty
   * answering after `pagerDutyDelayMs`; then `changes` changes followed to their end over three instances on
   * PostgreSQL, each a change event (bench/scenarios/on-call.ts).
   */
  readonly onCall: OnCallLoad;
  /**
   * Scenario 23: `watches` of the account's servers watched over `channels` channels; the watch's poll `rounds` times
   * in the bench process; then the bot reading the account every `intervalS`, `changes` changes behind its back, and
   * `/vs server web-1` in bursts of `commandsPerBurst` beside it (bench/scenarios/watch.ts).
   */
  readonly watch: WatchLoad;
  /**
   * Scenario 24: agents over MCP: `reads` server_status calls, `connections` at a time, the cloud API answering after
   * `upstreamDelayMs`; `sameServer` identical ones at once; `requests` request_power reboots (bench/scenarios/agents.ts).
   */
  readonly agents: AgentsLoad;
  /**
   * Scenarios 21 and 22: `previews` previews of each of four kinds of firewall rule over `rules` rules, and `forms`
   * firewall forms opened through the bot; then `changes` of each of power reboot, backup_take, firewall_add and
   * firewall_remove through the bot (bench/scenarios/firewall.ts).
   */
  readonly firewall: FirewallLoad;
}

export const FULL_PROFILE: BenchProfile = {
  mode: 'full',
  openLoop: { rate: 100, seconds: 20, upstreamDelayMs: 1500, connections: 10, slices: 10 },
  closedLoop: { connections: 50, warmupSeconds: 2, seconds: 8, drainMs: 15_000 },
  singleFlight: { commands: 50, upstreamDelayMs: 1500 },
  micro: { timeMs: 1500, warmupMs: 300, rounds: 100, roundIterations: 20 },
  sustained: { rate: 100, warmupSeconds: 5, seconds: 60, upstreamDelayMs: 1500, connections: 10 },
  localMode: { commands: 200 },
  severalInstances: { changes: 2000, concurrency: 8, deliveries: 50, rate: 100, seconds: 10 },
  hostile: { rate: 20, stalledConnections: 400, stalledReopenMs: 5000 },
  slowClient: { connections: 1000, trickleMs: 2000, reopenMs: 3000 },
  unfurls: { unfurls: 50, upstreamDelayMs: 1500 },
  serverCard: { commands: 20, connections: 2, sameServer: 50, upstreamDelayMs: 1500 },
  names: { coldLookups: 50, connections: 4, rounds: 6, commandsPerRound: 200 },
  appHome: { records: 100_000, opens: 300, audits: 300 },
  approvalClicks: { doorClicks: 500, botClicks: 200 },
  steps: { rate: 50, seconds: 10, upstreamDelayMs: 1500 },
  exports: { rules: 10_000, records: 100_000, exports: 20, audits: 300 },
  follow: {
    doorChanges: 500,
    changes: 200,
    rate: 100,
    seconds: 15,
    upstreamDelayMs: 200,
    intervalS: 5,
    transactionMs: { pending: 1000, running: 20_000 },
  },
  onCall: { rate: 100, seconds: 20, people: 50, pagerDutyDelayMs: 300, changes: 200, control: true, settleMs: 3000 },
  watch: { watches: 1000, channels: 20, rounds: 10, intervalS: 5, cpuRounds: 4, changes: 6, connections: 4, commandsPerBurst: 100 },
  agents: { reads: 40, connections: 2, upstreamDelayMs: 1500, sameServer: 50, requests: 300 },
  firewall: { rules: 10_000, previews: 500, forms: 30, changes: 200 },
};

export const SMOKE_PROFILE: BenchProfile = {
  mode: 'smoke',
  openLoop: { rate: 20, seconds: 1, upstreamDelayMs: 100, connections: 2, slices: 2 },
  closedLoop: { connections: 5, warmupSeconds: 0, seconds: 1, drainMs: 3000 },
  singleFlight: { commands: 10, upstreamDelayMs: 300 },
  micro: { timeMs: 50, warmupMs: 10, rounds: 2, roundIterations: 3 },
  sustained: { rate: 20, warmupSeconds: 0, seconds: 2, upstreamDelayMs: 100, connections: 2 },
  localMode: { commands: 10 },
  severalInstances: { changes: 40, concurrency: 4, deliveries: 50, rate: 20, seconds: 1 },
  hostile: { rate: 20, stalledConnections: 20, stalledReopenMs: 5000 },
  slowClient: { connections: 50, trickleMs: 2000, reopenMs: 3000 },
  unfurls: { unfurls: 10, upstreamDelayMs: 300 },
  serverCard: { commands: 4, connections: 2, sameServer: 10, upstreamDelayMs: 300 },
  names: { coldLookups: 5, connections: 2, rounds: 2, commandsPerRound: 5 },
  appHome: { records: 2000, opens: 10, audits: 5 },
  approvalClicks: { doorClicks: 10, botClicks: 5 },
  steps: { rate: 20, seconds: 1, upstreamDelayMs: 100 },
  exports: { rules: 200, records: 2000, exports: 2, audits: 5 },
  follow: { doorChanges: 10, changes: 6, rate: 10, seconds: 1, upstreamDelayMs: 50, intervalS: 1, transactionMs: { pending: 200, running: 1500 } },
  onCall: { rate: 20, seconds: 1, people: 6, pagerDutyDelayMs: 300, changes: 6, control: false, settleMs: 200 },
  watch: { watches: 20, channels: 2, rounds: 2, intervalS: 1, cpuRounds: 1, changes: 1, connections: 2, commandsPerBurst: 5 },
  agents: { reads: 4, connections: 2, upstreamDelayMs: 100, sameServer: 10, requests: 10 },
  firewall: { rules: 1000, previews: 10, forms: 1, changes: 2 },
};

/** The scenarios `--only` can run alone. */
export const ALONE_SCENARIOS = [
  'closed-loop',
  'hostile-traffic',
  'slow-client',
  'app-home',
  'unfurls',
  'steps',
  'approval-clicks',
  'cloud-client',
  'exports',
  'server-card',
  'names',
  'follow',
  'on-call',
  'tracing',
  'watch',
  'agents',
  'firewall',
] as const;
export type AloneScenario = (typeof ALONE_SCENARIOS)[number];

export interface BenchArgs {
  profile: BenchProfile;
  /** Where the JSON goes; bench/results.json by default. */
  out: string | undefined;
  /** Write a V8 CPU profile of the bot process (bench/profiles/). */
  cpuProfile: boolean;
  /** Run this scenario alone (its figures and target printed, no results file). */
  only: AloneScenario | undefined;
  /** `--only closed-loop`: rounds of both servers (3 by default, 1 with `--smoke`). */
  rounds: number;
  /** `--only tracing --baseline <git ref>`: the bot of that commit measured beside this one (bench/scenarios/tracing.ts). */
  baseline: string | undefined;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let profile: BenchProfile = argv.includes('--smoke') ? SMOKE_PROFILE : FULL_PROFILE;
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const sustain = value('--sustain-seconds');
  if (sustain !== undefined) {
    const seconds = Number(sustain);
    if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`--sustain-seconds must be a number of seconds ≥ 1, got ${sustain}`);
    profile = { ...profile, sustained: { ...profile.sustained, seconds } };
  }
  const only = value('--only');
  if (only !== undefined && !(ALONE_SCENARIOS as readonly string[]).includes(only))
    throw new Error(`--only takes one of ${ALONE_SCENARIOS.join(', ')}, got ${only}`);
  const rounds = Number(value('--rounds') ?? (profile.mode === 'smoke' ? 1 : 3));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, got ${value('--rounds')}`);
  return {
    profile,
    out: value('--out'),
    cpuProfile: argv.includes('--cpu-profile'),
    only: only as AloneScenario | undefined,
    rounds,
    baseline: value('--baseline'),
  };
}
