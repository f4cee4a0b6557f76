import { readFileSync } from 'node:fs';
import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { request } from 'undici';
import { startHarness, type Harness, type HarnessOptions } from '../helpers/app-harness';
import { reply, startCloudFaultServer } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, goodDisk, openForm, submit, visibleText } from '../helpers/drive';
import { diskInputs, goodDiskForm } from '../helpers/forms';
import { input } from '../helpers/payloads';
import { approvalIdIn, clickOn, updatedTo } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// Following a change to its end (docs/product.md), over the real app: signed requests through the harness, the
// sandbox on loopback with its clock stepped (its transactions: 1 s pending, 3 s running), and the bot's clock moved
// by the test, each step a round of the follower run at once instead of waited for.

const T0 = Date.parse('2026-03-14T09:00:00Z');
const clocks = { bot: T0, cloud: T0 };
const ROLES = { VS_ADMINS: 'UADMIN,UADMIN2', VS_OPERATORS: 'UOPER' };
const PANEL = 'https://panel.example.com';

const ENV = { ...ROLES, VS_AUDIT_CHANNEL: 'CAUDIT', VS_FOLLOW_INTERVAL_S: '5', VS_FOLLOW_MAX_MIN: '10', VS_PANEL_URL: PANEL };

// A harness of each test's own: what one test leaves followed in the store must not be polled in the next.
let h: Harness;
async function fresh(options: HarnessOptions = {}): Promise<Harness> {
  clocks.bot = T0;
  clocks.cloud = T0;
  h = await startHarness({ env: ENV, now: () => clocks.bot, sandboxNow: () => clocks.cloud, ...options });
  return h;
}
afterEach(async () => {
  await h?.close();
});

/**
 * Moves the bot's clock by `ms` and the cloud's by `cloudMs` (the same by default; the cloud's transactions take 1 s
 * pending and 3 s running), then runs a round of the follower as its timer would.
 */
async function later(ms: number, cloudMs = ms): Promise<void> {
  clocks.bot += ms;
  clocks.cloud += cloudMs;
  await h.bot.follower.round();
}

/** The bot's messages in the incident channel, replies in threads included. */
const botMessages = (harness: Harness = h) => harness.slack.messagesIn(CHANNEL).filter((m) => m.kind === 'bot' && !m.ephemeralTo);
const sections = (m: ChannelMessage) => visibleText(m.blocks);

/** The add-disk form without a format: one transaction, the disk's build. */
const unformatted = diskInputs({ ...goodDiskForm, require_format_disk: false, file_system: undefined, min_iops: undefined });

/** Adds a disk to `vsId` as the operator (formatted after its build, or not), and returns the channel message that follows it. */
async function addDisk(vsId: number, o: { format?: boolean } = {}, harness: Harness = h): Promise<ChannelMessage> {
  const view = await openForm(harness, `disk add ${vsId}`, 'UOPER');
  const ack = await submit(harness, 'disk_add', 'UOPER', view.private_metadata, o.format ? goodDisk : unformatted);
  expect(ack.response_action).toBe('update');
  const message = await waitFor(
    'the message of the accepted change',
    () => botMessages(harness).find((m) => m.text.startsWith('Add disk · ') && m.text.includes(`(VS ${vsId})`)),
    {
      within: 5000,
    },
  );
  await remembered(message, harness);
  return message;
}

/** Waits until the bot has remembered where the message is (it does so right after posting it). */
async function remembered(message: ChannelMessage, harness: Harness = h): Promise<void> {
  const [record] = await harness.store.audit.latest(1);
  await waitFor('the message remembered', async () => (await harness.store.follows.get(record!.id))?.messageTs === message.ts, { within: 5000 });
}

const current = (m: ChannelMessage, harness: Harness = h) => botMessages(harness).find((x) => x.ts === m.ts)!;
const replies = (m: ChannelMessage, harness: Harness = h) => botMessages(harness).filter((x) => x.threadTs === m.ts);

