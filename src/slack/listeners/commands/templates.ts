import { filterTemplates } from '../../../cloud/templates';
import { renderTemplates } from '../../blocks/templates';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replySummary } from '../../reply';

export async function templatesCommand(ctx: ListenerContext, inv: Invocation, cmd: { filter: string }): Promise<CommandOutcome> {
  await replySummary(ctx, inv, renderTemplates({ templates: filterTemplates(cmd.filter), filter: cmd.filter, sandbox: ctx.sandbox }));
  return 'succeeded';
}
