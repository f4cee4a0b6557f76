import { useHarnessBehindFaults } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, openForm, STACK_TRACE, submit, visibleText, type Message } from '../helpers/drive';
import { waitFor } from '../helpers/wait';
import * as faults from '../helpers/cloud-fault-server';
import type { FaultHandler } from '../helpers/cloud-fault-server';

// The cloud API failing in every way we know of, end to end through the real
// Bolt app: the user reads the message of docs/product.md (Errors the user sees) (only they see it, no
// stack trace), the bot answers the next command normally, memory stays flat.

const TIMEOUT_MS = 800;
const SECONDS = '0.8 s';

const CLOUD_FAILED = /The cloud API failed/;
const NO_ANSWER = new RegExp(`did not answer within ${SECONDS.replace('.', '\\.')}`);

interface Case {
  name: string;
  fault: FaultHandler;
  says: RegExp;
}

const cases: Case[] = [
  { name: 'no answer at all (timeout)', fault: faults.hang, says: NO_ANSWER },
  { name: 'a slow-loris answer that trickles a byte at a time', fault: faults.trickle(50), says: NO_ANSWER },
  { name: 'the connection reset mid-body', fault: faults.resetMidBody, says: /cloud API/ },
  { name: 'the connection reset before any answer', fault: faults.resetBeforeAnswer, says: /cloud API/ },
  { name: 'truncated JSON', fault: faults.truncatedJson, says: CLOUD_FAILED },
  { name: 'garbage instead of JSON', fault: faults.garbageJson, says: CLOUD_FAILED },
  { name: 'an HTML error page with HTTP 502', fault: faults.htmlErrorPage(502), says: /The cloud API failed \(HTTP 502\)/ },
  { name: 'an HTML page with HTTP 200', fault: faults.htmlErrorPage(200), says: CLOUD_FAILED },
  {
    name: 'HTTP 500 with a JSON error',
    fault: faults.body(500, '{"errors":["database is down"]}'),
    says: /The cloud API failed \(HTTP 500\): database is down/,
  },
  { name: 'HTTP 207 Multi-Status', fault: faults.multiStatus, says: /The cloud API failed \(HTTP 207\)/ },
  { name: '429 with a Retry-After longer than worth waiting', fault: faults.rateLimited(120), says: /rate-limiting requests; try again in 120 s/ },
  { name: '429 with a short Retry-After, every time', fault: faults.rateLimited(1), says: /rate-limiting requests; try again in 1 s/ },
  { name: 'a 50 MB answer announced by Content-Length', fault: faults.huge(50 * 1024 * 1024, true), says: /too large/ },
  { name: 'a 50 MB answer sent chunked', fault: faults.huge(50 * 1024 * 1024, false), says: /too large/ },
];

function expectUserMessage(m: Message, says: RegExp): void {
  expect(m.response_type).toBe('ephemeral');
  const text = visibleText(m);
  expect(text).toMatch(says);
  expect(text).not.toMatch(STACK_TRACE);
  expect(text).not.toMatch(/<html|<!DOCTYPE|proxy\.js/i);
}

