import { eventCallback, linkSharedEvent } from '../../src/local/events';

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
    team: { id: 'T1', domain: 'acme' },
    user: { id: o.user, username: 'someone', name: 'someone', team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `trigger.${Math.random()}`,
    view: {
      id: o.viewId,
      team_id: 'T1',
      type: 'modal',
      blocks: [],
      private_metadata: o.privateMetadata,
      callback_id: o.callbackId,
      state: { values: stateOf(o.fields) },
      hash: `h${Math.random()}`,
      title: { type: 'plain_text', text: 'x' },
      clear_on_close: false,
      notify_on_close: false,
      close: null,
      submit: null,
      previous_view_id: null,
      root_view_id: o.viewId,
      app_id: 'A1',
      external_id: '',
      app_installed_team_id: 'T1',
      bot_id: 'BBOT',
    },
    response_urls: o.responseUrls ?? [],
    is_enterprise_install: false,
  };
}

export function buttonClick(o: { user: string; channel: string; actionId: string; value: string; responseUrl: string; messageTs?: string }) {
  const ts = o.messageTs ?? '1.2';
  return {
    type: 'block_actions',
    team: { id: 'T1', domain: 'acme' },
    user: { id: o.user, username: 'someone', name: 'someone', team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
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
