import { config as loadDotenv } from 'dotenv';
import { createCloudClient } from './cloud/client';
import { ConfigError, loadConfig, secretValues, type Config } from './config';
import { createLogger, type Logger } from './log';
import { startSandbox, type Sandbox } from './sandbox';
import { createSlackApp } from './slack/app';
import { openSqliteAuditStore } from './store/sqlite-audit-store';

// Composition root: config → cloud client (or the in-process sandbox) → audit
// store → Slack app → start; and the reverse on SIGTERM/SIGINT.

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
  const logger = createLogger({ level: config.logLevel, secrets: secretValues(config) });
  keepServingOnStrayErrors(logger);
  const stopping = { now: false };

  let sandbox: Sandbox | undefined;
  let cloudUrl = config.cloud.url;
  if (config.cloud.url === 'sandbox') {
    sandbox = await startSandbox({ port: 0, accountId: config.cloud.accountId, apiKey: config.cloud.apiKey });
    cloudUrl = sandbox.url;
    logger.warn('VS_API_URL=sandbox: the bot is running on the built-in simulator with fake servers, not a real cloud account', { sandboxUrl: sandbox.url });
  }
  const cloud = createCloudClient({ ...config.cloud, url: cloudUrl }, { logger: logger.child({ component: 'cloud' }) });
  const store = openSqliteAuditStore(config.dbPath);
  const slack = createSlackApp(config, { cloud, store, logger, sandbox: sandbox !== undefined });
  const { port } = await slack.start();
  logger.info('vs-chatops started', {
    mode: config.slack.appToken ? 'socket' : 'http',
    ...(port !== null ? { port, events: '/slack/events', health: '/healthz' } : { health: `:${config.slack.port}/healthz` }),
    cloudFormat: config.cloud.format,
  });

  const shutdown = async (signal: string) => {
    if (stopping.now) return;
    stopping.now = true;
    logger.info('shutting down', { signal });
    await slack.stop();
    await cloud.close();
    await store.close();
    await sandbox?.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** A stray rejection must not take the bot down in the middle of an incident; it is logged. */
function keepServingOnStrayErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', { error: reason }));
}

main().catch((error: unknown) => {
  // Start-up failures (port in use, unwritable VS_DB_PATH): one clear line, no stack trace.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`vs-chatops could not start: ${message}\n`);
  process.exit(1);
});
