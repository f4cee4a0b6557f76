import { createLogger, REDACTED } from '../src/log';

function capture(level: 'debug' | 'info' = 'debug', secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level, secrets, write: (l) => lines.push(l), now: () => new Date('2026-01-01T00:00:00Z') });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logger', () => {
  test('writes one JSON object per line with level, message, bindings and fields', () => {
    const { logger, records } = capture();
    logger.child({ user: 'U1' }).info('command', { outcome: 'ok', ms: 12 });
    expect(records()).toEqual([{ time: '2026-01-01T00:00:00.000Z', level: 'info', msg: 'command', user: 'U1', outcome: 'ok', ms: 12 }]);
  });

  test('drops lines below the level', () => {
    const { logger, lines } = capture('info');
    logger.debug('hidden');
    logger.warn('shown');
    expect(lines).toHaveLength(1);
  });

  test('masks known secret values anywhere, at debug level too', () => {
    const { logger, lines } = capture('debug', ['xoxb-secret-token', 'api-key-xyz']);
    logger.debug('calling with xoxb-secret-token', { nested: { header: 'Basic api-key-xyz' }, list: ['api-key-xyz'] });
    logger.error('failed', { error: new Error('bad key api-key-xyz') });
    const all = lines.join('\n');
    expect(all).not.toContain('xoxb-secret-token');
    expect(all).not.toContain('api-key-xyz');
    expect(all).toContain(REDACTED);
  });

  test('masks fields whose names say they hold a secret', () => {
    const { logger, records } = capture();
    logger.info('req', { headers: { Authorization: 'Basic abc', 'x-ok': 'fine' }, apiKey: 'k', token: 't' });
    expect(records()[0]).toMatchObject({ headers: { Authorization: REDACTED, 'x-ok': 'fine' }, apiKey: REDACTED, token: REDACTED });
  });

  test('serialises errors with their code and cuts cycles', () => {
    const { logger, records } = capture();
    const err = Object.assign(new Error('boom'), { code: 'E_X' });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    logger.error('x', { error: err, cyclic });
    const r = records()[0] as { error: { message: string; code: string }; cyclic: { self: unknown } };
    expect(r.error).toMatchObject({ message: 'boom', code: 'E_X' });
    expect(r.cyclic.self).toBe('[…]');
  });
});
