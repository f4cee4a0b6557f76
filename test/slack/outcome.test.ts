import type { ChannelMessage } from '@vs-chatops/slack-standin';
import type { HomeView } from '@slack/types';
import { request } from 'undici';
import { startHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, submit } from '../helpers/drive';
import { appHomeOpened, buttonClick, input } from '../helpers/payloads';
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres';
import { approvalIdIn, clickOn, deny, updatedTo } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// One outcome, told the same everywhere (docs/product.md), over the real app on SQLite and on PostgreSQL: signed
// requests through the harness, the sandbox on loopback, its failing server (VS 48) whose changes fail in the cloud,
// the bot's clock and the cloud's moved by the test. A reboot that failed in the cloud is `failed` in its message,
// its thread, the record, `/vs audit failed`, the Home tab, the audit channel, the CSV export and the metrics, never
// ✅; its message says why, what now and where to look, and the link opens the sandbox's page of the server's
// transactions without credentials. A second person's no is `denied`; a click on Approve of one's own request, a
// role's refusal and what was stopped before sending are `refused`, summed in one line on the Home tab.

const T0 = Date.parse('2026-03-14T09:00:00Z');
const clocks = { bot: T0, cloud: T0 };
const ROLES = { VS_ADMINS: 'UADMIN,UADMIN2', VS_OPERATORS: 'UOPER', VS_VIEWERS: 'UVIEWER,UADMIN,UADMIN2,UOPER' };

