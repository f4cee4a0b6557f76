import { startSandbox } from './server';
import type { SandboxRequest } from './types';

// `npm run sandbox [-- --port N] [--delay MS]`: the simulator on its own, for
// trying the API with curl. A developer tool, so it reads argv, not the bot's
// config; the data is fake and it says so.

const DEFAULT_PORT = 4010;

function usage(problem: string): never {
  process.stderr.write(`${problem}\nusage: npm run sandbox -- [--port N] [--delay MS]\n`);
  process.exit(2);
}

function option(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === `--${name}`) {
      const value = args[i + 1];
      if (value === undefined) usage(`--${name} needs a value`);
      return value;
    }
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

function wholeNumber(text: string | undefined, fallback: number, name: string, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max) usage(`--${name} must be a whole number from 0 to ${max}, got "${text}"`);
  return Number(text);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const known = /^--(port|delay)(=.*)?$/;
  const unknown = args.filter((a, i) => a.startsWith('-') && !known.test(a) && !known.test(args[i - 1] ?? ''));
  if (unknown.length > 0) usage(`unknown option ${unknown.join(' ')}`);
  const port = wholeNumber(option(args, 'port'), DEFAULT_PORT, 'port', 65535);
  const delayMs = wholeNumber(option(args, 'delay'), 0, 'delay', 600_000);

  let sandbox;
  try {
    sandbox = await startSandbox({ port, delayMs, onRequest: printRequest });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    process.stderr.write(
      code === 'EADDRINUSE'
        ? `port ${port} is already in use: pick another with npm run sandbox -- --port N\n`
        : `the sandbox could not start: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exit(1);
  }
  const { url, accountId, apiKey } = sandbox;
  const auth = `${accountId}:${apiKey}`;
  process.stdout.write(
    [
      'vs-chatops sandbox: a SIMULATOR of the cloud API with FAKE data (not a real cloud account).',
      '',
      `  URL          ${url}`,
      `  account id   ${accountId}`,
      `  API key      ${apiKey}`,
      delayMs > 0 ? `  delay        ${delayMs} ms before every answer` : undefined,
      '',
      'Seeded servers: 42 (web, 8 rules), 43 (no rules), 44 (one rule), 45 (300 rules), 46 (database).',
      'Backups: 9, 10, 11 restorable; 12 marked for delete and 13 not built (both answer 403).',
      '',
      'Try:',
      `  curl -u ${auth} ${url}/virtual_machines/42/firewall_rules.xml`,
      `  curl -u ${auth} ${url}/virtual_machines/42/firewall_rules.json`,
      `  curl -u ${auth} ${url}/virtual_machines/46/auto_scaling.json`,
      `  curl -u ${auth} -H 'Content-Type: application/json' -d '{"disk":{"disk_type":"SSD","disk_size":"20","label":"data"}}' ${url}/virtual_machines/42/disks.json`,
      `  curl -u ${auth} -X POST ${url}/backups/9/restore.json`,
      '',
      'Then point the bot at it: VS_API_URL=' + url + ` VS_ACCOUNT_ID=${accountId} VS_API_KEY=${apiKey}`,
      'Ctrl-C stops it.',
      '',
    ]
      .filter((line) => line !== undefined)
      .join('\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the sandbox\n`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function printRequest(r: SandboxRequest): void {
  process.stdout.write(`${r.at} ${r.method} ${r.path} → ${r.status}\n`);
}

void main();
