import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { publishHome } from '../../publish-home';

/** What Bolt hands an event listener (any event type: the table holds them all). */
export type EventArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs;

/** The Home tab opened: draw it afresh for whoever opened it. The Messages tab opened too is nothing to answer. */
export async function appHomeOpened(ctx: ListenerContext, req: SlackRequest, { event }: EventArgs): Promise<Outcome> {
  if (event.type !== 'app_home_opened' || event.tab !== 'home') return 'succeeded';
  return (await publishHome(ctx, req.client, req.userId, req.log)) ? 'succeeded' : 'failed';
}
