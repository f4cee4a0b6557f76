import { Bench } from 'tinybench';
import { createCloudClient } from '../../src/cloud/client';
import { loadConfig } from '../../src/config';
import type { FirewallRule } from '../../src/cloud/schemas';
import { FIREWALL_PAGE_SIZE, renderFirewallRules } from '../../src/slack/blocks/firewall';
import type { BenchProfile } from '../profile';
import { round } from '../stats';
import type { BenchWorld } from '../world';
import { meanMs, p99Ms } from '../side-by-side';

// Scenario 5: page 1 of the firewall summary (renderFirewallRules) for the
// 300 rules of VS 45 as the client decodes them, for 10,000 rules built from
// them, and for exactly one page's worth of rules. If the 10,000-rule page
// cost anything near 500 one-page renders, every page would be built.

export interface RenderFigures {
  page300MeanMs: number;
  page300P99Ms: number;
  page10kMeanMs: number;
  page10kP99Ms: number;
  onePageMeanMs: number;
  /** Cost of the 10,000-rule page in one-page renders (building all 500 pages would be ~500). */
  page10kInOnePageRenders: number;
  blocks300: number;
  blocks10k: number;
  bytes10k: number;
}

export async function runRender(world: BenchWorld, micro: BenchProfile['micro']): Promise<RenderFigures> {
  const client = createCloudClient({
    // The shipped connection settings (config's defaults).
    ...loadConfig({}).cloud,
    url: world.sandbox.url,
    accountId: world.sandbox.accountId,
    apiKey: world.sandbox.apiKey,
    format: 'json',
    timeoutMs: 10_000,
  });
  const rules300 = await client.listFirewallRules(45);
  await client.close();
  const rules10k = manyRules(rules300, 10_000);
  const onePage = rules300.slice(0, FIREWALL_PAGE_SIZE);
  const fetchedAt = new Date();
  const render = (rules: readonly FirewallRule[]) => renderFirewallRules({ vsId: 45, rules, page: 1, fetchedAt, sandbox: false });

  const bench = new Bench({ time: micro.timeMs, warmupTime: micro.warmupMs });
  bench.add('300 rules', () => void render(rules300));
  bench.add('10000 rules', () => void render(rules10k));
  bench.add('one page', () => void render(onePage));
  await bench.run();

  const page10k = render(rules10k);
  return {
    page300MeanMs: round(meanMs(bench, '300 rules'), 3),
    page300P99Ms: round(p99Ms(bench, '300 rules'), 3),
    page10kMeanMs: round(meanMs(bench, '10000 rules'), 3),
    page10kP99Ms: round(p99Ms(bench, '10000 rules'), 3),
    onePageMeanMs: round(meanMs(bench, 'one page'), 3),
    page10kInOnePageRenders: round(meanMs(bench, '10000 rules') / meanMs(bench, 'one page'), 1),
    blocks300: render(rules300).blocks.length,
    blocks10k: page10k.blocks.length,
    bytes10k: Buffer.byteLength(JSON.stringify(page10k)),
  };
}

/** `count` rules shaped like the given ones, on the same interfaces, with fresh ids and positions. */
function manyRules(template: readonly FirewallRule[], count: number): FirewallRule[] {
  const out: FirewallRule[] = [];
  for (let i = 0; i < count; i++) {
    const base = template[i % template.length] as FirewallRule;
    out.push({ ...base, id: 1_000_000 + i, position: Math.floor(i / 2) + 1 });
  }
  return out;
}
