import { request } from 'undici';
import { messageProblems, viewProblems } from './block-kit';
import { appHomeOpenedEvent, eventCallback, functionExecutedEvent, linkSharedEvent, linksOf, type EventSource } from './events';
import { inputsFromForm, parameterProblems, shown, type AppFunction, type Execution, type ShownExecution } from './functions';
import * as slack from './payloads';
import { signatureHeaders } from './signing';
import { textOf, type ChannelMessage, type Json, type OpenView, type StandInState } from './state';
import { APP_ID, BOT_USER, TEAM } from './workspace';

// Slack's side of the conversation with the bot: what a person does (a slash
// command, a button, a form submitted or closed, a shortcut, the Home tab, a
// workflow step run) becomes a signed request to the bot's /slack/events, and
// the bot's ack and its posts to response_urls are applied as Slack applies them.

export interface InteractionOptions {
  strict: boolean;
  signingSecret: string;
  /** The stand-in's own origin, for the response_urls it hands out. */
  origin: () => string;
  /** Where the bot listens; set once it started. */
  eventsUrl: () => string | undefined;
  /** Slack closes the request after 3 s. */
  ackTimeoutMs: number;
  /** response_urls: 5 posts within 30 minutes. */
  responseUrlUses: number;
  responseUrlTtlMs: number;
}

export interface Ack {
  status: number | null;
  body: string;
  /** Why there was no usable ack: operation_timeout, dispatch_failed. */
  error?: string;
}

export type SubmitOutcome =
  | { outcome: 'closed' | 'updated' | 'pushed' | 'cleared'; ack: Ack }
  | { outcome: 'errors'; errors: Record<string, string>; ack?: Ack }
  | { outcome: 'failed'; error: string; ack?: Ack };

/** What a person entered in a modal, by block_id: text, a chosen option value, several values (checkboxes), or nothing. */
export type EnteredValues = Record<string, string | string[] | null | undefined>;

/** A person's side of the stand-in, as the page (and tests) drive it. */
export interface PersonSide {
  /** A slash command typed in a channel: `/vs` unless `name` is another of the app's. */
  command(user: string, channel: string, text: string, name?: string): Promise<{ ack: Ack; triggerId: string; responseUrl: string }>;
  /** `blockId` tells apart elements of one action_id in several blocks (a Home tab's Approve buttons, one per request). */
  click(user: string, target: { channel: string; ts: string } | { viewId: string }, actionId: string, blockId?: string): Promise<{ ack?: Ack; error?: string }>;
  submit(user: string, viewId: string, values: EnteredValues): Promise<SubmitOutcome>;
  closeView(user: string, viewId: string): Promise<void>;
  shortcut(user: string, callbackId: string, channel?: string): Promise<Ack>;
  openHome(user: string): Promise<Ack>;
  /** Posts a message as a person; links of the app's unfurl domains reach the app as link_shared (the ack, when any did). */
  post(user: string, channel: string, text: string): Promise<{ message: ChannelMessage; ack?: Ack }>;
  /**
   * Runs one of the app's steps in a workflow `user` started, with the inputs filled in on the page: checked as
   * Workflow Builder checks them (nothing is sent when they do not fit the declared parameters), then sent as a
   * signed function_executed. The step's completion arrives later (functions.completeSuccess or completeError).
   */
  runStep(user: string, callbackId: string, entered: Record<string, unknown>): Promise<StepRun>;
}

export type StepRun = { execution: ShownExecution; ack: Ack } | { problems: Record<string, string> } | { error: string };

/** How a test's function_executed differs from the stand-in's own: its ids, and the workspace it comes from (an org-wide install). */
export interface ExecutionOptions {
  user?: string;
  /** Another delivery of an execution already started (Slack may deliver one more than once). */
  functionExecutionId?: string;
  eventId?: string;
  source?: Partial<EventSource>;
}

type InputElement = Json & { type: string; action_id?: string };

