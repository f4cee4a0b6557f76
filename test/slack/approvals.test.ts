import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { useHarnessBehindFaults } from '../helpers/app-harness';
import { forward, reply } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, goodDisk, openForm, submit, type Ack } from '../helpers/drive';
import { appHomeOpened, input } from '../helpers/payloads';
import { answerToClick, approvalIdIn, clickOn, deny, messageOf, recordsOf, shownRequest, updatedTo, type PostedRequest } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// The second person, over the real Bolt app with signed requests: a change
// named in VS_APPROVALS is asked for, posted in its channel with the exact
// request, and decided by a click on another person's screen, checked there
// and then (role now, not the requester, the request's channel, the freeze);
// the first decisive click wins, the message is updated in place.

const ADMINS = 'UADMIN,UADMIN2,SADMINS';
const ENV = {
  VS_ADMINS: ADMINS,
  VS_OPERATORS: 'UOPER,UOPER2',
  VS_VIEWERS: 'UVIEWER',
  VS_APPROVALS: 'backup_restore,disk_add',
  VS_APPROVAL_TTL_MIN: '30',
  VS_AUDIT_CHANNEL: 'CAUDIT',
  VS_SWEEP_INTERVAL_MS: '100',
  VS_GROUP_CACHE_MS: '1000',
};
/** Servers whose disk POSTs the cloud API refuses with a 422. */
const REFUSING_VS = 77;

/** Added to the real clock: the bot's fake clock. */
let skew = 0;

const { h, fault: cloud } = useHarnessBehindFaults({
  env: ENV,
  now: () => Date.now() + skew,
  beforeEach: (h) => {
    h.slack.setGroup('SADMINS', ['UGROUPADMIN']);
    cloud.handle((req, res) => {
      if (req.method === 'POST' && req.url.startsWith(`/virtual_machines/${REFUSING_VS}/disks`)) {
        return reply(res, 422, JSON.stringify({ errors: { disk_size: ['exceeds the free space of the data store (12 GB left)'] } }));
      }
      return forward(h.sandbox.url, req, res);
    });
  },
});

const changePosts = () => cloud.requests.filter((r) => r.method === 'POST');

interface Asked extends PostedRequest {
  ack: Ack;
  message: ChannelMessage;
}

/** An open approval request's message: the bot's, with the Approve button. */
const isRequest = (m: ChannelMessage) => m.kind === 'bot' && JSON.stringify(m.blocks ?? []).includes('"approval_approve"');

/** A change asked for by `user` through its form, and the request message it posted. */
async function ask(user: string, text: string, fields: Parameters<typeof submit>[4], callbackId: string, on = h): Promise<Asked> {
  const before = new Set(on.slack.messagesIn(CHANNEL).map((m) => m.ts));
  const view = await openForm(on, text, user);
  const ack = await submit(on, callbackId, user, view.private_metadata, fields);
  const message = await waitFor(`the approval request for "${text}"`, () => on.slack.messagesIn(CHANNEL).find((m) => !before.has(m.ts) && isRequest(m)));
  return { ack, id: approvalIdIn(message.blocks)!, channel: CHANNEL, ts: message.ts, message };
}

const askRestore = (user = 'UADMIN', backupId = 9) =>
  ask(user, `backup restore ${backupId}`, { confirm: input.text(String(backupId)), reason: input.text('table corrupted after the deploy') }, 'backup_restore');

