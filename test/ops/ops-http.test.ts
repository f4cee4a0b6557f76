import type { ReceiverEvent } from '@slack/bolt';
import { request } from 'undici';
import { createLogger } from '../../src/log';
import { deliveryClaim, deliveryKey, dropRetries, seenSignatures } from '../../src/ops/deliveries';
import { useHarness } from '../helpers/app-harness';
import { freePort } from '../helpers/spawned-bot';
import { answerTo } from '../helpers/drive';
import { appHomeOpened } from '../helpers/payloads';
import { waitFor } from '../helpers/wait';

// The operations side of the real bot over HTTP: acks timed into metrics,
// Slack's retries recognised, /readyz turning 503 before the listener closes.

describe('the bot over HTTP', () => {
  const h = useHarness({ env: { VS_SHUTDOWN_DELAY_MS: '400' } });

  const origin = () => h.eventsUrl.replace('/slack/events', '');

  test('a command is acked and counted: vs_chatops_ack_seconds, vs_chatops_commands_total by subcommand and outcome', async () => {
    await answerTo(h, 'firewall 42');
    await answerTo(h, 'firewall 999999');
    const text = await (await request(`${origin()}/metrics`)).body.text();
    expect(text).toMatch(/^vs_chatops_ack_seconds_count\{kind="command"\} [1-9]/m);
    expect(text).toContain('vs_chatops_commands_total{command="firewall",outcome="succeeded"} 1');
    expect(text).toContain('vs_chatops_commands_total{command="firewall",outcome="not_found"} 1');
    expect(text).toContain('vs_chatops_cloud_requests_total{operation="list_firewall_rules",status="200"} 1');
    expect(text).toContain('vs_chatops_cloud_requests_total{operation="list_firewall_rules",status="404"} 1');
    expect(text).toMatch(/^vs_chatops_cloud_request_seconds_count\{operation="list_firewall_rules"\} 2$/m);
  });

  test('an event Slack delivers again (X-Slack-Retry-Num) is not handled twice', async () => {
    const event = appHomeOpened({ user: 'UVIEWER' });
    expect((await h.event(event)).status).toBe(200);
    // The first delivery is noted after the fact; the retry comes seconds later in real life.
    await waitFor('the first delivery to be noted', async () => (await h.store.claims.claim(deliveryKey(event)!, new Date().toISOString())) === false, {
      within: 3000,
    });
    expect((await h.event(event, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } })).status).toBe(200);
    await waitFor('the retry to be logged as a repeat', () => h.logs.some((l) => l.includes('Slack retried a delivery that already arrived')), {
      within: 3000,
    });
  });

  test('on shutdown /readyz answers 503 while the listener still serves, then the listener closes', async () => {
    expect((await request(`${origin()}/readyz`)).statusCode).toBe(200);
    const stopping = h.bot.stop(2000);
    const during = await request(`${origin()}/readyz`);
    expect(during.statusCode).toBe(503);
    expect(await during.body.json()).toEqual({ status: 'stopping', store: 'ok' });
    await stopping;
    await expect(request(`${origin()}/readyz`)).rejects.toThrow();
  });
});