export function createInteractions(state: StandInState, o: InteractionOptions) {
  /**
   * A slash command's text as Slack sends it when the command escapes what it names (manifest: should_escape): a
   * person picked as `@ada` (the first word of their name, or their id) arrives as `<@U0ADMIN|ada>`.
   */
  const escapedMentions = (text: string) =>
    text.replace(/(^|\s)@([A-Za-z0-9._-]+)/g, (whole: string, space: string, handle: string) => {
      const person = state.people.find((p) => p.id === handle || p.name.split(/\s/)[0]!.toLowerCase() === handle.toLowerCase());
      return person ? `${space}<@${person.id}|${handle.toLowerCase()}>` : whole;
    });

  function issueTrigger(userId: string, channel?: string): string {
    const id = `${Math.floor(state.now() / 1000)}.${Math.floor(Math.random() * 1e12)}.${state.newId('').toLowerCase()}`;
    state.triggers.set(id, { user: userId, ...(channel ? { channel } : {}), issuedAt: state.now(), used: false });
    return id;
  }

  function issueResponseUrl(target: { channel: string; user: string; messageTs?: string }): string {
    const id = state.newId('R');
    state.responseTargets.set(id, { ...target, issuedAt: state.now(), uses: 0 });
    return `${o.origin()}/response/${id}`;
  }

  async function deliver(kind: string, contentType: string, body: string, payload: Json): Promise<Ack> {
    const url = o.eventsUrl();
    const started = performance.now();
    const record = (ack: Ack): Ack => {
      state.deliveries.push({ kind, payload, status: ack.status, body: ack.body, ...(ack.error ? { error: ack.error } : {}), ms: performance.now() - started });
      return ack;
    };
    if (!url) return record({ status: null, body: '', error: 'dispatch_failed' });
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          ...signatureHeaders(o.signingSecret, body),
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        },
        body,
        headersTimeout: o.ackTimeoutMs,
        bodyTimeout: o.ackTimeoutMs,
      });
      const text = await res.body.text();
      return record(res.statusCode === 200 ? { status: 200, body: text } : { status: res.statusCode, body: text, error: 'dispatch_failed' });
    } catch (error) {
      const timedOut = error instanceof Error && /timeout/i.test(`${error.name} ${(error as { code?: string }).code ?? ''}`);
      return record({ status: null, body: '', error: timedOut ? 'operation_timeout' : 'dispatch_failed' });
    }
  }

  const interactive = (kind: string, payload: Json) => deliver(kind, slack.FORM_CONTENT_TYPE, slack.interactiveBody(payload), payload);

  /** Slack tells the person, and only them, when the app did not answer. */
  function notice(channel: string, userId: string, text: string): void {
    state.addMessage({ channel, author: BOT_USER.id, text, ephemeralTo: userId, kind: 'notice' });
  }

  /** A post to a response_url, as Slack applies it; the HTTP status and body Slack answers. */
  function respond(id: string, body: Json): { status: number; text: string } {
    const target = state.responseTargets.get(id);
    if (!target && o.strict) return { status: 404, text: 'invalid_url' };
    if (target) {
      if (state.now() - target.issuedAt > o.responseUrlTtlMs) return { status: 404, text: 'expired_url' };
      if (target.uses >= o.responseUrlUses) return { status: 404, text: 'used_url' };
    }
    if (body.delete_original !== true) {
      const hasText = typeof body.text === 'string' && body.text.length > 0;
      const hasBlocks = Array.isArray(body.blocks) && body.blocks.length > 0;
      if (!hasText && !hasBlocks) return refused('no_text', []);
      const problems = messageProblems(body);
      if (problems.length > 0) return refused('invalid_blocks', problems);
    }
    state.recordResponse(id, body);
    if (!target) return { status: 200, text: 'ok' };
    target.uses += 1;
    const content = { text: textOf(body.text), ...(Array.isArray(body.blocks) ? { blocks: body.blocks } : {}) };
    if (body.delete_original === true) {
      if (target.messageTs) state.deleteMessage(target.channel, target.messageTs);
    } else if (body.replace_original === true && target.messageTs && state.replaceMessage(target.channel, target.messageTs, content)) {
      // replaced in place: paging works this way
    } else if (body.response_type === 'in_channel') {
      state.addMessage({ channel: target.channel, author: BOT_USER.id, ...content, kind: 'bot' });
    } else {
      state.addMessage({ channel: target.channel, author: BOT_USER.id, ...content, ephemeralTo: target.user, kind: 'bot' });
    }
    return { status: 200, text: 'ok' };

    function refused(error: string, messages: string[]) {
      state.refuse({ source: 'response_url', error, messages, ...(target ? { channel: target.channel, user: target.user } : {}) });
      return { status: 400, text: error };
    }
  }

  async function command(userId: string, channel: string, text: string, name = '/vs') {
    const triggerId = issueTrigger(userId, channel);
    const responseUrl = issueResponseUrl({ channel, user: userId });
    state.addMessage({ channel, author: userId, text: `${name} ${text}`.trim(), ephemeralTo: userId, kind: 'command' });
    const fields = slack.slashCommand({
      user: userId,
      channel,
      channelName: state.channel(channel)?.name,
      text: escapedMentions(text),
      responseUrl,
      triggerId,
      command: name,
    });
    const ack = await deliver('slash_command', slack.FORM_CONTENT_TYPE, slack.formBody(fields), fields);
    if (ack.error) notice(channel, userId, `${name} failed with the error "${ack.error}"`);
    else if (ack.body.trim() !== '') {
      // An ack with a body is the first answer, ephemeral unless it says otherwise.
      let answer: Json;
      try {
        const parsed: unknown = JSON.parse(ack.body);
        answer = typeof parsed === 'object' && parsed !== null ? (parsed as Json) : { text: ack.body };
      } catch {
        answer = { text: ack.body };
      }
      respond(responseUrl.slice(responseUrl.lastIndexOf('/') + 1), answer);
    }
    return { ack, triggerId, responseUrl };
  }

  /** Finds a button (or other element) by action_id in a list of blocks, in the block of `blockId` when given. */
  function findElement(blocks: unknown[] | undefined, actionId: string, blockId?: string): { block: Json; element: Json } | undefined {
    for (const b of blocks ?? []) {
      const block = b as Json;
      if (blockId !== undefined && block.block_id !== blockId) continue;
      const elements = block.type === 'actions' ? (block.elements as Json[]) : block.accessory ? [block.accessory as Json] : [];
      const element = elements?.find((e) => e.action_id === actionId);
      if (element) return { block, element };
    }
    return undefined;
  }

  async function clickInMessage(userId: string, message: ChannelMessage, actionId: string, blockId?: string) {
    const found = findElement(message.blocks, actionId, blockId);
    if (!found) return { error: 'no such button' as const };
    const { block, element } = found;
    const responseUrl = issueResponseUrl({ channel: message.channel, user: userId, messageTs: message.ts });
    const payload = slack.blockActions({
      user: userId,
      triggerId: issueTrigger(userId, message.channel),
      message: {
        channel: message.channel,
        channelName: state.channel(message.channel)?.name,
        ts: message.ts,
        ephemeral: message.ephemeralTo !== undefined,
        responseUrl,
        author: message.author,
        text: message.text,
        blocks: message.blocks,
      },
      actions: [actionOf(block, element)],
    });
    const ack = await interactive('block_actions', payload);
    if (ack.error) notice(message.channel, userId, `The app did not respond to the button ("${ack.error}")`);
    return { ack };
  }

  async function clickInView(userId: string, view: OpenView, actionId: string, blockId?: string) {
    const found = findElement(view.view.blocks as unknown[], actionId, blockId);
    if (!found) return { error: 'no such button' as const };
    const payload = slack.blockActions({
      user: userId,
      triggerId: issueTrigger(userId, view.channel),
      view: view.view,
      actions: [actionOf(found.block, found.element)],
    });
    return { ack: await interactive('block_actions', payload) };
  }

  function actionOf(block: Json, element: Json): Json {
    return slack.actionOf({
      type: String(element.type),
      blockId: textOf(block.block_id) || state.newId('B'),
      actionId: String(element.action_id),
      text: element.text,
      value: element.value,
      style: element.style,
      actionTs: String(state.now() / 1000),
    });
  }

  /** The view's state.values from what was entered, with the problems Slack finds before sending anything (required fields, numbers, lengths). */
  function readInputs(
    view: Json,
    entered: EnteredValues,
  ): {
    values: Record<string, Record<string, Json>>;
    errors: Record<string, string>;
    responseUrls: { block_id: string; action_id: string; channel_id: string }[];
  } {
    const values: Record<string, Record<string, Json>> = {};
    const errors: Record<string, string> = {};
    const responseUrls: { block_id: string; action_id: string; channel_id: string }[] = [];
    for (const b of (view.blocks as Json[]) ?? []) {
      if (b.type !== 'input') continue;
      const blockId = String(b.block_id);
      const element = b.element as InputElement;
      const actionId = String(element.action_id ?? blockId);
      const raw = entered[blockId];
      const text = typeof raw === 'string' ? raw : null;
      const empty = raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
      if (empty && b.optional !== true) errors[blockId] = 'Please complete this required field.';
      const options = (element.options as Json[] | undefined) ?? [];
      const option = (value: string | null) => options.find((x) => x.value === value) ?? null;
      let entry: Json;
      switch (element.type) {
        case 'plain_text_input': {
          const t = text ?? '';
          if (!empty && typeof element.min_length === 'number' && t.length < element.min_length)
            errors[blockId] = `Must be at least ${element.min_length} characters.`;
          if (typeof element.max_length === 'number' && t.length > element.max_length) errors[blockId] = `Must be ${element.max_length} characters or fewer.`;
          entry = { type: element.type, value: empty ? null : t };
          break;
        }
        case 'number_input': {
          if (!empty) {
            const n = Number(text);
            if (!Number.isFinite(n) || (element.is_decimal_allowed !== true && !/^-?\d+$/.test(String(text).trim())))
              errors[blockId] = element.is_decimal_allowed === true ? 'Enter a number.' : 'Enter a whole number.';
            else if (element.min_value !== undefined && n < Number(element.min_value))
              errors[blockId] = `Enter a number that is ${textOf(element.min_value)} or more.`;
            else if (element.max_value !== undefined && n > Number(element.max_value))
              errors[blockId] = `Enter a number that is ${textOf(element.max_value)} or less.`;
          }
          entry = { type: element.type, value: empty ? null : String(text).trim() };
          break;
        }
        case 'static_select':
        case 'radio_buttons':
          entry = { type: element.type, selected_option: option(text) };
          break;
        case 'checkboxes':
        case 'multi_static_select': {
          const chosen = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
          entry = { type: element.type, selected_options: options.filter((x) => chosen.includes(String(x.value))) };
          break;
        }
        case 'conversations_select':
          entry = { type: element.type, selected_conversation: text };
          if (text && element.response_url_enabled === true) responseUrls.push({ block_id: blockId, action_id: actionId, channel_id: text });
          break;
        case 'channels_select':
          entry = { type: element.type, selected_channel: text };
          if (text && element.response_url_enabled === true) responseUrls.push({ block_id: blockId, action_id: actionId, channel_id: text });
          break;
        case 'users_select':
          entry = { type: element.type, selected_user: text };
          break;
        default:
          entry = { type: element.type, value: text };
      }
      values[blockId] = { [actionId]: entry };
    }
    return { values, errors, responseUrls };
  }

  async function submit(userId: string, viewId: string, entered: EnteredValues): Promise<SubmitOutcome> {
    const open = state.views.get(viewId);
    if (!open || (o.strict && open.user !== userId)) return { outcome: 'failed', error: 'not_found' };
    const { values, errors, responseUrls } = readInputs(open.view, entered);
    if (Object.keys(errors).length > 0) {
      // Slack checks these in the client: nothing is sent to the app.
      state.putView({ ...open, errors });
      return { outcome: 'errors', errors };
    }
    const view = { ...open.view, state: { values } };
    state.putView({ ...open, view });
    const payload = slack.viewSubmission({
      user: userId,
      triggerId: issueTrigger(userId, open.channel),
      view,
      responseUrls: responseUrls.map((r) => ({ ...r, response_url: issueResponseUrl({ channel: r.channel_id, user: userId }) })),
    });
    const ack = await interactive('view_submission', payload);
    if (ack.error) return fail(`We had some trouble connecting. Try again? (${ack.error})`, ack);
    const stack = state.stacks.get(userId) ?? [];
    if (ack.body.trim() === '') {
      // An empty ack closes the view (and shows the one under it, if any).
      state.stacks.set(
        userId,
        stack.filter((id) => id !== viewId),
      );
      state.closeViews(userId, [viewId]);
      return { outcome: 'closed', ack };
    }
    let answer: Json;
    try {
      answer = JSON.parse(ack.body) as Json;
    } catch {
      return fail('We had some trouble connecting. Try again? (the app answered something that is not JSON)', ack, 'invalid_json');
    }
    switch (answer.response_action) {
      case 'errors': {
        const errs = (answer.errors ?? {}) as Record<string, string>;
        const inputIds = new Set(((open.view.blocks as Json[]) ?? []).filter((b) => b.type === 'input').map((b) => String(b.block_id)));
        const unknown = Object.keys(errs).filter((k) => !inputIds.has(k));
        if (unknown.length > 0)
          return fail(
            'We had some trouble connecting. Try again?',
            ack,
            'invalid_arguments',
            unknown.map((k) => `[ERROR] errors names ${k}, which is not an input block of the view [json-pointer:/errors/${k}]`),
          );
        const tooLong = Object.entries(errs).filter(([, m]) => typeof m !== 'string' || m.length > 300);
        if (tooLong.length > 0)
          return fail(
            'We had some trouble connecting. Try again?',
            ack,
            'invalid_arguments',
            tooLong.map(([k]) => `[ERROR] must be less than 301 characters [json-pointer:/errors/${k}]`),
          );
        state.putView({ ...open, view, errors: errs });
        return { outcome: 'errors', errors: errs, ack };
      }
      case 'update':
      case 'push': {
        const problems = viewProblems(answer.view);
        if (problems.length > 0) return fail('We had some trouble connecting. Try again?', ack, 'invalid_arguments', problems);
        const next = answer.view as Json;
        if (answer.response_action === 'update') {
          state.putView({
            id: viewId,
            user: userId,
            ...(open.channel ? { channel: open.channel } : {}),
            view: { ...state.storedView(viewId, next, open), previous_view_id: open.view.previous_view_id ?? null },
          });
          return { outcome: 'updated', ack };
        }
        if (stack.length >= 3) return fail('We had some trouble connecting. Try again?', ack, 'push_limit_reached');
        const id = state.newId('V');
        state.stacks.set(userId, [...stack, id]);
        state.putView({
          id,
          user: userId,
          ...(open.channel ? { channel: open.channel } : {}),
          view: { ...state.storedView(id, next, open), previous_view_id: viewId },
        });
        return { outcome: 'pushed', ack };
      }
      case 'clear':
        state.stacks.set(userId, []);
        state.closeViews(userId, stack);
        return { outcome: 'cleared', ack };
      default:
        state.stacks.set(
          userId,
          stack.filter((id) => id !== viewId),
        );
        state.closeViews(userId, [viewId]);
        return { outcome: 'closed', ack };
    }

    function fail(error: string, ack: Ack, code?: string, messages: string[] = []): SubmitOutcome {
      if (code) state.refuse({ source: 'view_submission ack', error: code, messages, user: userId, ...(open!.channel ? { channel: open!.channel } : {}) });
      return { outcome: 'failed', error, ack };
    }
  }

  async function closeView(userId: string, viewId: string): Promise<Ack | undefined> {
    const open = state.views.get(viewId);
    if (!open) return undefined;
    const stack = state.stacks.get(userId) ?? [viewId];
    state.stacks.set(userId, []);
    state.closeViews(userId, stack.includes(viewId) ? stack : [viewId]);
    if (open.view.notify_on_close !== true) return undefined;
    return interactive('view_closed', slack.viewClosed({ user: userId, view: open.view }));
  }

  async function shortcut(userId: string, callbackId: string, channel?: string): Promise<Ack> {
    // Slack offers only the shortcuts the app's manifest declares; a test's stand-in that was told no manifest sends any.
    if (state.manifest && !state.manifest.shortcuts.some((s) => s.type === 'global' && s.callbackId === callbackId))
      return { status: null, body: '', error: 'unknown_shortcut' };
    const payload = slack.shortcut({ user: userId, callbackId, triggerId: issueTrigger(userId, channel), actionTs: String(state.now() / 1000) });
    const ack = await interactive('shortcut', payload);
    if (ack.error && channel) notice(channel, userId, `The shortcut failed with the error "${ack.error}"`);
    return ack;
  }

  /** An event as this workspace's Events API delivers it to the app (eventCallback's workspace is the stand-in's). */
  function envelopeOf(event: Json): Json {
    return eventCallback(event, { eventId: state.newId('Ev'), eventTime: Math.floor(state.now() / 1000) });
  }

  async function openHome(userId: string): Promise<Ack> {
    const home = state.homes.get(userId);
    const envelope = envelopeOf(appHomeOpenedEvent({ user: userId, tab: 'home', eventTs: String(state.now() / 1000), ...(home ? { view: home } : {}) }));
    return deliver('app_home_opened', slack.JSON_CONTENT_TYPE, JSON.stringify(envelope), envelope);
  }

  async function post(userId: string, channel: string, text: string): Promise<{ message: ChannelMessage; ack?: Ack }> {
    const links = linksOf(text, state.unfurlDomains);
    const message = state.addMessage({ channel, author: userId, text, kind: 'post', ...(links.length > 0 ? { links: links.map((l) => l.url) } : {}) });
    if (links.length === 0) return { message };
    // chat.unfurl may name the message by channel and ts, or by this id.
    const unfurlId = `${channel}.${message.ts}.${state.newId('').toLowerCase()}`;
    state.unfurlTargets.set(unfurlId, { channel, ts: message.ts });
    const event = linkSharedEvent({ user: userId, channel, messageTs: message.ts, links, unfurlId, source: 'conversations_history' });
    const envelope = envelopeOf(event);
    // An event the app does not ack is retried by Slack, not shown to anyone: the ack is only recorded.
    return { message, ack: await deliver('link_shared', slack.JSON_CONTENT_TYPE, JSON.stringify(envelope), envelope) };
  }

  /** A step as the app declared it; a test's step the stand-in was not told of is taken as declaring nothing. */
  const declaredStep = (callbackId: string): AppFunction =>
    state.manifest?.functions[callbackId] ?? {
      title: callbackId,
      description: '',
      input_parameters: { properties: {} },
      output_parameters: { properties: {} },
    };

  /**
   * The function_executed Slack sends for one run of a step, in its event_callback envelope, and the execution
   * remembered (its token, its declared outputs) so that its completion is checked as Slack checks it.
   */
  function functionExecuted(callbackId: string, inputs: Json, opts: ExecutionOptions = {}): { envelope: Json; execution: Execution } {
    const previous = opts.functionExecutionId === undefined ? undefined : state.executions.get(opts.functionExecutionId);
    const execution: Execution = previous ?? {
      id: opts.functionExecutionId ?? state.newId('Fx'),
      workflowExecutionId: state.newId('Wx'),
      callbackId,
      user: opts.user ?? '',
      inputs,
      token: `xwfp-${TEAM.id}-${state.newId('').toLowerCase()}${state.newId('').toLowerCase()}`,
      startedAt: state.now(),
      state: 'running',
    };
    if (!previous) state.putExecution(execution);
    const event = functionExecutedEvent({
      callbackId,
      declared: declaredStep(callbackId),
      appId: APP_ID,
      inputs: execution.inputs,
      functionExecutionId: execution.id,
      workflowExecutionId: execution.workflowExecutionId,
      botAccessToken: execution.token,
      eventTs: String(state.now() / 1000),
    });
    const envelope = eventCallback(event, { eventId: opts.eventId ?? state.newId('Ev'), eventTime: Math.floor(state.now() / 1000), ...opts.source });
    return { envelope, execution };
  }

  async function runStep(userId: string, callbackId: string, entered: Record<string, unknown>): Promise<StepRun> {
    const declared = state.manifest?.functions[callbackId];
    if (!declared) return { error: 'unknown_function' };
    const read = inputsFromForm(declared, entered);
    if ('problems' in read) return read;
    const problems = parameterProblems(declared.input_parameters, read.inputs);
    if (problems.length > 0) return { error: problems.join(' ') };
    const { envelope, execution } = functionExecuted(callbackId, read.inputs, { user: userId });
    const ack = await deliver('function_executed', slack.JSON_CONTENT_TYPE, JSON.stringify(envelope), envelope);
    // A step whose delivery was not acked stays running at Slack, which retries the event; the page shows the ack's error.
    return { execution: shown(state.executions.get(execution.id) ?? execution), ack };
  }

  return {
    issueTrigger,
    issueResponseUrl,
    respond,
    command,
    clickInMessage,
    clickInView,
    submit,
    closeView,
    shortcut,
    openHome,
    post,
    functionExecuted,
    runStep,
  };
}

export type Interactions = ReturnType<typeof createInteractions>;