describe('asking for a change that needs a second person', () => {
  test('calls nothing, says so in the form, and posts the request in the channel with who, what, why, until when and the exact request', async () => {
    const asked = await askRestore();
    expect(JSON.stringify(asked.ack)).toMatch(/Sent for approval in <#CINCIDENT>/);
    expect(JSON.stringify(asked.ack)).toMatch(/<!date\^\d+\^/);
    expect(changePosts()).toEqual([]);
    const text = JSON.stringify(asked.message.blocks);
    expect(text).toContain('<@UADMIN> asks to *Restore backup* · Backup 9');
    expect(text).toContain('table corrupted after the deploy');
    expect(text).toContain('"text":"POST /backups/9/restore.json"');
    // The request is posted for the channel (chat.postMessage), not only to the requester.
    expect(asked.message.ephemeralTo).toBeUndefined();
    const buttons = (asked.message.blocks as { type: string; elements?: Record<string, unknown>[] }[]).find((b) => b.type === 'actions')!.elements!;
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ['approval_approve', asked.id],
      ['approval_deny', asked.id],
      ['approval_withdraw', asked.id],
    ]);
    expect(buttons[0]!.confirm).toMatchObject({ confirm: { text: 'Approve' }, deny: { text: 'Cancel' } });
    expect(await recordsOf(h, asked.id)).toEqual([
      expect.objectContaining({
        outcome: 'requested',
        userId: 'UADMIN',
        requestedBy: 'UADMIN',
        apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
      }),
    ]);
    // Declined so that it does not linger for the other tests.
    await deny(h, 'UADMIN2', asked);
    await updatedTo(h, asked, /Denied/);
  });

  test('the same submission delivered twice asks once', async () => {
    const before = h.slack.messagesIn(CHANNEL).filter(isRequest).length;
    const view = await openForm(h, 'backup restore 9', 'UADMIN');
    const fields = { confirm: input.text('9'), reason: input.text('twice') };
    const acks = await Promise.all([
      submit(h, 'backup_restore', 'UADMIN', view.private_metadata, fields, 'VTWICE'),
      submit(h, 'backup_restore', 'UADMIN', view.private_metadata, fields, 'VTWICE'),
    ]);
    expect(acks.filter((a) => JSON.stringify(a).includes('Sent for approval'))).toHaveLength(1);
    const open = (await h.store.approvals.open(Date.now() + skew)).filter((a) => a.reason === 'twice');
    expect(open).toHaveLength(1);
    await waitFor('the request posted once', () => h.slack.messagesIn(CHANNEL).filter(isRequest).length === before + 1);
    const message = h.slack.messagesIn(CHANNEL).find((m) => isRequest(m) && JSON.stringify(m.blocks).includes(open[0]!.id))!;
    await deny(h, 'UADMIN2', { id: open[0]!.id, channel: CHANNEL, ts: message.ts });
  });
});

