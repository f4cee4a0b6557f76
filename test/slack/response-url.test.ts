import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { KnownBlock } from '@slack/types';
import { writeMetadata } from '../../src/slack/metadata';
import { deepFreeze } from '../../src/slack/once-per-answer';
import { isSlackResponseUrl, payloadJson, postToResponseUrl, ResponseUrlNotSlackError, type ResponsePayload } from '../../src/slack/response-url';
import { useHarness } from '../helpers/app-harness';
import { CHANNEL, goodDisk, newViewId } from '../helpers/drive';
import { viewSubmission } from '../helpers/payloads';
import { useStarted } from '../helpers/use-started';
import { waitFor } from '../helpers/wait';

describe('the JSON posted to a response_url', () => {
  const blocks = (): KnownBlock[] => [
    { type: 'header', text: { type: 'plain_text', text: 'Firewall rules of VS 42 "quoted"' } },
    { type: 'section', text: { type: 'mrkdwn', text: 'ACCEPT tcp 22 from 10.0.0.0/8 \\ é' } },
  ];

  it.each<[string, ResponsePayload]>([
    ['a summary', { response_type: 'in_channel', replace_original: false, text: 'VS 42', blocks: blocks() }],
    ['an error without blocks', { response_type: 'ephemeral', text: 'no such server' }],
    ['blocks alone', { text: '', blocks: blocks() }],
  ])('reads as JSON.stringify would write it: %s, whether its blocks are frozen or not', (_name, payload) => {
    expect(JSON.parse(payloadJson(payload))).toEqual(payload);
    const frozen = { ...payload, ...(payload.blocks ? { blocks: deepFreeze(payload.blocks) } : {}) };
    expect(JSON.parse(payloadJson(frozen))).toEqual(payload);
    // Twice: the second time from the frozen blocks' JSON made the first time.
    expect(JSON.parse(payloadJson(frozen))).toEqual(payload);
  });

  it('posts the frozen blocks as they were, and blocks that are not frozen as they are now', () => {
    const live = blocks();
    const first = JSON.parse(payloadJson({ text: 'x', blocks: live })) as ResponsePayload;
    live.push({ type: 'divider' });
    const second = JSON.parse(payloadJson({ text: 'x', blocks: live })) as ResponsePayload;
    expect(second.blocks).toHaveLength(first.blocks!.length + 1);
  });
});

describe("which response_urls are Slack's", () => {
  const API = 'http://127.0.0.1:4100/api/';

  test.each([
    ["Slack's hooks", 'https://hooks.slack.com/commands/T1/1/abc', undefined],
    ["Slack's hooks, an action's", 'https://hooks.slack.com/actions/T1/1/abc', API],
    ["SLACK_API_URL's origin (a proxy, the stand-in)", 'http://127.0.0.1:4100/response/abc', API],
    ["SLACK_API_URL's origin, another path", 'http://127.0.0.1:4100/', API],
  ])('%s: yes', (_name, url, apiUrl) => {
    expect(isSlackResponseUrl(url, apiUrl)).toBe(true);
  });

  test.each([
    ['another host', 'https://example.com/commands/T1/1/abc', API],
    ["Slack's hooks over http", 'http://hooks.slack.com/commands/T1/1/abc', undefined],
    ['a host that starts like Slack’s', 'https://hooks.slack.com.example.com/commands', undefined],
    ["Slack's host as user info", 'https://hooks.slack.com@example.com/commands', undefined],
    ["Slack's host as user info with a port", 'https://hooks.slack.com:443@example.com/', undefined],
    ["Slack's hooks named in a path", 'https://example.com/https://hooks.slack.com/commands', undefined],
    ["SLACK_API_URL's host on another port", 'http://127.0.0.1:4101/response/abc', API],
    ["SLACK_API_URL's host over another scheme", 'https://127.0.0.1:4100/response/abc', API],
    ["the stand-in's origin when SLACK_API_URL is unset", 'http://127.0.0.1:4100/response/abc', undefined],
    ['leading space', ' https://hooks.slack.com/commands/T1/1/abc', undefined],
    ['not a URL', 'hooks.slack.com/commands', undefined],
  ])('%s: no', (_name, url, apiUrl) => {
    expect(isSlackResponseUrl(url, apiUrl)).toBe(false);
  });

  test('posting to one that is not is refused before anything is sent, and the error does not name it', async () => {
    const url = 'https://example.com/private/path';
    const post = postToResponseUrl(url, { text: 'x' }, undefined);
    await expect(post).rejects.toBeInstanceOf(ResponseUrlNotSlackError);
    await expect(post).rejects.not.toThrow(/example\.com|private/);
  });
});

