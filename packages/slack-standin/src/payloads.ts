import { APP_ID, BOT_USER, TEAM } from './workspace';

// What Slack sends the bot, one builder a kind: a slash command, a click
// (block_actions), a form submitted or closed (view_submission, view_closed),
// a global shortcut; the Events API's envelope and events are in events.ts.
// The stand-in sends these (interactions.ts); the tests and the benchmark
// build theirs here too, so each shape is written once.
// Builders take the ids a caller chose; they issue nothing and remember
// nothing (the stand-in issues trigger_ids and response_urls itself).

/** A JSON object as Slack sends and receives it. */
export type Json = Record<string, unknown>;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
export const JSON_CONTENT_TYPE = 'application/json';

/** The verification token of Slack's legacy scheme; the bot does not read it (requests are signed). */
const VERIFICATION_TOKEN = 'local-verification-token';

/** A form-encoded body, as Slack sends a slash command. */
export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Interactive payloads (block_actions, view_submission, view_closed, shortcut) travel as one form field, payload=<json>. */
export function interactiveBody(payload: unknown): string {
  return formBody({ payload: JSON.stringify(payload) });
}

/** The person of an interactive payload. */
export function personOf(userId: string): Json {
  const name = userId.toLowerCase();
  return { id: userId, username: name, name, team_id: TEAM.id };
}

/** The fields every interactive payload carries. */
function interactiveCommon(): Json {
  return { team: { id: TEAM.id, domain: TEAM.domain }, api_app_id: APP_ID, token: VERIFICATION_TOKEN, is_enterprise_install: false, enterprise: null };
}

export interface SlashCommandOptions {
  user: string;
  channel: string;
  /** The channel's name; its id when unknown. */
  channelName?: string;
  text: string;
  responseUrl: string;
  triggerId: string;
  /** `/vs` unless said otherwise (another app's command). */
  command?: string;
}

/** A slash command's fields (send them with formBody). */
export function slashCommand(o: SlashCommandOptions): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: TEAM.id,
    team_domain: TEAM.domain,
    channel_id: o.channel,
    channel_name: o.channelName ?? o.channel,
    user_id: o.user,
    user_name: o.user.toLowerCase(),
    command: o.command ?? '/vs',
    text: o.text,
    api_app_id: APP_ID,
    is_enterprise_install: 'false',
    response_url: o.responseUrl,
    trigger_id: o.triggerId,
  };
}

export interface ActionOptions {
  /** The element's type: button, static_select… */
  type: string;
  blockId: string;
  actionId: string;
  text?: unknown;
  value?: unknown;
  style?: unknown;
  actionTs: string;
}

/** One element a person used, as block_actions lists it. */
export function actionOf(o: ActionOptions): Json {
  return {
    type: o.type,
    block_id: o.blockId,
    action_id: o.actionId,
    text: o.text,
    ...(o.value !== undefined ? { value: o.value } : {}),
    ...(o.style ? { style: o.style } : {}),
    action_ts: o.actionTs,
  };
}

export type BlockActionsOptions = {
  user: string;
  triggerId: string;
  actions: Json[];
} & (
  | {
      /** A button in a message. */
      message: {
        channel: string;
        channelName?: string;
        ts: string;
        ephemeral: boolean;
        responseUrl: string;
        author?: string;
        text?: string;
        blocks?: unknown[];
      };
    }
  | {
      /** A button in an open view. */
      view: Json;
    }
);

/** A click on a button (or a choice in a menu) in a message or a view. */
export function blockActions(o: BlockActionsOptions): Json {
  const head = { type: 'block_actions', user: personOf(o.user), ...interactiveCommon() };
  if ('view' in o) {
    return { ...head, container: { type: 'view', view_id: o.view.id }, trigger_id: o.triggerId, view: o.view, actions: o.actions };
  }
  const m = o.message;
  return {
    ...head,
    container: { type: 'message', message_ts: m.ts, channel_id: m.channel, is_ephemeral: m.ephemeral },
    trigger_id: o.triggerId,
    channel: { id: m.channel, name: m.channelName ?? m.channel },
    // Slack sends the message itself only when it is not ephemeral.
    ...(m.ephemeral
      ? {}
      : { message: { type: 'message', user: m.author ?? BOT_USER.id, bot_id: BOT_USER.botId, text: m.text ?? '', blocks: m.blocks, ts: m.ts } }),
    state: { values: {} },
    response_url: m.responseUrl,
    actions: o.actions,
  };
}

export interface ModalViewOptions {
  id: string;
  /** What the app asked Slack to show: title, blocks, callback_id, private_metadata… */
  view: Json;
  /** What the person entered, by block_id then action_id. */
  values?: Record<string, Record<string, unknown>>;
  hash: string;
  rootViewId?: string;
  previousViewId?: string | null;
}

/** A view as Slack keeps it and sends it back: the app's view with Slack's ids, hash and state. */
export function modalView(o: ModalViewOptions): Json {
  const v = o.view;
  return {
    id: o.id,
    team_id: TEAM.id,
    type: v.type ?? 'modal',
    title: v.title,
    submit: v.submit ?? null,
    close: v.close ?? null,
    blocks: v.blocks ?? [],
    private_metadata: v.private_metadata ?? '',
    callback_id: v.callback_id ?? '',
    external_id: v.external_id ?? '',
    state: { values: o.values ?? {} },
    hash: o.hash,
    clear_on_close: v.clear_on_close ?? false,
    notify_on_close: v.notify_on_close ?? false,
    root_view_id: o.rootViewId ?? o.id,
    previous_view_id: o.previousViewId ?? null,
    app_id: APP_ID,
    app_installed_team_id: TEAM.id,
    bot_id: BOT_USER.botId,
  };
}

export interface ViewSubmissionOptions {
  user: string;
  triggerId: string;
  /** The view as Slack keeps it (modalView), with the entered values in its state. */
  view: Json;
  /** One per conversation select with response_url_enabled. */
  responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
}

/** A form submitted. */
export function viewSubmission(o: ViewSubmissionOptions): Json & { view: Json } {
  return {
    type: 'view_submission',
    user: personOf(o.user),
    ...interactiveCommon(),
    trigger_id: o.triggerId,
    view: o.view,
    response_urls: o.responseUrls ?? [],
  };
}

/** A form closed (sent only for views with notify_on_close). */
export function viewClosed(o: { user: string; view: Json; cleared?: boolean }): Json {
  return { type: 'view_closed', user: personOf(o.user), ...interactiveCommon(), view: o.view, is_cleared: o.cleared ?? false };
}

/** A global shortcut (the lightning menu): no channel, no response_url. */
export function shortcut(o: { user: string; callbackId: string; triggerId: string; actionTs: string }): Json {
  return { type: 'shortcut', ...interactiveCommon(), user: personOf(o.user), callback_id: o.callbackId, trigger_id: o.triggerId, action_ts: o.actionTs };
}
