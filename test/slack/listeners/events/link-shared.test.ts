import Database from 'better-sqlite3';
import { useHarness, useHarnessBehindFaults, type Harness } from '../../../helpers/app-harness';
import { body, forward } from '../../../helpers/cloud-fault-server';
import { answerTo } from '../../../helpers/drive';
import { linkShared } from '../../../helpers/payloads';

// Control-panel links over the real Bolt app: Slack's signed link_shared in,
// chat.unfurl out, with a card of each linked server. Two bots: one reads the
// sandbox in XML with VS_VIEWERS set (who may read, which links count), one
// reads it in JSON through a fault server (cloud errors, hostile API text,
// an org-wide install, and 50 unfurls of one link at once). The panel is, by
// default, the scheme and host of VS_API_URL: the sandbox's, or the fault
// server's.

type Unfurls = Record<string, { blocks: unknown[] }>;
type Settled = { outcome: string; unfurls: { args: Record<string, unknown> }[]; posts: number };

let shared = 0;

/** Sends a signed link_shared as Slack does and waits for the bot to be done with it: its logged outcome, its chat.unfurl calls and other posts. */
async function share(h: Harness, o: Omit<Parameters<typeof linkShared>[0], 'channel'> & { channel?: string }): Promise<Settled> {
  const channel = o.channel ?? `CSHARED${++shared}`;
  const res = await h.event(linkShared({ ...o, channel }));
  expect(res.status).toBe(200);
  const outcome = await loggedOutcome(h, (line) => line.channel === channel && line.user === o.user);
  const unfurls = h.slack.callsTo('chat.unfurl').filter((c) => c.args.channel === channel || (o.unfurlId !== undefined && c.args.unfurl_id === o.unfurlId));
  const posts = h.slack.calls.filter((c) => c.method.startsWith('chat.') && c.method !== 'chat.unfurl').length + h.slack.responses.length;
  return { outcome, unfurls, posts };
}

/** The lines a link_shared request ended with (one each, written once its listener is done), read as they come. */
const ended = new Map<Harness, { read: number; lines: Record<string, unknown>[] }>();
function endedEvents(h: Harness): Record<string, unknown>[] {
  let seen = ended.get(h);
  if (!seen || seen.read > h.logs.length) ended.set(h, (seen = { read: 0, lines: [] }));
  for (; seen.read < h.logs.length; seen.read++) {
    const line = JSON.parse(h.logs[seen.read]!) as Record<string, unknown>;
    if (line.msg === 'event' && line.event === 'link_shared') seen.lines.push(line);
  }
  return seen.lines;
}

