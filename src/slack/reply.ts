import type { Rendered } from './blocks/mrkdwn';
import { renderError } from './blocks/messages';
import type { Invocation, ListenerContext } from './context';
import type { ResponsePayload } from './response-url';

// Every answer to a command goes through respond(); a failure to deliver
// (expired response_url, Slack down) is logged with context, never thrown.

type Replier = Pick<Invocation, 'respond' | 'log'>;

export async function replyEphemeral(inv: Replier, message: Rendered): Promise<void> {
  await deliver(inv, { response_type: 'ephemeral', replace_original: false, ...message });
}

export async function replyError(inv: Replier, text: string): Promise<void> {
  await replyEphemeral(inv, renderError(text));
}

/** Summaries: visible in the channel unless VS_RESPONSE_VISIBILITY=ephemeral. */
export async function replySummary(ctx: ListenerContext, inv: Replier, message: Rendered): Promise<void> {
  await deliver(inv, { response_type: ctx.config.responseVisibility, replace_original: false, ...message });
}

export async function deliver(inv: Replier, payload: ResponsePayload): Promise<boolean> {
  try {
    await inv.respond(payload);
    return true;
  } catch (error) {
    inv.log.warn('could not deliver the answer to Slack (response_url expired or Slack unavailable)', { error: describeDeliveryError(error) });
    return false;
  }
}

function describeDeliveryError(error: unknown): { name: string; code?: string; message: string; status?: number } {
  if (error instanceof Error) {
    const { code, status } = error as { code?: unknown; status?: unknown };
    // Only what explains it: never the URL or request options.
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}), ...(typeof status === 'number' ? { status } : {}) };
  }
  return { name: 'Error', message: String(error) };
}
