import type { AuditEntry } from '../../../../src/store';
import { useHarness } from '../../../helpers/app-harness';
import { answerTo, CHANNEL } from '../../../helpers/drive';
import { buttonClick } from '../../../helpers/payloads';
import { waitFor } from '../../../helpers/wait';
import { entry as storeEntry } from '../../../store/contract/entries';

// `/vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]` over the real Bolt app (docs/product.md, Audit; Long
// lists): signed commands and clicks in, the answer at the stand-in's response_url out; the records written to the
// bot's own store.

type Element = { action_id?: string; value?: string };
type Message = { response_type?: string; replace_original?: boolean; text?: string; blocks?: { type: string; elements?: Element[] }[] };

const ADMIN = 'UADMIN';
const h = useHarness({ env: { VS_ADMINS: ADMIN, VS_OPERATORS: 'UOPER' }, reset: false, beforeEach: (h) => h.slack.reset() });

const entry = (o: Partial<AuditEntry>): AuditEntry => storeEntry({ at: new Date().toISOString(), channelId: CHANNEL, ...o });

beforeAll(async () => {
  // 25 changes to VS 42 by the operator, 5 to backup 9 by someone else that a second person denied, failed ones among them.
  for (let i = 0; i < 25; i++) await h.store.audit.record(entry({ userId: 'UOPER', target: 'vs:42', outcome: i % 5 === 0 ? 'failed' : 'done' }));
  for (let i = 0; i < 5; i++) await h.store.audit.record(entry({ userId: 'USOMEONE', target: 'backup:9', action: 'backup_restore', outcome: 'denied' }));
});

const text = (m: Message) => JSON.stringify(m.blocks ?? []);
/** The record lines of a list: what each names, in order. */
const lines = (m: Message) => [...text(m).matchAll(/\*(Add disk|Restore backup)\* · (VS 42|Backup 9) → \*?(\w+)/g)].map((x) => `${x[2]} ${x[3]}`);
const element = (m: Message, actionId: string) => (m.blocks ?? []).flatMap((b) => b.elements ?? []).find((e) => e.action_id === actionId);

let clicks = 0;
async function click(actionId: string, value: string, user = ADMIN): Promise<Message> {
  const id = `click${++clicks}`;
  // In the list, which is ephemeral: only the one who asked reads it.
  const res = await h.interact(buttonClick({ user, channel: CHANNEL, actionId, value, responseUrl: h.slack.responseUrl(id), ephemeral: true }));
  expect(res.status).toBe(200);
  return (await waitFor(`the answer to ${actionId}`, () => h.slack.responses.find((r) => r.id === id))).body;
}

describe('/vs audit with a filter', () => {
  test('vs <id>: only that server’s records, newest first, "page 1 of m" and Next; new records do not shift its pages', async () => {
    const first = (await answerTo(h, 'audit 30 vs 42', { user: ADMIN })) as Message;
    expect(first.response_type).toBe('ephemeral');
    expect(text(first)).toContain('latest 25 records · VS 42 · page 1 of 3');
    expect(lines(first)).toHaveLength(10);
    expect(lines(first).every((l) => l.startsWith('VS 42'))).toBe(true);

    // Written after the list was shown: not on its pages.
    await h.store.audit.record(entry({ userId: 'UOPER', target: 'vs:42', outcome: 'refused' }));
    const second = await click('audit_page_next', element(first, 'audit_page_next')!.value!);
    expect(second.replace_original).toBe(true);
    expect(text(second)).toContain('page 2 of 3');
    expect(lines(second)).toHaveLength(10);
    expect(text(second)).not.toContain('→ *refused*');
    const third = await click('audit_page_next', element(second, 'audit_page_next')!.value!);
    expect(text(third)).toContain('page 3 of 3');
    expect(lines(third)).toHaveLength(5);
    expect(element(third, 'audit_page_next')).toBeUndefined();
    expect(element(third, 'audit_export')).toBeDefined();
  });

  test('backup <id>, @person (as Slack escapes a mention), failed, denied and refused each list only their records', async () => {
    expect(lines((await answerTo(h, 'audit backup 9', { user: ADMIN })) as Message)).toEqual(Array(5).fill('Backup 9 denied'));
    const theirs = (await answerTo(h, 'audit 50 <@USOMEONE|someone>', { user: ADMIN })) as Message;
    expect(text(theirs)).toContain('latest 5 records · <@USOMEONE>');
    expect(lines(theirs)).toEqual(Array(5).fill('Backup 9 denied'));
    expect(lines((await answerTo(h, 'audit 50 failed', { user: ADMIN })) as Message)).toEqual(Array(5).fill('VS 42 failed'));
    const denied = (await answerTo(h, 'audit denied 3', { user: ADMIN })) as Message;
    expect(lines(denied)).toEqual(Array(3).fill('Backup 9 denied'));
    // Stopped before sending: the refusal written by the first test, alone (a second person's no is not one).
    const refused = (await answerTo(h, 'audit refused', { user: ADMIN })) as Message;
    expect(text(refused)).toContain('latest 1 record · refused attempts');
    expect(lines(refused)).toEqual(['VS 42 refused']);
    expect(text((await answerTo(h, 'audit vs 7', { user: ADMIN })) as Message)).toContain('No audit record matches: VS 7.');
  });

  test('a filter typed wrong gets its usage line and the closest command, not every command', async () => {
    const m = (await answerTo(h, 'audit vs', { user: ADMIN })) as Message;
    expect(text(m)).toContain('`vs` needs the server id after it');
    expect(text(m)).toContain('/vs audit [n] [vs &lt;id&gt;|backup &lt;id&gt;|@person|failed|denied|refused|breakglass]');
    expect(text(m)).not.toContain('/vs firewall');
  });

  test('the pages are an admin’s: an operator pressing Next (or sending its value by hand) is refused', async () => {
    const value = JSON.stringify({ n: 30, p: 2, a: 1000, f: { kind: 'vs', id: 42 } });
    expect(text(await click('audit_page_next', value, 'UOPER'))).toContain('Reading the audit trail needs the admin role; you are an operator.');
  });

  test('a page button whose value was not made by the list is out of date, and nothing is read', async () => {
    expect(text(await click('audit_page_next', '{"n":30,"p":2,"a":1,"f":{"kind":"person","userId":"<!channel>"}}'))).toContain(
      'That button is out of date; run `/vs audit` again.',
    );
  });
});
