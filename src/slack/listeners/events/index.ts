import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerRow } from '../listener';
import { appHomeOpened } from './app-home-opened';
import { unfurlServerLinks } from './link-shared';

// The table of Events API events: a row per event type, with what handling
// it needs and what runs it (manifest.yml subscribes the bot to each;
// test/slack/listeners/manifest.test.ts keeps the two in step). Bolt acks an
// event before any middleware runs. To add an event: a row here, its
// listener beside this file, its type under settings.event_subscriptions.

export type EventArgs<E extends string = string> = AllMiddlewareArgs & SlackEventMiddlewareArgs<E>;

export interface EventRow<E extends string = string> extends ListenerRow<EventArgs<E>> {
  /** The event's `type`, as manifest.yml's bot_events names it. */
  event: E;
  /** The bot scopes Slack asks for it and for what its listener calls (manifest.yml's oauth_config). */
  scopes: readonly string[];
}

/** A row typed by its event, kept in the table beside rows of other events. */
function eventRow<E extends string>(row: EventRow<E>): EventRow {
  // Bolt runs a row's listener only for events of the row's type, so its arguments are EventArgs<E>.
  return row as unknown as EventRow;
}

export const EVENTS: readonly EventRow[] = [
  // A control-panel link to a server, posted (or typed in the composer): a card of the server, for a poster who may read.
  eventRow({ event: 'link_shared', scopes: ['links:read', 'links:write'], needs: { need: 'read' }, run: unfurlServerLinks }),
  // The Home tab opened: drawn afresh for whoever opened it (whatever their role: it says what that role allows).
  eventRow({ event: 'app_home_opened', scopes: [], needs: { need: 'everyone' }, run: appHomeOpened }),
];
