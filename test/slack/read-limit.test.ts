import { createReadLimiter } from '../../src/slack/read-limit';
import { startHarness } from '../helpers/app-harness';
import { answerTo, visibleText } from '../helpers/drive';
import { linkShared } from '../helpers/payloads';

describe('the read limiter (fake clock)', () => {
  test('allows perMinute reads at once, then one more each 60/perMinute seconds, per user', () => {
    let t = 1_000_000;
    const limiter = createReadLimiter(3, () => t);
    expect([limiter.take('U1'), limiter.take('U1'), limiter.take('U1')]).toEqual([0, 0, 0]);
    expect(limiter.take('U1')).toBe(20);
    expect(limiter.take('U2')).toBe(0);
    t += 19_000;
    expect(limiter.take('U1')).toBe(1);
    t += 1_000;
    expect(limiter.take('U1')).toBe(0);
    expect(limiter.take('U1')).toBe(20);
    t += 60_000;
    expect([limiter.take('U1'), limiter.take('U1'), limiter.take('U1'), limiter.take('U1')]).toEqual([0, 0, 0, 20]);
  });
});

describe('VS_READS_PER_USER_PER_MINUTE over the real Bolt app', () => {
  test('past the limit a user is told, only them, when to try again; the cloud API is not asked; others read on', async () => {
    const h = await startHarness({ env: { VS_READS_PER_USER_PER_MINUTE: '2' } });
    try {
      for (const text of ['firewall 42', 'autoscaling 42']) expect((await answerTo(h, text, { user: 'UBUSY' })).response_type).toBe('in_channel');
      const limited = await answerTo(h, 'firewall 43', { user: 'UBUSY' });
      expect(limited.response_type).toBe('ephemeral');
      expect(visibleText(limited)).toMatch(/2 reads in the last minute.*Try again in \d+ s/);
      expect(h.sandbox.requests.map((r) => r.path)).toEqual(['/virtual_machines/42/firewall_rules.json', '/virtual_machines/42/auto_scaling.json']);
      expect((await answerTo(h, 'firewall 43', { user: 'UOTHER' })).response_type).toBe('in_channel');
    } finally {
      await h.close();
    }
  });

  test('an unfurl spends one read of the poster’s budget; past it, the link unfurls into nothing and nothing is posted', async () => {
    const h = await startHarness({ env: { VS_READS_PER_USER_PER_MINUTE: '2' } });
    try {
      const url = `${h.sandbox.url}/virtual_machines/42`;
      const unfurl = async (channel: string) => {
        expect((await h.event(linkShared({ user: 'ULINKS', channel, urls: [url, `${url}/firewall_rules`] }))).status).toBe(200);
        for (let waited = 0; waited < 5000; waited += 10) {
          const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'event' && l.channel === channel);
          if (line) return line.outcome;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error('the event did not end within 5 s');
      };
      expect(await unfurl('CFIRST')).toBe('succeeded');
      expect((await answerTo(h, 'firewall 43', { user: 'ULINKS' })).response_type).toBe('in_channel');
      h.sandbox.reset();
      expect(await unfurl('CSECOND')).toBe('limited');
      expect(h.slack.callsTo('chat.unfurl').map((c) => c.args.channel)).toEqual(['CFIRST']);
      expect(h.slack.calls.filter((c) => c.method === 'chat.postEphemeral' || c.method === 'chat.postMessage')).toEqual([]);
      expect(h.sandbox.requests).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
