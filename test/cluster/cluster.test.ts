import type { ServerResponse } from 'node:http';
import { startInstances, type Instance } from '../helpers/cluster';
import { goodDisk, newViewId } from '../helpers/drive';
import { forward, type CloudFaultServer, type RecordedRequest } from '../helpers/cloud-fault-server';
import { buttonClick, input, newTriggerId, viewSubmission } from '../helpers/payloads';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres';
import { startProcessHarness, type ProcessHarnessBehindFaults } from '../helpers/process-harness';
import { approvalIdIn } from '../helpers/requests';
import type { SlackFake } from '../helpers/slack-fake';
import { waitFor } from '../helpers/wait';

// Three bot processes on one PostgreSQL, as behind a load balancer: requests
// spread over them, duplicate deliveries, contention, an instance killed in
// the middle of a change, the database stopped and started, Slack answering
// 429 to audit posts. Lease and sweep intervals are shortened by settings.

const OPERATOR = 'UOPER';
const ADMIN = 'UADMIN';
const ADMIN2 = 'UADMIN2';
const AUDIT = 'CAUDIT';
// Longer than any cloud call of these tests (the slow one takes 2 s), short enough to wait for.
const LOCK_TTL_MS = 4000;
/** Reads per person per minute, for the whole deployment (the operator reads four times in this file). */
const READS_PER_MINUTE = 6;

let pg: PostgresServer;
/** The stand-in, the sandbox and the cloud fault server in front of it, shared by the instances. */
let parts: ProcessHarnessBehindFaults;
let slack: SlackFake;
let cloud: CloudFaultServer;
let bots: Instance[];
/** POSTs to /virtual_machines/<id>/disks held open until released (an instance killed mid-call). */
const held = new Map<string, ServerResponse>();
/** Servers whose disk POSTs answer only after this many ms. */
const slow = new Map<string, number>();

const diskPosts = (vsId: number) => cloud.requests.filter((r) => r.method === 'POST' && r.url.startsWith(`/virtual_machines/${vsId}/disks`));
/** Audit posts Slack refused (429): recorded by the fake like any call, so they are subtracted. */
const refused: string[] = [];
/** A post about `target` (`vs:42`, as the store names it; "VS 42 →" in the post's words) and `outcome`. */
const about = (text: string, target: string, outcome: string) => {
  const [kind = '', id = ''] = target.split(':');
  // A server's label may stand before its id: "web-1 (VS 42) →".
  const named = `${kind === 'vs' ? 'VS' : 'Backup'} ${id}`;
  return (text.includes(`${named} →`) || text.includes(`${named}) →`)) && text.includes(outcome);
};
const auditPostsAbout = (target: string, outcome: string) =>
  slack.callsTo('chat.postMessage').filter((c) => c.args.channel === AUDIT && about(JSON.stringify(c.args), target, outcome)).length -
  refused.filter((text) => about(text, target, outcome)).length;

beforeAll(async () => {
  [pg, parts] = await Promise.all([startPostgresServer(), startProcessHarness({ behindFaults: true })]);
  ({ slack, cloud } = parts);
  const upstream = parts.sandbox.url;
  cloud.handle((req: RecordedRequest, res: ServerResponse) => {
    const vs = /^\/virtual_machines\/(\d+)\/disks/.exec(req.url)?.[1];
    if (req.method === 'POST' && vs !== undefined && held.has(vs)) {
      held.set(vs, res);
      return new Promise<void>(() => undefined);
    }
    const ms = vs !== undefined && req.method === 'POST' ? slow.get(vs) : undefined;
    if (ms) return new Promise<void>((resolve) => setTimeout(resolve, ms)).then(() => forward(upstream, req, res));
    return forward(upstream, req, res);
  });
  bots = await startInstances(3, {
    ...parts.env(),
    VS_API_TIMEOUT_MS: '20000',
    DATABASE_URL: pg.url,
    VS_OPERATORS: OPERATOR,
    VS_ADMINS: `${ADMIN},${ADMIN2}`,
    VS_APPROVALS: 'backup_restore',
    VS_AUDIT_CHANNEL: AUDIT,
    VS_LOCK_TTL_MS: String(LOCK_TTL_MS),
    VS_SWEEP_INTERVAL_MS: '300',
    VS_STORE_PING_MS: '200',
    VS_OUTBOX_POLL_MS: '100',
    LOG_LEVEL: 'info',
    VS_READS_PER_USER_PER_MINUTE: String(READS_PER_MINUTE),
    // The operator of these tests opens and submits about twenty forms; the change limit is tested over two instances elsewhere.
    VS_CHANGES_PER_USER_PER_MINUTE: '1000',
  });
}, 90_000);

