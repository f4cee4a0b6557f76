import { renderQuietSummary, renderWatchList, renderWatchNotice, watchedServerName } from '../../../src/slack/blocks/watch';
import type { Notice } from '../../../src/watch/diff';

// A watch's notification in words (docs/product.md, Watches: the bot speaks first): the server by label and id, what
// changed, the state it left it in; the cloud's words escaped.

const base = { channelId: 'C1', serverId: 42, label: 'web-1', event: 'power', key: 'k' } as const;
const lineOf = (notice: Notice) => (renderWatchNotice(notice, false).blocks[0] as { text: { text: string } }).text.text;

describe('watch notices', () => {
  test('power, with the state it came from', () => {
    expect(lineOf({ ...base, kind: 'power_off', state: 'off', from: 'on' })).toBe(':red_circle: *web-1 (VS 42) is off (it was on)*');
    expect(lineOf({ ...base, kind: 'power_on', state: 'on', from: 'off' })).toBe(':large_green_circle: *web-1 (VS 42) is on (it was off)*');
    expect(lineOf({ ...base, kind: 'power_recovery', state: 'recovery', from: 'on' })).toBe(':large_yellow_circle: *web-1 (VS 42) is in recovery (it was on)*');
    expect(lineOf({ ...base, kind: 'power_on', state: 'on', from: 'recovery' })).toBe(':arrows_counterclockwise: *web-1 (VS 42) is out of recovery: it is on*');
    expect(renderWatchNotice({ ...base, kind: 'power_off', state: 'off', from: 'on' }, false).text).toBe('web-1 (VS 42) is off (it was on)');
  });

  test('locks, failures in words, disappearance, blindness', () => {
    const since = Date.parse('2026-12-06T09:00:00Z');
    expect(lineOf({ ...base, event: 'lock', kind: 'lock_long', state: 'locked', sinceMs: since })).toContain(`has been locked since <!date^${since / 1000}^`);
    expect(renderWatchNotice({ ...base, event: 'lock', kind: 'lock_long', state: 'locked', sinceMs: since }, false).text).toBe(
      'web-1 (VS 42) has been locked since 2026-12-06T09:00:00.000Z',
    );
    expect(lineOf({ ...base, event: 'lock', kind: 'lock_end', state: 'unlocked' })).toBe(':unlock: *web-1 (VS 42) is unlocked again*');
    expect(lineOf({ ...base, event: 'failures', kind: 'failed', state: 'failed', transaction: { id: 9, action: 'no_such_action' } })).toBe(
      ':x: *web-1 (VS 42): `no_such_action` failed in the cloud (transaction 9)*',
    );
    expect(lineOf({ ...base, event: 'always', kind: 'gone', state: 'gone' })).toBe(':ghost: *web-1 (VS 42) is gone: the cloud no longer lists it*');
    expect(lineOf({ ...base, serverId: 0, label: null, event: 'always', kind: 'blind', state: 'unreadable' })).toContain('cannot read the cloud');
  });

  test('a label is escaped and shortened; none: the id alone; sandbox data is marked', () => {
    expect(watchedServerName({ serverId: 42, label: null })).toBe('VS 42');
    expect(watchedServerName({ serverId: 42, label: '<!channel> *x*' })).not.toContain('<!channel>');
    expect(renderWatchNotice({ ...base, kind: 'power_off', state: 'off', from: 'on' }, true).text).toMatch(/^\[sandbox data\] /);
  });
});

describe('the summary of quiet hours and the list of watches', () => {
  test('the summary says what each server did while quiet, how often, and the state it is in now', () => {
    const summary = renderQuietSummary(
      [
        {
          serverId: 42,
          label: 'web-1',
          kinds: [
            { kind: 'power_off', times: 2 },
            { kind: 'power_on', times: 2 },
          ],
          lastState: 'on',
        },
        { serverId: 44, label: null, kinds: [{ kind: 'lock_long', times: 1 }], lastState: 'locked' },
      ],
      false,
    );
    expect(summary.text).toBe('While quiet: web-1 (VS 42) went off twice, came on twice; it is on. VS 44 stayed locked; it is locked');
  });

  test('each watch with its Unwatch button, snoozes with their end, and the quiet hours; a label is escaped', () => {
    const watch = { channelId: 'C1', events: ['power'] as const, createdBy: 'U1', createdAtMs: 0 };
    const list = renderWatchList({
      watches: [
        { ...watch, serverId: 0, events: ['failures'], snoozedUntilMs: null },
        { ...watch, serverId: 42, snoozedUntilMs: 10_000 },
      ],
      quiet: { startMin: 22 * 60, endMin: 7 * 60 },
      labelOf: (id) => (id === 42 ? '<web-1>' : null),
      timeZone: 'Europe/Paris',
      nowMs: 0,
      sandbox: false,
    });
    const json = JSON.stringify(list.blocks);
    expect(json).toContain('*every server*: failures');
    expect(json).toContain('&lt;web-1&gt; (VS 42)*: power · snoozed until <!date^10^');
    expect(json).toContain('Quiet hours: 22:00–07:00 (Europe/Paris).');
    expect(list.blocks.flatMap((b) => ('accessory' in b && b.accessory ? [b.accessory] : []))).toMatchObject([
      { action_id: 'watch_unwatch', value: '0' },
      { action_id: 'watch_unwatch', value: '42' },
    ]);
  });
});
