import { performance } from 'node:perf_hooks';
import type autocannon from 'autocannon';
import { payloads, signatureHeaders } from '@vs-chatops/slack-standin';
import { postToSlackEndpoint } from '../test/helpers/signed-requests';

// The request autocannon sends: a `/vs …` command signed as Slack signs it,
// with a fresh timestamp and a response_url of its own for every request, so
// the message that lands on the Slack stand-in can be matched with its command.

export const BENCH_SIGNING_SECRET = 'bench-signing-secret-0123456789';
export const BENCH_BOT_TOKEN = 'xoxb-bench-bot-token-0123456789';

const { FORM_CONTENT_TYPE, formBody, JSON_CONTENT_TYPE, slashCommand } = payloads;

export interface SignedCommands {
  /** The one entry of autocannon's `requests`. */
  readonly request: autocannon.Request;
  /** When each command was handed to the socket (performance.now()), by response_url id. */
  readonly sent: Map<string, number>;
  /** HTTP status of each command's ack, by response_url id. */
  readonly acked: Map<string, number>;
}

export interface SignedCommandOptions {
  /** Prefix of the response_url ids, unique per run. */
  tag: string;
  /** The text after `/vs` of the n-th command (n from 0). */
  text: (n: number) => string;
  /** Where the response_urls point: the Slack stand-in. */
  responseUrl: (id: string) => string;
  /** Who types the n-th command; UVIEWER when unsaid. */
  user?: (n: number) => string;
}

interface BenchContext {
  benchId?: string;
}

export function signedCommands(options: SignedCommandOptions): SignedCommands {
  const sent = new Map<string, number>();
  const acked = new Map<string, number>();
  let n = 0;
  const request: autocannon.Request & { onResponse: (status: number, body: string, context: BenchContext) => void } = {
    method: 'POST',
    path: '/slack/events',
    setupRequest: (req, context) => {
      const id = `${options.tag}-${n}`;
      const body = formBody(
        slashCommand({
          text: options.text(n),
          user: options.user?.(n) ?? 'UVIEWER',
          channel: 'CINCIDENT',
          responseUrl: options.responseUrl(id),
          triggerId: `trigger.${id}`,
        }),
      );
      n++;
      (context as BenchContext).benchId = id;
      sent.set(id, performance.now());
      return {
        ...req,
        body,
        headers: {
          'content-type': FORM_CONTENT_TYPE,
          ...signatureHeaders(BENCH_SIGNING_SECRET, body),
        },
      };
    },
    // autocannon calls this with the per-connection context of the request just answered.
    onResponse: (status, _body, context) => {
      if (context.benchId !== undefined) acked.set(context.benchId, status);
    },
  };
  return { request, sent, acked };
}

/** `/vs firewall <id>` over the seeded servers in turn: several people asking about several servers. */
export const SEEDED_SERVERS = [42, 43, 44, 45, 46] as const;
export const firewallOfSeededServers = (n: number) => `firewall ${SEEDED_SERVERS[n % SEEDED_SERVERS.length]}`;

/**
 * POSTs one Events API delivery (JSON) to the bot, signed as Slack signs it with a fresh timestamp; resolves with
 * how long the ack took (ms), or rejects when it was not 200.
 */
export async function postSignedEvent(eventsUrl: string, body: string, what: string): Promise<number> {
  const res = await postToSlackEndpoint(eventsUrl, BENCH_SIGNING_SECRET, body, JSON_CONTENT_TYPE);
  if (res.status !== 200) throw new Error(`${what} was answered HTTP ${res.status}`);
  return res.ms;
}
