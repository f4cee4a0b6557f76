import type { HomeView } from '@slack/types';
import { useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, postedIn, submit, visibleText } from '../helpers/drive';
import { appHomeOpened, input, viewButtonClick } from '../helpers/payloads';
import { clickOn } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// Break glass over the real Bolt app (docs/product.md, On call): `/vs breakglass <reason>` opens a window, loudly (the
// channel, and the audit channel by its record, mentioning who would have approved); the person's change that would
// wait runs at once and says so in its channel, with the Acknowledge button (`breakglass_ack`) another admin presses
// after the incident; `/vs audit breakglass`, the Home tab and `/vs whoami` show windows and uses; `/vs breakglass end`
// closes it. The bot's clock is the test's.

let clock = Date.parse('2026-03-14T03:00:00Z');
const h = useHarness({
  now: () => clock,
  env: {
    VS_ADMINS: 'UADMIN,UADMIN2',
    VS_OPERATORS: 'UOPER,SONCALL',
    VS_APPROVALS: 'power_reboot',
    VS_BREAKGLASS: 'on',
    VS_BREAKGLASS_MIN: '60',
    VS_AUDIT_CHANNEL: 'CAUDIT',
  },
  beforeEach: () => {
    // Each test after the windows of the one before have ended.
    clock += 2 * 3_600_000;
  },
});

const REASON = 'db-primary down, nobody awake to approve';
const reboots = () => h.sandbox.requests.filter((r) => r.method === 'POST' && /\/reboot\.json$/.test(r.path));
const filled = (server: number) => ({ power_action: input.select('reboot'), confirm: input.text(String(server)), reason: input.text('kernel hung') });

async function reboot(user: string, server: number) {
  const view = await openForm(h, `reboot ${server}`, user);
  return submit(h, 'vs_power', user, view.private_metadata, filled(server));
}

/**
 * The note said in the channel (through the form's response_url, for everyone there) of a change made under break
 * glass, with its Acknowledge button.
 */
const useNote = (server: number) =>
  waitFor(`the break-glass note of VS ${server}`, () =>
    h.slack.responses.find((r) => r.body.response_type === 'in_channel' && visibleText(r.body.blocks).includes(`(VS ${server}) under break glass`)),
  );
const ackValueIn = (blocks: unknown) =>
  ((blocks ?? []) as { elements?: { action_id?: string; value?: string }[]; accessory?: { action_id?: string; value?: string } }[])
    .flatMap((b) => [...(b.elements ?? []), ...(b.accessory ? [b.accessory] : [])])
    .find((e) => e.action_id === 'breakglass_ack')?.value;

async function openHome(user: string): Promise<string> {
  const before = h.slack.callsTo('views.publish').length;
  await h.event(appHomeOpened({ user }));
  const call = (await h.slack.waitForCalls('views.publish', before + 1))[before]!;
  expect(call).toMatchObject({ ok: true });
  return visibleText((call.args.view as HomeView).blocks);
}

test('a reason is required', async () => {
  expect(visibleText(await answerTo(h, 'breakglass', { user: 'UOPER', channel: CHANNEL }))).toMatch(/reason/);
  expect(await h.store.audit.count({})).toBe(0);
});

test('a viewer may not break glass: told alone, recorded', async () => {
  const answer = await answerTo(h, `breakglass ${REASON}`, { user: 'UVIEWER', channel: CHANNEL });
  expect(answer.response_type).toBe('ephemeral');
  expect(visibleText(answer)).toContain('Rebooting a server needs the operator role; you are a viewer.');
  expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'breakglass', outcome: 'refused', userId: 'UVIEWER' });
});