describe('a click on the request', () => {
  test('by the requester is refused, told to them alone, recorded, and changes nothing', async () => {
    const asked = await askRestore('UADMIN');
    const told = await answerToClick(h, 'UADMIN', 'approval_approve', asked);
    expect(told).toMatch(/a second person must decide it/);
    expect(changePosts()).toEqual([]);
    expect(JSON.stringify(messageOf(h, asked).blocks)).toContain('approval_approve');
    expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.userId, r.requestedBy])).toEqual([
      ['requested', 'UADMIN', 'UADMIN'],
      ['refused', 'UADMIN', 'UADMIN'],
    ]);
    await deny(h, 'UADMIN2', asked);
  });

  test('by a viewer is refused with the role needed, and by an operator too (a restore needs an admin)', async () => {
    const asked = await askRestore('UADMIN');
    expect(await answerToClick(h, 'UVIEWER', 'approval_approve', asked)).toMatch(/needs the admin role; you are a viewer/);
    expect(await answerToClick(h, 'UOPER', 'approval_deny', asked)).toMatch(/needs the admin role; you are an operator/);
    expect(changePosts()).toEqual([]);
    expect((await recordsOf(h, asked.id)).filter((r) => r.outcome === 'refused').map((r) => r.userId)).toEqual(['UVIEWER', 'UOPER']);
    await deny(h, 'UADMIN2', asked);
  });

  test('by a second admin, twice at once: the change runs once, the message says who approved and the outcome, the later click hears who decided', async () => {
    const asked = await askRestore('UADMIN');
    const [first, second] = await Promise.all([clickOn(h, 'UADMIN2', 'approval_approve', asked), clickOn(h, 'UADMIN2', 'approval_approve', asked)]);
    const updated = await updatedTo(h, asked, /Approved\* by <@UADMIN2> · \*scheduled\*: restore of backup 9 onto/);
    expect(JSON.stringify(updated.blocks)).not.toContain('approval_approve');
    expect(h.slack.messagesIn(CHANNEL).filter((m) => m.ts === asked.ts)).toHaveLength(1);
    expect(changePosts().map((r) => `${r.method} ${r.url}`)).toEqual(['POST /backups/9/restore.json']);
    // Exactly one of the two clicks was told that the other had decided.
    await waitFor('one of the clicks to be told', () => h.slack.responses.some((r) => r.id === first.responseId || r.id === second.responseId));
    const answers = h.slack.responses.filter((r) => r.id === first.responseId || r.id === second.responseId).map((r) => JSON.stringify(r.body));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/already approved by <@UADMIN2>/);
    const records = await recordsOf(h, asked.id);
    // The request, and the approval, which is the change's record from then on: scheduled.
    expect(records.map((r) => r.outcome)).toEqual(['requested', 'scheduled']);
    expect(records[1]).toMatchObject({
      userId: 'UADMIN2',
      requestedBy: 'UADMIN',
      decidedBy: 'UADMIN2',
      apiStatus: 200,
      apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
    });
    // The audit channel hears each step, naming both people.
    const post = await waitFor('the audit post of the change', () =>
      h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === 'CAUDIT' && JSON.stringify(c.args).includes('→ *scheduled*')),
    );
    expect(JSON.stringify(post.args)).toMatch(/:clock4: [^"]*<@UADMIN2> · \*Restore backup\* · Backup 9 → \*scheduled\*[^"]* · asked by <@UADMIN>/);
    expect(JSON.stringify(post.args)).toContain('POST /backups/9/restore.json');
    // /vs audit shows them too, the request behind each record's Details.
    const audit = JSON.stringify(await answerTo(h, 'audit 5', { user: 'UADMIN', channel: CHANNEL }));
    expect(audit).toMatch(/<@UADMIN2> · \*Restore backup\* · Backup 9 → \*(scheduled|running|done)\*[^"]* · asked by <@UADMIN>/);
    expect(audit).toMatch(/<@UADMIN> · \*Restore backup\* · Backup 9 → \*requested\*: a second person must approve it/);
    expect(audit).not.toContain('restore.json');
  });

  test('Deny by a second admin: the request says so in place, nothing is called, and Approve afterwards is told who denied it', async () => {
    const asked = await askRestore('UADMIN');
    await deny(h, 'UADMIN2', asked);
    await updatedTo(h, asked, /Denied\* by <@UADMIN2>/);
    expect(await answerToClick(h, 'UGROUPADMIN', 'approval_approve', asked)).toMatch(/already denied by <@UADMIN2>/);
    expect(changePosts()).toEqual([]);
    expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.decidedBy])).toEqual([
      ['requested', null],
      ['denied', 'UADMIN2'],
    ]);
  });

  test('by someone who held the role when it was asked and no longer does is refused', async () => {
    const asked = await askRestore('UADMIN');
    // UGROUPADMIN is an admin through the SADMINS user group; then the group changes, and the cache runs out.
    h.slack.setGroup('SADMINS', []);
    skew += 2000;
    expect(await answerToClick(h, 'UGROUPADMIN', 'approval_approve', asked)).toMatch(/needs the admin role; you have no role/);
    expect(changePosts()).toEqual([]);
    h.slack.setGroup('SADMINS', ['UGROUPADMIN']);
    skew += 2000;
    await clickOn(h, 'UGROUPADMIN', 'approval_approve', asked);
    await updatedTo(h, asked, /Approved\* by <@UGROUPADMIN>/);
  });

  test('Approve of a request whose requester could not ask for it now is refused, recorded, and told why; nothing is sent', async () => {
    const asked = await ask('UOPER', 'disk add 42', goodDisk, 'disk_add');
    // A restart with other settings: UOPER is an operator no more.
    await h.restart({ ...ENV, VS_OPERATORS: 'UOPER2' });
    try {
      expect(await answerToClick(h, 'UOPER2', 'approval_approve', asked)).toMatch(
        /<@UOPER> asked for this change and could not ask for it now: Adding a disk needs the operator role; they have no role now\. Nothing was sent\./,
      );
      expect(changePosts()).toEqual([]);
      expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.userId, r.requestedBy, r.detail])).toEqual([
        ['requested', 'UOPER', 'UOPER', expect.any(String)],
        ['refused', 'UOPER2', 'UOPER', 'the requester UOPER could no longer ask for it: role none, needs operator'],
      ]);
      expect(JSON.stringify(messageOf(h, asked).blocks)).toContain('approval_approve');
      await deny(h, 'UOPER2', asked);
    } finally {
      await h.restart(ENV);
    }
  });

  test('approved after a restart onto another cloud account: not sent, recorded, and the message says why', async () => {
    const asked = await askRestore('UADMIN');
    await h.restart({ ...ENV, VS_ACCOUNT_ID: 'another-account' });
    try {
      await clickOn(h, 'UADMIN2', 'approval_approve', asked);
      await updatedTo(
        h,
        asked,
        /Approved\* by <@UADMIN2>, but \*refused\*: not sent, as it was prepared for another cloud API or account than the bot uses now/,
      );
      expect(changePosts()).toEqual([]);
      expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.detail])).toEqual([
        ['requested', expect.any(String)],
        ['refused', 'not sent: it was prepared for another cloud API or account (VS_API_URL, VS_ACCOUNT_ID); nothing was changed'],
      ]);
    } finally {
      await h.restart(ENV);
    }
  });

  test('Approve while changes are frozen is refused with who froze, when and why; Deny still closes the request', async () => {
    const asked = await askRestore('UADMIN');
    await h.command('freeze storage migration in progress', { user: 'UADMIN2', channel: CHANNEL });
    await waitFor('the freeze', async () => (await h.store.freeze.current()) !== null);
    expect(await answerToClick(h, 'UGROUPADMIN', 'approval_approve', asked)).toMatch(
      /Changes are frozen: <@UADMIN2> froze them <!date\^\d+.*storage migration in progress/,
    );
    expect(changePosts()).toEqual([]);
    expect((await recordsOf(h, asked.id)).at(-1)).toMatchObject({
      outcome: 'refused',
      userId: 'UGROUPADMIN',
      detail: expect.stringMatching(/^changes are frozen/),
    });
    await deny(h, 'UGROUPADMIN', asked);
    await updatedTo(h, asked, /Denied\* by <@UGROUPADMIN>/);
    await h.command('unfreeze', { user: 'UADMIN2', channel: CHANNEL });
    await waitFor('the freeze lifted', async () => (await h.store.freeze.current()) === null);
  });

  test('an unknown request id is told as such and changes nothing', async () => {
    expect(await answerToClick(h, 'UADMIN2', 'approval_approve', { id: 'no-such-request', channel: CHANNEL, ts: '1.1' })).toMatch(/not known/);
    expect(changePosts()).toEqual([]);
  });
});

