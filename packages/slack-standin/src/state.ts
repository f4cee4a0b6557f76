import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { shown, type Execution, type ShownExecution } from './functions';
import type { AppManifest } from './manifest';
import type { SandboxControl } from './sandbox-control';
import { modalView, type Json } from './payloads';
import { BOT_USER, type Channel, type Person } from './workspace';

// What the stand-in remembers: the workspace (people, channels, groups), the
// messages and views as Slack would show them, the trigger_ids and
// response_urls it issued, and a record of every call and post for tests.
// Every change is also an event, which the page receives over SSE.

export type { Json };

/** A field Slack reads as text: a string as it is, a number or a boolean written out, anything else as no text. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

export interface ChannelMessage {
  ts: string;
  channel: string;
  /** A person's id, or the bot's. */
  author: string;
  text: string;
  blocks?: unknown[];
  /** Only this person sees it ("Only visible to you"). */
  ephemeralTo?: string;
  /**
   * bot: posted by the app; command: a slash command a person typed; post: a message a person posted;
   * notice: the stand-in speaking (errors Slack would show).
   */
  kind: 'bot' | 'command' | 'post' | 'notice';
  /** It replaced an earlier message in place. */
  replaced?: boolean;
  /** A reply in the thread of the message of this ts (chat.postMessage's `thread_ts`): shown under it. */
  threadTs?: string;
  /** The links of the app's unfurl domains it holds, as link_shared told the app of them. */
  links?: string[];
  /** The app's unfurls (chat.unfurl), by link: shown under the message. */
  unfurls?: Record<string, Json>;
  /** Files shared with the message (files.completeUploadExternal), as Slack lists them. */
  files?: SharedFile[];
}

/** A file as a message shows it: its name and title, and where to download it. */
export interface SharedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  /** Where it downloads from: this stand-in's origin (Slack's files host at Slack). */
  url_private_download: string;
}

/** A file the app is uploading (files.getUploadURLExternal), then uploaded, then shared. */
export interface StoredFile {
  id: string;
  filename: string;
  /** The length the app announced. */
  length: number;
  /** The upload URL's secret part; the bytes are taken once. */
  uploadKey: string;
  /** Set once the bytes arrived at the upload URL. */
  bytes?: Buffer;
  /** The channels it was shared in. */
  sharedIn: string[];
}

/** The control panel whose links the app unfurls (local mode: the sandbox's), and the servers a link may name there, for the page's hint. */
export interface PanelHint {
  url: string;
  servers: readonly number[];
}

export interface OpenView {
  id: string;
  /** Whose screen it is on. */
  user: string;
  /** The view as Slack keeps it: the app's view plus id, hash, state. */
  view: Json;
  /** The conversation it was opened from, if any (default_to_current_conversation). */
  channel?: string;
  /** Inline errors of the last response_action: errors, by block_id. */
  errors?: Record<string, string>;
}

/** A trigger_id handed to the bot with an interaction; it expires (3 s at Slack) and works once. */
export interface Trigger {
  user: string;
  channel?: string;
  issuedAt: number;
  used: boolean;
}

/** A response_url handed to the bot; Slack allows 5 posts within 30 minutes. */
export interface ResponseTarget {
  channel: string;
  user: string;
  /** The message an action came from: replace_original and delete_original act on it. */
  messageTs?: string;
  issuedAt: number;
  uses: number;
}

export interface SlackCall {
  method: string;
  /** Form or JSON arguments as sent. */
  args: Json;
  token: string | undefined;
  at: number;
  /** What the stand-in answered. */
  ok?: boolean;
  error?: string;
}

export interface ResponsePost {
  /** The id in /response/:id. */
  id: string;
  body: Json;
  at: number;
}

/** An answer to a response_url as a benchmark sees it: when it arrived (performance.now()) and whether it was for the channel. */
export interface ArrivedMessage {
  at: number;
  inChannel: boolean;
}

/** Something Slack would refuse, as the page shows it to the developer. */
export interface Refusal {
  /** Method or "response_url" or "ack". */
  source: string;
  error: string;
  messages: string[];
  channel?: string;
  user?: string;
  at: number;
}

export interface Delivery {
  kind: string;
  payload: Json;
  status: number | null;
  /** The bot's ack body. */
  body: string;
  error?: string;
  ms: number;
}

/**
 * An entry of the incident tool's timeline that the page shows beside the workspace (local mode: the change events
 * the PagerDuty stand-in received): what happened, when, and a link back.
 */
export interface TimelineEntry {
  /** When the incident tool received it (ISO 8601). */
  receivedAt: string;
  summary: string;
  /** When it happened, as the event says (ISO 8601), or null. */
  timestamp: string | null;
  /** A link the event carries (to the change's message), or null. */
  link: string | null;
}

