import { atLeast, neededRole, type ChangeAction, type Role } from '../../../changes';
import { isCloudError } from '../../../cloud/errors';
import type { Server } from '../../../cloud/schemas';
import type { Frozen } from '../../../cloud/reads';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import { renderServerGlance, type CardButton, type Part, type Power } from '../../blocks/server-glance';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replySummary } from '../../reply';
import { replyCloudError } from './firewall';

// `/vs server <vs_id>` (alias `/vs status`; docs/product.md, Server at a
// glance): the server's record, disks, backups and latest transactions, read
// side by side (each single-flight, so the card costs one round trip and fifty
// people asking at once cost one call per resource), and the card with what
// came back. A server the cloud does not know is "VS 42 was not found"; a read
// that failed leaves its part saying so; only when nothing could be read is
// the answer the error alone.

export async function serverCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }): Promise<Outcome> {
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
  const record = server.status === 'fulfilled' ? server.value : null;
  const card = renderServerGlance({
    vsId,
    server: part(server),
    power: record ? powerOf(record) : null,
    disks: part(disks),
    backups: part(backups),
    transactions: part(transactions),
    changes: changeButtons(vsId, await roleOf(ctx, req)),
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

/** The change forms offered on the card, each the `/vs` command that opens it. */
const CHANGE_BUTTONS: readonly { action: ChangeAction; button: (vsId: number) => CardButton }[] = [
  { action: 'disk_add', button: (vsId) => ({ actionId: 'server_disk_add', text: 'Add disk', line: `disk add ${vsId}` }) },
];

function changeButtons(vsId: number, role: Role | null): CardButton[] {
  if (role === null) return [];
  return CHANGE_BUTTONS.filter(({ action }) => atLeast(role, neededRole(action))).map(({ button }) => button(vsId));
}

function powerOf(server: Frozen<Server>): Power {
  return server.suspended ? 'suspended' : server.recovery_mode ? 'recovery' : server.booted ? 'on' : 'off';
}
