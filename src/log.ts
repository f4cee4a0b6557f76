import pino from 'pino';
import type { LogLevel } from './config';

// JSON lines through pino. What the bot's logger guarantees, at every level:
// - keys that name a secret or a capability lose their value (any depth);
// - capabilities inside text (a raw Slack body in a Bolt debug line, a Socket
//   Mode URL with its ticket, a response_url) are cut out of every string;
// - known secret values are masked wherever they appear, after
//   serialisation, so messages, nested fields, error messages and stacks are
//   all covered;
// - so is the password of any URL (`scheme://user:password@host`), which
//   undici's errors quote whole, whoever logs them (Bolt, the Web API client,
//   our own lines).

/** Keys whose values are secrets: authorization headers, tokens, secrets, passwords, cookies, API keys. */
export const SECRET_KEY = /(authorization|token|secret|password|api[_-]?key|cookie)/i;
/** Keys whose values are capabilities: whoever holds one can post as the bot or open a view. */
export const CAPABILITY_KEY = /^(response_?urls?|trigger_?id|private_?metadata|upload_?url)$/i;
export const REDACTED = '[REDACTED]';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(bindings: LogFields): Logger;
  readonly level: LogLevel;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Values masked wherever they appear. */
  secrets?: readonly string[];
  /** Where lines go (without the newline); stdout by default. Tests pass a collector. */
  write?: (line: string) => void;
  now?: () => Date;
  /** Fields every line gets from where it is written: `trace_id` and `span_id` while traces are on (src/tracing.ts). */
  traceFields?: () => LogFields;
}

export function createLogger(options: LoggerOptions = {}, bindings: LogFields = {}): Logger {
  const level = options.level ?? 'info';
  const now = options.now;
  const time = now ? () => now().toISOString() : isoTimeNow;
  // Secrets as JSON writes them: lines are masked after serialisation. Longest first.
  const maskable = [...(options.secrets ?? [])]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length)
    .map((s) => JSON.stringify(s).slice(1, -1));
  const write = options.write ?? stdoutLine;
  const destination = {
    write(chunk: string) {
      let line = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
      for (const secret of maskable) if (line.includes(secret)) line = line.split(secret).join(REDACTED);
      write(maskUrlPasswords(line));
    },
  };
  const root = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"time":"${time()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (b) => sanitize(b, new WeakSet()) as LogFields,
        log: (fields) => sanitize(fields, new WeakSet()) as LogFields,
      },
      serializers: { msg: (m: unknown) => (typeof m === 'string' ? redactCapabilities(m) : m) },
      ...(options.traceFields ? { mixin: options.traceFields } : {}),
    },
    destination,
  );
  return wrap(Object.keys(bindings).length > 0 ? root.child(bindings) : root, level);
}

/** Now, as ISO 8601: made once per millisecond (a busy bot writes several lines in one). */
let lastMs = NaN;
let lastIso = '';
function isoTimeNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/**
 * A line to stdout, written with the others of the same turn of the event loop: under load a turn logs several
 * requests, and every write is a system call (to a pipe, a wake-up of whatever reads it). What is pending is written
 * when the process exits, whatever ends it.
 */
let pendingLines = '';
let flushAtExit = false;
function stdoutLine(line: string): void {
  if (pendingLines === '') {
    setImmediate(flushLines);
    if (!flushAtExit) {
      flushAtExit = true;
      process.once('exit', flushLines);
    }
  }
  pendingLines += line + '\n';
}
function flushLines(): void {
  if (pendingLines === '') return;
  const lines = pendingLines;
  pendingLines = '';
  process.stdout.write(lines);
}

/** Our Logger interface (message first, then fields) over a pino logger. */
function wrap(p: pino.Logger, level: LogLevel): Logger {
  return {
    level,
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
    child: (more) => wrap(p.child(more), level),
  };
}

/**
 * Capabilities written as text: `"response_url":"…"` at any level of JSON
 * escaping (a body inside a message inside a field), `response_url=…` in a
 * form body, Slack's webhook URLs, the upload URLs of its files host (and
 * `"upload_url"` wherever it points), and the `ticket` of a Socket Mode URL.
 */