describe('/metrics on a port of its own (VS_METRICS_PORT)', () => {
  const h = useHarness({ startWith: async () => ({ env: { VS_METRICS_PORT: String(await freePort()) } }) });
  const origin = () => h.eventsUrl.replace('/slack/events', '');

  test('/metrics is served there and not on PORT; /healthz and /readyz stay on PORT, and only there', async () => {
    await answerTo(h, 'firewall 42');
    const apart = `http://127.0.0.1:${h.config.metricsPort}`;
    const metrics = await request(`${apart}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('vs_chatops_commands_total{command="firewall",outcome="succeeded"} 1');
    const onPort = await request(`${origin()}/metrics`);
    await onPort.body.dump();
    expect(onPort.statusCode).toBe(404);
    for (const path of ['/healthz', '/readyz']) {
      const here = await request(`${origin()}${path}`);
      await here.body.dump();
      const there = await request(`${apart}${path}`);
      await there.body.dump();
      expect([path, here.statusCode, there.statusCode]).toEqual([path, 200, 404]);
    }
  });
});

describe('dropRetries', () => {
  const quiet = createLogger({ level: 'error', write: () => undefined });
  const claimed = new Set<string>();
  let broken = false;
  const claims = {
    claim(key: string) {
      if (broken) return Promise.reject(new Error('store down'));
      const fresh = !claimed.has(key);
      claimed.add(key);
      return Promise.resolve(fresh);
    },
  };
  /** One delivery through the filter: `next` counts what reached Bolt, `claim` is what its listeners would find on Bolt's context. */
  async function deliver(body: Record<string, unknown>, retryNum?: number, socketMode = false, storeUp = true) {
    const seen = { next: 0, ack: 0 };
    let reached: ReceiverEvent | undefined;
    const app = {
      processEvent: (event: ReceiverEvent) => {
        reached = event;
        seen.next++;
        return Promise.resolve();
      },
    };
    dropRetries(app, claims, quiet, { socketMode, storeUp: () => storeUp });
    await app.processEvent({ body, ack: () => Promise.resolve(void seen.ack++), ...(retryNum === undefined ? {} : { retryNum }) });
    await new Promise((r) => setImmediate(r));
    return { ...seen, claim: reached ? deliveryClaim(reached.customProperties ?? {}) : undefined };
  }

  test('a retry of an event that arrived is acked and dropped; a retry of one that never arrived is handled', async () => {
    expect(await deliver({ event_id: 'Ev1' })).toMatchObject({ next: 1, ack: 0 });
    expect(await deliver({ event_id: 'Ev1' }, 1)).toEqual({ next: 0, ack: 1, claim: undefined });
    expect(await deliver({ event_id: 'Ev2' }, 1)).toEqual({ next: 1, ack: 0, claim: undefined });
    expect(await deliver({ event_id: 'Ev2' }, 2)).toEqual({ next: 0, ack: 1, claim: undefined });
  });

  test('over Socket Mode a retried command (same trigger id) is dropped; over HTTP first commands are not noted', async () => {
    expect(await deliver({ command: '/vs', trigger_id: 't1' }, undefined, true)).toMatchObject({ next: 1, ack: 0 });
    expect(await deliver({ command: '/vs', trigger_id: 't1' }, 1, true)).toMatchObject({ next: 0, ack: 1 });
    const http = await deliver({ command: '/vs', trigger_id: 't2' });
    expect(claimed.has('delivery:trigger:t2')).toBe(false);
    expect(http.claim).toBeUndefined();
  });

  test('a first delivery goes on at once (the listener acks), and its listener hears whether its id was claimed first', async () => {
    const first = await deliver({ command: '/vs', trigger_id: 't4' }, undefined, true);
    expect(first).toMatchObject({ next: 1, ack: 0 });
    await expect(first.claim).resolves.toBe(true);
    // Its retry was handled first (the retry claimed the id): the first delivery must not act.
    await deliver({ event_id: 'Ev5' }, 1);
    const late = await deliver({ event_id: 'Ev5' });
    expect(late).toMatchObject({ next: 1, ack: 0 });
    await expect(late.claim).resolves.toBe(false);
  });

  test('a workflow step is claimed by its execution id: delivered again under a new event id, it is dropped', async () => {
    const step = (eventId: string, execution: string) => ({
      type: 'event_callback',
      event_id: eventId,
      event: { type: 'function_executed', function_execution_id: execution, function: { callback_id: 'vs_firewall_summary' } },
    });
    expect(deliveryKey(step('Ev8', 'Fx1'))).toBe('delivery:event:function:Fx1');
    const first = await deliver(step('Ev8', 'Fx1'));
    await expect(first.claim).resolves.toBe(true);
    await expect((await deliver(step('Ev9', 'Fx1'))).claim).resolves.toBe(false);
    expect(await deliver(step('Ev8', 'Fx1'), 1)).toEqual({ next: 0, ack: 1, claim: undefined });
    await expect((await deliver(step('Ev10', 'Fx2'))).claim).resolves.toBe(true);
  });

  test('submissions are left to the door; when the store cannot tell, a retry and a first delivery are handled', async () => {
    expect(deliveryKey({ type: 'view_submission', trigger_id: 't3', view: { id: 'V1' } })).toBeNull();
    broken = true;
    expect(await deliver({ event_id: 'Ev1' }, 3)).toEqual({ next: 1, ack: 0, claim: undefined });
    await expect((await deliver({ event_id: 'Ev6' })).claim).resolves.toBe(true);
    broken = false;
    // Known down: the listener is not made to wait for an answer that would only come late (the claim still goes out).
    expect((await deliver({ event_id: 'Ev7' }, undefined, false, false)).claim).toBeUndefined();
    expect(claimed.has('delivery:event:Ev7')).toBe(true);
  });
});

describe('seenSignatures: the notes of one process', () => {
  const note = (key: string, untilMs: number) => ({ key, untilMs });

  test('a key is first once while its signature is accepted, and forgotten after, oldest first', () => {
    let now = 1_000;
    const seen = seenSignatures(() => now);
    expect([seen.first(note('a', 2_000)), seen.first(note('b', 3_000)), seen.first(note('a', 2_000))]).toEqual([true, true, false]);
    now = 2_001;
    // Past its time a note goes (the guard refuses the timestamp by then); one still in time stays.
    expect([seen.first(note('a', 4_000)), seen.first(note('b', 3_000))]).toEqual([true, false]);
  });
});
