import { parameterList, type AppFunction } from './functions';
import type { Json } from './payloads';
import { APP_ID, BOT_USER, TEAM } from './workspace';

// Events API deliveries as Slack sends them: the event_callback envelope
// around one event, and the events the stand-in sends (app_home_opened,
// link_shared, function_executed).
// The stand-in and the tests' payload builders share them, so what a test
// sends is what local mode sends.

/**
 * Whose workspace an event comes from (the stand-in's by default). An org-wide install names the enterprise, and its
 * events may come from any of its workspaces.
 */
export interface EventSource {
  teamId?: string;
  apiAppId?: string;
  /** The bot's user id, as `authorizations` names it. */
  botUserId?: string;
  /** Set for an org-wide install (Enterprise Grid): the enterprise id (E…). */
  enterpriseId?: string;
  /** The workspace the event happened in, when it differs from `teamId` (a channel shared across the organisation). */
  contextTeamId?: string;
}

/** The event_callback envelope of one event. */
export function eventCallback(event: Json, o: EventSource & { eventId: string; eventTime: number }): Json {
  const orgWide = o.enterpriseId !== undefined;
  const teamId = o.teamId ?? TEAM.id;
  return {
    token: 'local-verification-token',
    team_id: teamId,
    ...(orgWide ? { enterprise_id: o.enterpriseId } : {}),
    api_app_id: o.apiAppId ?? APP_ID,
    event,
    type: 'event_callback',
    event_id: o.eventId,
    event_time: o.eventTime,
    authorizations: [
      {
        enterprise_id: o.enterpriseId ?? null,
        // An org-wide install is authorized for the enterprise, not for one of its workspaces.
        team_id: orgWide ? null : teamId,
        user_id: o.botUserId ?? BOT_USER.id,
        is_bot: true,
        is_enterprise_install: orgWide,
      },
    ],
    is_ext_shared_channel: false,
    ...(o.contextTeamId !== undefined ? { context_team_id: o.contextTeamId, context_enterprise_id: o.enterpriseId ?? null } : {}),
  };
}

/**
 * app_home_opened: a person opened the app's Home tab (or its Messages tab). `channel` is the app's direct-message
 * conversation with them; `view` is the Home tab last published for them, when there is one.
 */
export function appHomeOpenedEvent(o: { user: string; tab: 'home' | 'messages'; eventTs: string; view?: Json }): Json {
  return {
    type: 'app_home_opened',
    user: o.user,
    channel: `D${o.user.slice(1)}`,
    tab: o.tab,
    event_ts: o.eventTs,
    ...(o.view ? { view: o.view } : {}),
  };
}

/** A link as link_shared lists it: the URL as posted, and the unfurl domain it falls under (its host, or a parent of it). */
export interface SharedLink {
  url: string;
  domain: string;
}

/**
 * link_shared: links of the app's unfurl domains, posted in a message (`source: conversations_history`: the cards
 * attach to it, by channel and ts or by unfurl_id) or typed in the composer (`source: composer`, no message yet).
 */
export function linkSharedEvent(o: {
  user: string;
  channel: string;
  messageTs: string;
  links: readonly SharedLink[];
  unfurlId?: string;
  source?: 'composer' | 'conversations_history';
  threadTs?: string;
}): Json {
  return {
    type: 'link_shared',
    channel: o.channel,
    is_bot_user_member: true,
    user: o.user,
    message_ts: o.messageTs,
    ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
    ...(o.unfurlId ? { unfurl_id: o.unfurlId } : {}),
    ...(o.source ? { source: o.source } : {}),
    links: o.links.map(({ url, domain }) => ({ url, domain })),
    event_ts: o.messageTs,
  };
}

/**
 * The links of a message's text that Slack tells the app of: those of its unfurl domains (a domain covers its
 * subdomains), each once, in order. A link is written bare or in Slack's `<url>` / `<url|label>` form; trailing
 * punctuation ends a sentence, not the link.
 */
export function linksOf(text: string, unfurlDomains: readonly string[]): SharedLink[] {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/<(https?:\/\/[^>|\s]+)(?:\|[^>]*)?>|(https?:\/\/[^\s<>|]+)/g)) {
    const url = (match[1] ?? match[2] ?? '').replace(/[.,;:!?)\]'"]+$/, '');
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch {
      continue;
    }
    const domain = unfurlDomains.find((d) => host === d.toLowerCase() || host.endsWith(`.${d.toLowerCase()}`));
    if (domain !== undefined && !found.has(url)) found.set(url, domain);
  }
  return [...found].map(([url, domain]) => ({ url, domain }));
}

/**
 * function_executed: one run of one of the app's steps in a workflow. It names the step (its callback_id and its
 * declaration), carries the inputs the workflow gave it, the ids of this execution and of the workflow's, and a bot
 * token issued for this execution alone (valid until the step completes).
 */
export function functionExecutedEvent(o: {
  callbackId: string;
  declared: AppFunction;
  appId: string;
  inputs: Json;
  functionExecutionId: string;
  workflowExecutionId: string;
  botAccessToken: string;
  eventTs: string;
}): Json {
  return {
    type: 'function_executed',
    function: {
      id: `Fn${o.callbackId
        .replace(/[^a-z0-9]/gi, '')
        .toUpperCase()
        .slice(0, 10)}`,
      callback_id: o.callbackId,
      title: o.declared.title,
      description: o.declared.description,
      type: 'app',
      input_parameters: parameterList(o.declared.input_parameters),
      output_parameters: parameterList(o.declared.output_parameters),
      app_id: o.appId,
      date_created: 1_700_000_000,
      date_updated: 1_700_000_000,
      date_deleted: 0,
    },
    inputs: o.inputs,
    function_execution_id: o.functionExecutionId,
    workflow_execution_id: o.workflowExecutionId,
    event_ts: o.eventTs,
    bot_access_token: o.botAccessToken,
  };
}