describe('a response_url on another host, over the real bot', () => {
  /** A host that is not Slack's, on loopback: it records what is posted to it. */
  const elsewhere = useStarted(
    'a host that is not Slack',
    () =>
      new Promise<{ server: Server; origin: string; posts: string[] }>((resolve) => {
        const posts: string[] = [];
        const server = createServer((req: IncomingMessage, res) => {
          posts.push(`${req.method ?? ''} ${req.url ?? ''}`);
          req.resume();
          res.writeHead(200).end('ok');
        });
        server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, posts }));
      }),
    (started) => new Promise<void>((resolve) => started.server.close(() => resolve())),
  );
  const h = useHarness({ env: { VS_OPERATORS: 'UOPER' } });
  beforeEach(() => void elsewhere.posts.splice(0));

  const mentions = (url: string) => h.logs.filter((line) => line.includes(url) || line.includes(new URL(url).host));

  test('a signed command whose response_url names another host runs, but nothing is posted there, and no log line holds the URL', async () => {
    const url = `${elsewhere.origin}/commands/T1/1/capability-of-someone-else`;
    const res = await h.command('firewall 42', { responseUrl: url });
    expect(res.status).toBe(200);
    await h.bot.slack.settled();
    // The command ran (the cloud API was asked), and its answer went nowhere.
    expect(h.sandbox.requests.map((r) => r.path)).toContain('/virtual_machines/42/firewall_rules.json');
    expect(elsewhere.posts).toEqual([]);
    expect(h.slack.responses).toEqual([]);
    expect(h.logs.join('\n')).toContain("dropped the request's response_url: it is not Slack's");
    expect(mentions(url)).toEqual([]);
  });

  test.each([
    ['in its metadata (from the command that opened it)', (url: string) => ({ metadata: { responseUrl: url }, responseUrls: undefined })],
    [
      "in Slack's response_urls",
      (url: string) => ({ metadata: {}, responseUrls: [{ block_id: 'b', action_id: 'a', channel_id: CHANNEL, response_url: url }] }),
    ],
  ])('a form whose response_url names another host, %s, posts its result to the channel instead', async (_where, where) => {
    const url = `${elsewhere.origin}/commands/T1/2/capability-of-someone-else`;
    const { metadata, responseUrls } = where(url);
    const res = await h.interact(
      viewSubmission({
        callbackId: 'disk_add',
        viewId: newViewId(),
        user: 'UOPER',
        privateMetadata: writeMetadata({ channelId: CHANNEL, vsId: 42, ...metadata }),
        fields: goodDisk,
        ...(responseUrls ? { responseUrls } : {}),
      }),
    );
    expect((res.json() as { response_action?: string }).response_action).toBe('update');
    await h.bot.slack.settled();
    const posted = await waitFor('the result posted to the channel', () => h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === CHANNEL));
    expect(JSON.stringify(posted.args)).toMatch(/disk/i);
    expect(elsewhere.posts).toEqual([]);
    expect(mentions(url)).toEqual([]);
  });

  test("where Slack refuses the channel post, the fallback to a form's response_url still never reaches another host", async () => {
    // The post to the channel is refused (a private channel without the bot): only the response_url is left to try.
    h.slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'not_in_channel' } }));
    const url = `${elsewhere.origin}/commands/T1/2/capability-of-someone-else`;
    const res = await h.interact(
      viewSubmission({
        callbackId: 'disk_add',
        viewId: newViewId(),
        user: 'UOPER',
        privateMetadata: writeMetadata({ channelId: CHANNEL, vsId: 42, responseUrl: url }),
        fields: goodDisk,
      }),
    );
    expect((res.json() as { response_action?: string }).response_action).toBe('update');
    await h.bot.slack.settled();
    await waitFor('the refused channel post', () => h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === CHANNEL));
    await waitFor('the fallback dropped', () => h.logs.find((line) => line.includes("it is not Slack's")));
    expect(elsewhere.posts).toEqual([]);
    expect(h.slack.responses).toEqual([]);
    expect(mentions(url)).toEqual([]);
  });
});
