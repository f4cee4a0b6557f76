import type { Rendered } from './blocks/mrkdwn';
import { renderError } from './blocks/messages';
import type { Logger } from '../log';
import type { ListenerContext } from './context';
import type { Respond, ResponsePayload } from './response-url';

// Every answer to a command goes through respond(); a failure to deliver
// (expired response_url, Slack down) is logged with context, never thrown.

/** Anything that answers through a response_url; without one, the answer is logged as undeliverable. */
export interface Replier {
  respond: Respond | undefined;
  log: Logger;
}

/** When a listener fails in a way it did not foresee. */
export const SOMETHING_WENT_WRONG =
  'Something went wrong while handling this command; nothing was changed by it. Try again, and tell the bot operator if it repeats.';

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
  if (!inv.respond) {
    inv.log.warn('could not deliver the answer: the request has no response_url');
    return false;
  }
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
