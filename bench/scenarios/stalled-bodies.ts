import { connect, type Socket } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// Connections that look signed (a current timestamp, a well-formed signature),
// announce a 1 MB body and send all of it but the last byte, then wait: the
// cheapest way to hold a server's memory without the signing secret. Or, with
// `trickleMs`, announce a small body and send a byte of it now and then (a
// slow client: holding places rather than memory). `from` spreads them over
// local addresses (loopback's 127.0.0.0/8: that many clients). Each one
// the bot closes is opened again `reopenAfterMs` later on average (half to one
// and a half times it: an attacker's connections do not come back in lockstep,
// and waves in lockstep would measure their own timing). They run in a worker
// thread: writing hundreds of megabytes must not sit on the event loop that
// times the signed commands beside them.

const BODY_BYTES = 1024 * 1024;

export interface StalledBodiesOptions {
  url: string;
  connections: number;
  reopenAfterMs: number;
  /** The addresses the connections come from, in turn (127.0.0.1 by default). */
  from?: readonly string[];
  /** A body of this many bytes, sent a byte every `trickleMs` (one byte at first), instead of 1 MB all but the last byte. */
  trickle?: { bodyBytes: number; everyMs: number };
}

export interface StalledBodiesOutcome {
  /** Connections opened in all (the first ones, and those opened again). */
  opened: number;
  /** How the bot ended them: by status ("503", "429", "408"), "closed" without an answer, "held" still open at the end. */
  answers: Record<string, number>;
}

/** Starts holding stalled bodies in front of `url` until `stop()`, which resolves with what the bot did with them. */
export function startStalledBodies(options: StalledBodiesOptions): { stop: () => Promise<StalledBodiesOutcome> } {
  // tsx's loader is not inherited by worker threads: the worker registers it, then loads this file.
  const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true, workerData: options });
  const outcome = new Promise<StalledBodiesOutcome>((resolve, reject) => {
    worker.once('message', (message: StalledBodiesOutcome) => resolve(message));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await outcome;
      await worker.terminate();
      return result;
    },
  };
}

function holdStalledBodies({ url: address, connections, reopenAfterMs, from, trickle }: StalledBodiesOptions): () => StalledBodiesOutcome {
  const url = new URL(address);
  // Shared by every connection: a socket keeps a reference to what it writes, not a copy.
  const body = Buffer.alloc(BODY_BYTES - 1, 'a');
  const answers: Record<string, number> = {};
  const open = new Set<Socket>();
  let opened = 0;
  let stopped = false;
  const one = () => {
    if (stopped) return;
    const localAddress = from?.[opened % from.length];
    opened += 1;
    const socket = connect({ port: Number(url.port), host: url.hostname, ...(localAddress ? { localAddress } : {}) });
    open.add(socket);
    const dribble = trickle ? setInterval(() => socket.write('a'), trickle.everyMs) : undefined;
    let status = '';
    socket.on('data', (chunk: Buffer) => (status ||= chunk.toString('latin1').split(' ')[1] ?? 'closed'));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(dribble);
      open.delete(socket);
      if (stopped) return;
      answers[status || 'closed'] = (answers[status || 'closed'] ?? 0) + 1;
      setTimeout(one, reopenAfterMs * (0.5 + Math.random()));
    });
    const head = [
      `POST ${url.pathname} HTTP/1.1`,
      `host: ${url.host}`,
      'content-type: application/json',
      `content-length: ${trickle?.bodyBytes ?? BODY_BYTES}`,
      `x-slack-request-timestamp: ${Math.floor(Date.now() / 1000)}`,
      `x-slack-signature: v0=${'ab'.repeat(32)}`,
    ];
    socket.write(head.join('\r\n') + '\r\n\r\n');
    socket.write(trickle ? 'a' : body);
  };
  for (let i = 0; i < connections; i++) one();
  return () => {
    stopped = true;
    const held = open.size;
    for (const socket of open) socket.destroy();
    return { opened, answers: { ...answers, held } };
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const stop = holdStalledBodies(workerData as StalledBodiesOptions);
  port.once('message', () => port.postMessage(stop()));
}
