import type { ListenerRow } from '../listener';
import { appHomeOpened, type EventArgs } from './app-home-opened';

// The table of Events API events the app subscribes to: a row per event
// type, with what handling it needs and what runs it. manifest.yml's
// settings.event_subscriptions.bot_events names exactly these (a test keeps
// them in step). Bolt acks an event before any listener runs.

export interface EventRow extends ListenerRow<EventArgs> {
  /** The event's type, as manifest.yml subscribes to it. */
  event: string;
}

export const EVENTS: readonly EventRow[] = [{ event: 'app_home_opened', needs: { need: 'everyone' }, run: appHomeOpened }];
