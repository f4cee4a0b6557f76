import type { HomeView } from '@slack/types';
import type { AuditEntry } from '../../../../src/store';
import { HOME_RECORDS } from '../../../../src/slack/blocks/home';
import { startHarness, type Harness } from '../../../helpers/app-harness';
import { appHomeOpened, viewButtonClick } from '../../../helpers/payloads';
import { entry as storeEntry } from '../../../store/contract/entries';

// The Home tab over the real Bolt app: Slack's signed app_home_opened event
// in, views.publish out, for each role, frozen and not; its buttons open the
// change forms as the global shortcuts do, checked as they are; a long audit
// trail stays within Slack's limits (the stand-in refuses what Slack would).

const USERS = { admin: 'UADMIN', operator: 'UOPER', viewer: 'UVIEWER', nobody: 'UNOBODY' } as const;
const ALLOWED = 'CINCIDENT';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { VS_ADMINS: USERS.admin, VS_OPERATORS: USERS.operator, VS_VIEWERS: USERS.viewer, VS_MUTATION_CHANNELS: ALLOWED },
  });
  // One change of each person's, told apart by their targets.
  for (const [i, userId] of [USERS.admin, USERS.operator, USERS.viewer, 'USOMEONE'].entries())
    await h.store.audit.record(entry({ userId, target: `vs:${101 + i}` }));
});

afterAll(() => h.close());

beforeEach(() => h.slack.reset());

/** A record made now: older ones are the retention sweep's. */
const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => storeEntry({ at: new Date().toISOString(), channelId: ALLOWED, ...overrides });

/** Opens the Home tab as `user` (Slack's signed event) and returns the view the bot published for them. */
async function openHome(user: string): Promise<HomeView> {
  const before = h.slack.callsTo('views.publish').length;
  const res = await h.raw(JSON.stringify(appHomeOpened({ user })), 'application/json');
  expect(res.status).toBe(200);
  const call = (await h.slack.waitForCalls('views.publish', before + 1))[before]!;
  // Published, not refused: the stand-in checks Block Kit's limits as Slack does.
  expect(call).toMatchObject({ ok: true, args: { user_id: user } });
  return call.args.view as HomeView;
}

/** Every text a person reads on the view, in order. */
function readable(view: HomeView): string {
  const texts: string[] = [];
  for (const block of view.blocks as { text?: { text: string }; elements?: { text?: string | { text: string } }[] }[]) {
    if (block.text) texts.push(block.text.text);
    for (const e of block.elements ?? []) texts.push(typeof e.text === 'string' ? e.text : (e.text?.text ?? ''));
  }
  return texts.join('\n');
}