describe('the exact request', () => {
  test('an approved disk is sent exactly as the message showed it, and a 422 is shown in the message with the API messages', async () => {
    const asked = await ask('UOPER', 'disk add 42', { ...goodDisk, label: input.text('a "quoted" <label> & more') }, 'disk_add');
    await clickOn(h, 'UOPER2', 'approval_approve', asked);
    await updatedTo(h, asked, /Approved\* by <@UOPER2> · \*scheduled\*/);
    const [sent] = changePosts();
    expect(shownRequest(asked.message)).toBe(`${sent!.method} ${sent!.url}\n\n${sent!.body}`);

    const refused = await ask('UOPER', `disk add ${REFUSING_VS}`, goodDisk, 'disk_add');
    await clickOn(h, 'UOPER2', 'approval_approve', refused);
    const message = await updatedTo(h, refused, /:x: \*Approved\* by <@UOPER2>, but it \*failed\*/);
    expect(JSON.stringify(message.blocks)).toContain('exceeds the free space of the data store (12 GB left)');
    expect((await recordsOf(h, refused.id)).at(-1)).toMatchObject({ outcome: 'failed', apiStatus: 422, decidedBy: 'UOPER2' });
  });

  test('invisible formatting in a label is shown by name wherever the approver reads the request, and sent as it is', async () => {
    // A right-to-left override would show "data-exe.txt" as something else entirely; a zero-width space hides itself.
    const label = 'web\u202Etxt.exe\u202C-data\u200B';
    const asked = await ask('UOPER', 'disk add 42', { ...goodDisk, label: input.text(label) }, 'disk_add');
    const shown = shownRequest(asked.message);
    expect(shown).toContain('web<U+202E>txt.exe<U+202C>-data<U+200B>');
    expect(shown).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/);
    expect(JSON.stringify(asked.message.blocks)).toContain('shown above by name, as <U+202E>; they are sent as they are');
    // The approver's Home tab shows the same, waiting for them.
    const before = h.slack.callsTo('views.publish').length;
    await h.event(appHomeOpened({ user: 'UOPER2' }));
    const home = JSON.stringify((await h.slack.waitForCalls('views.publish', before + 1))[before]!.args.view);
    expect(home).toContain('web<U+202E>txt.exe<U+202C>-data<U+200B>');
    expect(home).not.toMatch(/[\u202A-\u202E\u200B]/);

    await clickOn(h, 'UOPER2', 'approval_approve', asked);
    await updatedTo(h, asked, /Approved\* by <@UOPER2> · \*scheduled/);
    const [sent] = changePosts();
    expect(sent!.body).toContain(JSON.stringify(label).slice(1, -1));
    // What was shown, its names read back, is what was sent.
    const named = (text: string) => text.replace(/<U\+([0-9A-F]{4,6})>/g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
    expect(named(shown)).toBe(`${sent!.method} ${sent!.url}\n\n${sent!.body}`);
  });

  describe('a bot with VS_API_FORMAT=xml', () => {
    const { h: x, fault: xmlCloud } = useHarnessBehindFaults({ env: { ...ENV, VS_API_FORMAT: 'xml' } });

    test('in XML too: the XML body shown is the one the cloud API receives, byte for byte', async () => {
      const asked = await ask('UOPER', 'disk add 43', { ...goodDisk, label: input.text('a "quoted" <label> & more') }, 'disk_add', x);
      expect(shownRequest(asked.message)).toMatch(
        /^POST \/virtual_machines\/43\/disks\.xml\n\n<\?xml .*<label>a &quot;quoted&quot; &lt;label&gt; &amp; more<\/label>/,
      );
      await clickOn(x, 'UOPER2', 'approval_approve', asked);
      await updatedTo(x, asked, /Approved\* by <@UOPER2> · \*scheduled\*/);
      const sent = xmlCloud.requests.filter((r) => r.method === 'POST');
      expect(sent.map((r) => `${r.method} ${r.url}\n\n${r.body}`)).toEqual([shownRequest(asked.message)]);
    });

    test('a request too long to be shown whole is not asked for: the form names the fields to shorten; shortened, every field sent is shown', async () => {
      // Each apostrophe is six characters in XML (&apos;): a label and a mount point of them make the request 3,400 long.
      const apostrophes = { ...goodDisk, label: input.text("'".repeat(255)), mount_point: input.text(`/${"'".repeat(255)}`), min_iops: input.number('500') };
      const requestsBefore = x.slack.messagesIn(CHANNEL).filter(isRequest).length;
      const view = await openForm(x, 'disk add 44', 'UOPER');
      const ack = await submit(x, 'disk_add', 'UOPER', view.private_metadata, apostrophes);
      expect(ack.response_action).toBe('errors');
      expect(Object.keys(ack.errors!).sort()).toEqual(['label', 'mount_point']);
      expect(ack.errors!.mount_point).toMatch(
        /^Too long to ask for approval: the request would be 3,\d+ characters as sent, \d+ more than an approval request shows whole\. This field takes 1,558/,
      );
      expect(ack.errors!.label).toMatch(/This field takes 1,545 of them .*: shorten it or the other fields marked$/);
      expect((await x.store.approvals.open(Date.now())).filter((a) => a.target === 'vs:44')).toEqual([]);
      expect(x.slack.messagesIn(CHANNEL).filter(isRequest)).toHaveLength(requestsBefore);
      expect(xmlCloud.requests.filter((r) => r.method === 'POST')).toEqual([]);

      const shortened = { ...apostrophes, label: input.text("'".repeat(200)), mount_point: input.text(`/mnt/${"'".repeat(100)}`) };
      const asked = await ask('UOPER', 'disk add 44', shortened, 'disk_add', x);
      const shown = shownRequest(asked.message);
      for (const field of ['label', 'mount_point', 'hot_attach', 'min_iops', 'require_format_disk', 'file_system']) expect(shown).toContain(`<${field}`);
      await clickOn(x, 'UOPER2', 'approval_approve', asked);
      await updatedTo(x, asked, /Approved\* by <@UOPER2> · \*scheduled\*/);
      expect(xmlCloud.requests.filter((r) => r.method === 'POST').map((r) => `${r.method} ${r.url}\n\n${r.body}`)).toEqual([shown]);
    });
  });
});

