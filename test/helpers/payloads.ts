import { appHomeOpenedEvent, eventCallback, linkSharedEvent } from '../../src/local/events';
import type { Json } from '../../src/local/state';

// Interactive payloads as Slack sends them, built from the few fields a test cares about.

export type StateValue =
  | { type: 'plain_text_input'; value: string | null }
  | { type: 'number_input'; value: string | null }
  | { type: 'static_select'; selected_option: { value: string; text: { type: 'plain_text'; text: string } } | null }
  | { type: 'checkboxes'; selected_options: { value: string; text: { type: 'plain_text'; text: string } }[] }
  | { type: 'conversations_select'; selected_conversation: string | null };

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

/** block_id = action_id in our modals. */
export function stateOf(fields: Record<string, StateValue>): Record<string, Record<string, StateValue>> {
  return Object.fromEntries(Object.entries(fields).map(([id, v]) => [id, { [id]: v }]));
}

/** Who an interactive payload comes from, and the app and workspace it is for. */
const sentBy = (user: string) => ({
  team: { id: 'T1', domain: 'acme' },
  user: { id: user, username: 'someone', name: 'someone', team_id: 'T1' },
  api_app_id: 'A1',
  token: 'legacy',
});

/** A view as Slack sends it back to the app (in a submission, or with a click in it). */
function storedView(o: { id: string; type: 'modal' | 'home'; callbackId: string; privateMetadata: string; values: Record<string, unknown> }) {
  return {
    id: o.id,
    team_id: 'T1',
    type: o.type,
    blocks: [],
    private_metadata: o.privateMetadata,
    callback_id: o.callbackId,
    state: { values: o.values },
    hash: `h${Math.random()}`,
    ...(o.type === 'modal' ? { title: { type: 'plain_text', text: 'x' }, close: null, submit: null } : {}),
    clear_on_close: false,
    notify_on_close: false,
    previous_view_id: null,
    root_view_id: o.id,
    app_id: 'A1',
    external_id: '',
    app_installed_team_id: 'T1',
    bot_id: 'BBOT',
  };
}

export function viewSubmission(o: {
  callbackId: string;
  viewId: string;
  user: string;
  privateMetadata: string;
  fields: Record<string, StateValue>;
  responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
}) {
  return {
    type: 'view_submission',
    ...sentBy(o.user),
    trigger_id: `trigger.${Math.random()}`,
    view: storedView({ id: o.viewId, type: 'modal', callbackId: o.callbackId, privateMetadata: o.privateMetadata, values: stateOf(o.fields) }),
    response_urls: o.responseUrls ?? [],
    is_enterprise_install: false,
  };
}

export function buttonClick(o: { user: string; channel: string; actionId: string; value: string; responseUrl: string; messageTs?: string }) {
  const ts = o.messageTs ?? '1.2';
  return {
    type: 'block_actions',
    ...sentBy(o.user),
    container: { type: 'message', message_ts: ts, channel_id: o.channel, is_ephemeral: false },
    trigger_id: `trigger.${Math.random()}`,
    channel: { id: o.channel, name: 'incident' },
    message: { type: 'message', ts, text: 'rules' },
    response_url: o.responseUrl,
    actions: [{ type: 'button', block_id: 'pager', action_id: o.actionId, value: o.value, text: { type: 'plain_text', text: 'Next' }, action_ts: '1.3' }],
  };
}

export function globalShortcut(o: { user: string; callbackId: string }) {
  return {
    type: 'shortcut',
    token: 'legacy',
    action_ts: '1.1',
    team: { id: 'T1', domain: 'acme' },
    user: { id: o.user, username: 'someone', team_id: 'T1' },
    callback_id: o.callbackId,
    trigger_id: `trigger.${Math.random()}`,
    is_enterprise_install: false,
  };
}

/** The Events API envelope of app_home_opened, built as the stand-in builds it (src/local/events.ts). */
export function appHomeOpened(o: { user: string; tab?: 'home' | 'messages'; view?: Json }) {
  return eventCallback(appHomeOpenedEvent({ user: o.user, tab: o.tab ?? 'home', eventTs: '1.1', ...(o.view ? { view: o.view } : {}) }), {
    teamId: 'T1',
    apiAppId: 'A1',
    botUserId: 'UBOT',
    eventId: `Ev${Math.random().toString(36).slice(2)}`,
    eventTime: Math.floor(Date.now() / 1000),
  });
}

/** A button pressed in a view (the Home tab, or a modal): no channel, no response_url, a trigger_id. */
export function viewButtonClick(o: { user: string; actionId: string; value?: string; viewId?: string; viewType?: 'home' | 'modal' }) {
  const viewId = o.viewId ?? 'VHOME';
  return {
    type: 'block_actions',
    ...sentBy(o.user),
    container: { type: 'view', view_id: viewId },
    trigger_id: `trigger.${Math.random()}`,
    view: storedView({ id: viewId, type: o.viewType ?? 'home', callbackId: 'home', privateMetadata: '', values: {} }),
    actions: [
      {
        type: 'button',
        block_id: 'b',
        action_id: o.actionId,
        ...(o.value ? { value: o.value } : {}),
        text: { type: 'plain_text', text: 'x' },
        action_ts: '1.3',
      },
    ],
    is_enterprise_install: false,
  };
}

/**
 * The Events API envelope of link_shared, built as the stand-in builds it (src/local/events.ts): the links of one
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
  const event = linkSharedEvent({
    user: o.user,
    channel: o.channel ?? 'CINCIDENT',
    messageTs: o.messageTs ?? `${1_700_000_000 + Math.floor(Math.random() * 1e6)}.000100`,
    links: o.urls.map((url) => ({ url, domain: new URL(url).hostname })),
    ...(o.unfurlId ? { unfurlId: o.unfurlId } : {}),
    ...(o.source ? { source: o.source } : {}),
  });
  return eventCallback(event, {
    teamId: o.orgWide?.teamId ?? 'T1',
    apiAppId: 'A1',
    botUserId: 'UBOT',
    eventId: `Ev${Math.random().toString(36).slice(2)}`,
    eventTime: Math.floor(Date.now() / 1000),
    ...(o.orgWide ? { enterpriseId: o.orgWide.enterpriseId, contextTeamId: o.orgWide.channelTeamId } : {}),
  });
}