afterAll(async () => {
  if (process.env.CLUSTER_DEBUG) for (const b of bots ?? []) process.stderr.write(`--- ${b.name}\n${b.bot.output().slice(-6000)}\n`);
  for (const res of held.values()) res.destroy?.();
  await Promise.all((bots ?? []).map((b) => b.bot.kill('SIGKILL')));
  await parts?.close();
  await pg?.close();
});

/** Opens the add-disk form on one instance and returns its private_metadata. */
async function openDiskForm(bot: Instance, vsId: number): Promise<string> {
  const triggerId = newTriggerId();
  const res = await bot.command(`disk add ${vsId}`, { user: OPERATOR, responseUrl: slack.responseUrl(), triggerId });
  expect(res.status).toBe(200);
  const call = await waitFor('the form to open', () => slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId), { within: 10_000 });
  return (call.args.view as { private_metadata: string }).private_metadata;
}

/** vs_chatops_changes_total{action="disk_add",outcome} summed over the instances' /metrics. */
async function counted(outcome: string, over: Instance[] = bots): Promise<number> {
  const texts = await Promise.all(over.map((b) => b.metrics()));
  const pattern = new RegExp(`^vs_chatops_changes_total\\{action="disk_add",outcome="${outcome}"\\} (\\d+)$`, 'm');
  return texts.reduce((sum, text) => sum + Number(pattern.exec(text)?.[1] ?? 0), 0);
}

/** `user` (the operator unless said) types `/vs <text>` to one instance: its answer as text. */
async function answerFrom(bot: Instance, text: string, user = OPERATOR, triggerId = newTriggerId()): Promise<string> {
  const responseUrl = slack.responseUrl();
  expect((await bot.command(text, { user, responseUrl, triggerId })).status).toBe(200);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  const answer = await waitFor(`${bot.name}'s answer to /vs ${text}`, () => slack.responses.find((r) => r.id === id), { within: 10_000 });
  return JSON.stringify(answer.body);
}

/** Until every instance's /readyz says the store is `store`. */
const storeOnEveryInstance = (store: 'ok' | 'unreachable', within: number) =>
  waitFor(
    `/readyz to name the store ${store} on every instance`,
    async () => (await Promise.all(bots.map((b) => b.readyz()))).every((r) => r.status === 200 && r.body.store === store),
    { within },
  );

const submission = (metadata: string, viewId = newViewId()) =>
  viewSubmission({ callbackId: 'disk_add', viewId, user: OPERATOR, privateMetadata: metadata, fields: goodDisk });

test('reads are answered by every instance', async () => {
  const answers = await Promise.all(bots.map((bot) => answerFrom(bot, 'firewall 42')));
  for (const answer of answers) expect(answer).toContain('VS 42');
});

test("one person's 12 reads spread over three instances get 6 answers with data; the other 6 are told when to try again", async () => {
  const urls = Array.from({ length: 12 }, () => slack.responseUrl());
  // Three at a time, one to each instance.
  for (let round = 0; round < 4; round++) {
    const sent = bots.map((bot, i) => bot.command('firewall 42', { user: 'UREADER', responseUrl: urls[round * 3 + i]! }));
    expect((await Promise.all(sent)).map((r) => r.status)).toEqual([200, 200, 200]);
  }
  const ids = new Set(urls.map((url) => url.slice(url.lastIndexOf('/') + 1)));
  await waitFor('an answer to each read', () => slack.responses.filter((r) => ids.has(r.id)).length === 12, { within: 10_000 });
  const answers = slack.responses.filter((r) => ids.has(r.id)).map((r) => JSON.stringify(r.body));
  expect(answers.filter((a) => a.includes('VS 42'))).toHaveLength(READS_PER_MINUTE);
  const limited = answers.filter((a) => a.includes(`You have asked for ${READS_PER_MINUTE} reads in the last minute`));
  expect(limited).toHaveLength(12 - READS_PER_MINUTE);
  for (const answer of limited) expect(answer).toMatch(/"response_type":"ephemeral"[\s\S]*Try again in \d+ s/);
});

