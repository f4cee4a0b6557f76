import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';

/** What Bolt hands a button's listener: the click (its action, the message or view it was in) and the Web API. */
export type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>;

/** Whether the button was in a message only the clicker sees (Slack says so in the click's container). */
export function clickedInEphemeral({ body }: Pick<ButtonArgs, 'body'>): boolean {
  return (body.container as { is_ephemeral?: unknown } | undefined)?.is_ephemeral === true;
}
