import { performance } from 'node:perf_hooks';
import type { StandInEvent } from '@vs-chatops/slack-standin';
import { appManifest } from '../../src/local-mode';
import { postSignedEvent } from '../signed-commands';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 12: workflow read steps at a steady rate (an open loop, as Slack
// sends function_executed whatever the bot is doing), the cloud API slow:
// how fast each delivery is acked, and how long from the delivery to the
// step's functions.completeSuccess reaching Slack, against the upstream
// latency. The three read steps in turn, over the sandbox's servers, so
// that the reads overlap on several resources (and share single flights, as
// the slash commands do). Every execution is new: none is a retry.

export interface StepsFigures {
  rate: number;
  seconds: number;
  upstreamDelayMs: number;
  sent: number;
  /** Steps completed with their outputs (functions.completeSuccess taken by Slack). */
  completed: number;
  /** Steps ended any other way (an error, or no completion within the wait). */
  notCompleted: number;
  ackP50Ms: number;
  ackP99Ms: number;
  completionP50Ms: number;
  completionP99Ms: number;
}

const STEPS = [
  { callbackId: 'vs_firewall_summary', inputs: (vsId: number) => ({ vs_id: vsId }) },
  { callbackId: 'vs_port_check', inputs: (vsId: number) => ({ vs_id: vsId, port: 443 }) },
  { callbackId: 'vs_autoscaling_summary', inputs: (vsId: number) => ({ vs_id: vsId }) },
];

/**
 * The four servers the scenario has always asked about, so that its figures compare across runs. The sandbox seeds
 * eight now: over all eight, firewall and autoscaling reads make 16 distinct answers in flight at 1.5 s each, more
 * than the 12 read connections of the default VS_API_MAX_CONNECTIONS (16, 4 kept for changes), and a step then waits
 * for a connection (completion p99 about 2.55 s): what docs/production.md says about sizing the connections.
 */
const STEP_SERVERS = [42, 45, 46, 77] as const;

export async function runSteps(world: BenchWorld, bot: TargetProcess, load: { rate: number; seconds: number; upstreamDelayMs: number }): Promise<StepsFigures> {
  world.sandbox.reset();
  world.sandbox.setDelay(load.upstreamDelayMs);
  // The steps as manifest.yml declares them: the stand-in checks each completion's outputs against them.
  world.slack.setManifest(appManifest());
  const servers = STEP_SERVERS;
  const sentAt = new Map<string, number>();
  const completions: number[] = [];
  let notCompleted = 0;
  let settle: (() => void) | undefined;
  const stop = world.slack.state.subscribe((e: StandInEvent) => {
    if (e.type !== 'execution' || e.execution.state === 'running') return;
    const started = sentAt.get(e.execution.id);
    if (started === undefined) return;
    sentAt.delete(e.execution.id);
    if (e.execution.state === 'completed') completions.push(performance.now() - started);
    else notCompleted++;
    if (sentAt.size === 0) settle?.();
  });

  const acks: number[] = [];
  const sends: Promise<void>[] = [];
  const total = Math.max(1, Math.round(load.rate * load.seconds));
  const interval = 1000 / load.rate;
  const began = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      // Paced on the clock, not on the previous send: an open loop.
      const due = began + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const step = STEPS[i % STEPS.length]!;
      const { envelope, execution } = world.slack.functionExecuted(step.callbackId, step.inputs(servers[i % servers.length]!), {
        user: `UBENCHSTEP${i % 10}`,
      });
      const body = JSON.stringify(envelope);
      sentAt.set(execution.id, performance.now());
      sends.push(postSignedEvent(bot.eventsUrl, body, 'function_executed').then((ms) => void acks.push(ms)));
    }
    await Promise.all(sends);
    if (sentAt.size > 0) {
      const settled = new Promise<void>((resolve) => (settle = resolve));
      await Promise.race([settled, new Promise((r) => setTimeout(r, load.upstreamDelayMs + 10_000))]);
    }
  } finally {
    stop();
    world.sandbox.setDelay(0);
  }
  notCompleted += sentAt.size;
  return {
    rate: load.rate,
    seconds: load.seconds,
    upstreamDelayMs: load.upstreamDelayMs,
    sent: total,
    completed: completions.length,
    notCompleted,
    ackP50Ms: round(percentile(acks, 50)),
    ackP99Ms: round(percentile(acks, 99)),
    completionP50Ms: round(percentile(completions, 50)),
    completionP99Ms: round(percentile(completions, 99)),
  };
}
