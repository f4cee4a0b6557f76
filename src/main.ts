import { config as loadDotenv } from 'dotenv';
import { composeBot, StoppedWhileStarting } from './compose';
import { loadConfig, type Config } from './config';
import { ConfigError } from './errors';
import { maskUrlPasswords, type Logger } from './log';

// The process: load config, compose the bot (compose.ts), start it, and stop
// it on SIGTERM/SIGINT.

async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(error.message + '\n');
      process.exit(2);
    }
    throw error;
  }
  // The bot's logger is composeBot's: with traces on (OTEL_EXPORTER_OTLP_ENDPOINT), its lines carry their trace's ids.
  const bot = await composeBot(config);
  const { logger } = bot;
  keepServingOnStrayErrors(logger);
  // Signals are heard from here on: start-up may wait a long time for the database, and must stop at once when told.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await bot.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  let port: number | null;
  try {
    ({ port } = await bot.start());
  } catch (error) {
    // Stopped while waiting for the database: shutdown() ends the process.
    if (error instanceof StoppedWhileStarting) return;
    throw error;
  }
  logger.info('vs-chatops started', {
    mode: config.mode,
    ...(port !== null ? { port, events: '/slack/events', health: '/healthz' } : { health: `:${config.slack.port}/healthz` }),
    cloudFormat: config.cloud.format,
  });
}

/** A stray rejection must not take the bot down in the middle of an incident; it is logged. */
function keepServingOnStrayErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', { error: reason }));
}

main().catch((error: unknown) => {
  // A setting found unusable only when used (VS_DB_PATH a directory, DATABASE_URL's password refused): as any configuration problem.
  if (error instanceof ConfigError) {
    process.stderr.write(maskUrlPasswords(error.message) + '\n');
    process.exit(2);
  }
  // Other start-up failures (port in use, Slack unreachable in Socket Mode): one clear line, no stack trace.
  process.stderr.write(`vs-chatops could not start: ${maskUrlPasswords(startFailure(error))}\n`);
  process.exit(1);
});

/** What went wrong, in the operator's terms where we know them (a busy port is the usual first one). */
function startFailure(error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; syscall?: unknown; port?: unknown };
  if (e.syscall === 'listen' && e.code === 'EADDRINUSE') {
    return `port ${String(e.port)} is already in use (another vs-chatops, or another server): stop that one, or set PORT to a free port`;
  }
  if (e.syscall === 'listen' && e.code === 'EACCES') {
    return `this process may not listen on port ${String(e.port)}: set PORT to a port above 1023`;
  }
  return error instanceof Error ? error.message : String(error);
}
