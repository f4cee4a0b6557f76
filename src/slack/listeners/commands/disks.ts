import { renderDisks } from '../../blocks/disks';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyCloudError, replySummary } from '../../reply';

/** `/vs disks <vs_id>`: the server's disks (docs/product.md, The /vs command). */
export async function disksCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }): Promise<Outcome> {
  try {
    const disks = await ctx.cloud.listDisks(vsId);
    await replySummary(ctx, req, renderDisks({ vsId, disks, now: ctx.now(), sandbox: ctx.sandbox, panelUrl: ctx.panelUrl }));
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
}