export type StandInEvent =
  | { type: 'message'; message: ChannelMessage }
  | { type: 'delete'; channel: string; ts: string }
  | { type: 'view'; view: OpenView }
  | { type: 'view_closed'; user: string; id: string }
  | { type: 'home'; user: string; view: Json }
  | { type: 'refusal'; refusal: Refusal }
  | { type: 'execution'; execution: ShownExecution }
  | { type: 'channel'; channel: Channel }
  | { type: 'timeline'; entry: TimelineEntry };

export class StandInState {
  readonly people: Person[];
  readonly channels: Channel[];
  readonly groups = new Map<string, string[]>();
  /** The @handles of the groups that have one (the on-call group), by id: usergroups.list and the page's mentions. */
  readonly groupHandles = new Map<string, string>();
  readonly messages: ChannelMessage[] = [];
  readonly views = new Map<string, OpenView>();
  /** Each person's modal stack, bottom first. */
  readonly stacks = new Map<string, string[]>();
  /** Each person's Home tab, as last published (views.publish), by user id. */
  readonly homes = new Map<string, Json>();
  readonly triggers = new Map<string, Trigger>();
  /** The app's unfurl domains (its manifest's unfurl_domains): links of these hosts, and their subdomains', reach it as link_shared. */
  unfurlDomains: string[] = [];
  /** What the page says about the control panel's links; unset when the app unfurls none. */
  panel: PanelHint | undefined;
  /** The sandbox the page's control panel acts on (local mode); unset: the page shows no control panel. */
  control: SandboxControl | undefined;
  /** The unfurl_id of each link_shared sent, and the message it was about. */
  readonly unfurlTargets = new Map<string, { channel: string; ts: string }>();
  readonly responseTargets = new Map<string, ResponseTarget>();
  /** The app as its manifest declares it (slash commands, shortcuts, workflow steps); unset until it is told. */
  manifest: AppManifest | undefined;
  /** Files the app uploaded (or is uploading), by id. */
  readonly files = new Map<string, StoredFile>();
  /** Every run of a step, by function_execution_id, oldest first. */
  readonly executions = new Map<string, Execution>();
  /** The execution each issued bot token (xwfp-…) belongs to. */
  private readonly executionTokens = new Map<string, string>();

  readonly calls: SlackCall[] = [];
  readonly responses: ResponsePost[] = [];
  readonly arrivals = new Map<string, ArrivedMessage>();
  duplicates = 0;
  readonly refusals: Refusal[] = [];
  readonly deliveries: Delivery[] = [];

  /** Members of the channels that have a list of their own (a Set too, so that a 50,000-member channel answers at once). */
  private readonly channelMembers = new Map<string, { list: readonly string[]; set: ReadonlySet<string> }>();
  private readonly listeners = new Set<(e: StandInEvent) => void>();
  private readonly waiters = new Set<() => void>();
  private lastTs = 0;

  constructor(
    people: readonly Person[],
    channels: readonly Channel[],
    readonly now: () => number,
    /** Keep the bodies of response_url posts (tests); a benchmark keeps only arrivals. */
    readonly keepBodies: boolean,
  ) {
    this.people = [...people];
    this.channels = [...channels];
    for (const c of channels) if (c.members) this.setMembers(c.id, c.members);
  }

  /** Who is in a channel, in the order Slack lists them. */
  membersOf(channelId: string): readonly string[] {
    return this.channelMembers.get(channelId)?.list ?? [...this.people.map((p) => p.id), BOT_USER.id];
  }

  isMember(channelId: string, userId: string): boolean {
    const own = this.channelMembers.get(channelId);
    return own ? own.set.has(userId) : userId === BOT_USER.id || this.person(userId) !== undefined;
  }

  /** Sets who is in a channel, adding the channel to the workspace if it is new. */
  setMembers(channelId: string, members: readonly string[]): void {
    this.channelMembers.set(channelId, { list: [...members], set: new Set(members) });
    if (!this.channel(channelId)) this.channels.push({ id: channelId, name: channelId.toLowerCase(), topic: '' });
  }

  /** The direct message between the app and `user` (conversations.open): one per person, made when first asked for. */
  openDirectMessage(user: string): { channel: Channel; alreadyOpen: boolean } {
    const open = this.channels.find((c) => c.dmWith === user);
    if (open) return { channel: open, alreadyOpen: true };
    const channel: Channel = { id: this.newId('D'), name: this.person(user)?.name ?? user, topic: '', dmWith: user, members: [user, BOT_USER.id] };
    this.channels.push(channel);
    this.setMembers(channel.id, channel.members!);
    this.emit({ type: 'channel', channel });
    return { channel, alreadyOpen: false };
  }

  person(id: string): Person | undefined {
    return this.people.find((p) => p.id === id);
  }

  channel(id: string): Channel | undefined {
    return this.channels.find((c) => c.id === id);
  }

