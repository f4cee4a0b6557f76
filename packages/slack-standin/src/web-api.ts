import { messageProblems, viewProblems } from './block-kit';
import { parameterProblems, type Execution } from './functions';
import { randomBytes } from 'node:crypto';
import { textOf, type Json, type SharedFile, type StandInState } from './state';
import { BOT_USER, TEAM } from './workspace';

// The Web API methods the bot calls, answered with Slack's shapes and error
// codes. Strict (local mode): only channels, people, trigger_ids and views the
// stand-in knows are accepted, as at Slack. Lenient (tests that build their
// own payloads): ids it never issued are taken as they come.

export interface WebApiAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: Json;
}

export interface WebApiOptions {
  strict: boolean;
  /** trigger_ids expire after this long (3 s at Slack). */
  triggerTtlMs: number;
  /** The stand-in's own origin: its upload URLs and file downloads are there, as Slack's are on its files host. */
  origin: () => string;
}

/** The largest file files.getUploadURLExternal takes here (Slack's is 1 GB; a stand-in on a laptop needs less). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/** What a file's name says it is, as Slack's filetype and mimetype. */
export function typeOf(filename: string): { filetype: string; mimetype: string } {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  if (extension === 'csv') return { filetype: 'csv', mimetype: 'text/csv' };
  if (extension === 'txt') return { filetype: 'text', mimetype: 'text/plain' };
  if (extension === 'json') return { filetype: 'json', mimetype: 'application/json' };
  return { filetype: 'binary', mimetype: 'application/octet-stream' };
}

type Method = (args: Json) => WebApiAnswer;

/** Slack's page sizes: 100 unless `limit` says otherwise, and never more than 1000. */
/** views.publish refuses a view larger than 250 kB (view_too_large). */
const MAX_VIEW_BYTES = 250_000;

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

/** One page of a cursor-paginated list, as Slack pages it: `next_cursor` is empty on the last page. */
function pageOf<T>(items: readonly T[], args: Json): { items: T[]; nextCursor: string } | { error: string } {
  const limit = args.limit === undefined ? DEFAULT_PAGE : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 0) return { error: 'invalid_limit' };
  let from = 0;
  if (typeof args.cursor === 'string' && args.cursor !== '') {
    const offset = /^offset:(\d+)$/.exec(Buffer.from(args.cursor, 'base64').toString('utf8'));
    if (!offset) return { error: 'invalid_cursor' };
    from = Number(offset[1]);
  }
  const to = from + Math.min(limit === 0 ? DEFAULT_PAGE : limit, MAX_PAGE);
  return { items: items.slice(from, to), nextCursor: to < items.length ? Buffer.from(`offset:${to}`).toString('base64') : '' };
}

const ok = (body: Json = {}): WebApiAnswer => ({ body: { ok: true, ...body } });
const fail = (error: string, messages?: string[]): WebApiAnswer => ({ body: { ok: false, error, ...(messages ? { response_metadata: { messages } } : {}) } });

