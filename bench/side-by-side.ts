import { Bench, type Task } from 'tinybench';
import { median } from './stats';

// Micro figures compared as ratios. Tasks measured one after the other in a
// single tinybench run are not comparable: the first one pays for JIT
// warm-up and for the garbage the others leave (measured: the cloud client
// at 0.54 × raw undici when it ran first, 0.93 × when it ran last). So every
// task is warmed up first, then measured in several short rounds, each in a
// different order, and a ratio is the median of its per-round ratios.

export interface SideBySideOptions {
  rounds: number;
  /** Calls of each task per round: short rounds, so that a slow spell of the machine hits every task alike. */
  iterations: number;
  warmupMs: number;
}

export type TaskFn = () => unknown;

/** Mean ms of one call of each task, one entry per round. */
export type RoundMeans<K extends string> = Record<K, number[]>;

export async function runSideBySide<K extends string>(tasks: Record<K, TaskFn>, options: SideBySideOptions): Promise<RoundMeans<K>> {
  const names = Object.keys(tasks) as K[];
  const warmup = new Bench({ time: options.warmupMs, warmupTime: 0 });
  for (const name of names) warmup.add(name, tasks[name]);
  await warmup.run();

  const means = Object.fromEntries(names.map((name) => [name, [] as number[]])) as RoundMeans<K>;
  for (let round = 0; round < options.rounds; round++) {
    const bench = new Bench({ time: 0, iterations: options.iterations, warmupTime: 0, warmupIterations: 0 });
    // Rotated order: each task runs first in some round and last in another.
    const order = names.map((_, k) => names[(k + round) % names.length] as K);
    for (const name of order) bench.add(name, tasks[name]);
    await bench.run();
    for (const name of names) means[name].push(meanMs(bench, name));
  }
  return means;
}

/** Median over rounds of `numerator / denominator`, both taken in the same round. */
export function medianRatio(numerator: readonly number[], denominator: readonly number[]): number {
  return median(numerator.map((value, k) => value / (denominator[k] as number)));
}

/** Mean time of one call of a finished tinybench task, ms. */
export function meanMs(bench: Bench, name: string): number {
  const task: Task | undefined = bench.getTask(name);
  const result = task?.result;
  if (!result || !('latency' in result))
    throw new Error(`tinybench task "${name}" did not complete: ${result && 'error' in result ? result.error.message : result?.state}`);
  return result.latency.mean;
}

/** p99 time of one call of a finished tinybench task, ms. */
export function p99Ms(bench: Bench, name: string): number {
  const result = bench.getTask(name)?.result;
  if (!result || !('latency' in result)) throw new Error(`tinybench task "${name}" did not complete`);
  return result.latency.p99;
}
