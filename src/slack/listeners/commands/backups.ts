import { atLeast, neededRole } from '../../../changes';
import { renderBackups } from '../../blocks/backups';
import type { Rendered } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyCloudError, replySummary } from '../../reply';

/**
 * `/vs backups <vs_id>`: the server's backups, newest first, paged (docs/product.md, The /vs command; Long lists),
 * with a Restore button on each usable one for those who may restore (the door checks again when it is pressed).
 */
export async function backupsCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }): Promise<Outcome> {
  return answerBackups(ctx, req, vsId, 1, (message) => replySummary(ctx, req, message));
}

/**
 * Page `page` of a server's backups, read afresh (never a stale page) with the reader's role (whether Restore is
 * offered), handed to `send`; a failed read is told instead.
 */
export async function answerBackups(
  ctx: ListenerContext,
  req: SlackRequest,
  vsId: number,
  page: number,
  send: (message: Rendered) => Promise<unknown>,
): Promise<Outcome> {
  try {
    const [backups, role] = await Promise.all([ctx.cloud.listBackups(vsId), ctx.policy.roleOf(req.userId).catch(() => null)]);
    const mayRestore = role !== null && atLeast(role, neededRole('backup_restore'));
    await send(renderBackups({ vsId, backups, page, mayRestore, now: ctx.now(), sandbox: ctx.sandbox }));
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
}
