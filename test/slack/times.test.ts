import { useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, postedIn, submit } from '../helpers/drive';
import { appHomeOpened, input } from '../helpers/payloads';
import { approvalIdIn, clickOn, updatedTo } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// docs/product.md, One outcome: "Times in Slack messages are Slack date tokens (each reader sees their own time
// zone), one format in a message, never a second clock beside it". An on-call engineer's tour over the real app (the
// server, its backups, disks and rules, a restore asked for and approved by a second admin, a reboot, a freeze and a
// refusal under it, whoami, the audit, the Home tab, the audit channel), then everything the bot showed anyone is
// read: outside the date tokens, no clock is written as text (no "12:12", "UTC", "8:12 AM", ISO time), and every token
// of one message or view has the same format.

const ENV = {
  VS_ADMINS: 'UADMIN,UADMIN2',
  VS_OPERATORS: 'UOPER',
  VS_APPROVALS: 'backup_restore',
  VS_AUDIT_CHANNEL: 'CAUDIT',
};

/** Slack's date token: `<!date^seconds^format|fallback>` (the fallback, in UTC, is for clients that cannot show it). */
const DATE_TOKEN = /<!date\^-?\d+\^([^|>]*)(?:\|[^>]*)?>/g;

/** A clock written as text: a time of day, a zone, AM/PM, or an ISO 8601 time. */
const CLOCKS: readonly RegExp[] = [
  /(?<![\d.:])\d{1,2}:\d{2}(?![\d.])/,
  /\b(UTC|GMT|Z)\b(?!\w)/,
  /\b\d{1,2}(:\d{2})?\s?[AaPp]\.?[Mm]\b/,
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/,
];

/** What a person reads of a message or a view: every `text`, but placeholders (examples of what to type). */
function shownTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) shownTexts(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'placeholder') continue;
      if (key === 'text' && typeof value === 'string') out.push(value);
      else shownTexts(value, out);
    }
  }
  return out;
}

/** Everything the bot showed: each message posted, updated or answered, each view opened, updated or published, each unfurl. */
function surfaces(h: Harness): { where: string; shown: unknown }[] {
  const calls = h.slack.calls
    .filter((c) => /^(chat\.(postMessage|postEphemeral|update|unfurl)|views\.(open|update|push|publish))$/.test(c.method))
    .map((c) => ({ where: c.method, shown: c.method.startsWith('views.') ? c.args.view : (c.args.unfurls ?? c.args.blocks) }));
  return [...calls, ...h.slack.responses.map((r) => ({ where: 'response_url', shown: r.body.blocks }))];
}

describe('times in what the bot shows', () => {
  const h = useHarness({ env: ENV });

  test('every time is a date token, one format per message, never a clock written beside it', async () => {
    for (const command of ['server 42', 'backups 42', 'disks 42', 'firewall 42', 'firewall 42 443', 'autoscaling 42', 'templates'])
      await answerTo(h, command, { user: 'UOPER' });

    // The form for one backup says when it was taken; the form for a server picks among its backups.
    await openForm(h, 'backup restore 9', 'UADMIN');
    const restore = await openForm(h, 'restore 42', 'UADMIN');
    const before = new Set(h.slack.messagesIn(CHANNEL).map((m) => m.ts));
    await submit(h, 'backup_restore', 'UADMIN', restore.private_metadata, {
      backup_id: input.select('9'),
      confirm: input.text('9'),
      reason: input.text('rows lost in the deploy'),
    });
    const request = await waitFor('the approval request', () =>
      h.slack.messagesIn(CHANNEL).find((m) => !before.has(m.ts) && approvalIdIn(m.blocks) !== undefined),
    );
    const asked = { id: approvalIdIn(request.blocks)!, channel: CHANNEL, ts: request.ts };
    await clickOn(h, 'UADMIN2', 'approval_approve', asked);
    await updatedTo(h, asked, /Approved/);

    const reboot = await openForm(h, 'reboot 44', 'UOPER');
    await submit(h, 'vs_power', 'UOPER', reboot.private_metadata, {
      power_action: input.select('reboot'),
      confirm: input.text('44'),
      reason: input.text('hung'),
    });
    await postedIn(h, CHANNEL, 'Reboot server');

    await answerTo(h, 'freeze storage migration', { user: 'UADMIN' });
    await answerTo(h, 'whoami', { user: 'UOPER' });
    await answerTo(h, 'disk add 42', { user: 'UOPER' });
    await answerTo(h, 'unfreeze', { user: 'UADMIN' });
    await answerTo(h, 'audit 20', { user: 'UADMIN' });
    await h.event(appHomeOpened({ user: 'UADMIN' }));
    await waitFor('the Home tab', () => h.slack.callsTo('views.publish')[0]);
    await waitFor('the audit channel', () => h.slack.messagesIn('CAUDIT').length >= 5 || undefined);

    const shown = surfaces(h);
    const problems: string[] = [];
    let tokens = 0;
    for (const { where, shown: what } of shown) {
      const texts = shownTexts(what);
      const formats = new Set(texts.flatMap((t) => [...t.matchAll(DATE_TOKEN)].map((m) => m[1])));
      tokens += texts.reduce((n, t) => n + [...t.matchAll(DATE_TOKEN)].length, 0);
      if (formats.size > 1) problems.push(`${where}: ${formats.size} formats of date tokens: ${[...formats].join(' / ')}`);
      for (const text of texts) {
        const without = text.replace(DATE_TOKEN, '');
        for (const clock of CLOCKS) {
          const found = clock.exec(without);
          if (found) problems.push(`${where}: a clock as text, "${found[0]}", in "${without.slice(Math.max(0, found.index - 60), found.index + 40)}"`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Not vacuous: the tour showed times on many surfaces, and every kind of surface was read.
    expect(tokens).toBeGreaterThanOrEqual(20);
    expect([...new Set(shown.map((s) => s.where))]).toEqual(
      expect.arrayContaining(['chat.postMessage', 'chat.update', 'views.open', 'views.publish', 'response_url']),
    );
  });
});