describe.each(['SQLite', 'PostgreSQL'] as const)('one outcome, told the same everywhere, on %s', (store) => {
  let database: TestDatabase | undefined;
  let h: Harness | undefined;
  beforeAll(async () => {
    if (store === 'PostgreSQL') database = await createTestDatabase();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function fresh(env: Record<string, string> = {}): Promise<Harness> {
    clocks.bot = T0;
    clocks.cloud = T0;
    // On PostgreSQL, a schema of each test's own: it starts on an empty trail.
    const onStore: Record<string, string> = database ? { DATABASE_URL: await createTestSchema(database.url) } : {};
    const all = { ...ROLES, VS_AUDIT_CHANNEL: 'CAUDIT', VS_FOLLOW_INTERVAL_S: '5', ...onStore, ...env };
    h = await startHarness({ env: all, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
    return h;
  }

  /** Moves both clocks, then runs a round of the follower as its timer would. */
  async function later(ms: number): Promise<void> {
    clocks.bot += ms;
    clocks.cloud += ms;
    await h!.bot.follower.round();
  }

  /** Every text a person reads in blocks, one a line, in order. */
  const readable = (blocks: unknown): string => {
    const texts: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'text' && typeof value === 'string') texts.push(value);
          else walk(value);
        }
      }
    };
    walk(blocks);
    return texts.join('\n');
  };
  const botMessages = () => h!.slack.messagesIn(CHANNEL).filter((m) => m.kind === 'bot' && !m.ephemeralTo);
  const current = (m: ChannelMessage) => botMessages().find((x) => x.ts === m.ts)!;

  async function openHome(user: string): Promise<string> {
    const before = h!.slack.callsTo('views.publish').length;
    expect((await h!.event(appHomeOpened({ user }))).status).toBe(200);
    const call = (await h!.slack.waitForCalls('views.publish', before + 1))[before]!;
    expect(call).toMatchObject({ ok: true, args: { user_id: user } });
    return readable((call.args.view as HomeView).blocks);
  }

  test('a reboot that failed in the cloud is failed everywhere, never ✅; it says why, what now and where to look, and the link opens', async () => {
    await fresh();
    const view = await openForm(h!, 'reboot 48', 'UOPER');
    const fields = { power_action: input.select('reboot'), confirm: input.text('48'), reason: input.text('hung since the deploy') };
    await submit(h!, 'vs_power', 'UOPER', view.private_metadata, fields);
    const message = await waitFor('its message', () => botMessages().find((m) => m.text.startsWith('Reboot server · legacy-app (VS 48)')), { within: 5000 });
    expect(readable(message.blocks)).toContain(':clock4: *Scheduled*');
    const [accepted] = await h!.store.audit.latest(1);
    await waitFor('the message remembered', async () => (await h!.store.follows.get(accepted!.id))?.messageTs === message.ts, { within: 5000 });

    // Pending 1 s, running 3 s, then failed in the cloud.
    await later(5000);
    await later(5000);
    const told = readable(current(message).blocks);
    const link = /<([^|>]+\/virtual_machines\/48\/transactions)\|transactions of VS 48>/.exec(told)?.[1];
    expect(told).toContain(':x: *Failed* in the cloud: rebooting VS 48 failed. VS 48 is on and unlocked. Its transactions in the control panel say why: <');
    expect(link).toBeDefined();
    expect(told).not.toMatch(/:white_check_mark:|succeeded/);
    const reply = await waitFor('the reply in its thread', () => botMessages().find((m) => m.threadTs === message.ts), { within: 5000 });
    expect(readable(reply.blocks)).toMatch(
      /^<@UOPER> :x: Reboot server · legacy-app \(VS 48\): \*Failed\* in the cloud: rebooting VS 48 failed\. VS 48 is on and unlocked\./,
    );

    // The record: failed, the API's 201 a detail, the step kept.
    const [record] = await h!.store.audit.latest(1);
    expect(record).toMatchObject({ id: accepted!.id, outcome: 'failed', apiStatus: 201, cloudOutcome: 'failed', cloudStep: 'reboot_virtual_machine' });

    // `/vs audit failed` finds it; so does the Home tab; each with ❌.
    const failed = readable((await answerTo(h!, 'audit failed', { user: 'UADMIN' })).blocks);
    expect(failed).toContain('latest 1 record · failed changes');
    expect(failed).toMatch(
      /:x: .* · <@UOPER> · \*Reboot server\* · legacy-app \(VS 48\) → \*failed\* in the cloud while rebooting the server · reboot of VS 48 · transaction \d+/,
    );
    expect(failed).not.toMatch(/:white_check_mark:|succeeded/);
    const home = (await openHome('UADMIN')).split('\n').filter((line) => line.includes('VS 48'));
    expect(home).toEqual([expect.stringMatching(/^:x: .* → \*failed\* in the cloud while rebooting the server/)]);
    expect((await openHome('UOPER')).split('\n').find((line) => line.includes('VS 48'))).toMatch(/^:x: /);

    // The audit channel's post of its end says so.
    await waitFor(
      'the audit post of its end',
      () => h!.slack.messagesIn('CAUDIT').find((m) => readable(m.blocks).includes('legacy-app (VS 48) → *failed* in the cloud')),
      {
        within: 5000,
      },
    );

    // The export: the row's outcome is failed.
    const responseUrl = h!.slack.responseUrl('export-failed');
    await h!.interact(
      buttonClick({
        user: 'UADMIN',
        channel: CHANNEL,
        actionId: 'audit_export',
        value: JSON.stringify({ f: { kind: 'outcome', outcome: 'failed' } }),
        responseUrl,
      }),
    );
    await waitFor('the export answered', () => h!.slack.responses.find((r) => r.id === 'export-failed'), { within: 8000 });
    const dm = h!.slack.state.channels.find((c) => c.dmWith === 'UADMIN')!;
    const [file] = h!.slack.messagesIn(dm.id, 'UADMIN').at(-1)!.files!;
    const csv = await (await request(file!.url_private_download)).body.text();
    const [header, row] = csv.trimEnd().split('\r\n');
    const names = header!.split(',');
    expect(row!.split(',')[names.indexOf('outcome')]).toBe('failed');
    expect(row).toContain('reboot_virtual_machine');

    // The metrics: counted once, as failed.
    const metrics = h!.bot.ops.metrics.registry;
    expect(await metrics.getSingleMetricAsString('vs_chatops_changes_total')).toContain('vs_chatops_changes_total{action="power_reboot",outcome="failed"} 1');
    expect(await metrics.getSingleMetricAsString('vs_chatops_changes_followed_total')).toContain(
      'vs_chatops_changes_followed_total{action="power_reboot",result="failed"} 1',
    );

    // The link is the sandbox's page of the server's transactions, readable in a browser without credentials; the API
    // at the same address still asks for them.
    const page = await request(link!, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const html = await page.body.text();
    expect(html).toContain('legacy-app (VS 48)');
    expect(html).toMatch(/<tr class="failed"><td>\d+<\/td><td>reboot_virtual_machine<\/td><td>failed<\/td>/);
    expect(html).toContain('Sandbox data — not a real cloud account.');
    expect((await request(link!, { headers: { accept: 'application/json' } })).statusCode).toBe(401);
  });

  test('a second person’s no is denied; Approve on one’s own request, a role missing, a stop before sending are refused, summed on the Home tab', async () => {
    await fresh({ VS_APPROVALS: 'power_reboot' });
    const view = await openForm(h!, 'reboot 42', 'UOPER');
    await submit(h!, 'vs_power', 'UOPER', view.private_metadata, {
      power_action: input.select('reboot'),
      confirm: input.text('42'),
      reason: input.text('hung'),
    });
    const posted = await waitFor('the approval request', () => botMessages().find((m) => approvalIdIn(m.blocks) !== undefined), { within: 5000 });
    expect(readable(posted.blocks)).toMatch(/^:raised_hand: \*Approval needed\*/);
    const request_ = { id: approvalIdIn(posted.blocks)!, channel: CHANNEL, ts: posted.ts };
    // Approve on one's own request: a refused click; the request stays open.
    expect(await (await clickOn(h!, 'UOPER', 'approval_approve', request_)).told()).toContain('your own request');
    // A viewer asking for a reboot: refused by role.
    await answerTo(h!, 'reboot 42', { user: 'UVIEWER' });
    // The second person says no.
    await deny(h!, 'UADMIN', request_, 'not during the sale');
    await updatedTo(h!, request_, /:no_entry_sign: \*Denied\* by <@UADMIN>/);

    const lines = (text: string) => text.split('\n').filter((line) => line.includes(' → '));
    const denied = lines(readable((await answerTo(h!, 'audit denied', { user: 'UADMIN' })).blocks));
    expect(denied).toEqual([expect.stringMatching(/^:no_entry_sign: .* · <@UADMIN> · \*Reboot server\* · web-1 \(VS 42\) → \*denied\* · asked by <@UOPER>/)]);
    const refused = lines(readable((await answerTo(h!, 'audit refused', { user: 'UADMIN' })).blocks));
    expect(refused).toHaveLength(2);
    expect(refused.every((line) => line.startsWith(':no_entry: '))).toBe(true);
    expect(refused.join('\n')).toContain('the requester may not approve their own request');
    expect(refused.join('\n')).toContain('<@UVIEWER>');
    const records = await h!.store.audit.latest(10);
    expect(records.map((r) => r.outcome).sort()).toEqual(['denied', 'refused', 'refused', 'requested']);

    // The Home tab lists the request as it ended, once, and sums the refusals in one line under it.
    const home = await openHome('UADMIN');
    expect(home.split('\n').filter((line) => line.includes('VS 42'))).toEqual([expect.stringMatching(/^:no_entry_sign: .* → \*denied\*/)]);
    expect(home).toContain(':no_entry: 2 attempts refused before anything was sent');
    expect(home).toContain('`/vs audit refused` lists them');
    // The one who asked sees how their request ended on their own Home tab, though the record is the decider's; their
    // own refused click is summed, not listed.
    const own = await openHome('UOPER');
    expect(own.split('\n').filter((line) => line.includes('VS 42'))).toEqual([expect.stringMatching(/^:no_entry_sign: .* → \*denied\*/)]);
    expect(own).toContain(':no_entry: 1 attempt of yours refused before anything was sent');
    // And `/vs audit @person` finds the records of the changes they asked for, whoever decided them.
    const theirs = lines(readable((await answerTo(h!, 'audit <@UOPER|otto>', { user: 'UADMIN' })).blocks));
    expect(theirs.map((line) => /→ \*(\w+)\*/.exec(line)?.[1])).toEqual(['denied', 'refused', 'requested']);
  });
});
