// The local page's side of the wire: what it reads from the stand-in (GET /local/state, the events, the
// answers of the /local/ endpoints), as far as the page uses it. Types only, for the JSDoc of app.js and
// blocks.js (checked by page/tsconfig.json); the stand-in's own are in src/state.ts.

/** A Block Kit text object. */
export interface TextObject {
  type?: string;
  text: string;
  emoji?: boolean;
}

export interface Confirm {
  title?: TextObject;
  text?: TextObject;
  confirm?: TextObject;
  deny?: TextObject;
  style?: string;
}

export interface Option {
  value: string;
  text?: TextObject;
  description?: TextObject;
}

/** An element: a button, an image in a context block, or the element of an input block. */
export interface BlockElement {
  type: string;
  action_id?: string;
  text?: TextObject;
  style?: string;
  url?: string;
  confirm?: Confirm;
  image_url?: string;
  alt_text?: string;
  placeholder?: TextObject;
  initial_value?: string;
  max_length?: number;
  multiline?: boolean;
  is_decimal_allowed?: boolean;
  options?: Option[];
  initial_option?: Option;
  initial_options?: Option[];
  initial_conversation?: string;
  initial_channel?: string;
  initial_user?: string;
  default_to_current_conversation?: boolean;
}

/** How a rich text run is styled. */
export interface RichTextStyle {
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
  code?: boolean;
}

/**
 * A rich_text block's element (rich_text_section, rich_text_list, rich_text_preformatted, rich_text_quote), or one of
 * their runs (text, link, emoji, user, channel, usergroup, broadcast, date): one shape, each field where its type has it.
 */
export interface RichText {
  type: string;
  elements?: RichText[];
  /** A list's: bullet or ordered; a run's: RichTextStyle. */
  style?: string | RichTextStyle;
  indent?: number;
  text?: string;
  url?: string;
  name?: string;
  unicode?: string;
  user_id?: string;
  channel_id?: string;
  usergroup_id?: string;
  range?: string;
  timestamp?: number;
  format?: string;
  fallback?: string;
}

/** A context block's element: a text object, or an image element. */
export type ContextElement = (TextObject & { type: 'plain_text' | 'mrkdwn' }) | (BlockElement & { type: 'image' });

export interface Block {
  type: string;
  block_id: string;
  text?: TextObject;
  fields?: TextObject[];
  accessory?: BlockElement;
  /** An actions block's elements, or a context block's (see ContextElement). */
  elements?: BlockElement[];
  image_url?: string;
  alt_text?: string;
  title?: TextObject;
  label?: TextObject;
  hint?: TextObject;
  optional?: boolean;
  element?: BlockElement;
}

export interface Person {
  id: string;
  name: string;
  role?: string;
}

export interface Channel {
  id: string;
  name: string;
  topic?: string;
  /** A direct message between the app and this person: shown as the app's Messages, to them alone. */
  dmWith?: string;
}

/** A file shared with a message (files.completeUploadExternal). */
export interface SharedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  url_private_download: string;
}

export interface Message {
  ts: string;
  channel: string;
  author: string;
  text: string;
  blocks?: Block[];
  ephemeralTo?: string;
  kind: 'bot' | 'command' | 'post' | 'notice';
  replaced?: boolean;
  /** A reply in the thread of the message of this ts: shown under it. */
  threadTs?: string;
  /** The app's unfurls of the message's links (chat.unfurl), by link. */
  unfurls?: Record<string, { blocks?: Block[] }>;
  /** Files shared with it. */
  files?: SharedFile[];
}

/** The control panel whose server links the app unfurls, and the servers its links may name. */
export interface PanelHint {
  url: string;
  servers: number[];
}

/** A modal or Home view as the stand-in keeps it. */
export interface View {
  id: string;
  hash: string;
  title?: TextObject;
  blocks?: Block[];
  close?: TextObject;
  submit?: TextObject;
}

/** A modal on someone's screen. */
export interface OpenView {
  id: string;
  user: string;
  view: View;
  channel?: string;
  errors?: Record<string, string>;
}

export interface Refusal {
  source: string;
  error: string;
  messages?: string[];
  channel?: string;
  user?: string;
}

/** One parameter of a workflow step, as the app's manifest declares it. */
export interface FunctionParameter {
  type: string;
  title: string;
  description?: string;
  enum?: string[];
  choices?: { value: string; title: string }[];
}

/** One of the app's workflow steps (manifest `functions`). */
export interface AppFunction {
  title: string;
  description: string;
  input_parameters: { properties: Record<string, FunctionParameter>; required?: string[] };
  output_parameters: { properties: Record<string, FunctionParameter>; required?: string[] };
}

/** One run of a step, from function_executed to its completion. */
export interface Execution {
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  user: string;
  inputs: Record<string, unknown>;
  startedAt: number;
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
  endedAt?: number;
}

/** GET /local/state. */
/** An entry of the incident tool's timeline: a change event the PagerDuty stand-in received. */
export interface TimelineEntry {
  receivedAt: string;
  summary: string;
  timestamp: string | null;
  link: string | null;
}

export interface Snapshot {
  people: Person[];
  channels: Channel[];
  /** The user groups' @handles, by id. */
  groups: Record<string, string>;
  /** The app's global shortcuts, from its manifest: the shortcut menu. */
  shortcuts: { callbackId: string; name: string; description: string }[];
  bot: { id: string; name: string };
  messages: Message[];
  views: OpenView[];
  homes: Record<string, View>;
  refusals: Refusal[];
  /** What the page says about the workspace's settings. */
  notes: string[];
  panel: PanelHint | null;
  /** The servers the control panel (sandbox) can act on, by label; null when there is no sandbox to act on. */
  control: { id: number; label: string }[] | null;
  functions: Record<string, AppFunction>;
  executions: Execution[];
  timeline: TimelineEntry[];
}

/** The answer of a POST to /local/... (each endpoint fills its part). */
export interface Answer {
  ok?: boolean;
  error?: string;
  home?: View | null;
  outcome?: string;
  errors?: Record<string, string>;
  /** /local/step: the inputs that do not fit the step's parameters, by input. */
  problems?: Record<string, string>;
  /** /local/step: the run started. */
  execution?: Execution;
}

/** The stand-in's events, by type (the SSE event name). */
export interface Events {
  message: { message: Message };
  delete: { channel: string; ts: string };
  view: { view: OpenView };
  view_closed: { id: string; user: string };
  home: { user: string; view: View };
  refusal: { refusal: Refusal };
  execution: { execution: Execution };
  channel: { channel: Channel };
  timeline: { entry: TimelineEntry };
}

/** What renderBlocks needs from the page: names for mentions, and what buttons and inputs do. */
export interface RenderContext {
  person(id: string): { name: string } | undefined;
  channel(id: string): Channel | undefined;
  group?(id: string): string;
  openChannel(id: string): void;
  onAction?(block: Block, element: BlockElement, button: HTMLButtonElement): void;
  input?(block: Block): Node;
}