test('one submission delivered to three instances at once calls the API once, and every delivery is answered', async () => {
  const metadata = await openDiskForm(bots[0]!, 42);
  const payload = submission(metadata);
  const answers = await Promise.all(bots.map((bot) => bot.interact(payload)));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  await waitFor('the audit post of the change', () => auditPostsAbout('vs:42', '→ *scheduled*') >= 1, { within: 10_000 });
  expect(diskPosts(42)).toHaveLength(1);
});

test('three changes to one server from three instances: one runs, the others are told it is busy', async () => {
  slow.set('43', 2000);
  const metadata = await Promise.all(bots.map((bot) => openDiskForm(bot, 43)));
  const answers = await Promise.all(bots.map((bot, i) => bot.interact(submission(metadata[i]!))));
  slow.delete('43');
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  const busy = answers.filter((a) => a.body.includes('is in progress'));
  expect(busy).toHaveLength(2);
  // The two refusals are one person's: posted as that person's refusals are (grouped, at most one post a minute).
  const refusedPost = /VS 43\)? → \*refused\*|refused \d+ times\*[^"]*VS 43/;
  const refusalPosted = () => slack.callsTo('chat.postMessage').some((c) => c.args.channel === AUDIT && refusedPost.test(JSON.stringify(c.args)));
  await waitFor('the audit posts of the three attempts', () => auditPostsAbout('vs:43', '→ *scheduled*') === 1 && refusalPosted(), { within: 15_000 });
  expect(diskPosts(43)).toHaveLength(1);
  expect(await counted('refused')).toBe(2);
});