const buttons = (view: HomeView) =>
  (view.blocks as { type: string; elements?: { type: string; action_id?: string }[] }[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .map((e) => e.action_id);

describe('the Home tab, drawn for whoever opens it', () => {
  test('an admin: their role and all it allows, not frozen, both forms, every change', async () => {
    const view = await openHome(USERS.admin);
    const text = readable(view);
    expect(view.type).toBe('home');
    expect(text).toContain('<@UADMIN>, your role is *admin*');
    expect(text).toMatch(/restore a disk from a backup.*only in <#CINCIDENT>/);
    expect(text).toContain('Changes are not frozen');
    expect(buttons(view)).toEqual(['home_open_disk_add', 'home_open_backup_restore']);
    expect(text).toContain('Latest changes');
    for (const target of ['vs:101', 'vs:102', 'vs:103', 'vs:104']) expect(text).toContain(target);
  });

  test('an operator: the add-disk form only, and only their own changes', async () => {
    const view = await openHome(USERS.operator);
    const text = readable(view);
    expect(text).toContain('your role is *operator*');
    expect(buttons(view)).toEqual(['home_open_disk_add']);
    expect(text).toContain('Your latest changes');
    expect(text).toContain('vs:102');
    for (const target of ['vs:101', 'vs:103', 'vs:104']) expect(text).not.toContain(target);
  });

  test('a viewer: no form, and only their own changes', async () => {
    const text = readable(await openHome(USERS.viewer));
    expect(text).toContain('your role is *viewer*');
    expect(text).toContain('vs:103');
    expect(text).not.toContain('vs:102');
    expect(buttons(await openHome(USERS.viewer))).toEqual([]);
  });

  test('someone with no role is told so, and sees nothing of anyone else', async () => {
    const text = readable(await openHome(USERS.nobody));
    expect(text).toContain('your role is *none*');
    expect(text).toContain('You may not use the read commands');
    expect(text).toContain('You have not attempted any change yet');
    expect(text).not.toMatch(/vs:10\d/);
  });

  test('while frozen: who froze, when and why, for every role, and no form to open', async () => {
    await h.store.freeze.start({ by: USERS.admin, at: '2024-05-02T08:30:00.000Z', reason: 'database migration <!channel>' });
    try {
      for (const user of [USERS.admin, USERS.operator, USERS.viewer]) {
        const view = await openHome(user);
        const text = readable(view);
        expect(text).toContain('*Changes are frozen*');
        expect(text).toContain('by <@UADMIN>');
        // A Slack date token, with the UTC time for clients that cannot show it.
        expect(text).toContain(`<!date^${Date.parse('2024-05-02T08:30:00.000Z') / 1000}^`);
        expect(text).toContain('2024-05-02 08:30:00 UTC');
        // The reason is shown as typed, never as a mention.
        expect(text).toContain('database migration &lt;!channel&gt;');
        expect(buttons(view)).toEqual([]);
      }
    } finally {
      await h.store.freeze.lift();
    }
    expect(readable(await openHome(USERS.admin))).toContain('Changes are not frozen');
  });

  test('the Messages tab opened is not answered with a Home tab', async () => {
    const res = await h.raw(JSON.stringify(appHomeOpened({ user: USERS.admin, tab: 'messages' })), 'application/json');
    expect(res.status).toBe(200);
    // Opened after it: the only publish is the Home tab's.
    await openHome(USERS.viewer);
    expect(h.slack.callsTo('views.publish').map((c) => c.args.user_id)).toEqual([USERS.viewer]);
  });
});

describe('its buttons open the change forms, role-checked as the shortcuts are', () => {
  async function press(user: string, actionId: string) {
    const before = h.slack.callsTo('views.open').length;
    const payload = viewButtonClick({ user, actionId });
    const res = await h.interact(payload);
    expect(res.status).toBe(200);
    const call = (await h.slack.waitForCalls('views.open', before + 1))[before]!;
    expect(call.args.trigger_id).toBe(payload.trigger_id);
    return call.args.view as { callback_id?: string; title: { text: string }; blocks: { block_id?: string; text?: { text: string } }[] };
  }

  test('an operator gets the add-disk form, which asks for the server and the channel (checked when it is submitted)', async () => {
    const form = await press(USERS.operator, 'home_open_disk_add');
    expect(form.callback_id).toBe('disk_add');
    expect(form.blocks.map((b) => b.block_id)).toEqual(expect.arrayContaining(['vs_id', 'channel']));
  });

  test('an operator pressing the restore button of a stale Home tab is refused in a modal, and the refusal is recorded', async () => {
    const refusal = await press(USERS.operator, 'home_open_backup_restore');
    expect(refusal.callback_id ?? '').toBe('');
    expect(refusal.title.text).toBe('Restore backup');
    expect(JSON.stringify(refusal.blocks)).toContain('Restoring a backup needs the admin role; you are an operator.');
    const [record] = await h.store.audit.latest(1);
    expect(record).toMatchObject({ userId: USERS.operator, action: 'backup_restore', target: 'home', outcome: 'denied' });
  });

  test('an admin gets the restore form; a viewer pressing add disk is refused', async () => {
    expect((await press(USERS.admin, 'home_open_backup_restore')).callback_id).toBe('backup_restore');
    expect(JSON.stringify((await press(USERS.viewer, 'home_open_disk_add')).blocks)).toContain('Adding a disk needs the operator role; you are a viewer.');
  });
});

describe('a long audit trail', () => {
  test("is bounded to Slack's limits: the latest changes only, each line cut, the view published", async () => {
    const long = 'x'.repeat(5000);
    for (let i = 0; i < 300; i++)
      await h.store.audit.record(
        entry({ userId: USERS.admin, target: `vs:${1000 + i}`, detail: `${long} <@UALL>`, params: { label: long }, outcome: 'failed' }),
      );
    const view = await openHome(USERS.admin);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view).length).toBeLessThan(250_000);
    const text = readable(view);
    const shown = [...text.matchAll(/vs:(1\d\d\d)/g)].map((m) => Number(m[1]));
    expect(shown).toEqual(Array.from({ length: HOME_RECORDS }, (_, i) => 1299 - i));
    expect(text).not.toContain('<@UALL>');
    expect(h.slack.state.refusals).toEqual([]);
  });
});

describe('when the store cannot be read', () => {
  test('the Home tab is still published, saying what could not be read', async () => {
    await h.store.close();
    const text = readable(await openHome(USERS.admin));
    expect(text).toContain('your role is *admin*');
    expect(text).toContain('Whether changes are frozen could not be read just now');
    expect(text).toContain('The audit trail could not be read just now');
  });
});
