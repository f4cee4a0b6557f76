import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launchNpmStart } from '../launch-targets';
import { runOpenLoop } from './open-loop';
import type { BenchProfile } from '../profile';
import { median, megabytes, round } from '../stats';
import { REPO_ROOT, type TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 6: `npm start` to a ready /readyz and its resident set once
// started; then the bot under a sustained open loop, its resident set
// sampled every second. The sustained load comes in per-second bursts, so the
// run also says what a burst of 100 commands at once costs the answers.

export interface StartupFigures {
  startupMs: number;
  rssAfterStartMb: number;
}

/** Settling time after /readyz first answers 200, before reading the resident set. */
const SETTLE_MS = 1000;

export async function measureNpmStart(world: BenchWorld): Promise<StartupFigures> {
  // As after `npm ci`: dist/ is built. A tree edited since the last build would
  // otherwise time the compile that `npm start` runs first, not the start.
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.js'), '--if-stale'], { stdio: 'inherit' });
  const bot = await launchNpmStart(world);
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { startupMs: round(bot.startupMs, 0), rssAfterStartMb: megabytes(bot.rssBytes()) };
  } finally {
    await bot.stop();
  }
}

export interface SustainedFigures {
  seconds: number;
  rate: number;
  upstreamDelayMs: number;
  rssAtStartMb: number;
  rssAtEndMb: number;
  rssGrowthPercent: number;
  ackP99Ms: number;
  messageP99Ms: number;
  missingMessages: number;
}

export async function runSustained(world: BenchWorld, bot: TargetProcess, load: BenchProfile['sustained']): Promise<SustainedFigures> {
  // One slice: each second's commands at once (autocannon's rate option as it is), the burst side of the open loop.
  const shape = { rate: load.rate, upstreamDelayMs: load.upstreamDelayMs, connections: load.connections, slices: 1 };
  if (load.warmupSeconds > 0) await runOpenLoop(world, bot, { ...shape, seconds: load.warmupSeconds }, 'sustain-warm');
  const samples: number[] = [bot.rssBytes()];
  const sampler = setInterval(() => samples.push(bot.rssBytes()), 1000);
  let figures;
  try {
    world.slack.reset();
    figures = await runOpenLoop(world, bot, { ...shape, seconds: load.seconds }, 'sustain');
  } finally {
    clearInterval(sampler);
  }
  samples.push(bot.rssBytes());
  // Medians of the first and last few samples: one reading can land on either side of a GC.
  const span = Math.max(1, Math.min(5, Math.floor(samples.length / 2)));
  const start = median(samples.slice(0, span));
  const end = median(samples.slice(-span));
  return {
    seconds: load.seconds,
    rate: load.rate,
    upstreamDelayMs: load.upstreamDelayMs,
    rssAtStartMb: megabytes(start),
    rssAtEndMb: megabytes(end),
    rssGrowthPercent: round(((end - start) / start) * 100),
    ackP99Ms: figures.ackP99Ms,
    messageP99Ms: figures.messageP99Ms,
    missingMessages: figures.missingMessages,
  };
}
