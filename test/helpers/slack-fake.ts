import { startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';

// Tests talk to the one Slack stand-in (packages/slack-standin). They build their own
// payloads (user, channel and trigger ids Slack never issued), so it runs
// lenient: such ids are taken as they come; Block Kit limits still apply.

export type SlackFake = SlackStandIn;

export function startSlackFake(): Promise<SlackFake> {
  return startSlackStandIn({ strict: false });
}