describe('a disk add followed to its end', () => {
  test('scheduled, then running (the step in words), then done with the disk read again; one reply; the record moving with it, and the metric', async () => {
    await fresh();
    const message = await addDisk(42);
    expect(sections(message)).toContain(':clock4: *Scheduled*: the cloud accepted the change and has not started it yet; this message follows it to its end.');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'scheduled' });
    expect(visibleText(message)).not.toMatch(/\bDone\b/);

    // Not due before its interval: nothing is read of the cloud.
    const reads = () => h.sandbox.requests.filter((r) => r.method === 'GET').length;
    const readsBefore = reads();
    await later(4000, 1000);
    expect(reads()).toBe(readsBefore);
    expect(current(message).replaced).toBeFalsy();

    await later(1000, 1000);
    expect(sections(current(message))).toMatch(/:arrows_counterclockwise: \*Running\* · building disk \d+…/);
    expect(current(message).replaced).toBe(true);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'running' });

    await later(5000, 2000);
    const done = current(message);
    expect(sections(done)).toMatch(/:white_check_mark: \*Done\* · disk \d+ is built and unlocked\./);
    expect(done.text).toMatch(/^Add disk · web-1 \(VS 42\): Done/);
    const [reply] = replies(message);
    expect(replies(message)).toHaveLength(1);
    expect(sections(reply!)).toMatch(/<@UOPER> :white_check_mark: Add disk · web-1 \(VS 42\): \*Done\*/);

    // Nothing more is polled or said once it has ended.
    const after = reads();
    await later(60_000);
    expect(reads()).toBe(after);
    expect(replies(message)).toHaveLength(1);

    const [record] = await h.store.audit.latest(1);
    const diskId = Number(/Disk (\d+)/.exec(sections(message))?.[1]);
    const [build] = await h.cloud.listTransactions(42, { perPage: 2 }).then((list) => list.filter((t) => t.parent_id === diskId));
    expect(record).toMatchObject({ action: 'disk_add', outcome: 'done', cloudOutcome: 'complete', transactionIds: [build!.id] });
    const metrics = await h.bot.ops.metrics.registry.getSingleMetricAsString('vs_chatops_changes_followed_total');
    expect(metrics).toContain('vs_chatops_changes_followed_total{action="disk_add",result="done"} 1');
    // Counted once, when it ended: never as scheduled besides.
    const changes = await h.bot.ops.metrics.registry.getSingleMetricAsString('vs_chatops_changes_total');
    expect(changes).toContain('vs_chatops_changes_total{action="disk_add",outcome="done"} 1');
    expect(changes).not.toContain('outcome="scheduled"');
    // The audit channel hears of its outcome; /vs audit shows it.
    await waitFor('the audit post of the outcome', () => h.slack.messagesIn('CAUDIT').find((m) => visibleText(m).includes('→ *done*')), {
      within: 5000,
    });
    expect(visibleText(await answerTo(h, 'audit 1', { user: 'UADMIN' }))).toMatch(
      new RegExp(`:white_check_mark: .* → \\*done\\* · disk \\d+ \\(20 GB\\) on VS 42 · transaction ${build!.id}`),
    );
  });

  test('formatted after its build (the form asks for it): the format is followed too, and the disk is done only once both ran', async () => {
    await fresh();
    const message = await addDisk(42, { format: true });
    await later(5000, 2000);
    expect(sections(current(message))).toMatch(/building disk \d+/);
    // Built at 4 s; formatting from then until 7 s.
    await later(5000, 3000);
    expect(sections(current(message))).toMatch(/\*Running\* · formatting disk \d+…/);
    await later(5000);
    expect(sections(current(message))).toMatch(/\*Done\* · disk \d+ is built and unlocked/);
    expect((await h.store.audit.latest(1))[0]!.transactionIds).toHaveLength(2);
  });
});

describe('many changes to one server', () => {
  test("a change's transaction is found past the first page of the server's transactions, newer changes notwithstanding", async () => {
    await fresh();
    const first = await addDisk(42);
    // Twenty-five more disks on the same server before its first poll: its build is no longer among the 20 newest.
    for (let i = 0; i < 25; i++) {
      const view = await openForm(h, 'disk add 42', 'UOPER');
      await submit(h, 'disk_add', 'UOPER', view.private_metadata, unformatted);
    }
    h.sandbox.requests.length = 0;
    await later(5000, 2000);
    expect(sections(current(first))).toMatch(/\*Running\* · building disk \d+…/);
    expect(h.sandbox.requests.some((r) => r.path === '/virtual_machines/42/transactions/page/2.json')).toBe(true);
  });
});

