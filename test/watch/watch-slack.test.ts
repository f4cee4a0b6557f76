import { useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, visibleText, type Message } from '../helpers/drive';
import { buttonClick } from '../helpers/payloads';
import { waitFor } from '../helpers/wait';

// Watches (docs/product.md, Watches: the bot speaks first) through the real Bolt app over signed requests, the Slack
// stand-in and the sandbox: a channel watches web-1 (VS 42), someone acts on it in the control panel (the sandbox's
// control endpoint), and the watch's poll (a round, run here as its periodic job would, on the bot's clock) tells the
// channel once. The poll's interval is an hour: only the rounds the test runs happen after start-up's.

const MIN = 60_000;
let clock = Date.parse('2026-12-06T09:00:00Z');

/** Someone in the control panel acts on a server, through the sandbox's endpoint (with the API's credentials). */
async function panel(h: Harness, serverId: number, act: string, body?: object): Promise<{ transaction?: { id: number } }> {
  const res = await fetch(`${h.sandbox.url}/control/virtual_machines/${serverId}/${act}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${h.sandbox.accountId}:${h.sandbox.apiKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body ?? {}),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { transaction?: { id: number } };
}

/** The bot's own posts in a channel (notifications), not answers to commands. */
const posts = (h: Harness, channel: string) => h.slack.messagesIn(channel).filter((m) => m.kind === 'bot' && !m.ephemeralTo && !/^\[?sandbox/.test(m.text));
const told = (h: Harness, channel: string) => posts(h, channel).map((m) => m.text);

interface Button {
  action_id: string;
  value: string;
}
const buttonsOf = (blocks: unknown[] | undefined): Button[] =>
  (blocks ?? []).flatMap((b) => {
    const block = b as { elements?: Button[]; accessory?: Button };
    return [...(block.elements ?? []), ...(block.accessory ? [block.accessory] : [])].flatMap(({ action_id, value }) =>
      action_id ? [{ action_id, value }] : [],
    );
  });

/** Clicks a button in `channel` as `user` and returns the answer only they read. */
async function click(h: Harness, user: string, channel: string, actionId: string, value: string): Promise<Message> {
  const responseUrl = h.slack.responseUrl();
  const res = await h.interact(buttonClick({ user, channel, actionId, value, responseUrl }));
  expect(res.status).toBe(200);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  return (await waitFor(`the answer to ${actionId}`, () => h.slack.responses.find((r) => r.id === id), { within: 5000 })).body;
}

describe('watches in Slack', () => {
  const h = useHarness({
    env: { VS_OPERATORS: 'UOPER', VS_ADMINS: 'UADMIN', VS_VIEWERS: 'UVIEWER', VS_WATCH_INTERVAL_S: '3600', VS_WATCH_LOCK_MIN: '10' },
    now: () => clock,
  });
  const round = async () => {
    clock += MIN;
    expect(await h.bot.watchPoll.round()).not.toBe('not_leading');
  };

  test('/vs watch web-1 names its starting state; a power-off in the control panel is told once; nothing while unchanged; a snooze silences', async () => {
    await round();
    const channel = 'CWATCH1';
    const answer = await answerTo(h, 'watch web-1', { user: 'UOPER', channel });
    expect(answer.response_type).toBe('in_channel');
    expect(answer.text).toContain('This channel now watches web-1 (VS 42): power, locks and failures. Starting from: it is on, unlocked now.');

    await round();
    expect(told(h, channel)).toEqual([]);

    await panel(h, 42, 'power_off');
    await round();
    expect(told(h, channel)).toEqual(['web-1 (VS 42) is off (it was on)']);
    const [notice] = posts(h, channel);
    expect(buttonsOf(notice?.blocks)).toEqual([
      { action_id: 'watch_snooze_1h', value: '42' },
      { action_id: 'watch_snooze_4h', value: '42' },
      { action_id: 'watch_unwatch', value: '42' },
    ]);

    // Unchanged: never told again.
    await round();
    await round();
    expect(told(h, channel)).toHaveLength(1);

    const snoozed = await click(h, 'UOPER', channel, 'watch_snooze_1h', '42');
    expect(snoozed.response_type).toBe('ephemeral');
    expect(snoozed.text).toContain('Snoozed news of web-1 (VS 42) until');
    await panel(h, 42, 'power_on');
    await round();
    expect(told(h, channel)).toHaveLength(1);

    const audit = await h.store.audit.latest(5);
    expect(audit.map((r) => [r.action, r.target, r.userId, r.channelId])).toEqual(
      expect.arrayContaining([
        ['watch', 'vs:42', 'UOPER', channel],
        ['watch_snooze', 'vs:42', 'UOPER', channel],
      ]),
    );
  });

  test('a lock past VS_WATCH_LOCK_MIN is told with since when, and its end; a failed transaction is told in words, whoever ran it', async () => {
    await round();
    const channel = 'CWATCH2';
    await answerTo(h, 'watch 44', { user: 'UOPER', channel });
    await round();
    const { transaction } = await panel(h, 44, 'lock', { minutes: 30 });
    await round();
    expect(told(h, channel)).toEqual([]);
    clock += 10 * MIN;
    await round();
    expect(told(h, channel)).toEqual([expect.stringMatching(/^bastion \(VS 44\) has been locked since /)]);
    expect(h.sandbox.cancelTransaction(transaction!.id)).toBe(true);
    await round();
    expect(told(h, channel)[1]).toBe('bastion (VS 44) is unlocked again');

    const failed = await panel(h, 44, 'fail');
    await round();
    expect(told(h, channel)[2]).toBe(`bastion (VS 44): rebuilding the network failed in the cloud (transaction ${failed.transaction!.id})`);
    await round();
    expect(told(h, channel)).toHaveLength(3);
  });

  test('roles: a viewer may list but not watch (told who may); watching every server needs an admin', async () => {
    const channel = 'CWATCH3';
    const denied = await answerTo(h, 'watch 42', { user: 'UVIEWER', channel });
    expect(denied.response_type).toBe('ephemeral');
    expect(visibleText(denied)).toContain('Watching a server needs the operator role; you are a viewer.');
    expect(visibleText(denied)).toContain('<@UOPER>');
    const all = await answerTo(h, 'watch all', { user: 'UOPER', channel });
    expect(visibleText(all)).toContain('Watching every server needs the admin role; you are an operator.');
    expect((await answerTo(h, 'watches', { user: 'UVIEWER', channel })).text).toContain('This channel watches no server.');
    expect(await h.store.watches.ofChannel(channel)).toEqual([]);
  });

  test('/vs watches lists each watch with an Unwatch button that ends it (recorded); /vs watch all and quiet hours', async () => {
    const channel = 'CWATCH4';
    await answerTo(h, 'watch 42 power', { user: 'UOPER', channel });
    const all = await answerTo(h, 'watch all', { user: 'UADMIN', channel });
    expect(all.text).toContain('This channel now watches every server of the account: failures.');
    const quiet = await answerTo(h, 'watch quiet 22:00-07:00', { user: 'UOPER', channel });
    expect(quiet.text).toContain('Quiet hours for this channel’s watches: 22:00–07:00 (UTC)');
    const list = await answerTo(h, 'watches', { user: 'UVIEWER', channel });
    expect(list.text).toBe('This channel watches: every server, web-1 (VS 42)');
    expect(visibleText(list)).toContain('Quiet hours: 22:00–07:00 (UTC).');
    expect(buttonsOf(list.blocks)).toEqual([
      { action_id: 'watch_unwatch', value: '0' },
      { action_id: 'watch_unwatch', value: '42' },
    ]);
    // An operator may not end the watch of every server; they may end web-1's.
    expect(visibleText(await click(h, 'UOPER', channel, 'watch_unwatch', '0'))).toContain('Unwatching every server needs the admin role');
    expect((await click(h, 'UOPER', channel, 'watch_unwatch', '42')).text).toContain('This channel no longer watches web-1 (VS 42).');
    expect((await h.store.watches.ofChannel(channel)).map((w) => w.serverId)).toEqual([0]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'unwatch', target: 'vs:42', userId: 'UOPER', outcome: 'done' });
    expect((await answerTo(h, 'unwatch all', { user: 'UADMIN', channel })).text).toContain('This channel no longer watches every server.');
    expect(await h.store.watches.ofChannel(channel)).toEqual([]);
  });

  test('bad input gets a clear message and changes nothing', async () => {
    const channel = 'CWATCH5';
    expect((await answerTo(h, 'watch 42 reboots', { user: 'UOPER', channel })).text).toMatch(/tells power, lock, failures or all/);
    expect((await answerTo(h, 'watch quiet 25:00-07:00', { user: 'UOPER', channel })).text).toMatch(/HH:MM on a 24-hour clock/);
    expect((await answerTo(h, 'watch 999', { user: 'UOPER', channel })).text).toContain('There is no server 999');
    expect((await answerTo(h, 'unwatch 42', { user: 'UOPER', channel })).text).toContain('This channel does not watch web-1 (VS 42)');
    expect(await h.store.watches.ofChannel(channel)).toEqual([]);
  });
});

describe('a watch starts from the state its answer names', () => {
  const h = useHarness({
    env: { VS_OPERATORS: 'UOPER', VS_VIEWERS: 'UVIEWER', VS_WATCH_INTERVAL_S: '3600' },
    now: () => clock,
  });
  const round = async () => {
    clock += MIN;
    expect(await h.bot.watchPoll.round()).not.toBe('not_leading');
  };

  test('a change right after /vs watch, before the poll has read anything, is told; the servers nobody watches are not', async () => {
    // Nothing watched so far: the poll has read nothing (start-up's round found no watch).
    expect(await h.store.watches.servers()).toEqual([]);
    const channel = 'CWATCHSTART';
    expect((await answerTo(h, 'watch web-1', { user: 'UOPER', channel })).text).toContain('Starting from: it is on, unlocked now.');
    await panel(h, 42, 'power_off');
    await panel(h, 44, 'power_off');
    await round();
    expect(told(h, channel)).toEqual(['web-1 (VS 42) is off (it was on)']);
    await round();
    expect(told(h, channel)).toHaveLength(1);

    // A server the poll has seen starts from the poll's own last read, not from the command's: another channel's
    // watch, made after web-1 came on again behind the poll's back, leaves what the poll saw (off) as it was.
    const seen = (await h.store.watches.servers()).find((s) => s.serverId === 42);
    expect(seen).toMatchObject({ power: 'off' });
    await panel(h, 42, 'power_on');
    expect((await answerTo(h, 'watch web-1', { user: 'UOPER', channel: 'CWATCHSTART2' })).text).toContain('Starting from: it is on');
    expect((await h.store.watches.servers()).find((s) => s.serverId === 42)).toEqual(seen);
  });
});