/** The outcome each request that `matches` ended with, once `count` of them have; fails after 5 s. */
async function loggedOutcomes(h: Harness, matches: (line: Record<string, unknown>) => boolean, count: number): Promise<string[]> {
  for (let waited = 0; waited < 5000; waited += 10) {
    const lines = endedEvents(h).filter(matches);
    if (lines.length >= count) return lines.map((line) => String(line.outcome));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the bot did not finish ${count} events within 5 s`);
}

const loggedOutcome = async (h: Harness, matches: (line: Record<string, unknown>) => boolean) => (await loggedOutcomes(h, matches, 1))[0]!;

/**
 * Resolves once the bot has claimed each of these events as a first delivery (src/ops/deliveries.ts), read from its
 * SQLite file. A listener waits for its claim after the ack; from there to joining the reads in flight it waits on
 * nothing but promises already settled, so by the next turn of the event loop every one of them has joined.
 */
async function untilClaimed(h: Harness, eventIds: string[]): Promise<void> {
  const db = new Database(h.dbPath, { readonly: true, fileMustExist: true });
  try {
    const keys = eventIds.map((id) => `delivery:event:${id}`);
    const count = db.prepare<string[], { n: number }>(`SELECT count(*) AS n FROM submissions WHERE key IN (${keys.map(() => '?').join(', ')})`);
    for (let waited = 0; count.get(...keys)!.n < keys.length; waited += 5) {
      if (waited > 5000) throw new Error('the bot did not claim every delivery within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    db.close();
  }
}

const cardsOf = (s: Settled): Unfurls => (s.unfurls[0]?.args.unfurls ?? {}) as Unfurls;
const textOf = (card: { blocks: unknown[] } | undefined): string => JSON.stringify(card?.blocks ?? null);
const cloudPaths = (h: Harness) => h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort();

describe('link_shared, VS_VIEWERS set, the cloud API in XML', () => {
  const h = useHarness({ env: { VS_VIEWERS: 'UVIEWER,WORGVIEWER,SSRE', VS_API_FORMAT: 'xml' }, beforeEach: (h) => h.slack.setGroup('SSRE', ['UGROUPIE']) });
  let panel: string;
  beforeAll(() => {
    panel = h.sandbox.url;
  });

  test('a viewer’s link to a server unfurls into its card: the server, firewall and autoscaling in a line each, the commands that show more', async () => {
    const url = `${panel}/virtual_machines/42`;
    const s = await share(h, { user: 'UVIEWER', urls: [url] });
    expect(s.outcome).toBe('succeeded');
    expect(s.unfurls).toHaveLength(1);
    expect(s.unfurls[0]!.args).toMatchObject({ channel: expect.stringMatching(/^CSHARED/), ts: expect.any(String) });
    const card = textOf(cardsOf(s)[url]);
    expect(card).toContain('*VS 42* · web-1 · on, not locked\\n*Firewall:*');
    expect(card).toContain('*Firewall:* 8 rules on 1 network interface: 6 ACCEPT, 2 DROP');
    expect(card).toContain('*Autoscaling:* 3 of 6 rules configured: Memory up, Memory down, CPU up');
    expect(card).toContain('`/vs server 42`');
    expect(card).toContain('`/vs autoscaling 42`');
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/42.xml', 'GET /virtual_machines/42/auto_scaling.xml', 'GET /virtual_machines/42/firewall_rules.xml']);
    expect(s.posts).toBe(0);
  });

  test('its lines say what the slash commands say where they overlap', async () => {
    const s = await share(h, { user: 'UVIEWER', urls: [`${panel}/virtual_machines/42`] });
    const card = textOf(cardsOf(s)[`${panel}/virtual_machines/42`]);
    const firewall = JSON.stringify(await answerTo(h, 'firewall 42'));
    const autoscaling = JSON.stringify(await answerTo(h, 'autoscaling 42'));
    expect(firewall).toContain('8 rules on 1 network interface');
    expect(firewall).toContain('6 ACCEPT, 2 DROP');
    expect(autoscaling).toContain('3 of 6 rules configured');
    for (const words of ['8 rules on 1 network interface', '6 ACCEPT, 2 DROP', '3 of 6 rules configured']) expect(card).toContain(words);
  });

  test('a link with a trailing path unfurls the same server, keyed by the link as posted', async () => {
    const url = `${panel}/virtual_machines/44/firewall_rules`;
    const s = await share(h, { user: 'UVIEWER', urls: [url] });
    expect(Object.keys(cardsOf(s))).toEqual([url]);
    expect(textOf(cardsOf(s)[url])).toContain('*VS 44*');
  });

  test('a member of a viewer group may read, and so may an org user (W…) named in VS_VIEWERS', async () => {
    for (const user of ['UGROUPIE', 'WORGVIEWER']) {
      const s = await share(h, { user, urls: [`${panel}/virtual_machines/42`] });
      expect(s.outcome).toBe('succeeded');
      expect(s.unfurls).toHaveLength(1);
    }
  });

  test('someone who may not read gets nothing unfurled and nothing posted, and the cloud API is not asked', async () => {
    const s = await share(h, { user: 'UNOBODY', urls: [`${panel}/virtual_machines/42`] });
    expect(s.outcome).toBe('denied');
    expect(s.unfurls).toEqual([]);
    expect(s.posts).toBe(0);
    expect(h.sandbox.requests).toEqual([]);
  });

  test('a link to an unknown server unfurls into nothing, and nothing is posted', async () => {
    const s = await share(h, { user: 'UVIEWER', urls: [`${panel}/virtual_machines/999`] });
    expect(s.outcome).toBe('not_found');
    expect(s.unfurls).toEqual([]);
    expect(s.posts).toBe(0);
  });

  test('links outside the panel are left alone: another host, port or scheme, another page, an id /vs would not read', async () => {
    const other = new URL(panel);
    const elsewhere = [
      `http://localhost:${other.port}/virtual_machines/42`,
      `http://127.0.0.1:${Number(other.port) + 1}/virtual_machines/42`,
      `https://127.0.0.1:${other.port}/virtual_machines/42`,
      `${panel}/templates/42`,
      `${panel}/virtual_machines`,
      `${panel}/virtual_machines/0`,
      `${panel}/virtual_machines/abc`,
      `${panel}/virtual_machines/42.json`,
      `${panel}/virtual_machines/-42`,
      `${panel}/virtual_machines/%34%32`,
      `${panel}/x/virtual_machines/42`,
      `http://someone@127.0.0.1:${other.port}/virtual_machines/42`,
    ];
    const s = await share(h, { user: 'UVIEWER', urls: elsewhere });
    expect(s.outcome).toBe('invalid');
    expect(s.unfurls).toEqual([]);
    expect(h.sandbox.requests).toEqual([]);
  });

  test('several links in one message: one chat.unfurl with a card per server link, each server read once', async () => {
    const links = [
      `${panel}/virtual_machines/42`,
      `${panel}/virtual_machines/44/`,
      `${panel}/virtual_machines/42/firewall_rules?tab=all#rule-3`,
      `${panel}/virtual_machines/999`,
      'https://example.com/virtual_machines/43',
    ];
    const s = await share(h, { user: 'UVIEWER', urls: links });
    expect(s.outcome).toBe('succeeded');
    expect(s.unfurls).toHaveLength(1);
    const cards = cardsOf(s);
    expect(Object.keys(cards).sort()).toEqual([links[0], links[1], links[2]].sort());
    expect(textOf(cards[links[2]!])).toContain('*VS 42*');
    expect(textOf(cards[links[1]!])).toContain('*VS 44*');
    expect(cloudPaths(h).filter((p) => p.includes('/42/'))).toHaveLength(2);
  });
});

