import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log';
import { slackErrorSummary } from './channel-post';
import { openView } from './send';

/** Opens a modal; false (logged) when Slack refuses, e.g. an expired trigger_id. */
export async function openModal(client: WebClient, triggerId: string, view: ModalView, log: Logger): Promise<boolean> {
  try {
    await openView(client, { trigger_id: triggerId, view });
    return true;
  } catch (error) {
    log.warn('could not open the modal', { error: slackErrorSummary(error) });
    return false;
  }
}
