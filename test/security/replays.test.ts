import { startHarness, SIGNING_SECRET, useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL } from '../helpers/drive';
import { appHomeOpened, FORM, globalShortcut, interactiveBody, JSON_CONTENT_TYPE, slashCommandBody } from '../helpers/payloads';
import { createTestDatabase } from '../helpers/postgres';
import { postToSlackEndpoint } from '../helpers/signed-requests';
import { useStarted } from '../helpers/use-started';
import { waitFor } from '../helpers/wait';

// A signed request captured on its way and sent again as it is, while its
// timestamp is still accepted (5 minutes), runs once: the second delivery is
// acked and dropped, on the instance that ran the first or on another
// (docs/production.md, "Who may reach the bot"). What the attacker sends is
// exactly what Slack sent: the same body, timestamp and signature.

const ENV = { VS_ADMINS: 'UADMIN' };
const REPLAYED = 'a signed request was delivered again (a replay): acknowledged and not run';

/** A captured `/vs <text>`: its body and the timestamp it was signed at, sent as often as the test says. */
function captured(h: Harness, text: string) {
  const responseUrl = h.slack.responseUrl();
  const body = slashCommandBody({ text, user: 'UADMIN', channel: CHANNEL, responseUrl });
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    responseUrl,
    sendTo: (eventsUrl: string, headers: Record<string, string> = {}) => postToSlackEndpoint(eventsUrl, SIGNING_SECRET, body, FORM, { timestamp, headers }),
  };
}

const replaysLogged = (h: Harness) => h.logs.filter((l) => l.includes(REPLAYED)).length;

/** The stale unfreeze of the review: lifted once, frozen again, then the captured unfreeze sent again to `replayTo`. */
async function staleUnfreeze(h: Harness, replayTo: string): Promise<void> {
  await answerTo(h, 'freeze first', { user: 'UADMIN', channel: CHANNEL });
  const unfreeze = captured(h, 'unfreeze');
  expect((await unfreeze.sendTo(h.eventsUrl)).status).toBe(200);
  await waitFor('the first freeze to be lifted', async () => ((await h.store.freeze.current()) === null ? true : undefined));
  await answerTo(h, 'freeze second', { user: 'UADMIN', channel: CHANNEL });
  const lifts = async () => (await h.store.audit.latest(50)).filter((r) => r.action === 'unfreeze' && r.outcome === 'done').length;
  const lifted = await lifts();
  const before = replaysLogged(h);
  const replay = await unfreeze.sendTo(replayTo);
  expect([replay.status, replay.body]).toEqual([200, '']);
  await waitFor('the replay to be dropped', () => (replaysLogged(h) > before ? true : undefined));
  expect(await h.store.freeze.current()).toMatchObject({ by: 'UADMIN', reason: 'second' });
  expect(await lifts()).toBe(lifted);
  expect(h.slack.responses.filter((r) => r.id === unfreeze.responseUrl.split('/').pop())).toHaveLength(1);
}

describe('one instance (SQLite)', () => {
  const h = useHarness({ env: ENV });

  test('a stale /vs unfreeze sent again does not lift a newer freeze: acked, dropped, logged', async () => {
    await staleUnfreeze(h, h.eventsUrl);
  });

  test('a replay that claims to be Slack’s retry (the header is not signed) is dropped all the same', async () => {
    const command = captured(h, 'firewall 42');
    expect((await command.sendTo(h.eventsUrl)).status).toBe(200);
    const before = replaysLogged(h);
    expect((await command.sendTo(h.eventsUrl, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' })).status).toBe(200);
    await waitFor('the replay to be dropped', () => (replaysLogged(h) > before ? true : undefined));
    await waitFor('the first delivery’s answer', () => h.slack.responses.find((r) => r.id === command.responseUrl.split('/').pop()));
    expect(h.sandbox.requests.filter((r) => r.path.includes('/virtual_machines/42/firewall_rules'))).toHaveLength(1);
  });

  test('a replayed shortcut opens no second form; the same body signed anew (another timestamp) is another request, and runs', async () => {
    const body = interactiveBody(globalShortcut({ user: 'UADMIN', callbackId: 'disk_add_shortcut' }));
    const timestamp = Math.floor(Date.now() / 1000);
    const send = (at: number) => postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, body, FORM, { timestamp: at });
    expect((await send(timestamp)).status).toBe(200);
    await waitFor('the form', () => (h.slack.callsTo('views.open').length === 1 ? true : undefined));
    const before = replaysLogged(h);
    expect((await send(timestamp)).status).toBe(200);
    await waitFor('the replay to be dropped', () => (replaysLogged(h) > before ? true : undefined));
    expect((await send(timestamp - 1)).status).toBe(200);
    await waitFor('the second form', () => (h.slack.callsTo('views.open').length === 2 ? true : undefined));
    expect(replaysLogged(h)).toBe(before + 1);
  });

  test('an event sent again is acked and dropped (by its signature, before its event id is looked at)', async () => {
    const body = JSON.stringify(appHomeOpened({ user: 'UADMIN' }));
    const timestamp = Math.floor(Date.now() / 1000);
    const send = () => postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, body, JSON_CONTENT_TYPE, { timestamp });
    expect((await send()).status).toBe(200);
    await waitFor('the Home tab', () => (h.slack.callsTo('views.publish').length === 1 ? true : undefined));
    const before = replaysLogged(h);
    expect((await send()).status).toBe(200);
    await waitFor('the replay to be dropped', () => (replaysLogged(h) > before ? true : undefined));
    expect(h.slack.callsTo('views.publish')).toHaveLength(1);
  });
});

describe('two instances on one PostgreSQL', () => {
  const both = useStarted(
    'two instances on one PostgreSQL',
    async () => {
      const database = await createTestDatabase();
      const h = await startHarness({ env: { ...ENV, DATABASE_URL: database.url } });
      const other = await h.another();
      return { database, h, other };
    },
    async ({ database, h }) => {
      await h.close();
      await database.drop();
    },
  );

  test('a stale /vs unfreeze sent to another instance does not lift a newer freeze', async () => {
    await staleUnfreeze(both.h, both.other.eventsUrl);
  });

  test('a replay on the instance that ran the request is dropped too', async () => {
    await staleUnfreeze(both.h, both.h.eventsUrl);
  });
});