describe('every outcome', () => {
  test('failed in the cloud: why (the step in words), what now (the server read again), what was left, where to look; the raw log never kept', async () => {
    await fresh();
    const message = await addDisk(48);
    await later(5000);
    await later(5000);
    const failed = current(message);
    const diskId = Number(/Disk (\d+)/.exec(sections(message))?.[1]);
    expect(sections(failed)).toContain(
      `:x: *Failed* in the cloud: building disk ${diskId} failed. VS 48 is on and unlocked. Disk ${diskId} (20 GB) exists but is not built: ` +
        `remove it in the control panel. Its transactions in the control panel say why: <${PANEL}/virtual_machines/48/transactions|transactions of VS 48>.`,
    );
    expect(visibleText(failed)).not.toContain(':white_check_mark:');
    expect(sections(replies(message)[0]!)).toMatch(
      /<@UOPER> :x: Add disk · legacy-app \(VS 48\): \*Failed\* in the cloud: building disk \d+ failed\. VS 48 is on and unlocked\./,
    );
    // Failed, everywhere: the record, /vs audit failed, the Home tab, the metrics; the API's 201 a detail.
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'failed', cloudOutcome: 'failed', cloudStep: 'build_disk', apiStatus: 201 });
    const audit = visibleText(await answerTo(h, 'audit failed', { user: 'UADMIN' }));
    expect(audit).toMatch(/:x: .* · \*Add disk\* · legacy-app \(VS 48\) → \*failed\* in the cloud while building a disk/);
    expect(audit).not.toMatch(/succeeded|:white_check_mark:/);
    const metric = await h.bot.ops.metrics.registry.getSingleMetricAsString('vs_chatops_changes_followed_total');
    expect(metric).toContain('vs_chatops_changes_followed_total{action="disk_add",result="failed"} 1');
    // The cloud's raw log (docs/cloud-api.md: stack traces, a database password) is there to be read with ?detailed…
    const [transaction] = await h.cloud.listTransactions(48, { perPage: 1 });
    const raw = await fetch(`${h.sandbox.url}/transactions/${transaction!.id}.json?detailed=1`, {
      headers: { authorization: `Basic ${Buffer.from(`${h.sandbox.accountId}:${h.sandbox.apiKey}`).toString('base64')}` },
    }).then((r) => r.text());
    expect(raw).toContain('s3cr3t-db-pw');
    // …and the bot never asks for it nor keeps any of it.
    expect(h.sandbox.requests.some((r) => r.path.includes('detailed'))).toBe(false);
    await waitFor('the audit post of the outcome', () => h.slack.messagesIn('CAUDIT').find((m) => visibleText(m).includes('→ *failed* in the cloud')), {
      within: 5000,
    });
    const everything = [JSON.stringify(h.slack.state.messages), h.logs.join('\n'), readFileSync(h.dbPath).toString('latin1')].join('\n');
    for (const leak of ['s3cr3t-db-pw', 'Fatal: OnApp', 'lvcreate', '/onapp/interface']) expect(everything).not.toContain(leak);
  });

  test('cancelled in the cloud', async () => {
    await fresh();
    const message = await addDisk(42);
    await later(2000);
    const [build] = await h.cloud.listTransactions(42, { perPage: 1 });
    expect(h.sandbox.cancelTransaction(build!.id)).toBe(true);
    await later(3000);
    expect(sections(current(message))).toMatch(
      /:black_square_for_stop: \*Cancelled\* in the cloud: building disk \d+ was cancelled\. VS 42 is on and unlocked\./,
    );
    expect(replies(message)).toHaveLength(1);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'cancelled', cloudOutcome: 'cancelled', transactionIds: [build!.id] });
  });

  test('still running past VS_FOLLOW_MAX_MIN: no longer followed, its outcome unknown, the server as read then; polls spaced out meanwhile', async () => {
    await fresh();
    const message = await addDisk(42);
    // The cloud's clock stands still: its transaction stays pending however long the bot waits.
    const polls: number[] = [];
    h.sandbox.requests.length = 0;
    for (let waited = 0; waited < 11 * 60_000; waited += 1000) {
      const before = h.sandbox.requests.length;
      await later(1000, 0);
      if (h.sandbox.requests.length > before) polls.push(clocks.bot);
    }
    expect(sections(current(message))).toContain(
      ':question: *Unknown*: still running after 10 minutes, no longer followed. VS 42 is on and still locked by a transaction. ' +
        `Disk ${Number(/Disk (\d+)/.exec(sections(message))?.[1])} (20 GB) exists but is not built: remove it in the control panel. ` +
        `Its transactions in the control panel say why: <${PANEL}/virtual_machines/42/transactions|transactions of VS 42>.`,
    );
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'unknown', cloudOutcome: 'unknown' });
    // Spaced from 5 s, backing off to 30 s while nothing moved, and bounded: 10 minutes is about 25 polls, not 120.
    const gaps = polls.slice(1).map((at, i) => at - polls[i]!);
    expect(gaps[0]).toBe(5000);
    expect(Math.max(...gaps)).toBe(30_000);
    expect(gaps.every((gap) => gap >= 5000)).toBe(true);
    // The last poll, at the limit, read the server and its disks again (no transaction).
    expect(polls.length).toBeLessThan(31);
  });
});

