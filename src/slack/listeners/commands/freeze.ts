import { isStoreUnavailable } from '../../../store';
import { FREEZE_UNRECORDED, NOT_FROZEN, renderAlreadyFrozen, renderFrozen, renderUnfrozen } from '../../blocks/freeze';
import { renderDenied } from '../../blocks/messages';
import { markSandbox } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliver, replyEphemeral, replyError } from '../../reply';

// `/vs freeze <reason>` and `/vs unfreeze`: the door checks the admin role
// (and records a refusal), switches every change off or on, and records it;
// the channel hears it (whatever VS_RESPONSE_VISIBILITY says: it concerns
// everyone there), the audit channel by its record.

export async function freezeCommand(ctx: ListenerContext, req: SlackRequest, { reason }: { reason: string }): Promise<Outcome> {
  const result = await switched(req, () => ctx.changes.freeze({ userId: req.userId, channelId: req.channelId }, reason));
  if (result === null) return 'failed';
  switch (result.outcome) {
    case 'denied':
      await replyEphemeral(req, markSandbox(renderDenied(result.decision), ctx.sandbox));
      return 'denied';
    case 'already_frozen':
      await replyEphemeral(req, renderAlreadyFrozen(result.freeze));
      return 'duplicate';
    case 'frozen':
      await deliver(req, { response_type: 'in_channel', replace_original: false, ...renderFrozen(result.freeze, ctx.sandbox) });
      return 'succeeded';
  }
}

export async function unfreezeCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  const result = await switched(req, () => ctx.changes.unfreeze({ userId: req.userId, channelId: req.channelId }));
  if (result === null) return 'failed';
  switch (result.outcome) {
    case 'denied':
      await replyEphemeral(req, markSandbox(renderDenied(result.decision), ctx.sandbox));
      return 'denied';
    case 'not_frozen':
      await replyError(req, NOT_FROZEN);
      return 'duplicate';
    case 'unfrozen':
      await deliver(req, {
        response_type: 'in_channel',
        replace_original: false,
        ...renderUnfrozen({ lifted: result.lifted, by: req.userId, sandbox: ctx.sandbox }),
      });
      return 'succeeded';
  }
}

/** The door's answer; null (told) when the store could not be reached. */
async function switched<R>(req: SlackRequest, run: () => Promise<R>): Promise<R | null> {
  try {
    return await run();
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('freeze not switched: the store is unreachable', { error });
    await replyError(req, FREEZE_UNRECORDED);
    return null;
  }
}
