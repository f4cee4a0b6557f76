import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';

/** What Bolt hands a button's listener: the click (its action, the message or view it was in) and the Web API. */
export type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>;
