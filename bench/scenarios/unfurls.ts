import { performance } from 'node:perf_hooks';
import { events } from '@vs-chatops/slack-standin';
import { postSignedEvent } from '../signed-commands';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 11: one control-panel link posted in `unfurls` channels at once
// (a link pasted into every incident channel), while the cloud API is slow
// enough for the reads to overlap: how many requests reach the cloud API per
// resource (counted by the sandbox itself), and whether every link unfurled.
// The panel is the sandbox's own address (VS_PANEL_URL's default).

export interface UnfurlsFigures {
  unfurls: number;
  upstreamDelayMs: number;
  /** GET …/firewall_rules that reached the cloud API. */
  firewallRequests: number;
  /** GET …/auto_scaling that reached the cloud API. */
  autoscalingRequests: number;
  /** GET the server's record that reached the cloud API (its name and state on the card). */
  serverRequests: number;
  /** chat.unfurl calls the bot made. */
  unfurled: number;
  ackP99Ms: number;
  /** From the first event sent to the last chat.unfurl. */
  allUnfurledMs: number;
}

const SERVER = 42;

export async function runUnfurls(world: BenchWorld, bot: TargetProcess, load: { unfurls: number; upstreamDelayMs: number }): Promise<UnfurlsFigures> {
  world.sandbox.reset();
  world.sandbox.setDelay(load.upstreamDelayMs);
  const before = world.slack.callsTo('chat.unfurl').length;
  const url = `${world.sandbox.url}/virtual_machines/${SERVER}`;
  const bodies = Array.from({ length: load.unfurls }, (_, i) =>
    JSON.stringify(
      events.eventCallback(
        events.linkSharedEvent({
          user: `UBENCHLINK${i}`,
          channel: `CBENCHLINK${i}`,
          messageTs: `${1_700_000_000 + i}.000100`,
          links: [{ url, domain: '127.0.0.1' }],
          unfurlId: `CBENCHLINK${i}.${i}`,
          source: 'conversations_history',
        }),
        { apiAppId: 'ABENCH', botUserId: 'UBENCHBOT', eventId: `EvBenchLink${Date.now()}x${i}`, eventTime: Math.floor(Date.now() / 1000) },
      ),
    ),
  );
  const started = performance.now();
  // All at once, each on a connection of its own, as Slack delivers them.
  const acks = await Promise.all(bodies.map((body) => postSignedEvent(bot.eventsUrl, body, 'link_shared')));
  await world.slack.waitForCalls('chat.unfurl', before + load.unfurls, load.upstreamDelayMs + 10_000).catch(() => undefined);
  const allUnfurledMs = performance.now() - started;
  const paths = world.sandbox.requests.map((r) => r.path);
  world.sandbox.setDelay(0);
  return {
    unfurls: load.unfurls,
    upstreamDelayMs: load.upstreamDelayMs,
    firewallRequests: paths.filter((p) => p.startsWith(`/virtual_machines/${SERVER}/firewall_rules`)).length,
    autoscalingRequests: paths.filter((p) => p.startsWith(`/virtual_machines/${SERVER}/auto_scaling`)).length,
    serverRequests: paths.filter((p) => /^\/virtual_machines\/\d+\.(json|xml)/.test(p) && p.startsWith(`/virtual_machines/${SERVER}.`)).length,
    unfurled: world.slack.callsTo('chat.unfurl').length - before,
    ackP99Ms: round(percentile(acks, 99)),
    allUnfurledMs: round(allUnfurledMs),
  };
}