const CAPABILITY_NAMES = 'response_urls?|responseUrls?|trigger_id|triggerId|private_metadata|privateMetadata|upload_url|uploadUrl';
const IN_JSON = new RegExp(`(\\\\*)"(${CAPABILITY_NAMES})\\1"(\\s*:\\s*)\\1"(.*?)(?<!\\\\)\\1"`, 'g');
const IN_FORM = new RegExp(`\\b(${CAPABILITY_NAMES})=[^&\\s"\\\\]*`, 'g');
const IN_URL_ENCODED_JSON = new RegExp(`(%22(?:${CAPABILITY_NAMES})%22%3A%22).*?((?<!%5C)%22)`, 'gi');
const HOOK_URL = /https:\/\/(?:hooks\.slack(?:-gov)?\.com|files\.slack\.com\/upload)\/[^\s"'\\<>]+/g;
const TICKET = /([?&]ticket=)[^&\s"'\\]+/g;
const MAY_HOLD_CAPABILITY =
  /response_?url|responseUrl|trigger_?id|triggerId|private_?metadata|privateMetadata|upload_?url|uploadUrl|hooks\.slack|files\.slack\.com\/upload|ticket=/i;

export function redactCapabilities(text: string): string {
  if (!MAY_HOLD_CAPABILITY.test(text)) return text;
  return text
    .replace(IN_JSON, (_m, esc: string, key: string, colon: string) => `${esc}"${key}${esc}"${colon}${esc}"${REDACTED}${esc}"`)
    .replace(IN_FORM, (_m, key: string) => `${key}=${REDACTED}`)
    .replace(IN_URL_ENCODED_JSON, `$1${REDACTED}$2`)
    .replace(HOOK_URL, REDACTED)
    .replace(TICKET, `$1${REDACTED}`);
}

/**
 * The user info of a URL up to its last `@` (a password may hold one):
 * `https://user:secret@host` → `https://user:[REDACTED]@host`. Stops at what
 * ends a URL in text or in a JSON line (space, quote, backslash, /?#).
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'\\]*:)[^\s/?#"'\\]*@/gi;

/** Masks the password of every URL in `text`; for lines written outside the logger too (main.ts's start-up failure). */
export function maskUrlPasswords(text: string): string {
  if (!text.includes('@') || !text.includes('://')) return text;
  return text.replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/** Makes a value JSON-safe: errors become plain objects, secret and capability keys are masked, strings lose capabilities, cycles cut. */
function sanitize(value: unknown, seen: WeakSet<object>, depth = 0): unknown {
  if (typeof value === 'string') return redactCapabilities(value);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if (seen.has(value) || depth > 8) return '[…]';
  seen.add(value);
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    const out: LogFields = { name: value.name, message: redactCapabilities(value.message) };
    if (code !== undefined) out.code = code;
    if (value.stack) out.stack = redactCapabilities(value.stack.split('\n').slice(0, 6).join('\n'));
    if ('kind' in value) out.kind = (value as { kind?: unknown }).kind;
    if ('status' in value) out.status = (value as { status?: unknown }).status;
    if (value.cause !== undefined) out.cause = sanitize(value.cause, seen, depth + 1);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => sanitize(v, seen, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = maskedKey(k) && v != null && v !== '' ? REDACTED : sanitize(v, seen, depth + 1);
  }
  return out;
}

/** Keys already seen and whether their values are masked: the same few keys come on every line. */
const maskedKeys = new Map<string, boolean>();
const MASKED_KEYS_KEPT = 1000;

function maskedKey(key: string): boolean {
  let masked = maskedKeys.get(key);
  if (masked === undefined) {
    masked = SECRET_KEY.test(key) || CAPABILITY_KEY.test(key);
    // Keys come from our code and from what it logs (errors, Slack's answers): a bounded few are kept.
    if (maskedKeys.size < MASKED_KEYS_KEPT) maskedKeys.set(key, masked);
  }
  return masked;
}