/** The replies in a request's thread, as the channel's members get them (chat.postMessage with its ts). */
const threadOf = (p: PostedRequest) =>
  h.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.args.channel === p.channel && c.args.thread_ts === p.ts)
    .map((c) => JSON.stringify(c.args));

describe('people notice a request', () => {
  test('it mentions who may decide it: the user groups holding the role, the people by their own id, never the one who asked', async () => {
    const asked = await askRestore('UADMIN');
    const shown = JSON.stringify(asked.message.blocks);
    expect(shown).toContain('*Who may decide:* <!subteam^SADMINS> <@UADMIN2>');
    expect(asked.message.text).toMatch(/for <!subteam\^SADMINS> <@UADMIN2>$/);
    // An add-disk may be decided by operators too; the operator who asks is not among them.
    const disk = await ask('UOPER', 'disk add 42', goodDisk, 'disk_add');
    expect(JSON.stringify(disk.message.blocks)).toContain('*Who may decide:* <!subteam^SADMINS> <@UADMIN> <@UADMIN2> <@UOPER2>');
    await deny(h, 'UADMIN2', asked);
    await deny(h, 'UADMIN2', disk);
  });

  test('Deny opens a small form asking why; the reason is shown in the message, kept in the record, and the one who asked is told in the thread', async () => {
    const asked = await askRestore('UADMIN');
    const click = await clickOn(h, 'UADMIN2', 'approval_deny', asked);
    const form = await waitFor('the deny form', () => h.slack.callsTo('views.open').find((c) => c.args.trigger_id === click.triggerId));
    const view = form.args.view as { callback_id: string; blocks: { type: string; block_id?: string; optional?: boolean; element?: { action_id: string } }[] };
    expect(view.callback_id).toBe('approval_deny_reason');
    expect(view.blocks.find((b) => b.type === 'input')).toMatchObject({ block_id: 'reason', optional: true, element: { action_id: 'reason' } });
    // Nothing is decided by the click alone.
    expect((await h.store.approvals.get(asked.id))!.status).toBe('requested');

    const ack = await deny(h, 'UADMIN2', asked, 'wrong backup: <!channel> restore last night’s instead');
    expect(ack).toEqual({});
    const message = await updatedTo(h, asked, /Denied\* by <@UADMIN2>: “wrong backup: &lt;!channel&gt; restore last night’s instead”/);
    expect(JSON.stringify(message.blocks)).not.toContain('approval_');
    expect((await recordsOf(h, asked.id)).at(-1)).toMatchObject({
      outcome: 'denied',
      decidedBy: 'UADMIN2',
      detail: 'rejected by UADMIN2 because “wrong backup: <!channel> restore last night’s instead”; nothing was changed',
    });
    const [reply] = await waitFor('the reply in the thread', () => (threadOf(asked).length > 0 ? threadOf(asked) : undefined));
    expect(reply).toContain('<@UADMIN> :no_entry_sign: *Denied* by <@UADMIN2>: “wrong backup: &lt;!channel&gt; restore last night’s instead”');
    expect(changePosts()).toEqual([]);
  });

  test('Deny with no reason given says so plainly; a form submitted after someone else decided is told who, in the form', async () => {
    const asked = await askRestore('UADMIN');
    // UGROUPADMIN opens the form; meanwhile UADMIN2 denies. The first decisive action wins.
    const late = await clickOn(h, 'UGROUPADMIN', 'approval_deny', asked);
    const lateForm = await waitFor('the deny form', () => h.slack.callsTo('views.open').find((c) => c.args.trigger_id === late.triggerId));
    await deny(h, 'UADMIN2', asked);
    await updatedTo(h, asked, /Denied\* by <@UADMIN2>\. Nothing was changed\./);
    const metadata = (lateForm.args.view as { private_metadata: string }).private_metadata;
    const ack = await submit(h, 'approval_deny_reason', 'UGROUPADMIN', metadata, { reason: input.text('too late') });
    expect(ack.response_action).toBe('update');
    expect(JSON.stringify(ack.view)).toMatch(/already denied by <@UADMIN2>/);
    expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.decidedBy])).toEqual([
      ['requested', null],
      ['denied', 'UADMIN2'],
    ]);
  });

  test('the one who asked may withdraw it: the message says so in place, recorded, told in the thread; anyone else is refused, alone', async () => {
    const asked = await askRestore('UADMIN');
    expect(await answerToClick(h, 'UADMIN2', 'approval_withdraw', asked)).toMatch(
      /Only <@UADMIN>, who asked for this change, may withdraw it\. Nothing was changed\./,
    );
    expect(JSON.stringify(messageOf(h, asked).blocks)).toContain('approval_withdraw');
    await clickOn(h, 'UADMIN', 'approval_withdraw', asked);
    const message = await updatedTo(h, asked, /Withdrawn\* by <@UADMIN>, who asked for it\. Nothing was changed\./);
    expect(JSON.stringify(message.blocks)).not.toContain('approval_');
    expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.userId, r.decidedBy])).toEqual([
      ['requested', 'UADMIN', null],
      ['refused', 'UADMIN2', null],
      ['withdrawn', 'UADMIN', 'UADMIN'],
    ]);
    await waitFor('the reply in the thread', () => threadOf(asked).some((r) => r.includes('<@UADMIN> :leftwards_arrow_with_hook: *Withdrawn*')));
    expect(await answerToClick(h, 'UADMIN2', 'approval_approve', asked)).toMatch(/withdrawn by <@UADMIN>/);
    expect(changePosts()).toEqual([]);
  });

  test('approved: the one who asked is told in the thread, with a mention, how the change went', async () => {
    const asked = await askRestore('UADMIN');
    await clickOn(h, 'UADMIN2', 'approval_approve', asked);
    await updatedTo(h, asked, /Approved\* by <@UADMIN2> · \*scheduled\*/);
    await waitFor('the reply in the thread', () =>
      threadOf(asked).some((r) => r.includes('<@UADMIN> :clock4: *Approved* by <@UADMIN2> · *scheduled*: restore of backup 9 onto')),
    );
  });
});

describe('a request nobody decides', () => {
  test('expires when its time is up: the message says so in place, it is recorded, and a click afterwards is told', async () => {
    const asked = await askRestore('UADMIN');
    skew += 31 * 60_000;
    const message = await updatedTo(h, asked, /Expired\*: nobody decided/);
    expect(JSON.stringify(message.blocks)).not.toContain('approval_approve');
    expect((await recordsOf(h, asked.id)).map((r) => [r.outcome, r.userId])).toEqual([
      ['requested', 'UADMIN'],
      ['expired', 'UADMIN'],
    ]);
    expect(await answerToClick(h, 'UADMIN2', 'approval_approve', asked)).toMatch(/expired/);
    expect(changePosts()).toEqual([]);
    // The one who asked is told in its thread, with a mention.
    await waitFor('the reply in the thread', () => threadOf(asked).some((r) => r.includes('<@UADMIN> :hourglass: *Expired*')));
  });
});
