import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { request } from 'undici';
import { messageLimitProblems, viewLimitProblems } from '../../src/slack/blocks/limits';
import { createLogger } from '../../src/log';
import { deliver } from '../../src/slack/reply';
import { responder } from '../../src/slack/response-url';
import type { Undelivered } from '../../src/slack/send';
import { useHarness, useHarnessBehindFaults } from '../helpers/app-harness';
import { forward, reply } from '../helpers/cloud-fault-server';
import { answerTo, visibleText } from '../helpers/drive';
import { CHANNEL } from '../helpers/payloads';
import { waitFor } from '../helpers/wait';

// Every message the bot sends fits Block Kit's limits, or is not sent (docs/product.md, Long lists; Security):
// a list too long says how many it leaves out, and an answer Slack would not take is a failure, told to the person
// where it can be, never "succeeded". Through the Slack stand-in, which refuses what Slack refuses.

type LogLine = { msg?: string; user?: string; outcome?: string; undelivered?: string; level?: number | string };
const linesOf = (logs: string[]): LogLine[] => logs.map((l) => JSON.parse(l) as LogLine);

describe('/vs disks of a server with 2,000 disks', () => {
  const { h, fault } = useHarnessBehindFaults({ beforeEach: (h) => void (h.logs.length = 0) });
  const DISKS = 2000;

  /** The cloud answers VS 42's disks with 2,000 of them, made from the sandbox's first; the rest is the sandbox. */
  function twoThousandDisks(): void {
    fault.handle(async (req, res) => {
      if (!/^\/virtual_machines\/42\/disks\.json/.test(req.url)) return forward(h.sandbox.url, req, res);
      const seeded = (await (await request(`${h.sandbox.url}${req.url}`, { headers: { authorization: String(req.headers.authorization) } })).body.json()) as {
        disk: Record<string, unknown>;
      }[];
      const first = seeded[0]!.disk;
      const disks = Array.from({ length: DISKS }, (_, i) => ({
        disk: { ...first, id: 5000 + i, primary: i === 0, label: `data volume ${i} of the archive cluster`, disk_vm_number: i + 1 },
      }));
      reply(res, 200, JSON.stringify(disks));
    });
  }

  test('the answer fits a Slack message: the first disks, how many are left out, and where to read them all', async () => {
    twoThousandDisks();
    const m = await answerTo(h, 'disks 42', { user: 'UVIEWER', channel: CHANNEL });
    expect(h.slack.state.refusals).toEqual([]);
    expect(m.blocks!.length).toBeLessThanOrEqual(50);
    const text = visibleText(m);
    expect(text).toContain('#5000');
    expect(text).toMatch(
      /1,900 more disks are not shown here \(the first 100 are\): see every disk of VS 42 in <http:[^|]+\/virtual_machines\/42\|the control panel>/,
    );
    expect(text).toMatch(/2,000 disks, \d+ GB in all/);
    const done = await waitFor('the command line', () => linesOf(h.logs).find((l) => l.msg === 'command' && l.user === 'UVIEWER'), { within: 3000 });
    expect(done).toMatchObject({ outcome: 'succeeded' });
    expect(done.undelivered).toBeUndefined();
  });

  test('the server at a glance lists ten disks and counts the rest', async () => {
    twoThousandDisks();
    const m = await answerTo(h, 'server 42', { user: 'UVIEWER', channel: CHANNEL });
    expect(h.slack.state.refusals).toEqual([]);
    expect(visibleText(m)).toContain('and 1,990 more: `/vs disks 42`');
  });
});

