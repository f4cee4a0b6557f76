import { filterTemplates } from '../../../cloud/templates';
import { renderTemplates } from '../../blocks/templates';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replySummary } from '../../reply';

export async function templatesCommand(ctx: ListenerContext, req: SlackRequest, cmd: { filter: string }): Promise<Outcome> {
  await replySummary(ctx, req, renderTemplates({ templates: filterTemplates(cmd.filter), filter: cmd.filter, sandbox: ctx.sandbox }));
  return 'succeeded';
}
