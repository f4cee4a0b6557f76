import { useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, openForm, sleep, submit } from '../helpers/drive';
import { globalShortcut } from '../helpers/payloads';
import { waitFor } from '../helpers/wait';

// The freeze, over the real Bolt app: admins switch every change off with a
// reason and on again; while it is on, every way to a change is refused with
// who froze, when and why (opening a form from a command or a shortcut, a
// form submitted, an approval: test/slack/approvals.test.ts); it is shown by
// /vs whoami, posted in the channel and to the audit channel, and survives a
// restart.

const ENV = { VS_ADMINS: 'UADMIN,UADMIN2', VS_OPERATORS: 'UOPER', VS_VIEWERS: 'UVIEWER', VS_AUDIT_CHANNEL: 'CAUDIT' };
const REASON = 'storage migration until 16:00';

const h = useHarness({ env: ENV });

const changePosts = () => h.sandbox.requests.filter((r) => r.method === 'POST');
const FROZEN = new RegExp(`Changes are frozen: <@UADMIN> froze them <!date\\^\\d+\\^[^>]+> because “${REASON}”`);

test('only an admin may freeze: an operator is refused, told alone, and the refusal is recorded', async () => {
  const answer = await answerTo(h, `freeze ${REASON}`, { user: 'UOPER', channel: CHANNEL });
  expect(answer.response_type).toBe('ephemeral');
  expect(JSON.stringify(answer)).toMatch(/Freezing and unfreezing changes needs the admin role; you are an operator/);
  expect(await h.store.freeze.current()).toBeNull();
  expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'freeze', userId: 'UOPER', outcome: 'refused', target: 'changes' });
});

test('a freeze needs a reason', async () => {
  expect(JSON.stringify(await answerTo(h, 'freeze', { user: 'UADMIN', channel: CHANNEL }))).toMatch(/reason/);
  expect(await h.store.freeze.current()).toBeNull();
});

describe('while frozen', () => {
  let openedBefore: string;
  let auditPost: string | undefined;
  beforeAll(async () => {
    // A form opened before the freeze, submitted after it.
    openedBefore = (await openForm(h, 'disk add 42', 'UOPER')).private_metadata;
    const answer = await answerTo(h, `freeze ${REASON}`, { user: 'UADMIN', channel: CHANNEL });
    expect(answer.response_type).toBe('in_channel');
    expect(JSON.stringify(answer)).toContain(`Changes are frozen* by <@UADMIN>`);
    const posted = () =>
      h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === 'CAUDIT' && JSON.stringify(c.args).includes('*Freeze changes* → *done*'));
    auditPost = JSON.stringify((await waitFor('the audit post of the freeze', posted)).args);
  });

  test('the freeze is recorded and posted to the audit channel', async () => {
    expect(await h.store.freeze.current()).toMatchObject({ by: 'UADMIN', reason: REASON });
    const record = (await h.store.audit.latest(5)).find((r) => r.action === 'freeze' && r.outcome === 'done');
    expect(record).toMatchObject({ userId: 'UADMIN', channelId: CHANNEL, params: { reason: REASON } });
    expect(auditPost).toContain(REASON);
    expect(auditPost).toContain('<@UADMIN>');
  });

  test('opening a form from a command is refused with who froze, when and why, and recorded', async () => {
    const answer = await answerTo(h, 'backup restore 9', { user: 'UADMIN2', channel: CHANNEL, triggerId: 'trigger.frozen' });
    expect(answer.response_type).toBe('ephemeral');
    expect(JSON.stringify(answer)).toMatch(FROZEN);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      action: 'backup_restore',
      userId: 'UADMIN2',
      outcome: 'refused',
      detail: expect.stringMatching(/^changes are frozen/),
    });
  });

  test('opening a form from a global shortcut is refused in a window that says so', async () => {
    const res = await h.interact(globalShortcut({ user: 'UOPER', callbackId: 'disk_add_shortcut' }));
    expect(res.status).toBe(200);
    const [open] = await h.slack.waitForCalls('views.open', 1);
    expect(JSON.stringify(open!.args.view)).toMatch(FROZEN);
    expect(JSON.stringify(open!.args.view)).not.toContain('disk_size');
  });

  test('a form opened before the freeze and submitted now is refused, and the cloud API is not called', async () => {
    const ack = await submit(h, 'disk_add', 'UOPER', openedBefore, goodDisk);
    expect(JSON.stringify(ack)).toMatch(FROZEN);
    await sleep(100);
    expect(changePosts()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'disk_add', userId: 'UOPER', outcome: 'refused' });
  });

  test('/vs whoami shows the freeze to everyone; reads keep working', async () => {
    expect(JSON.stringify(await answerTo(h, 'whoami', { user: 'UVIEWER', channel: CHANNEL }))).toMatch(FROZEN);
    expect(JSON.stringify(await answerTo(h, 'firewall 42', { user: 'UVIEWER', channel: CHANNEL }))).toContain('VS 42');
  });

  test('freezing again keeps the first freeze, says so, and records nothing new', async () => {
    const before = (await h.store.audit.latest(1))[0]!.id;
    const answer = await answerTo(h, 'freeze something else', { user: 'UADMIN2', channel: CHANNEL });
    expect(JSON.stringify(answer)).toMatch(/already frozen: <@UADMIN> froze them/);
    expect(await h.store.freeze.current()).toMatchObject({ by: 'UADMIN', reason: REASON });
    expect((await h.store.audit.latest(1))[0]!.id).toBe(before);
  });

  test('the freeze survives a restart: another bot on the same store refuses changes and shows it', async () => {
    await h.restart();
    const ask = async (text: string, user: string) => JSON.stringify(await answerTo(h, text, { user, channel: CHANNEL }));
    expect(await ask('whoami', 'UOPER')).toMatch(FROZEN);
    expect(await ask('disk add 42', 'UOPER')).toMatch(FROZEN);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);

    // Lifted there, changes are allowed again: the form opens.
    expect(await ask('unfreeze', 'UADMIN2')).toMatch(/Changes are allowed again\*: <@UADMIN2> lifted the freeze/);
    expect(await h.store.freeze.current()).toBeNull();
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'unfreeze', userId: 'UADMIN2', outcome: 'done' });
    await openForm(h, 'disk add 42', 'UOPER');
    expect(await ask('unfreeze', 'UADMIN2')).toMatch(/not frozen; nothing to unfreeze/);
  });
});