export function createWebApi(state: StandInState, options: WebApiOptions): (method: string, args: Json) => WebApiAnswer {
  const { strict } = options;

  const knownChannel = (id: unknown): id is string => typeof id === 'string' && (state.channel(id) !== undefined || (!strict && id.length > 0));

  /** Checks a message's text and blocks; the error Slack would answer, or null. */
  function messageRefusal(method: string, args: Json): WebApiAnswer | null {
    if (typeof args.blocks === 'string') return refuse(method, args, 'invalid_blocks_format', ['[ERROR] must provide an array [json-pointer:/blocks]']);
    const hasText = typeof args.text === 'string' && args.text.length > 0;
    const hasBlocks = Array.isArray(args.blocks) && args.blocks.length > 0;
    if (!hasText && !hasBlocks && args.attachments === undefined) return refuse(method, args, 'no_text');
    if (typeof args.text === 'string' && args.text.length > 40_000) return refuse(method, args, 'msg_too_long');
    const problems = messageProblems({ text: args.text, blocks: args.blocks });
    return problems.length > 0 ? refuse(method, args, 'invalid_blocks', problems) : null;
  }

  function refuse(method: string, args: Json, error: string, messages: string[] = []): WebApiAnswer {
    state.refuse({
      source: method,
      error,
      messages,
      ...(typeof args.channel === 'string' ? { channel: args.channel } : {}),
      ...(typeof args.user === 'string' ? { user: args.user } : {}),
    });
    return fail(error, messages.length > 0 ? messages : undefined);
  }

  /** The trigger's owner, or the error Slack would answer. */
  function exchangeTrigger(method: string, args: Json): { user: string; channel?: string } | WebApiAnswer {
    const id = args.trigger_id;
    if (typeof id !== 'string' || id === '') return refuse(method, args, 'invalid_arguments', ['[ERROR] missing required field: trigger_id']);
    const trigger = state.triggers.get(id);
    if (!trigger) return strict ? refuse(method, args, 'invalid_trigger_id') : { user: '' };
    if (state.now() - trigger.issuedAt > options.triggerTtlMs) return refuse(method, args, 'expired_trigger_id');
    if (trigger.used) return refuse(method, args, 'exchanged_trigger_id');
    trigger.used = true;
    return { user: trigger.user, ...(trigger.channel ? { channel: trigger.channel } : {}) };
  }

  function viewRefusal(method: string, args: Json): WebApiAnswer | null {
    if (typeof args.view !== 'object' || args.view === null) return refuse(method, args, 'invalid_arguments', ['[ERROR] missing required field: view']);
    const problems = viewProblems(args.view);
    return problems.length > 0 ? refuse(method, args, 'invalid_arguments', problems) : null;
  }

  /**
   * The execution a completion names, while it runs; else Slack's error. Lenient: an execution the stand-in never
   * started (a test's own payload) is taken as done (undefined).
   */
  function runningExecution(method: string, args: Json): Execution | WebApiAnswer | undefined {
    if (typeof args.function_execution_id !== 'string' || args.function_execution_id === '')
      return refuse(method, args, 'invalid_arguments', ['[ERROR] missing required field: function_execution_id']);
    const execution = state.executions.get(args.function_execution_id);
    if (!execution) return strict ? refuse(method, args, 'function_execution_not_found') : undefined;
    if (execution.state !== 'running') return refuse(method, args, 'execution_not_in_running_state');
    return execution;
  }

  const methods: Record<string, Method> = {
    'auth.test': () =>
      ok({
        url: `https://${TEAM.domain}.slack.com/`,
        team: 'Local',
        user: BOT_USER.name,
        team_id: TEAM.id,
        user_id: BOT_USER.id,
        bot_id: BOT_USER.botId,
        is_enterprise_install: false,
      }),

    'chat.postMessage': (args) => {
      if (!knownChannel(args.channel)) return refuse('chat.postMessage', args, 'channel_not_found');
      const refusal = messageRefusal('chat.postMessage', args);
      if (refusal) return refusal;
      const m = state.addMessage({
        channel: args.channel,
        author: BOT_USER.id,
        text: textOf(args.text),
        ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
        // A reply in a thread: Slack keeps it under the message of that ts.
        ...(typeof args.thread_ts === 'string' && args.thread_ts !== '' ? { threadTs: args.thread_ts } : {}),
        kind: 'bot',
      });
      return ok({
        channel: m.channel,
        ts: m.ts,
        message: {
          type: 'message',
          user: BOT_USER.id,
          bot_id: BOT_USER.botId,
          text: m.text,
          blocks: m.blocks,
          ts: m.ts,
          ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
        },
      });
    },

    'chat.postEphemeral': (args) => {
      if (!knownChannel(args.channel)) return refuse('chat.postEphemeral', args, 'channel_not_found');
      if (typeof args.user !== 'string' || args.user === '') return refuse('chat.postEphemeral', args, 'user_not_found');
      if (strict && !state.person(args.user)) return refuse('chat.postEphemeral', args, 'user_not_in_channel');
      const refusal = messageRefusal('chat.postEphemeral', args);
      if (refusal) return refusal;
      const m = state.addMessage({
        channel: args.channel,
        author: BOT_USER.id,
        text: textOf(args.text),
        ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
        ephemeralTo: args.user,
        kind: 'bot',
      });
      return ok({ message_ts: m.ts });
    },

    // What is not sent is kept: without `blocks` the message keeps its blocks (an empty list removes them),
    // without `text` its text.
    'chat.update': (args) => {
      if (!knownChannel(args.channel)) return refuse('chat.update', args, 'channel_not_found');
      const refusal = messageRefusal('chat.update', args);
      if (refusal) return refusal;
      const existing = state.messages.find((m) => m.channel === args.channel && m.ts === args.ts);
      if (!existing) return refuse('chat.update', args, 'message_not_found');
      if (existing.author !== BOT_USER.id || existing.ephemeralTo) return refuse('chat.update', args, 'cant_update_message');
      const blocks = Array.isArray(args.blocks) ? args.blocks : existing.blocks;
      const text = args.text === undefined ? existing.text : textOf(args.text);
      state.replaceMessage(existing.channel, existing.ts, { text, ...(blocks && blocks.length > 0 ? { blocks } : {}) });
      return ok({
        channel: existing.channel,
        ts: existing.ts,
        text,
        message: { type: 'message', user: BOT_USER.id, bot_id: BOT_USER.botId, text, blocks: blocks ?? [], edited: { user: BOT_USER.id } },
      });
    },

    // Cards for links of a message (or of the composer: by unfurl_id and source), keyed by the link as link_shared named it.
    'chat.unfurl': (args) => {
      let target: { channel: string; ts: string } | undefined;
      if (args.unfurl_id !== undefined || args.source !== undefined) {
        if (typeof args.unfurl_id !== 'string' || (args.source !== 'composer' && args.source !== 'conversations_history'))
          return refuse('chat.unfurl', args, 'invalid_arguments', ['[ERROR] unfurl_id and source (composer or conversations_history) go together']);
        target = state.unfurlTargets.get(args.unfurl_id);
        if (!target && strict) return refuse('chat.unfurl', args, 'cannot_find_message');
      } else {
        if (typeof args.channel !== 'string' || args.channel === '') return refuse('chat.unfurl', args, 'missing_channel');
        if (typeof args.ts !== 'string' || args.ts === '') return refuse('chat.unfurl', args, 'missing_ts');
        if (!knownChannel(args.channel)) return refuse('chat.unfurl', args, 'cannot_find_channel');
        target = { channel: args.channel, ts: args.ts };
      }
      const message = target && state.messages.find((m) => m.channel === target.channel && m.ts === target.ts);
      if (!message && strict) return refuse('chat.unfurl', args, 'cannot_find_message');
      if (args.unfurls === undefined) return refuse('chat.unfurl', args, 'missing_unfurls');
      const unfurls = args.unfurls;
      if (typeof unfurls !== 'object' || unfurls === null || Array.isArray(unfurls)) return refuse('chat.unfurl', args, 'invalid_unfurls_format');
      for (const [url, attachment] of Object.entries(unfurls as Json)) {
        if (typeof attachment !== 'object' || attachment === null || Array.isArray(attachment)) return refuse('chat.unfurl', args, 'invalid_unfurls_format');
        // Only the links Slack told the app of can be unfurled (strict; tests that build their own events post no message).
        if (message && !(message.links ?? []).includes(url)) return refuse('chat.unfurl', args, 'cannot_unfurl_message');
        const problems = messageProblems({ blocks: (attachment as Json).blocks }).map((p) => p.replace('[json-pointer:', `[json-pointer:/unfurls/${url}`));
        if (problems.length > 0) return refuse('chat.unfurl', args, 'cannot_parse_attachment', problems);
      }
      if (message) state.unfurlMessage(message.channel, message.ts, unfurls as Record<string, Json>);
      return ok();
    },

    'chat.delete': (args) => {
      if (!knownChannel(args.channel)) return refuse('chat.delete', args, 'channel_not_found');
      return typeof args.ts === 'string' && state.deleteMessage(args.channel, args.ts)
        ? ok({ channel: args.channel, ts: args.ts })
        : refuse('chat.delete', args, 'message_not_found');
    },

    'views.open': (args) => {
      const owner = exchangeTrigger('views.open', args);
      if ('body' in owner) return owner;
      const refusal = viewRefusal('views.open', args);
      if (refusal) return refusal;
      const id = state.newId('V');
      const view = state.storedView(id, args.view as Json);
      const previous = state.stacks.get(owner.user) ?? [];
      if (previous.length > 0) state.closeViews(owner.user, previous);
      state.stacks.set(owner.user, [id]);
      state.putView({ id, user: owner.user, view, ...(owner.channel ? { channel: owner.channel } : {}) });
      return ok({ view });
    },

    'views.push': (args) => {
      const owner = exchangeTrigger('views.push', args);
      if ('body' in owner) return owner;
      const refusal = viewRefusal('views.push', args);
      if (refusal) return refusal;
      const stack = state.stacks.get(owner.user) ?? [];
      if (stack.length >= 3) return refuse('views.push', args, 'push_limit_reached');
      const id = state.newId('V');
      const under = state.views.get(stack[stack.length - 1] ?? '');
      const view = { ...state.storedView(id, args.view as Json, under), previous_view_id: under?.id ?? null };
      state.stacks.set(owner.user, [...stack, id]);
      state.putView({ id, user: owner.user, view, ...(under?.channel ? { channel: under.channel } : {}) });
      return ok({ view });
    },

    'views.update': (args) => {
      const id =
        typeof args.view_id === 'string'
          ? args.view_id
          : [...state.views.values()].find((v) => args.external_id !== undefined && v.view.external_id === args.external_id)?.id;
      if (id === undefined && args.external_id === undefined && args.view_id === undefined)
        return refuse('views.update', args, 'invalid_arguments', ['[ERROR] either view_id or external_id is required']);
      const existing = id === undefined ? undefined : state.views.get(id);
      if (!existing && strict) return refuse('views.update', args, 'not_found');
      if (existing && typeof args.hash === 'string' && args.hash !== existing.view.hash) return refuse('views.update', args, 'hash_conflict');
      const refusal = viewRefusal('views.update', args);
      if (refusal) return refusal;
      const viewId = id ?? state.newId('V');
      const user = existing?.user ?? '';
      const view = {
        ...state.storedView(viewId, args.view as Json, existing),
        root_view_id: existing?.view.root_view_id ?? viewId,
        previous_view_id: existing?.view.previous_view_id ?? null,
      };
      state.putView({ id: viewId, user, view, ...(existing?.channel ? { channel: existing.channel } : {}) });
      return ok({ view });
    },

    // One Home tab per person: its view keeps its id across publishes (a new hash each time), as at Slack.
    'views.publish': (args) => {
      if (typeof args.user_id !== 'string' || args.user_id === '')
        return refuse('views.publish', args, 'invalid_arguments', ['[ERROR] missing required field: user_id']);
      if (strict && !state.person(args.user_id)) return refuse('views.publish', args, 'user_not_found');
      const refusal = viewRefusal('views.publish', args);
      if (refusal) return refusal;
      if ((args.view as Json).type !== 'home')
        return refuse('views.publish', args, 'invalid_arguments', ['[ERROR] must be a home view [json-pointer:/view/type]']);
      if (JSON.stringify(args.view).length > MAX_VIEW_BYTES) return refuse('views.publish', args, 'view_too_large');
      const existing = state.homes.get(args.user_id);
      if (existing && typeof args.hash === 'string' && args.hash !== existing.hash) return refuse('views.publish', args, 'hash_conflict');
      const id = typeof existing?.id === 'string' ? existing.id : state.newId('V');
      const view = state.storedView(id, args.view as Json);
      state.homes.set(args.user_id, view);
      state.emit({ type: 'home', user: args.user_id, view });
      return ok({ view });
    },

    // A step's end: its outputs, checked against the function's declared output parameters, or its error.
    'functions.completeSuccess': (args) => {
      const execution = runningExecution('functions.completeSuccess', args);
      if (!execution || 'body' in execution) return execution ?? ok();
      if (typeof args.outputs !== 'object' || args.outputs === null || Array.isArray(args.outputs))
        return refuse('functions.completeSuccess', args, 'invalid_arguments', ['[ERROR] missing required field: outputs']);
      const declared = state.manifest?.functions[execution.callbackId];
      const problems = declared ? parameterProblems(declared.output_parameters, args.outputs) : [];
      if (problems.length > 0) return refuse('functions.completeSuccess', args, 'parameter_validation_failed', problems);
      state.putExecution({ ...execution, state: 'completed', outputs: args.outputs as Json, endedAt: state.now() });
      return ok();
    },

    'functions.completeError': (args) => {
      if (typeof args.error !== 'string' || args.error.trim() === '')
        return refuse('functions.completeError', args, 'invalid_arguments', ['[ERROR] missing required field: error']);
      const execution = runningExecution('functions.completeError', args);
      if (!execution || 'body' in execution) return execution ?? ok();
      state.putExecution({ ...execution, state: 'failed', error: args.error, endedAt: state.now() });
      return ok();
    },

    // The app's direct message with a person (scope im:write): the same channel every time, as at Slack.
    'conversations.open': (args) => {
      const users =
        typeof args.users === 'string'
          ? args.users
              .split(',')
              .map((u) => u.trim())
              .filter(Boolean)
          : [];
      if (users.length === 0 && typeof args.channel !== 'string') return refuse('conversations.open', args, 'users_list_not_supplied');
      if (users.length > 1) return refuse('conversations.open', args, 'invalid_arguments', ['[ERROR] the stand-in opens direct messages with one person']);
      const user = users[0] ?? '';
      if (strict && !state.person(user)) return refuse('conversations.open', args, 'user_not_found');
      const { channel, alreadyOpen } = state.openDirectMessage(user);
      return ok({ ...(alreadyOpen ? { already_open: true } : {}), channel: { id: channel.id, is_im: true, user } });
    },

    // Slack's upload, first step (scope files:write): a URL to post the bytes to, on the files host (here: this origin).
    'files.getUploadURLExternal': (args) => {
      const filename = textOf(args.filename);
      const length = Number(args.length);
      if (filename.trim() === '') return refuse('files.getUploadURLExternal', args, 'invalid_arguments', ['[ERROR] missing required field: filename']);
      if (!Number.isSafeInteger(length) || length < 1)
        return refuse('files.getUploadURLExternal', args, 'invalid_arguments', ['[ERROR] length must be a positive integer [json-pointer:/length]']);
      if (length > MAX_UPLOAD_BYTES) return refuse('files.getUploadURLExternal', args, 'file_too_large');
      const id = state.newId('F');
      const uploadKey = randomBytes(16).toString('hex');
      state.files.set(id, { id, filename, length, uploadKey, sharedIn: [] });
      return ok({ upload_url: `${options.origin()}/upload/v1/${uploadKey}`, file_id: id });
    },

    // The last step: the uploaded files shared in a channel (a message with the files and the initial comment), or kept private.
    'files.completeUploadExternal': (args) => {
      const files = typeof args.files === 'string' ? parseJson(args.files) : args.files;
      if (!Array.isArray(files) || files.length === 0)
        return refuse('files.completeUploadExternal', args, 'invalid_arguments', ['[ERROR] missing required field: files']);
      const channel = typeof args.channel_id === 'string' && args.channel_id !== '' ? args.channel_id : undefined;
      if (channel !== undefined && !knownChannel(channel)) return refuse('files.completeUploadExternal', args, 'channel_not_found');
      const shared: SharedFile[] = [];
      for (const f of files) {
        const stored = typeof f === 'object' && f !== null && typeof (f as Json).id === 'string' ? state.files.get((f as Json).id as string) : undefined;
        // A file whose bytes never arrived at its upload URL is not a file yet.
        if (!stored?.bytes) return refuse('files.completeUploadExternal', args, 'file_not_found');
        const title = textOf((f as Json).title) || stored.filename;
        shared.push({
          id: stored.id,
          name: stored.filename,
          title,
          ...typeOf(stored.filename),
          size: stored.bytes.length,
          url_private_download: `${options.origin()}/files/${stored.id}/${encodeURIComponent(stored.filename)}`,
        });
      }
      if (channel !== undefined) {
        for (const f of shared) state.files.get(f.id)!.sharedIn.push(channel);
        state.addMessage({ channel, author: BOT_USER.id, text: textOf(args.initial_comment), files: shared, kind: 'bot' });
      }
      return ok({ files: shared.map((f) => ({ id: f.id, title: f.title })) });
    },

    'usergroups.users.list': (args) => {
      const users = state.groups.get(String(args.usergroup));
      return users ? ok({ users: [...users] }) : refuse('usergroups.users.list', args, 'no_such_subteam');
    },

    'usergroups.list': () =>
      ok({
        usergroups: [...state.groups.entries()].map(([id, users]) => ({
          id,
          team_id: TEAM.id,
          ...(state.groupHandles.has(id) ? { handle: state.groupHandles.get(id) } : {}),
          is_usergroup: true,
          user_count: users.length,
          users: [...users],
        })),
      }),

    // With users:read.email the profile carries the email; a person the stand-in never made up (lenient mode) has one
    // made from their id, so that tests can match them elsewhere by it.
    'users.info': (args) => {
      const person = state.person(String(args.user));
      if (!person) {
        if (strict) return refuse('users.info', args, 'user_not_found');
        const id = String(args.user);
        return ok({
          user: { id, name: id, real_name: id, is_bot: false, profile: { real_name: id, display_name: '', email: `${id.toLowerCase()}@people.example` } },
        });
      }
      const profile = { real_name: person.name, display_name: '', ...(person.email ? { email: person.email } : {}) };
      return ok({ user: { id: person.id, team_id: TEAM.id, name: person.name, real_name: person.name, is_bot: false, tz: 'UTC', profile } });
    },

    // A message's link: on the page itself, which opens its channel.
    'chat.getPermalink': (args) => {
      if (!knownChannel(args.channel)) return refuse('chat.getPermalink', args, 'channel_not_found');
      if (typeof args.message_ts !== 'string' || args.message_ts === '') return refuse('chat.getPermalink', args, 'message_not_found');
      const query = new URLSearchParams({ channel: args.channel, message: args.message_ts });
      return ok({ channel: args.channel, permalink: `${options.origin()}/?${query.toString()}` });
    },

    'conversations.info': (args) => {
      const channel = state.channel(String(args.channel));
      if (!channel) return refuse('conversations.info', args, 'channel_not_found');
      return ok({ channel: { id: channel.id, name: channel.name, is_channel: true, is_private: false, is_member: true, topic: { value: channel.topic } } });
    },

    'conversations.members': (args) => {
      if (!knownChannel(args.channel)) return refuse('conversations.members', args, 'channel_not_found');
      const page = pageOf(state.membersOf(args.channel), args);
      if ('error' in page) return refuse('conversations.members', args, page.error);
      return ok({ members: page.items, response_metadata: { next_cursor: page.nextCursor } });
    },

    // The channels a person is in (`user`; the bot when unset), of the types asked for (public_channel by default).
    // Every channel of the stand-in is public.
    'users.conversations': (args) => {
      const user = typeof args.user === 'string' && args.user !== '' ? args.user : BOT_USER.id;
      if (strict && user !== BOT_USER.id && !state.person(user)) return refuse('users.conversations', args, 'user_not_found');
      const types = typeof args.types === 'string' ? args.types.split(',').map((t) => t.trim()) : ['public_channel'];
      const channels = types.includes('public_channel') ? state.channels.filter((c) => state.isMember(c.id, user)) : [];
      const page = pageOf(channels, args);
      if ('error' in page) return refuse('users.conversations', args, page.error);
      return ok({
        channels: page.items.map((c) => ({ id: c.id, name: c.name, is_channel: true, is_private: false, is_archived: false })),
        response_metadata: { next_cursor: page.nextCursor },
      });
    },
  };

  return (method, args) => {
    const handler = methods[method];
    if (handler) return handler(args);
    // Tests that predate the stand-in expect any other method to succeed.
    return strict ? fail('unknown_method') : ok();
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