describe('link_shared, the cloud API in JSON behind a fault server', () => {
  // The org-wide install's workspaces are served (the bot's own is the stand-in's).
  const { h, fault } = useHarnessBehindFaults({ env: { VS_ALLOWED_TEAMS: 'T0HOME,T0OTHER' } });
  let panel: string;
  beforeAll(() => {
    panel = fault.url;
  });

  test('a viewer’s link unfurls from JSON as from XML', async () => {
    const url = `${panel}/virtual_machines/42`;
    const s = await share(h, { user: 'UVIEWER', urls: [url] });
    expect(s.outcome).toBe('succeeded');
    expect(textOf(cardsOf(s)[url])).toContain('*Firewall:* 8 rules on 1 network interface: 6 ACCEPT, 2 DROP');
    expect(cloudPaths(h)).toEqual([
      'GET /virtual_machines/42.json',
      'GET /virtual_machines/42/auto_scaling.json',
      'GET /virtual_machines/42/firewall_rules.json',
    ]);
  });

  test('a cloud error unfurls into nothing, posts nothing, and is logged', async () => {
    fault.handle(body(500, '{"errors":["boom"]}'));
    h.logs.length = 0;
    const s = await share(h, { user: 'UVIEWER', urls: [`${panel}/virtual_machines/42`] });
    expect(s.outcome).toBe('failed');
    expect(s.unfurls).toEqual([]);
    expect(s.posts).toBe(0);
    expect(h.logs.some((l) => /"level":"warn".*the link is not unfurled/.test(l))).toBe(true);
  });

  test('API text in a card cannot mention anyone or link anywhere', async () => {
    const rule = (id: number, command: string) => ({
      firewall_rule: { id, network_interface_id: 1, position: id, address: '', port: '', protocol: 'TCP', command, description: '<!channel>' },
    });
    fault.handle((req, res) => {
      if (!req.url.includes('firewall_rules')) return forward(h.sandbox.url, req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([rule(1, '<!channel>'), rule(2, '<https://evil.example|here>'), rule(3, '<@U0ADMIN>'), rule(4, 'ACCEPT')]));
    });
    const url = `${panel}/virtual_machines/42`;
    const s = await share(h, { user: 'UVIEWER', urls: [url] });
    const card = textOf(cardsOf(s)[url]);
    // Commands are shown upper-cased, as the rule list shows them; escaped, whatever their case.
    expect(card).toMatch(/&lt;!channel&gt;/i);
    expect(card).toMatch(/&lt;@U0ADMIN&gt;/);
    expect(card).not.toMatch(/<!channel>|<https:|<@U0ADMIN>/i);
    // Verbatim: Slack turns nothing in the card's text into a link or a mention of its own accord.
    expect(card).not.toMatch(/"verbatim":false/);
    expect((cardsOf(s)[url]!.blocks as { type: string; text?: { verbatim?: boolean } }[])[0]!.text!.verbatim).toBe(true);
  });

  test('a link typed in the composer unfurls by unfurl_id and source, there being no message yet', async () => {
    const s = await share(h, {
      user: 'UCOMPOSING',
      channel: 'COMPOSER',
      messageTs: 'UCOMPOSING-909b5454-75f8-4ac4-b325-1b40e230bbd8',
      unfurlId: 'UCOMPOSING-909b5454-75f8-4ac4-b325-1b40e230bbd8',
      source: 'composer',
      urls: [`${panel}/virtual_machines/42`],
    });
    expect(s.outcome).toBe('succeeded');
    expect(s.unfurls[0]!.args).toMatchObject({ unfurl_id: 'UCOMPOSING-909b5454-75f8-4ac4-b325-1b40e230bbd8', source: 'composer' });
    expect(s.unfurls[0]!.args.channel).toBeUndefined();
  });

  test('an org-wide install’s event (enterprise, W… user, a team other than the channel’s) unfurls like any other', async () => {
    const url = `${panel}/virtual_machines/42`;
    const s = await share(h, { user: 'W0ORGUSER', urls: [url], orgWide: { enterpriseId: 'E0ORG', teamId: 'T0HOME', channelTeamId: 'T0OTHER' } });
    expect(s.outcome).toBe('succeeded');
    expect(textOf(cardsOf(s)[url])).toContain('*VS 42*');
  });

  test('50 unfurls of one link at once make one cloud call per resource', async () => {
    // The API holds its answers until every listener has joined the reads in flight (see untilClaimed).
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fault.handle(async (req, res) => {
      await gate;
      await forward(h.sandbox.url, req, res);
    });
    const url = `${panel}/virtual_machines/42`;
    const users = Array.from({ length: 50 }, (_, i) => `UCROWD${i}`);
    const events = users.map((user, i) => linkShared({ user, channel: `CCROWD${i}`, urls: [url] }));
    const acks = await Promise.all(events.map((event) => h.event(event)));
    expect(acks.map((a) => a.status)).toEqual(users.map(() => 200));
    await untilClaimed(
      h,
      events.map((event) => String(event.event_id)),
    );
    release();
    const outcomes = await loggedOutcomes(h, (line) => users.includes(String(line.user)), users.length);
    expect(outcomes).toEqual(users.map(() => 'succeeded'));
    expect(fault.requests.map((r) => r.url).sort()).toEqual([
      '/virtual_machines/42.json',
      '/virtual_machines/42/auto_scaling.json',
      '/virtual_machines/42/firewall_rules.json',
    ]);
    expect(h.slack.callsTo('chat.unfurl')).toHaveLength(50);
  });
});