test('an approval clicked on two instances at once runs the change once; the message is updated once, the other click hears who decided', async () => {
  const restorePosts = () => cloud.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/backups/9/restore'));
  const triggerId = newTriggerId();
  await bots[0]!.command('backup restore 9', { user: ADMIN, responseUrl: slack.responseUrl(), triggerId });
  const form = await waitFor('the form', () => slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId), { within: 10_000 });
  const fields = { confirm: input.text('9'), reason: input.text('restore on two instances') };
  const privateMetadata = (form.args.view as { private_metadata: string }).private_metadata;
  await bots[0]!.interact(viewSubmission({ callbackId: 'backup_restore', viewId: newViewId(), user: ADMIN, privateMetadata, fields }));
  const request = await waitFor(
    'the approval request',
    () => slack.callsTo('chat.postMessage').find((c) => c.args.channel !== AUDIT && JSON.stringify(c.args).includes('restore on two instances')),
    { within: 10_000 },
  );
  const posted = slack.messagesIn('CINCIDENT').find((m) => JSON.stringify(m.blocks ?? []).includes('restore on two instances'))!;
  const approvalId = approvalIdIn(request.args.blocks);
  if (!approvalId) throw new Error(`no approval_approve button in ${JSON.stringify(request.args.blocks)}`);
  expect(restorePosts()).toHaveLength(0);

  const responseUrls = [slack.responseUrl(), slack.responseUrl()];
  const clicks = await Promise.all(
    [bots[1]!, bots[2]!].map((bot, i) =>
      bot.interact(
        buttonClick({
          user: ADMIN2,
          channel: 'CINCIDENT',
          actionId: 'approval_approve',
          value: approvalId,
          responseUrl: responseUrls[i]!,
          messageTs: posted.ts,
        }),
      ),
    ),
  );
  expect(clicks.map((c) => c.status)).toEqual([200, 200]);
  await waitFor(
    'the message updated',
    () => JSON.stringify(slack.messagesIn('CINCIDENT').find((m) => m.ts === posted.ts)).includes('Approved* by <@UADMIN2> · *scheduled*'),
    { within: 15_000 },
  );
  await waitFor('the other click to be told', () => slack.responses.some((r) => responseUrls.some((u) => u.endsWith(`/${r.id}`))), { within: 10_000 });
  const told = slack.responses.filter((r) => responseUrls.some((u) => u.endsWith(`/${r.id}`))).map((r) => JSON.stringify(r.body));
  expect(told).toHaveLength(1);
  expect(told[0]).toMatch(/already approved by <@UADMIN2>/);
  expect(restorePosts()).toHaveLength(1);
  // Updated once by the approval (the follower updates it later, as the restore runs: test/follow).
  expect(slack.callsTo('chat.update').filter((c) => c.args.ts === posted.ts && String(c.args.text).includes('Approved by'))).toHaveLength(1);
  await waitFor('the audit post of the approved change', () => auditPostsAbout('backup:9', '→ *scheduled*') === 1, { within: 15_000 });
  const texts = await Promise.all(bots.map((b) => b.metrics()));
  const sum = (outcome: string) =>
    texts.reduce(
      (n, t) => n + Number(new RegExp(`^vs_chatops_changes_total\\{action="backup_restore",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(t)?.[1] ?? 0),
      0,
    );
  // The request, counted once; the change it became is counted when it ends (never as approved or scheduled).
  expect([sum('requested'), sum('approved'), sum('scheduled')]).toEqual([1, 0, 0]);
});

test('a freeze typed on one instance holds at once on every instance, and is lifted on all by one unfreeze', async () => {
  expect(await answerFrom(bots[0]!, 'freeze cluster maintenance', ADMIN)).toContain('Changes are frozen* by <@UADMIN>');
  for (const bot of bots) {
    expect(await answerFrom(bot, 'disk add 42', OPERATOR)).toMatch(/Changes are frozen: <@UADMIN> froze them .* because “cluster maintenance”/);
    expect(await answerFrom(bot, 'whoami', OPERATOR)).toMatch(/Changes are frozen/);
  }
  expect(await answerFrom(bots[2]!, 'unfreeze', ADMIN2)).toContain('Changes are allowed again');
  expect(await answerFrom(bots[1]!, 'whoami', OPERATOR)).toContain('Changes are not frozen.');
  await openDiskForm(bots[1]!, 42);
});

test('an instance killed during a change: another settles it as unknown (interrupted) once its lock expires, posted once', async () => {
  held.set('44', undefined as unknown as ServerResponse);
  const victim = bots[2]!;
  const metadata = await openDiskForm(victim, 44);
  void victim.interact(submission(metadata)).catch(() => undefined);
  await waitFor('the cloud call to start', () => diskPosts(44).length === 1, { within: 10_000 });
  await victim.bot.kill('SIGKILL');
  await waitFor('the interrupted record to be posted', () => auditPostsAbout('vs:44', '→ *unknown*') >= 1, { within: LOCK_TTL_MS + 15_000 });
  // Sweeps keep running on the survivors: still one post.
  await new Promise((r) => setTimeout(r, 1500));
  expect(auditPostsAbout('vs:44', '→ *unknown*')).toBe(1);
  expect(await counted('unknown', bots.slice(0, 2))).toBe(1);
  held.get('44')?.destroy();
  held.delete('44');
  bots = bots.slice(0, 2);
}, 40_000);

test('the database stopped and started: reads answer, changes are refused then accepted, /readyz says so', async () => {
  await pg.stop();
  await storeOnEveryInstance('unreachable', 10_000);
  expect(await bots[0]!.metrics()).toMatch(/^vs_chatops_store_up 0$/m);

  expect(await answerFrom(bots[1]!, 'firewall 45')).toContain('VS 45');

  // Opening a form needs the store (the freeze is read there): refused, said so, no form.
  const triggerId = newTriggerId();
  expect(await answerFrom(bots[0]!, 'disk add 45', OPERATOR, triggerId)).toContain('Nothing can be changed right now, because it could not be recorded');
  expect(slack.callsTo('views.open').filter((c) => c.args.trigger_id === triggerId)).toHaveLength(0);
  expect(diskPosts(45)).toHaveLength(0);

  await pg.start();
  await storeOnEveryInstance('ok', 15_000);
  expect(await bots[0]!.metrics()).toMatch(/^vs_chatops_store_up 1$/m);
  const accepted = await bots[1]!.interact(submission(await openDiskForm(bots[1]!, 45)));
  expect(accepted.status).toBe(200);
  await waitFor('the change to run', () => diskPosts(45).length === 1, { within: 10_000 });
}, 40_000);

test('audit posts while Slack answers 429 for a while: each is posted exactly once', async () => {
  let limited = 0;
  slack.on('chat.postMessage', (args) => {
    if (args.channel !== AUDIT || limited >= 4) return undefined;
    limited++;
    refused.push(JSON.stringify(args));
    return { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } };
  });
  // Servers of the sandbox no other test changes.
  const targets = [46, 77];
  for (const [i, vs] of targets.entries()) await bots[i % bots.length]!.interact(submission(await openDiskForm(bots[i % bots.length]!, vs)));
  await waitFor('both audit posts', () => targets.every((vs) => auditPostsAbout(`vs:${vs}`, '→ *scheduled*') >= 1), { within: 20_000 });
  await new Promise((r) => setTimeout(r, 1500));
  for (const vs of targets) expect(auditPostsAbout(`vs:${vs}`, '→ *scheduled*')).toBe(1);
  expect(limited).toBe(4);
}, 40_000);
