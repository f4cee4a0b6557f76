import { events, payloads as slack } from '@vs-chatops/slack-standin';

// Slack payloads for tests, built by the stand-in's builders (packages/slack-standin/src/payloads.ts) from the few fields a test
// cares about; the ids Slack would issue (trigger ids, view hashes) are made up here. The stand-in runs lenient
// in tests, so it takes them.

export const { FORM_CONTENT_TYPE: FORM, JSON_CONTENT_TYPE, formBody, interactiveBody } = slack;

/** The channel tests type in unless they say otherwise. */
export const CHANNEL = 'CINCIDENT';

let issued = 0;
/** A trigger_id no other request of this process carries. */
export const newTriggerId = () => `trigger.${process.pid}.${++issued}.${Math.random().toString(36).slice(2, 8)}`;
/** A view id no other submission of this process carries (a submission is claimed once per view). */
export const newViewId = () => `V${process.pid}x${++issued}x${Math.random().toString(36).slice(2, 8)}`;

export interface SlashCommandOptions {
  text: string;
  responseUrl: string;
  /** UVIEWER unless said otherwise. */
  user?: string;
  /** CHANNEL unless said otherwise. */
  channel?: string;
  triggerId?: string;
  /** `/vs` unless said otherwise. */
  command?: string;
}

/** The fields of `/vs <text>` typed by `user` in `channel` (Socket Mode carries them as they are). */
export function slashCommandFields(o: SlashCommandOptions): Record<string, string> {
  return slack.slashCommand({
    text: o.text,
    user: o.user ?? 'UVIEWER',
    channel: o.channel ?? CHANNEL,
    responseUrl: o.responseUrl,
    triggerId: o.triggerId ?? newTriggerId(),
    ...(o.command ? { command: o.command } : {}),
  });
}

/** The body of `/vs <text>`, as Slack posts it to the bot. */
export const slashCommandBody = (o: SlashCommandOptions): string => slack.formBody(slashCommandFields(o));

/** One input's entry in view.state.values. */
export type StateValue =
  | { type: 'plain_text_input'; value: string | null }
  | { type: 'number_input'; value: string | null }
  | { type: 'static_select'; selected_option: { value: string; text: { type: 'plain_text'; text: string } } | null }
  | { type: 'checkboxes'; selected_options: { value: string; text: { type: 'plain_text'; text: string } }[] }
  | { type: 'conversations_select'; selected_conversation: string | null };

/** What a person entered, by input kind. */
export const input = {
  text: (value: string | null): StateValue => ({ type: 'plain_text_input', value }),
  number: (value: string | null): StateValue => ({ type: 'number_input', value }),
  select: (value: string | null): StateValue => ({
    type: 'static_select',
    selected_option: value === null ? null : { value, text: { type: 'plain_text', text: value } },
  }),
  check: (on: boolean): StateValue => ({ type: 'checkboxes', selected_options: on ? [{ value: 'true', text: { type: 'plain_text', text: 'yes' } }] : [] }),
  channel: (id: string | null): StateValue => ({ type: 'conversations_select', selected_conversation: id }),
};

/** view.state.values from entries by field (block_id = action_id in our modals). */
export function stateOf(fields: Record<string, StateValue>): Record<string, Record<string, StateValue>> {
  return Object.fromEntries(Object.entries(fields).map(([id, v]) => [id, { [id]: v }]));
}

/** A form submitted: the view `callbackId` with `privateMetadata`, filled in with `fields`. */
export function viewSubmission(o: {
  callbackId: string;
  viewId: string;
  user: string;
  privateMetadata: string;
  fields: Record<string, StateValue>;
  responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
}) {
  const view = slack.modalView({
    id: o.viewId,
    view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, callback_id: o.callbackId, private_metadata: o.privateMetadata },
    values: stateOf(o.fields),
    hash: `h${Math.random()}`,
  });
  return slack.viewSubmission({ user: o.user, triggerId: newTriggerId(), view, ...(o.responseUrls ? { responseUrls: o.responseUrls } : {}) });
}

/** A click on button `actionId` (carrying `value`) in a message in `channel` (its ts `messageTs`, 1.2 unless said). */
export function buttonClick(o: {
  user: string;
  channel: string;
  actionId: string;
  value: string;
  responseUrl: string;
  messageTs?: string;
  /** In a message only the clicker sees (an ephemeral answer); in one the channel reads otherwise. */
  ephemeral?: boolean;
}) {
  return slack.blockActions({
    user: o.user,
    triggerId: newTriggerId(),
    message: { channel: o.channel, ts: o.messageTs ?? '1.2', ephemeral: o.ephemeral ?? false, responseUrl: o.responseUrl, text: 'rules' },
    actions: [
      slack.actionOf({ type: 'button', blockId: 'pager', actionId: o.actionId, value: o.value, text: { type: 'plain_text', text: 'Next' }, actionTs: '1.3' }),
    ],
  });
}

/** A global shortcut (the lightning menu). */
export function globalShortcut(o: { user: string; callbackId: string }) {
  return slack.shortcut({ user: o.user, callbackId: o.callbackId, triggerId: newTriggerId(), actionTs: '1.1' });
}