describe('cloud API faults through the real app (JSON)', () => {
  const { h, fault: cloud } = useHarnessBehindFaults({ env: { VS_API_TIMEOUT_MS: String(TIMEOUT_MS), VS_OPERATORS: 'UOPER' } });

  test.each(cases)('$name: the user is told, only they see it, and the next command works', async ({ fault, says }) => {
    cloud.handle(fault);
    // answerTo waits a bounded time: the deadline covers retries, so no fault holds the user past it.
    const m = await answerTo(h, 'firewall 42');
    expectUserMessage(m, says);

    cloud.heal();
    const next = await answerTo(h, 'firewall 42');
    expect(next.response_type).toBe('in_channel');
    expect(visibleText(next)).toContain('443');
  });

  test('the cloud API refusing connections, then coming back', async () => {
    await cloud.refuse();
    try {
      const m = await answerTo(h, 'autoscaling 42');
      expectUserMessage(m, /did not answer within 0\.8 s \(could not connect, ECONNREFUSED\)/);
    } finally {
      await cloud.accept();
    }
    const next = await answerTo(h, 'autoscaling 42');
    expect(next.response_type).toBe('in_channel');
    expect(visibleText(next)).toMatch(/CPU/);
  });

  test('a 50 MB answer, ten times over, does not grow the memory of the process by 50 MB', async () => {
    const measure = () => {
      global.gc?.();
      return process.memoryUsage();
    };
    // Warm up so that first-use allocations are not counted.
    cloud.handle(faults.huge(50 * 1024 * 1024, false));
    await answerTo(h, 'firewall 42');
    const before = measure();
    for (let i = 0; i < 10; i++) {
      cloud.handle(faults.huge(50 * 1024 * 1024, i % 2 === 0));
      expectUserMessage(await answerTo(h, `firewall ${42 + (i % 3)}`), /too large/);
    }
    const after = measure();
    expect((after.rss - before.rss) / 1024 / 1024).toBeLessThan(50);
    expect((after.heapUsed - before.heapUsed) / 1024 / 1024).toBeLessThan(50);
  });

  test('many users hitting a hung cloud API at once all get an answer, and the bot then serves normally', async () => {
    cloud.handle(faults.hang);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => answerTo(h, `firewall ${42 + (i % 5)}`, { user: `U${i}` })));
    for (const m of answers) expectUserMessage(m, NO_ANSWER);
    cloud.heal();
    const next = await answerTo(h, 'firewall 42');
    expect(next.response_type).toBe('in_channel');
  });

  test.each([
    { name: 'times out', fault: faults.hang, says: NO_ANSWER },
    { name: 'resets the connection', fault: faults.resetBeforeAnswer, says: /cloud API/ },
    { name: 'answers 500', fault: faults.body(500, '{"errors":["boom"]}'), says: /HTTP 500/ },
  ])('an add-disk whose API call $name: sent once, the modal says so, the audit says it may have been applied', async ({ fault, says }) => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    cloud.handle(fault);
    const before = cloud.requests.length;
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).toBe('update');
    const text = visibleText(ack.view);
    expect(text).toMatch(says);
    // …and the user is told to check before trying again, not to retry blindly.
    expect(text).toMatch(/may or may not have been applied\. Check (web-1 \()?VS 42/);
    expect(text).not.toMatch(/try again (shortly|in a minute)/i);
    expect(text).not.toMatch(STACK_TRACE);
    // A change is never repeated behind the user's back.
    expect(cloud.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(1);
    const record = (await h.store.audit.latest(1))[0]!;
    expect(record).toMatchObject({ action: 'disk_add', target: 'vs:42', outcome: 'failed', userId: 'UOPER' });
    expect(record.detail).toMatch(/may or may not have been applied/);

    cloud.heal();
    const again = await openForm(h, 'disk add 42', 'UOPER');
    const ok = await submit(h, 'disk_add', 'UOPER', again.private_metadata, goodDisk);
    expect(visibleText(ok.view)).toMatch(/Scheduled/);
    await waitFor('the change to be recorded as scheduled', async () => (await h.store.audit.latest(1))[0]?.outcome === 'scheduled');
  });

  test('an add-disk whose API call answers 2xx with garbage: unknown, never ✅; the modal and the channel say so, the audit records unknown', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    cloud.handle(faults.garbageJson);
    const before = cloud.requests.length;
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).toBe('update');
    const text = visibleText(ack.view);
    expect(text).toMatch(/:question: \*Unknown\*: The cloud API accepted the change \(HTTP 200\), but its answer could not be read/);
    expect(text).not.toMatch(/failed|may or may not|:white_check_mark:/);
    expect(text).not.toMatch(STACK_TRACE);
    expect(cloud.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(1);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      action: 'disk_add',
      target: 'vs:42',
      outcome: 'unknown',
      apiStatus: 200,
      userId: 'UOPER',
    });
    // The channel hears that it was applied.
    await waitFor('the channel to hear it', () =>
      h.slack.responses.some((r) => JSON.stringify(r.body).includes("unknown, the cloud API's answer could not be read")),
    );
    cloud.heal();
  });
});

describe('cloud API faults through the real app (XML on the wire)', () => {
  const { h, fault: cloud } = useHarnessBehindFaults({ env: { VS_API_TIMEOUT_MS: String(TIMEOUT_MS), VS_API_FORMAT: 'xml' } });

  test.each([
    { name: 'truncated XML', fault: faults.truncatedXml },
    { name: 'garbage XML', fault: faults.garbageXml },
    { name: 'JSON where XML was asked for', fault: faults.body(200, '[{"firewall_rule":{"id":1}}]') },
    { name: 'an HTML page with HTTP 200', fault: faults.htmlErrorPage(200) },
  ])('$name: "the cloud API failed", and the next command works', async ({ fault }) => {
    cloud.handle(fault);
    expectUserMessage(await answerTo(h, 'firewall 42', { channel: CHANNEL }), CLOUD_FAILED);
    cloud.heal();
    const next = await answerTo(h, 'firewall 42');
    expect(next.response_type).toBe('in_channel');
    expect(visibleText(next)).toContain('443');
  });
});
