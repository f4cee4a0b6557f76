import { atLeast, neededRole } from '../../../changes';
import { renderBackups } from '../../blocks/backups';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replySummary } from '../../reply';
import { replyCloudError } from './firewall';

/**
 * `/vs backups <vs_id>`: the server's backups, newest first (docs/product.md, The /vs command), with a Restore button
 * on each usable one for those who may restore (the door checks again when it is pressed).
 */
export async function backupsCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }): Promise<Outcome> {
  try {
    const [backups, role] = await Promise.all([ctx.cloud.listBackups(vsId), ctx.policy.roleOf(req.userId).catch(() => null)]);
    const mayRestore = role !== null && atLeast(role, neededRole('backup_restore'));
    await replySummary(ctx, req, renderBackups({ vsId, backups, mayRestore, now: ctx.now(), sandbox: ctx.sandbox }));
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
}