describe('a restart in the middle', () => {
  test('what is followed is stored: the new instance finishes it and replies once', async () => {
    await fresh();
    const message = await addDisk(42);
    await later(5000, 2000);
    expect(sections(current(message))).toMatch(/building disk \d+/);
    await h.restart();
    await later(5000);
    expect(sections(current(message))).toMatch(/\*Done\* · disk \d+ is built and unlocked/);
    expect(replies(message)).toHaveLength(1);
  });
});

describe('approvals of a change, followed to the end', () => {
  test('a restore approved by a second admin: its request message follows it, and the reply names both people', async () => {
    const ha = await fresh({ env: { ...ENV, VS_APPROVALS: 'backup_restore' } });
    const view = await openForm(ha, 'backup restore 9', 'UADMIN');
    await submit(ha, 'backup_restore', 'UADMIN', view.private_metadata, { confirm: input.text('9'), reason: input.text('data corrupted') });
    const request = await waitFor('the approval request', () => botMessages(ha).find((m) => approvalIdIn(m.blocks) !== undefined), { within: 5000 });
    const posted = { id: approvalIdIn(request.blocks)!, channel: CHANNEL, ts: request.ts };
    await clickOn(ha, 'UADMIN2', 'approval_approve', posted);
    await updatedTo(ha, posted, /Approved\* by <@UADMIN2> · \*scheduled\*/);
    await remembered(request, ha);
    clocks.bot += 5000;
    clocks.cloud += 5000;
    await ha.bot.follower.round();
    const done = current(request, ha);
    expect(sections(done)).toMatch(/\*Done\* · backup 9 is restored/);
    expect(sections(done)).toContain('approved by <@UADMIN2>');
    // The requester was told in the thread when it was approved (scheduled); the end is told there too, naming both.
    const [approved, reply] = replies(request, ha);
    expect(sections(approved!)).toContain('<@UADMIN> :clock4: *Approved* by <@UADMIN2> · *scheduled*: restore of backup 9');
    expect(sections(reply!)).toMatch(/^.*<@UADMIN> <@UADMIN2> :white_check_mark: Restore backup · Backup 9: \*Done\*/);
    expect((await ha.store.audit.latest(1))[0]).toMatchObject({ action: 'backup_restore', outcome: 'done', cloudOutcome: 'complete', decidedBy: 'UADMIN2' });
  });
});

describe('power actions, followed to the end', () => {
  const filled = (action: string, vsId: number) => ({
    power_action: input.select(action),
    confirm: input.text(String(vsId)),
    reason: input.text('unresponsive since the 14:00 deploy'),
  });

  test('a shutdown: scheduled, stopping the server, then done with the server read again (off, and unlocked)', async () => {
    await fresh();
    const view = await openForm(h, 'shutdown 42', 'UOPER');
    await submit(h, 'vs_power', 'UOPER', view.private_metadata, filled('shutdown', 42));
    const message = await waitFor('its message', () => botMessages().find((m) => m.text.startsWith('Shut down server · web-1 (VS 42)')), { within: 5000 });
    await remembered(message);
    expect(sections(message)).toContain('*Shut down (graceful)* of VS 42 (web-1)');
    await later(5000, 2000);
    expect(sections(current(message))).toContain('*Running* · stopping VS 42…');
    await later(5000, 2000);
    expect(sections(current(message))).toContain(':white_check_mark: *Done* · VS 42 is off, and unlocked.');
    expect(sections(replies(message)[0]!)).toMatch(/^.*<@UOPER> :white_check_mark: Shut down server · web-1 \(VS 42\): \*Done\*/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'power_shutdown', outcome: 'done', cloudOutcome: 'complete' });
  });

  test('a reboot approved by a second person: its request message follows it, and the reply names both; a failing one says where to look', async () => {
    const ha = await fresh({ env: { ...ENV, VS_APPROVALS: 'power_reboot' } });
    for (const [vsId, done] of [
      [42, /:white_check_mark: \*Done\* · VS 42 is on, and unlocked\./],
      [
        48,
        new RegExp(
          ':x: \\*Failed\\* in the cloud: rebooting VS 48 failed\\. VS 48 is on and unlocked\\. ' +
            'Its transactions in the control panel say why: <[^|]+/virtual_machines/48/transactions\\|transactions of VS 48>\\.',
        ),
      ],
    ] as const) {
      const view = await openForm(ha, `reboot ${vsId}`, 'UOPER');
      await submit(ha, 'vs_power', 'UOPER', view.private_metadata, filled('reboot', vsId));
      const request = await waitFor(
        'the approval request',
        () => botMessages(ha).find((m) => approvalIdIn(m.blocks) !== undefined && visibleText(m).includes(`VS ${vsId}`)),
        { within: 5000 },
      );
      const posted = { id: approvalIdIn(request.blocks)!, channel: CHANNEL, ts: request.ts };
      await clickOn(ha, 'UADMIN', 'approval_approve', posted);
      await updatedTo(ha, posted, /Approved\* by <@UADMIN> · \*scheduled\*/);
      await remembered(request, ha);
      await later(5000, 5000);
      expect(sections(current(request, ha))).toMatch(done);
      expect(sections(current(request, ha))).toContain('asked by <@UOPER> · approved by <@UADMIN>');
      const [, reply] = replies(request, ha);
      expect(sections(reply!)).toMatch(new RegExp(`^.*<@UOPER> <@UADMIN> :(white_check_mark|x): Reboot server · [a-z0-9-]+ \\(VS ${vsId}\\)`));
    }
  });
});