describe('an answer Slack refuses', () => {
  const h = useHarness({ beforeEach: (h) => void (h.logs.length = 0) });
  const origin = () => h.eventsUrl.replace('/slack/events', '');

  test('is a failure in the log line and the metrics, and the person is told in its place, never "succeeded"', async () => {
    // Slack refuses the first post to the response_url (400 invalid_blocks), and takes the next.
    h.slack.fault('response_url', { times: 1 });
    const told = await answerTo(h, 'firewall 42', { user: 'UVIEWER', channel: CHANNEL });
    expect(told.response_type).toBe('ephemeral');
    expect(told.text).toMatch(
      /^Slack would not show the answer to this \(it was too large or malformed for a Slack message\), so it is not shown; nothing was changed/,
    );
    expect(h.slack.state.refusals).toEqual([expect.objectContaining({ source: 'response_url', error: 'invalid_blocks' })]);
    const done = await waitFor('the command line', () => linesOf(h.logs).find((l) => l.msg === 'command' && l.user === 'UVIEWER'), { within: 3000 });
    expect(done).toMatchObject({ outcome: 'failed', undelivered: 'refused' });
    expect(linesOf(h.logs).some((l) => l.msg === 'could not deliver the answer to Slack: Slack refused it' && l.undelivered === 'refused')).toBe(true);
    const metrics = await (await request(`${origin()}/metrics`)).body.text();
    expect(metrics).toContain('vs_chatops_commands_total{command="firewall",outcome="failed"} 1');
    expect(metrics).not.toContain('vs_chatops_commands_total{command="firewall",outcome="succeeded"}');
    expect(metrics).toContain('vs_chatops_answers_undelivered_total{kind="command",reason="refused"} 1');
  });

  test("over Block Kit's limits, it is not sent at all: the person is told, and the request hears why", async () => {
    const responseUrl = h.slack.responseUrl();
    const heard: Undelivered[] = [];
    const logs: string[] = [];
    const to = {
      respond: responder(responseUrl, h.config.slack.apiUrl, () => false),
      log: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
      undelivered: (why: Undelivered) => heard.push(why),
    };
    const blocks = Array.from({ length: 51 }, (_, i) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text: `row ${i}`, verbatim: true } }));
    expect(await deliver(to, { response_type: 'in_channel', text: 'a long list', blocks })).toBe(false);
    expect(heard).toEqual(['over_limits']);
    // Nothing over the limits reached Slack: only the few words in its place.
    expect(h.slack.state.refusals).toEqual([]);
    expect(h.slack.responses.map((r) => r.body.text)).toEqual([expect.stringMatching(/^Slack would not show the answer to this/)]);
    expect(logs.join('\n')).toContain("could not deliver the answer to Slack: it is over Block Kit's limits, so it was not sent");
    expect(logs.join('\n')).toContain('blocks: 51 blocks, more than 50');
  });
});

describe("the one checker of Block Kit's limits", () => {
  const section = (text: string) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text, verbatim: true } });

  test('says what Slack would refuse, and where', () => {
    expect(messageLimitProblems({ text: 'ok', blocks: [section('fine')] })).toEqual([]);
    expect(messageLimitProblems({ text: 'x', blocks: [...Array.from({ length: 50 }, () => section('row')), section('y'.repeat(3001))] })).toEqual([
      'blocks: 51 blocks, more than 50',
      'blocks[50].text: 3001 characters, more than 3000',
    ]);
    expect(messageLimitProblems({ text: '' })).toEqual(['text: no text and no blocks']);
    expect(messageLimitProblems({ text: 't'.repeat(40_001) })).toEqual(['text: 40001 characters, more than 40000']);
    const buttons = {
      type: 'actions' as const,
      elements: Array.from({ length: 26 }, (_, i) => ({ type: 'button' as const, action_id: `b${i}`, text: { type: 'plain_text' as const, text: 'b' } })),
    };
    expect(messageLimitProblems({ text: 'x', blocks: [buttons] })).toEqual(['blocks[0].elements: 26 elements, more than 25']);
    const home = { type: 'home' as const, blocks: Array.from({ length: 101 }, () => section('row')) };
    expect(viewLimitProblems(home)).toEqual(['blocks: 101 blocks, more than 100']);
    const modal = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'A title far too long for it' }, blocks: [] };
    expect(viewLimitProblems(modal)).toEqual(['title: 27 characters, more than 24']);
  });

  test('is in front of every call that sends a message or a view: no file of src/ calls chat.* or views.* but src/slack/send.ts', () => {
    const root = join(__dirname, '..', '..', 'src');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const calls = /\.(chat\.(postMessage|update|postEphemeral|unfurl|scheduleMessage|meMessage)|views\.(open|update|push|publish))\s*\(/;
    const offenders = files(root)
      .filter((file) => relative(root, file) !== join('slack', 'send.ts'))
      .filter((file) => calls.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
    expect(readFileSync(join(root, 'slack', 'response-url.ts'), 'utf8')).toMatch(/checkedMessage\(payload/);
  });
});
