import type { HeldNews } from '../../src/store/watches';
import { heldByQuietHours, isQuiet, minuteOfDay, parseQuietHours, summarizeHeld } from '../../src/watch/quiet';

// Quiet hours (docs/product.md, Watches: the bot speaks first): parsed from `HH:MM-HH:MM`, on in the channel's time zone
// (past midnight too), holding power and lock news only, summed up by server when they end. The clock is given.

const at = (iso: string) => Date.parse(iso);

describe('quiet hours', () => {
  test('parses HH:MM-HH:MM, and says why not', () => {
    expect(parseQuietHours('22:00-07:30')).toEqual({ startMin: 22 * 60, endMin: 7 * 60 + 30 });
    expect(parseQuietHours(' 09:15 - 17:00 ')).toEqual({ startMin: 9 * 60 + 15, endMin: 17 * 60 });
    expect(parseQuietHours('22-07')).toEqual({ error: expect.stringContaining('HH:MM') });
    expect(parseQuietHours('24:00-07:00')).toEqual({ error: expect.stringContaining('24-hour clock') });
    expect(parseQuietHours('22:00')).toEqual({ error: expect.stringContaining('two times') });
    expect(parseQuietHours('08:00-08:00')).toEqual({ error: expect.stringContaining('different times') });
  });

  test('on in the time zone, past midnight included, the end excluded', () => {
    const night = { startMin: 22 * 60, endMin: 7 * 60 };
    expect(minuteOfDay(at('2026-12-06T21:30:00Z'), 'Europe/Paris')).toBe(22 * 60 + 30);
    expect(isQuiet(night, at('2026-12-06T21:30:00Z'), 'Europe/Paris')).toBe(true);
    expect(isQuiet(night, at('2026-12-06T21:30:00Z'), 'UTC')).toBe(false);
    expect(isQuiet(night, at('2026-12-07T05:59:00Z'), 'Europe/Paris')).toBe(true);
    expect(isQuiet(night, at('2026-12-07T06:00:00Z'), 'Europe/Paris')).toBe(false);
    const day = { startMin: 9 * 60, endMin: 17 * 60 };
    expect(isQuiet(day, at('2026-12-06T09:00:00Z'), 'UTC')).toBe(true);
    expect(isQuiet(day, at('2026-12-06T17:00:00Z'), 'UTC')).toBe(false);
  });

  test('hold power and lock news; failures, disappearances and blindness pass', () => {
    expect(heldByQuietHours({ event: 'power' })).toBe(true);
    expect(heldByQuietHours({ event: 'lock' })).toBe(true);
    expect(heldByQuietHours({ event: 'failures' })).toBe(false);
    expect(heldByQuietHours({ event: 'always' })).toBe(false);
  });

  test('held news summed up by server: times each kind happened, and the last state', () => {
    const news = (serverId: number, kind: string, state: string, atMs: number): HeldNews => ({
      channelId: 'C1',
      serverId,
      label: `web-${serverId}`,
      kind,
      state,
      atMs,
    });
    expect(
      summarizeHeld([
        news(42, 'power_off', 'off', 1),
        news(7, 'lock_long', 'locked', 2),
        news(42, 'power_on', 'on', 3),
        news(42, 'power_off', 'off', 4),
        news(42, 'power_on', 'on', 5),
      ]),
    ).toEqual([
      {
        serverId: 42,
        label: 'web-42',
        kinds: [
          { kind: 'power_off', times: 2 },
          { kind: 'power_on', times: 2 },
        ],
        lastState: 'on',
      },
      { serverId: 7, label: 'web-7', kinds: [{ kind: 'lock_long', times: 1 }], lastState: 'locked' },
    ]);
  });
});
