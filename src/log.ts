import type { LogLevel } from './config';

// JSON lines on stdout. Every line passes through one redaction step: keys
// that name a secret lose their value, and any known secret value is masked
// wherever it appears (messages, error text, nested objects), at every level.

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(authorization|token|secret|password|api_?key|cookie)/i;
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
  /** Where lines go; stdout by default. Tests pass a collector. */
  write?: (line: string) => void;
  now?: () => Date;
}

interface LoggerSettings {
  level: LogLevel;
  threshold: number;
  /** Secrets as JSON writes them: lines are masked after serialisation. Longest first. */
  maskable: readonly string[];
  write: (line: string) => void;
  now: () => Date;
}

export function createLogger(options: LoggerOptions = {}, bindings: LogFields = {}): Logger {
  const level = options.level ?? 'info';
  const settings: LoggerSettings = {
    level,
    threshold: LEVELS[level],
    maskable: [...(options.secrets ?? [])]
      .filter((s) => s.length > 0)
      .sort((a, b) => b.length - a.length)
      .map((s) => JSON.stringify(s).slice(1, -1)),
    write: options.write ?? ((line: string) => process.stdout.write(line + '\n')),
    now: options.now ?? (() => new Date()),
  };
  return loggerWith(settings, bindings);
}

/** A logger over shared settings: a child per command costs one object, not a new set-up. */
function loggerWith(settings: LoggerSettings, bindings: LogFields): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVELS[lvl] < settings.threshold) return;
    const record = { time: settings.now().toISOString(), level: lvl, msg, ...bindings, ...fields };
    let line: string;
    try {
      line = JSON.stringify(sanitize(record, new WeakSet()));
    } catch {
      line = JSON.stringify({ time: record.time, level: lvl, msg: 'unserialisable log record' });
    }
    for (const secret of settings.maskable) if (line.includes(secret)) line = line.split(secret).join(REDACTED);
    settings.write(line);
  };

  return {
    level: settings.level,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (more) => loggerWith(settings, { ...bindings, ...more }),
  };
}

/** Makes a value JSON-safe: errors become plain objects, secret-named keys are masked, cycles cut. */
function sanitize(value: unknown, seen: WeakSet<object>, depth = 0): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if (seen.has(value) || depth > 8) return '[…]';
  seen.add(value);
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    const out: LogFields = { name: value.name, message: value.message };
    if (code !== undefined) out.code = code;
    if (value.stack) out.stack = value.stack.split('\n').slice(0, 6).join('\n');
    if ('kind' in value) out.kind = (value as { kind?: unknown }).kind;
    if ('status' in value) out.status = (value as { status?: unknown }).status;
    if (value.cause !== undefined) out.cause = sanitize(value.cause, seen, depth + 1);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => sanitize(v, seen, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v != null && v !== '' ? REDACTED : sanitize(v, seen, depth + 1);
  }
  return out;
}
