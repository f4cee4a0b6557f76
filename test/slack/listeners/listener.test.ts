import type { Context } from '@slack/bolt';
import { createLogger } from '../../../src/log';
import type { ListenerContext } from '../../../src/slack/context';
import { isMiddlewareMissing, MiddlewareMissingError, SlackErrorCode } from '../../../src/slack/errors';
import { commandOf } from '../../../src/slack/listeners/commands';
import { runRow } from '../../../src/slack/listeners/listener';
import { VIEWS } from '../../../src/slack/listeners/views';
import { requestOf } from '../../../src/slack/middleware/request';

// A listener that runs without the middleware its registration puts before it
// is a wiring bug: it is told apart from a crash by its code, logged, and
// nothing is done.

describe('a listener without its middleware', () => {
  test('reading the request or the parsed command throws a coded error naming the middleware', () => {
    const context: Context = { isEnterpriseInstall: false };
    for (const [read, middleware] of [
      [() => requestOf(context), 'readRequest'],
      [() => commandOf(context), 'parseVsCommand'],
    ] as const) {
      let thrown: unknown;
      try {
        read();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MiddlewareMissingError);
      expect(isMiddlewareMissing(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: SlackErrorCode.MiddlewareMissing, middleware });
    }
  });

  test('a row run without readRequest runs nothing and logs the code, not a crash', async () => {
    const lines: string[] = [];
    const ctx = { logger: createLogger({ write: (line) => lines.push(line) }), sandbox: false } as Partial<ListenerContext> as ListenerContext;
    let ran = false;
    const listener = runRow(ctx, {
      run: () => {
        ran = true;
        return Promise.resolve('succeeded');
      },
    });
    await expect(listener({ context: { isEnterpriseInstall: false } } as Parameters<typeof listener>[0])).resolves.toBeUndefined();
    expect(ran).toBe(false);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'error', code: 'SLACK_MIDDLEWARE_MISSING', middleware: 'readRequest' }),
    ]);
  });

  test('a form submitted to a row without its middleware is still answered: nothing was done, nothing was changed', async () => {
    const lines: string[] = [];
    const ctx = { logger: createLogger({ write: (line) => lines.push(line) }), sandbox: false } as Partial<ListenerContext> as ListenerContext;
    const acks: unknown[] = [];
    const listener = runRow(ctx, VIEWS[0]!);
    const args = { context: { isEnterpriseInstall: false }, ack: (answer: unknown) => Promise.resolve(void acks.push(answer)) };
    await listener(args as unknown as Parameters<typeof listener>[0]);
    expect(acks).toEqual([{ response_action: 'update', view: expect.objectContaining({ type: 'modal' }) }]);
    expect(JSON.stringify(acks)).toContain('before anything was done; nothing was changed');
    expect(lines.join('\n')).toContain('"code":"SLACK_MIDDLEWARE_MISSING"');
  });
});
