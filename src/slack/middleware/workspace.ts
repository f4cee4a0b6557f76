import type { AckFn, AllMiddlewareArgs, AnyMiddlewareArgs, ViewResponseAction } from '@slack/bolt';
import { OTHER_WORKSPACE, renderWorkspaceRefusal, renderWorkspaceRefusalModal, WORKSPACE_UNKNOWN } from '../blocks/workspaces';
import { stepError } from '../blocks/steps';
import type { ListenerContext, SlackRequest } from '../context';
import { openModal } from '../open-modal';
import { replyEphemeral } from '../reply';
import { teamsOf } from '../workspaces';

// The workspace check of every request (src/slack/workspaces.ts), run by the
// request middleware once the request is built and before anything else: a
// request from a workspace the bot does not serve goes no further. The person
// is told where Slack lets the bot answer (ephemeral in the channel, a modal
// for a shortcut or a form, the step's error in a workflow); an event gets
// nothing.

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

/** True when the request was refused (and told): its workspace is not served, or not known yet. */
export async function refusedWorkspace(ctx: ListenerContext, req: SlackRequest, args: Args): Promise<boolean> {
  const teams = teamsOf(args.body);
  const verdict = ctx.workspaces.decide(teams) ?? (await ctx.workspaces.decideWhenKnown(teams));
  if (verdict === 'served') return false;
  req.outcome = 'denied';
  const why = verdict === 'unknown' ? 'refused a request: the workspace served is not known yet' : 'refused a request from a workspace the bot does not serve';
  req.log.warn(why, { teams });
  const text = verdict === 'unknown' ? WORKSPACE_UNKNOWN : OTHER_WORKSPACE;
  if (req.kind === 'submission') {
    await (args.ack as AckFn<ViewResponseAction>)({ response_action: 'update', view: renderWorkspaceRefusalModal({ text, sandbox: ctx.sandbox }) });
  } else if (req.respond) {
    await replyEphemeral(req, renderWorkspaceRefusal(text));
  } else if (req.step) {
    await req.step.fail(stepError(text));
  } else if (req.kind === 'shortcut' && req.triggerId) {
    await openModal(req.client, req.triggerId, renderWorkspaceRefusalModal({ text, sandbox: ctx.sandbox }), req.log);
  }
  return true;
}