test('opened loudly, a change under it runs at once and is flagged; another admin acknowledges it; closed early, changes wait again', async () => {
  // Loud: for the whole channel, mentioning everyone who would have been asked, and the audit channel by its record.
  const opened = await answerTo(h, `breakglass ${REASON}`, { user: 'UOPER', channel: CHANNEL });
  expect(opened.response_type).toBe('in_channel');
  const said = visibleText(opened);
  expect(said).toMatch(/\*Break glass\*: <@UOPER> opened it until <!date\^\d+\^/);
  expect(said).toContain(REASON);
  expect(said).toContain('<!subteam^SONCALL> <@UADMIN> <@UADMIN2>: you would have been asked to approve.');
  const audit = await waitFor('the audit post of the window', () =>
    h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === 'CAUDIT' && visibleText(c.args).includes('*Break glass*')),
  );
  expect(visibleText(audit.args)).toContain('<@UADMIN> <@UADMIN2>: you would have been asked to approve.');
  expect(visibleText(await answerTo(h, 'whoami', { user: 'UOPER', channel: CHANNEL }))).toContain('Your break-glass window is open until');

  // The operator's reboot, which waits for a second person, runs at once; the channel is told, with Acknowledge.
  await reboot('UOPER', 42);
  expect(reboots().map((r) => r.path)).toEqual(['/virtual_machines/42/reboot.json']);
  await postedIn(h, CHANNEL, 'Reboot server · web-1 (VS 42)');
  const note = (await useNote(42)).body;
  expect(visibleText(note.blocks)).toContain(
    '<@UOPER> made this change to web-1 (VS 42) under break glass (“db-primary down, nobody awake to approve”): no second person approved it. ' +
      "It waits for an admin's review.",
  );
  const [use] = await h.store.audit.latest(1, { breakGlass: 'uses' });
  expect(use).toMatchObject({ action: 'power_reboot', userId: 'UOPER', outcome: 'scheduled', reviewedBy: null });
  expect(ackValueIn(note.blocks)).toBe(String(use!.id));
  // Someone else's reboot still waits.
  await reboot('UADMIN', 44);
  expect(reboots()).toHaveLength(1);

  // The admins' view: /vs audit breakglass lists the use with its button; the Home tab the window and the use.
  const listed = visibleText(await answerTo(h, 'audit breakglass', { user: 'UADMIN', channel: CHANNEL }));
  expect(listed).toContain("break glass, waiting for an admin's review");
  expect(ackValueIn((JSON.parse(listed) as { blocks: unknown }).blocks)).toBe(String(use!.id));
  const home = await openHome('UADMIN');
  expect(home).toContain('*Break glass open*');
  expect(home).toContain('*Made under break glass, waiting for review* (1)');

  // The one who made it may not acknowledge it, nor may an operator; an admin does, once.
  const request = { id: String(use!.id), channel: CHANNEL, ts: '1773457200.000100' };
  expect(await (await clickOn(h, 'UOPER', 'breakglass_ack', request)).told()).toContain('Acknowledging a change made under break glass needs the admin role');
  expect(await (await clickOn(h, 'UADMIN', 'breakglass_ack', request)).told()).toContain(
    `You acknowledged <@UOPER>'s change to web-1 (VS 42) (record ${use!.id}), made under break glass.`,
  );
  expect(await (await clickOn(h, 'UADMIN2', 'breakglass_ack', request)).told()).toContain('was already acknowledged by <@UADMIN>');
  expect(await h.store.audit.latest(5, { breakGlass: 'unreviewed' })).toEqual([]);
  expect(visibleText(await answerTo(h, 'audit breakglass', { user: 'UADMIN', channel: CHANNEL }))).toContain('break glass, reviewed by <@UADMIN>');
  expect(await openHome('UADMIN')).not.toContain('waiting for review');

  // Closed early: said in the channel; the next reboot waits for a second person.
  const ended = await answerTo(h, 'breakglass end', { user: 'UOPER', channel: CHANNEL });
  expect(ended.response_type).toBe('in_channel');
  expect(visibleText(ended)).toContain('<@UOPER> closed their break-glass window');
  await reboot('UOPER', 45);
  expect(reboots()).toHaveLength(1);
  expect(visibleText(await answerTo(h, 'breakglass end', { user: 'UOPER', channel: CHANNEL }))).toContain('You have no break-glass window open');
});

test('the window ends on its own at its time: a change after it waits', async () => {
  await answerTo(h, `breakglass ${REASON}`, { user: 'UOPER', channel: CHANNEL });
  clock += 60 * 60_000;
  await reboot('UOPER', 46);
  expect(reboots()).toHaveLength(0);
  expect(visibleText(await answerTo(h, 'whoami', { user: 'UOPER', channel: CHANNEL }))).not.toContain('break-glass window is open');
});

test('an Acknowledge pressed on the Home tab: the admin is told in a window, and the tab drawn again', async () => {
  await answerTo(h, `breakglass ${REASON}`, { user: 'UOPER', channel: CHANNEL });
  await reboot('UOPER', 42);
  const [use] = await h.store.audit.latest(1, { breakGlass: 'uses' });
  const published = h.slack.callsTo('views.publish').length;
  await h.interact(viewButtonClick({ user: 'UADMIN2', actionId: 'breakglass_ack', value: String(use!.id) }));
  const modal = await waitFor('the answer in a window', () => h.slack.callsTo('views.open').find((c) => visibleText(c.args.view).includes('You acknowledged')));
  expect(visibleText(modal.args.view)).toContain('Break glass');
  await h.slack.waitForCalls('views.publish', published + 1);
  expect((await h.store.audit.get(use!.id))?.reviewedBy).toBe('UADMIN2');
});
