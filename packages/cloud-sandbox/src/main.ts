import type { SandboxReadsFor } from './reads';
import { startSandbox } from './server';
import type { SandboxReads, SandboxRequest } from './types';

// `npm run sandbox [-- --port N] [--delay MS]`: the simulator on its own, for
// trying the API with curl. A developer tool, so it reads argv, not the bot's
// config; the data is fake and it says so. It runs on the real clock: a change's
// transactions take a few seconds. The repository's scripts/sandbox.ts runs it
// with the bot's table of reads (this package imports nothing of the bot).

const DEFAULT_PORT = 4010;
const USAGE = 'usage: npm run sandbox -- [--port N] [--delay MS]   (the -- passes the options on to the sandbox)';
const OPTIONS = ['port', 'delay'] as const;
type OptionName = (typeof OPTIONS)[number];

interface SandboxArgs {
  port: number;
  delayMs: number;
}

/**
 * Reads the command line; a problem (with the usage line) instead of a guess.
 * `npm run sandbox --port 5000`, without the `--`, is npm's own option: npm
 * keeps it (as npm_config_port in `npmConfig`) and passes only "5000" on, so a
 * stray word or an npm_config_ value of ours is refused with the right spelling.
 */
function parseSandboxArgs(args: readonly string[], npmConfig: Record<string, string | undefined> = {}): SandboxArgs | { problem: string } {
  const swallowed = OPTIONS.filter((name) => npmConfig[`npm_config_${name}`] !== undefined);
  if (swallowed.length > 0) {
    const value = (name: OptionName) => {
      const v = npmConfig[`npm_config_${name}`];
      return v === undefined || v === 'true' ? (args.find((a) => /^\d+$/.test(a)) ?? 'N') : v;
    };
    const meant = swallowed.map((name) => `--${name} ${value(name)}`).join(' ');
    return { problem: `npm kept ${swallowed.map((n) => `--${n}`).join(' and ')} for itself (no -- before it): run npm run sandbox -- ${meant}` };
  }
  const values: Partial<Record<OptionName, string>> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const name = OPTIONS.find((o) => o === match?.[1]);
    if (!match || !name) return { problem: arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument "${arg}"` };
    const value = match[2] ?? args[++i];
    if (value === undefined) return { problem: `--${name} needs a value` };
    values[name] = value;
  }
  const port = wholeNumber(values.port, DEFAULT_PORT, 'port', 65535);
  if (typeof port === 'string') return { problem: port };
  const delayMs = wholeNumber(values.delay, 0, 'delay', 600_000);
  if (typeof delayMs === 'string') return { problem: delayMs };
  return { port, delayMs };
}

function wholeNumber(text: string | undefined, fallback: number, name: string, max: number): number | string {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max) return `--${name} must be a whole number from 0 to ${max}, got "${text}"`;
  return Number(text);
}

/** Runs the standalone sandbox, serving `reads` (the bot's table of reads), until SIGINT or SIGTERM. */
export async function runSandboxCommand<R extends SandboxReads>(reads: SandboxReadsFor<R>): Promise<void> {
  const parsed = parseSandboxArgs(process.argv.slice(2), process.env);
  if ('problem' in parsed) {
    process.stderr.write(`${parsed.problem}\n${USAGE}\n`);
    process.exit(2);
  }
  const { port, delayMs } = parsed;

  let sandbox;
  try {
    sandbox = await startSandbox({ port, delayMs, onRequest: printRequest, reads });
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
  const exampleDisk = JSON.stringify({ disk: { disk_type: 'SSD', disk_size: '20', label: 'data' } });
  process.stdout.write(
    [
      'vs-chatops sandbox: a SIMULATOR of the cloud API with FAKE data (not a real cloud account).',
      '',
      `  URL          ${url}`,
      `  account id   ${accountId}`,
      `  API key      ${apiKey}`,
      delayMs > 0 ? `  delay        ${delayMs} ms before every answer` : undefined,
      '',
      'Seeded servers (the package README says what each shows): 42 web (on), 43 batch worker (off), 44 bastion, 45 (300 rules),',
      '46 database, 47 (locked by a running backup), 48 (every change fails in the cloud), 77 (every firewall rule form).',
      'Backups: 9, 10, 11, 14, 15 usable; 12 marked for deletion and 13 not built (both answer 403).',
      'Changes run as transactions of a few seconds: GET …/virtual_machines/:id/transactions.json follows them (?detailed: raw logs).',
      '',
      'Try:',
      `  curl -u ${auth} ${url}/virtual_machines/42/firewall_rules.xml`,
      `  curl -u ${auth} ${url}/virtual_machines/42/firewall_rules.json`,
      `  curl -u ${auth} ${url}/virtual_machines/46/auto_scaling.json`,
      `  curl -u ${auth} -H 'Content-Type: application/json' -d '${exampleDisk}' ${url}/virtual_machines/42/disks.json`,
      `  curl -u ${auth} -X POST ${url}/backups/9/restore.json`,
      `  curl -u ${auth} ${url}/virtual_machines/42.json`,
      `  curl -u ${auth} -X POST ${url}/virtual_machines/42/reboot.json`,
      `  curl -u ${auth} ${url}/virtual_machines/42/transactions.json`,
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
