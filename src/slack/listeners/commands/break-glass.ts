import { isStoreUnavailable } from '../../../store';
import {
  BREAK_GLASS_OFF,
  BREAK_GLASS_UNRECORDED,
  NOT_OPEN,
  NOTHING_WAITS,
  renderBreakGlassAlreadyOpen,
  renderBreakGlassEnded,
  renderBreakGlassOpened,
} from '../../blocks/break-glass';
import { renderDenied } from '../../blocks/messages';
import { markSandbox } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliver, replyEphemeral, replyError } from '../../reply';

// `/vs breakglass <reason>` and `/vs breakglass end` (docs/product.md, On call): the door checks who may (the role of a
// change that waits for a second person, the channel, the freeze), opens or closes the person's window and records
// it. Opening is loud: the channel hears it whatever VS_RESPONSE_VISIBILITY says, mentioning who would have been
// asked, and the audit channel by its record.

export async function breakGlassCommand(ctx: ListenerContext, req: SlackRequest, { reason }: { reason: string }): Promise<Outcome> {
  const result = await switched(req, () => ctx.changes.breakGlass({ userId: req.userId, channelId: req.channelId }, reason));
  if (result === null) return 'failed';
  switch (result.outcome) {
    case 'off':
      await replyError(req, BREAK_GLASS_OFF);
      return 'invalid';
    case 'nothing_waits':
      await replyError(req, NOTHING_WAITS);
      return 'invalid';
    case 'denied':
      await replyEphemeral(req, markSandbox(renderDenied(result.decision), ctx.sandbox));
      return 'denied';
    case 'already_open':
      await replyEphemeral(req, renderBreakGlassAlreadyOpen(result.window));
      return 'duplicate';
    case 'opened':
      await deliver(req, { response_type: 'in_channel', replace_original: false, ...renderBreakGlassOpened({ ...result, sandbox: ctx.sandbox }) });
      return 'succeeded';
  }
}

export async function endBreakGlassCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  const result = await switched(req, () => ctx.changes.endBreakGlass({ userId: req.userId, channelId: req.channelId }));
  if (result === null) return 'failed';
  if (result.outcome === 'not_open') {
    await replyError(req, NOT_OPEN);
    return 'duplicate';
  }
  await deliver(req, { response_type: 'in_channel', replace_original: false, ...renderBreakGlassEnded({ window: result.window, sandbox: ctx.sandbox }) });
  return 'succeeded';
}

/** The door's answer; null (told) when the store could not be reached. */
async function switched<R>(req: SlackRequest, run: () => Promise<R>): Promise<R | null> {
  try {
    return await run();
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('break glass not switched: the store is unreachable', { error });
    await replyError(req, BREAK_GLASS_UNRECORDED);
    return null;
  }
}
