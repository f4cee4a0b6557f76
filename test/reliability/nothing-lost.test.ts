import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite';
import { startHarness } from '../helpers/app-harness';
import { CHANNEL, goodDisk, newViewId, openForm, sleep, submit, visibleText } from '../helpers/drive';
import { input, viewSubmission } from '../helpers/payloads';
import { useProcessHarness } from '../helpers/process-harness';
import { waitFor } from '../helpers/wait';

// Audit records survive a crash: the real bot, as a process, makes changes;
// each change's result reaches Slack; the process is SIGKILLed (no shutdown
// hook, no flush); the store, reopened, holds every change that completed.
// And a submission delivered several times at once runs once.

describe('the real bot, SIGKILLed after changes', () => {
  const world = useProcessHarness();

  test('every change whose result reached Slack is in the audit trail after the crash, and duplicates ran once', async () => {
    const { slack } = world;
    // The built-in sandbox, in a data folder the bot has to create.
    const dbPath = join(world.dir, 'data', 'audit.sqlite');
    const bot = await world.spawn({
      VS_API_URL: 'sandbox',
      VS_DB_PATH: dbPath,
      VS_OPERATORS: 'UOPER',
      LOG_LEVEL: 'info',
      // Twelve submissions of one operator in a moment: this test is not about the per-person limit.
      VS_CHANGES_PER_USER_PER_MINUTE: '1000',
    });
    const send = (payload: unknown) => bot.interact(payload);
    const change = (i: number, viewId = `VLOST${i}`) =>
      viewSubmission({
        callbackId: 'disk_add',
        viewId,
        user: 'UOPER',
        privateMetadata: JSON.stringify({ channelId: CHANNEL, vsId: 42 + (i % 5), responseUrl: slack.responseUrl(`change${i}`) }),
        fields: { ...goodDisk, disk_size: input.number(String(10 + i)), label: input.text(`lost-${i}`) },
      });

    const count = 8;
    for (let i = 0; i < count; i++) {
      const res = await send(change(i));
      expect(res.status).toBe(200);
      expect(visibleText(res.json())).toMatch(/Scheduled/);
    }
    // The same submission delivered four times at once (Slack retries, a double click): one disk.
    const twice = change(count, 'VLOSTDUP');
    const dup = await Promise.all([0, 1, 2, 3].map(() => send(twice)));
    expect(dup.every((r) => r.status === 200)).toBe(true);
    // Every result reached the channel (chat.postMessage, to be followed there) before the kill.
    const results = () => slack.messagesIn(CHANNEL).filter((m) => m.kind === 'bot' && m.text.includes('Add disk · '));
    await waitFor(`${count + 1} results in the channel`, () => results().length >= count + 1, { within: 10_000 });
    await sleep(200);
    expect(results()).toHaveLength(count + 1);

    const ended = await bot.kill('SIGKILL');
    expect(ended.signal).toBe('SIGKILL');

    const store = openSqliteStore(dbPath);
    try {
      const records = await store.audit.latest(100);
      // Accepted by the cloud, each: scheduled, or followed since to where its transactions got.
      const accepted = (r: { outcome: string }) => ['scheduled', 'running', 'done'].includes(r.outcome);
      const done = records.filter(accepted);
      expect(done).toHaveLength(count + 1);
      expect(records.filter((r) => !accepted(r))).toEqual([]);
      const labels = done.map((r) => String(r.params.label)).sort();
      expect(labels).toEqual([...Array.from({ length: count + 1 }, (_, i) => `lost-${i}`)].sort());
      for (const result of results()) {
        const i = Number(/Label: lost-(\d+)/.exec(JSON.stringify(result.blocks))?.[1]);
        const record = done.find((r) => r.params.label === `lost-${i}`)!;
        expect(record).toMatchObject({ userId: 'UOPER', channelId: CHANNEL, action: 'disk_add', target: `vs:${42 + (i % 5)}`, apiStatus: 201 });
        expect(record.params.disk_size).toBe(10 + i);
      }
      // A redelivery after the restart is still a duplicate.
      expect(await store.claims.claim('VLOSTDUP', new Date().toISOString())).toBe(false);
    } finally {
      await store.close();
    }
  });
});

describe('concurrent submissions for one target', () => {
  test('different forms for the same server at the same moment: one change runs, the others are told it is busy', async () => {
    const h = await startHarness({ env: { VS_OPERATORS: 'UOPER,UOPER2,UOPER3' }, delayMs: 400 });
    try {
      const views = await Promise.all(['UOPER', 'UOPER2', 'UOPER3'].map((u) => openForm(h, 'disk add 44', u)));
      const acks = await Promise.all(views.map((v, i) => submit(h, 'disk_add', ['UOPER', 'UOPER2', 'UOPER3'][i]!, v.private_metadata, goodDisk, newViewId())));
      await sleep(100);
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
      const texts = acks.map((a) => visibleText(a.view));
      expect(texts.filter((t) => /Scheduled/.test(t))).toHaveLength(1);
      expect(texts.filter((t) => /in progress/.test(t))).toHaveLength(2);
      const outcomes = (await h.store.audit.latest(3)).map((r) => r.outcome).sort();
      expect(outcomes).toEqual(['refused', 'refused', 'scheduled']);
    } finally {
      await h.close();
    }
  });
});