describe('a cloud that names its transactions otherwise', () => {
  test("no transaction of the change's own appears: after a minute, the server's own newer transactions and its lock tell instead", async () => {
    // Between the bot and its sandbox, a cloud whose transactions carry other names than the ones a disk's build has.
    const fault = await startCloudFaultServer({
      handler: async (req, res) => {
        const answer = await request(h.sandbox.url + req.url, {
          method: req.method as 'GET' | 'POST',
          headers: { authorization: String(req.headers.authorization), 'content-type': String(req.headers['content-type'] ?? 'application/json') },
          body: req.method === 'GET' ? undefined : req.body,
        });
        const text = (await answer.body.text()).replaceAll('"build_disk"', '"disk_provisioning_v2"');
        reply(res, answer.statusCode, text);
      },
    });
    try {
      await fresh({ cloudUrl: fault.url });
      const message = await addDisk(42);
      await later(5000, 2000);
      // Nothing of its own yet: still scheduled, and a minute is given for one to appear.
      expect(sections(current(message))).toContain('*Scheduled*');
      await later(60_000, 0);
      expect(sections(current(message))).toContain('*Running* · `disk_provisioning_v2`…');
      await later(30_000, 3000);
      expect(sections(current(message))).toMatch(/\*Done\* · disk \d+ is built and unlocked\./);
      const [build] = await h.cloud.listTransactions(42, { perPage: 1 });
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'done', cloudOutcome: 'complete', transactionIds: [build!.id] });
    } finally {
      await h.close();
      await fault.close();
    }
  });
});

describe('when Slack does not take what is told', () => {
  test('the first message could not be posted with chat.postMessage: the end is posted anew in the channel, with its reply', async () => {
    await fresh();
    h.slack.fault('chat.postMessage', { error: 'not_in_channel', times: 1 });
    const view = await openForm(h, 'disk add 42', 'UOPER');
    await submit(h, 'disk_add', 'UOPER', view.private_metadata, unformatted);
    // It went out through the response_url instead, which is never kept: that message cannot be updated.
    const [first] = await h.slack.waitForResponses(1);
    expect(JSON.stringify(first!.body)).toContain('Scheduled');
    await later(5000, 5000);
    expect(botMessages()).toHaveLength(0);
    // Ended; a minute after it was accepted, the end is posted where it was asked for.
    await later(60_000, 0);
    const [posted] = botMessages();
    expect(sections(posted!)).toMatch(/\*Done\* · disk \d+ is built and unlocked/);
    expect(replies(posted!)).toHaveLength(1);
  });

  test('its message cannot be updated: tried again each interval, given up after five attempts and logged; the record has the outcome', async () => {
    await fresh();
    const message = await addDisk(42);
    h.slack.fault('chat.update', { error: 'message_not_found' });
    await later(5000, 5000);
    for (let i = 0; i < 5; i++) await later(5000, 0);
    expect(h.slack.callsTo('chat.update')).toHaveLength(5);
    expect(replies(message)).toHaveLength(0);
    expect(h.logs.some((l) => l.includes('could not tell the end of a followed change in Slack; giving up'))).toBe(true);
    await later(60_000, 0);
    expect(h.slack.callsTo('chat.update')).toHaveLength(5);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'done', cloudOutcome: 'complete' });
  });
});