  /** Message timestamps as Slack writes them ("1700000000.000100"), strictly increasing. */
  nextTs(): string {
    const micros = Math.max(Math.floor(this.now() * 1000), this.lastTs + 1);
    this.lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  newId(prefix: string): string {
    return prefix + randomBytes(6).toString('hex').toUpperCase();
  }

  /** A view as Slack keeps it: the app's view (and nothing of the one it replaces) plus id, hash, empty state. */
  storedView(id: string, view: Json, previous?: OpenView): Json {
    return modalView({ id, view, hash: `${Math.floor(this.now() / 1000)}.${this.newId('H')}`, rootViewId: textOf(previous?.view.root_view_id) || id });
  }

  addMessage(m: Omit<ChannelMessage, 'ts'> & { ts?: string }): ChannelMessage {
    const message: ChannelMessage = { ...m, ts: m.ts ?? this.nextTs() };
    this.messages.push(message);
    this.emit({ type: 'message', message });
    return message;
  }

  replaceMessage(channel: string, ts: string, with_: { text: string; blocks?: unknown[] }): ChannelMessage | undefined {
    const i = this.messages.findIndex((m) => m.channel === channel && m.ts === ts);
    if (i < 0) return undefined;
    const message: ChannelMessage = { ...this.messages[i]!, text: with_.text, blocks: with_.blocks, replaced: true };
    this.messages[i] = message;
    this.emit({ type: 'message', message });
    return message;
  }

  /** Attaches the app's unfurls to a message (chat.unfurl): a link unfurled again replaces its earlier unfurl, as at Slack. */
  unfurlMessage(channel: string, ts: string, unfurls: Record<string, Json>): ChannelMessage | undefined {
    const i = this.messages.findIndex((m) => m.channel === channel && m.ts === ts);
    if (i < 0) return undefined;
    const message: ChannelMessage = { ...this.messages[i]!, unfurls: { ...this.messages[i]!.unfurls, ...unfurls } };
    this.messages[i] = message;
    this.emit({ type: 'message', message });
    return message;
  }

  deleteMessage(channel: string, ts: string): boolean {
    const i = this.messages.findIndex((m) => m.channel === channel && m.ts === ts);
    if (i < 0) return false;
    this.messages.splice(i, 1);
    this.emit({ type: 'delete', channel, ts });
    return true;
  }

  /** Messages of a channel as `user` sees them (others' ephemeral messages left out; someone else's direct messages, all). */
  visibleIn(channel: string, user?: string): ChannelMessage[] {
    const dmWith = this.channel(channel)?.dmWith;
    if (dmWith !== undefined && user !== undefined && user !== dmWith) return [];
    return this.messages.filter((m) => m.channel === channel && (m.ephemeralTo === undefined || user === undefined || m.ephemeralTo === user));
  }

  /** A Home tab by its view id, as a view on its owner's screen; undefined when no Home tab has that id. */
  homeView(viewId: string): OpenView | undefined {
    for (const [user, view] of this.homes) if (view.id === viewId) return { id: viewId, user, view };
    return undefined;
  }

  putView(v: OpenView): void {
    this.views.set(v.id, v);
    this.emit({ type: 'view', view: v });
  }

  closeViews(user: string, ids: string[]): void {
    for (const id of ids) {
      this.views.delete(id);
      this.emit({ type: 'view_closed', user, id });
    }
  }

  /** Records a run of a step (or its completion) and tells the page. */
  putExecution(execution: Execution): void {
    this.executions.set(execution.id, execution);
    this.executionTokens.set(execution.token, execution.id);
    this.emit({ type: 'execution', execution: shown(execution) });
  }

  /** The execution a bot token was issued for, if it is one. */
  executionOfToken(token: string | undefined): Execution | undefined {
    const id = token === undefined ? undefined : this.executionTokens.get(token);
    return id === undefined ? undefined : this.executions.get(id);
  }

  refuse(r: Omit<Refusal, 'at'>): Refusal {
    const refusal = { ...r, at: this.now() };
    this.refusals.push(refusal);
    this.emit({ type: 'refusal', refusal });
    return refusal;
  }

  recordResponse(id: string, body: Json): void {
    if (this.arrivals.has(id)) this.duplicates++;
    else this.arrivals.set(id, { at: performance.now(), inChannel: body.response_type === 'in_channel' });
    if (this.keepBodies) this.responses.push({ id, body, at: this.now() });
    this.notify();
  }

  recordCall(call: SlackCall): void {
    this.calls.push(call);
    this.notify();
  }

  /** The incident tool's timeline, oldest first (local mode: change events received by the PagerDuty stand-in). */
  readonly timeline: TimelineEntry[] = [];

  addTimelineEntry(entry: TimelineEntry): void {
    this.timeline.push(entry);
    if (this.timeline.length > 500) this.timeline.splice(0, this.timeline.length - 500);
    this.emit({ type: 'timeline', entry });
  }

  subscribe(listener: (e: StandInEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(e: StandInEvent): void {
    for (const l of this.listeners) l(e);
    this.notify();
  }

  /** Resolves with `check()`'s first defined value; rejects after `timeoutMs`. */
  waitFor<T>(check: () => T | undefined, what: () => string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = check();
      if (done !== undefined) return resolve(done);
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      const waiter = () => {
        const result = check();
        if (result === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(result);
      };
      this.waiters.add(waiter);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}
