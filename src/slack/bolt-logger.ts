import { LogLevel as BoltLogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../log';

// Bolt and its Web API client log through ours, so their lines are JSON too
// and pass through the same redaction.

export function toBoltLogger(logger: Logger): BoltLogger {
  let name = 'bolt';
  const line = (args: unknown[]) => {
    const [first, ...rest] = args;
    const msg = typeof first === 'string' ? first : first instanceof Error ? first.message : (JSON.stringify(first) ?? '');
    const fields: Record<string, unknown> = { component: name };
    const extras = first instanceof Error ? [first, ...rest] : rest;
    if (extras.length > 0) fields.details = extras.map((x) => (typeof x === 'string' ? x : x));
    return [msg, fields] as const;
  };
  return {
    debug: (...args: unknown[]) => logger.debug(...line(args)),
    info: (...args: unknown[]) => logger.info(...line(args)),
    warn: (...args: unknown[]) => logger.warn(...line(args)),
    error: (...args: unknown[]) => logger.error(...line(args)),
    setLevel: () => undefined, // the level is ours (LOG_LEVEL), fixed at start
    getLevel: () => ({ debug: BoltLogLevel.DEBUG, info: BoltLogLevel.INFO, warn: BoltLogLevel.WARN, error: BoltLogLevel.ERROR })[logger.level],
    setName: (n: string) => {
      name = n;
    },
  };
}
