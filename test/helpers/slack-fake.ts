import { startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';

// Tests talk to the one Slack stand-in (packages/slack-standin). They build their own
// payloads (user, channel and trigger ids Slack never issued), so it runs
// lenient: such ids are taken as they come; Block Kit limits still apply.

export type SlackFake = SlackStandIn;

/** `signingSecret`: the bot's, so that what a person does on the stand-in (`command`, `click`, `submit`) reaches it signed. */
export function startSlackFake(signingSecret?: string): Promise<SlackFake> {
  return startSlackStandIn({ strict: false, ...(signingSecret ? { signingSecret } : {}) });
}
