import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { publishHome } from '../../publish-home';

type AppHomeOpenedArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'app_home_opened'>;

/** The Home tab opened: draw it afresh for whoever opened it. The Messages tab opened too is nothing to answer. */
export async function appHomeOpened(ctx: ListenerContext, req: SlackRequest, { event }: AppHomeOpenedArgs): Promise<Outcome> {
  if (event.tab !== 'home') return 'succeeded';
  return (await publishHome(ctx, req.client, req.userId, req.log)) ? 'succeeded' : 'failed';
}