/** An Events API envelope around `event` (send it as JSON), with an event_id of its own; `source` for another workspace. */
export function eventCallback(event: slack.Json, source: events.EventSource = {}) {
  return events.eventCallback(event, { ...source, eventId: `Ev${process.pid}x${++issued}`, eventTime: Math.floor(Date.now() / 1000) });
}

/** `user` opening the app's Home tab (or its Messages tab); `view`: the Home tab last published for them. */
export function appHomeOpened(o: { user: string; tab?: 'home' | 'messages'; view?: slack.Json }) {
  return eventCallback(
    events.appHomeOpenedEvent({ user: o.user, tab: o.tab ?? 'home', eventTs: String(Date.now() / 1000), ...(o.view ? { view: o.view } : {}) }),
  );
}

/** A button pressed in a view (the Home tab, or a modal): no channel, no response_url, a trigger_id. */
export function viewButtonClick(o: { user: string; actionId: string; value?: string; viewId?: string; viewType?: 'home' | 'modal' }) {
  const viewId = o.viewId ?? 'VHOME';
  const view = slack.modalView({
    id: viewId,
    view: { type: o.viewType ?? 'home', ...(o.viewType === 'modal' ? { title: { type: 'plain_text', text: 'x' } } : {}), callback_id: 'home' },
    hash: `h${Math.random()}`,
  });
  return slack.blockActions({
    user: o.user,
    triggerId: newTriggerId(),
    view,
    actions: [slack.actionOf({ type: 'button', blockId: 'b', actionId: o.actionId, value: o.value, text: { type: 'plain_text', text: 'x' }, actionTs: '1.3' })],
  });
}

/**
 * The Events API envelope of link_shared, built as the stand-in builds it (packages/slack-standin/src/events.ts): the links of one
 * message (by channel and ts; or, from the composer, by unfurl_id and source), each under its host as the unfurl
 * domain. `orgWide` makes it an org-wide install's event: an enterprise id, is_enterprise_install, and the channel's
 * workspace differing from the one the event is addressed to.
 */
export function linkShared(o: {
  user: string;
  urls: readonly string[];
  channel?: string;
  messageTs?: string;
  unfurlId?: string;
  source?: 'composer' | 'conversations_history';
  orgWide?: { enterpriseId: string; teamId: string; channelTeamId: string };
}) {
  const event = events.linkSharedEvent({
    user: o.user,
    channel: o.channel ?? CHANNEL,
    messageTs: o.messageTs ?? `${1_700_000_000 + Math.floor(Math.random() * 1e6)}.000100`,
    links: o.urls.map((url) => ({ url, domain: new URL(url).hostname })),
    ...(o.unfurlId ? { unfurlId: o.unfurlId } : {}),
    ...(o.source ? { source: o.source } : {}),
  });
  return eventCallback(event, {
    // The stand-in's workspace unless another is said: the one the bot serves (its token's, by auth.test).
    ...(o.orgWide ? { teamId: o.orgWide.teamId } : {}),
    apiAppId: 'A1',
    botUserId: 'UBOT',
    ...(o.orgWide ? { enterpriseId: o.orgWide.enterpriseId, contextTeamId: o.orgWide.channelTeamId } : {}),
  });
}

/** A form closed with its close button (Slack sends it only for a view with notify_on_close). */
export function viewClosed(o: { user: string; callbackId: string; viewId?: string }) {
  const view = slack.modalView({
    id: o.viewId ?? newViewId(),
    view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, callback_id: o.callbackId, private_metadata: '' },
    hash: `h${Math.random()}`,
  });
  return slack.viewClosed({ user: o.user, view });
}

/** A message shortcut (a message's "More actions" menu): a channel, the message, a response_url. The stand-in has none. */
export function messageShortcut(o: { user: string; callbackId: string; channel: string; responseUrl: string }) {
  const shortcut = slack.shortcut({ user: o.user, callbackId: o.callbackId, triggerId: newTriggerId(), actionTs: '1.1' });
  return {
    ...shortcut,
    type: 'message_action',
    channel: { id: o.channel, name: o.channel },
    message_ts: '1.2',
    message: { type: 'message', user: o.user, ts: '1.2', text: 'a message' },
    response_url: o.responseUrl,
  };
}

/** What Slack sends for an external select's options as a person types (block_suggestion). */
export function blockSuggestion(o: { user: string; actionId: string; value: string }) {
  const {
    type: _shortcut,
    callback_id: _id,
    trigger_id: _trigger,
    action_ts: _ts,
    ...common
  } = slack.shortcut({
    user: o.user,
    callbackId: '',
    triggerId: '',
    actionTs: '',
  });
  return {
    ...common,
    type: 'block_suggestion',
    action_id: o.actionId,
    block_id: o.actionId,
    value: o.value,
    container: { type: 'view', view_id: newViewId() },
  };
}

/** The Events API's check of a request URL: answered with its challenge. */
export function urlVerification(challenge: string) {
  return { token: 'local-verification-token', challenge, type: 'url_verification' };
}
