import type { WebClient } from '@slack/web-api';
import type { Changes, Policy } from '../changes';
import type { CloudClient } from '../cloud/client.types';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { AuditStore } from '../store/audit-store';
import type { RequestOutcome } from './middleware/request';
import type { ReadLimiter } from './read-limit';
import type { Respond } from './response-url';

/** What every listener may use; built once in compose.ts. */
export interface ListenerContext {
  config: Config;
  cloud: CloudClient;
  policy: Policy;
  changes: Changes;
  store: AuditStore;
  logger: Logger;
  /** The cloud API is a sandbox (the built-in one, or one that answers as such): every message says so. Read at render time. */
  sandbox: boolean;
  now: () => number;
  /** Reads per user (VS_READS_PER_USER_PER_MINUTE), one limiter per running app. */
  readLimiter: ReadLimiter;
  /** Hears how each request ended (the metrics of src/ops); `labels` are the request's log fields (subcommand, action_id…). */
  onRequestEnded?: (request: { kind: string; outcome: string; labels: Record<string, unknown> }) => void;
}

/** One typed `/vs …` as a subcommand handler sees it. */
export interface Invocation {
  userId: string;
  channelId: string;
  triggerId: string;
  responseUrl: string;
  respond: Respond;
  client: WebClient;
  log: Logger;
}

/** How a command ended, for the one log line per command. */
export type CommandOutcome = RequestOutcome;
