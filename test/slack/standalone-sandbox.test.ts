import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { useProcessHarness } from '../helpers/process-harness';
import type { SpawnedBot } from '../helpers/spawned-bot';

// The bot pointed by URL at a sandbox it did not start (`npm run sandbox`,
// then VS_API_URL=http://127.0.0.1:4010): the sandbox says what it is in every
// answer (X-VS-Sandbox), and the bot labels what it posts as sandbox data and
// warns in its log, once. The real bot process, signed requests over HTTP,
// the sandbox and a Slack fake on loopback.

const NOTICE = 'sandbox data — not a real cloud account';

describe('the bot on a standalone sandbox given by URL', () => {
  const world = useProcessHarness();
  /** The bot on the cloud API at `cloudUrl`, with a database of its own. */
  const startBot = (cloudUrl: string, db: string) => world.spawn({ VS_API_URL: cloudUrl }, { db });
  const answerTo = async (bot: SpawnedBot, text: string) =>
    (await world.answerTo(bot, text, { within: 10_000 })) as { text: string; blocks: unknown[]; response_type?: string };
  const health = async (target: SpawnedBot) => {
    const res = await request(`http://127.0.0.1:${target.port}/healthz`);
    return (await res.body.json()) as { sandbox: boolean };
  };
  const warnings = (target: SpawnedBot) =>
    target
      .output()
      .split('\n')
      .filter((l) => l.includes('answers as the sandbox'));

  it('labels its answers as sandbox data from the first answer on (an error, then the firewall summary), says so once in its log and in /healthz', async () => {
    const { sandbox } = world;
    const standalone = await startBot(sandbox.url, 'labelled');
    expect(await health(standalone)).toMatchObject({ sandbox: false });

    // The very first answer, an error, is labelled already: the 404 said it came from the sandbox.
    const notFound = await answerTo(standalone, 'firewall 999');
    expect(notFound.text).toContain('VS 999 was not found');
    expect(JSON.stringify(notFound.blocks)).toContain(NOTICE);

    const first = await answerTo(standalone, 'firewall 42');
    expect(first.response_type).toBe('in_channel');
    expect(JSON.stringify(first.blocks)).toContain(NOTICE);
    expect(first.text).toMatch(/^\[sandbox data\] Firewall rules of VS 42/);
    // The sandbox really did answer this, with its header.
    expect(sandbox.requests.some((r) => r.path === '/virtual_machines/42/firewall_rules.json')).toBe(true);

    const second = await answerTo(standalone, 'autoscaling 42');
    expect(JSON.stringify(second.blocks).split(NOTICE)).toHaveLength(2);
    expect(await health(standalone)).toMatchObject({ sandbox: true });

    const warned = warnings(standalone);
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0]!)).toMatchObject({ level: 'warn', cloudUrl: sandbox.url });
    await standalone.kill('SIGTERM');
  });

  it('does not label answers of an API that does not say it is the sandbox', async () => {
    const { sandbox } = world;
    // The same sandbox behind a proxy that drops the header: what a real cloud API looks like to the bot.
    async function forwardWithoutHeader(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await request(`${sandbox.url}${req.url}`, {
        method: req.method as 'GET' | 'POST',
        headers: {
          authorization: req.headers.authorization ?? '',
          accept: req.headers.accept ?? '',
          'content-type': req.headers['content-type'] ?? 'application/json',
        },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.body.arrayBuffer());
      res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type']), 'content-length': body.length });
      res.end(body);
    }
    const proxy: Server = createServer((req, res) => void forwardWithoutHeader(req, res));
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const plain = await startBot(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, 'plain');
    try {
      const answer = await answerTo(plain, 'firewall 42');
      expect(answer.text).toMatch(/^Firewall rules of VS 42/);
      expect(JSON.stringify(answer.blocks)).not.toContain(NOTICE);
      expect(warnings(plain)).toEqual([]);
      expect(await health(plain)).toMatchObject({ sandbox: false });
    } finally {
      await plain.kill('SIGTERM');
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });
});
