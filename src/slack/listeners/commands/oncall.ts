import { renderOnCall } from '../../blocks/on-call';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** `/vs oncall`: who is on call now (PagerDuty, as cached), what it grants, and whether the person asking is. */
export async function onCallCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  const settings = ctx.config.onCall;
  const [list, mine] = ctx.onCall && settings ? await Promise.all([ctx.onCall.list(), ctx.onCall.shiftOf(req.userId)]) : [null, null];
  await replyEphemeral(
    req,
    renderOnCall({
      list,
      role: settings?.role ?? null,
      scheduleIds: settings?.scheduleIds ?? [],
      escalationPolicyIds: settings?.escalationPolicyIds ?? [],
      maxLevel: settings?.maxLevel ?? 1,
      mine,
      userId: req.userId,
      sandbox: ctx.sandbox,
    }),
  );
  return list?.state === 'unknown' ? 'failed' : 'succeeded';
}
