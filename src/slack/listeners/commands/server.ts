import { atLeast, fits, isPowerAction, neededRole, serverState, type ChangeAction, type PowerState, type Role } from '../../../changes';
import { isCloudError } from '../../../cloud/errors';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import { changeButton, renderServerGlance, type CardButton, type Part } from '../../blocks/server-glance';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyCloudError, replySummary } from '../../reply';

// `/vs server <vs_id>` (alias `/vs status`; docs/product.md, Server at a
// glance): the server's record, disks, backups and latest transactions, read
// side by side (each single-flight, so the card costs one round trip and fifty
// people asking at once cost one call per resource), and the card with what
// came back. A server the cloud does not know is "VS 42 was not found"; a read
// that failed leaves its part saying so; only when nothing could be read is
// the answer the error alone.

/** A change the card may offer a button for: the words of the `/vs` command that opens its form for a server. */
export interface ServerChange {
  action: ChangeAction;
  words: string;
}

export async function serverCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }, offered: readonly ServerChange[]): Promise<Outcome> {
  // The role (for the buttons) side by side with the reads: a user group looked up in Slack adds no round trip after them.
  const role = roleOf(ctx, req);
  const [server, disks, backups, transactions] = await Promise.allSettled([
    ctx.cloud.getServer(vsId),
    ctx.cloud.listDisks(vsId),
    ctx.cloud.listBackups(vsId),
    ctx.cloud.listTransactions(vsId),
  ]);
  const subject = { kind: 'vs' as const, id: vsId };
  const reads = { server, disks, backups, transactions };
  const failed = Object.entries(reads).filter((entry): entry is [string, PromiseRejectedResult] => entry[1].status === 'rejected');
  if (server.status === 'rejected' && ((isCloudError(server.reason) && server.reason.kind === 'not_found') || failed.length === 4)) {
    return replyCloudError(ctx, req, server.reason, subject);
  }
  for (const [part, { reason }] of failed) req.log.warn('cloud API call failed; the card says that part could not be read', { part, error: reason, subject });
  const part = <T>(settled: PromiseSettledResult<T>): Part<T> =>
    settled.status === 'fulfilled' ? { value: settled.value } : { unread: cloudErrorMessage(settled.reason, subject, ctx.config.cloud.timeoutMs) };
  const power = server.status === 'fulfilled' ? serverState(server.value).power : null;
  const card = renderServerGlance({
    vsId,
    server: part(server),
    power,
    disks: part(disks),
    backups: part(backups),
    transactions: part(transactions),
    changes: changeButtons(vsId, offered, await role, power),
    now: ctx.now(),
    sandbox: ctx.sandbox,
  });
  await replySummary(ctx, req, card);
  return failed.length === 0 ? 'succeeded' : 'failed';
}

/** The reader's role, for the buttons only (the door checks again when one is pressed); none when it cannot be told. */
async function roleOf(ctx: ListenerContext, req: SlackRequest): Promise<Role | null> {
  try {
    return await ctx.policy.roleOf(req.userId);
  } catch (error) {
    req.log.warn('could not tell the role; the card offers no change', { error });
    return null;
  }
}

/** The changes the reader's role allows, a power action only where the server's power allows it (nothing to start when it is on). */
function changeButtons(vsId: number, offered: readonly ServerChange[], role: Role | null, power: PowerState | null): CardButton[] {
  if (role === null) return [];
  return offered
    .filter(({ action }) => atLeast(role, neededRole(action)))
    .filter(({ action }) => !isPowerAction(action) || (power !== null && fits(action, power)))
    .map(({ action, words }) => changeButton(action, `${words} ${vsId}`));
}
