import type { WebClient } from '@slack/web-api';
import type { Changes, Policy } from '../changes';
import type { CloudClient } from '../cloud/client.types';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Store } from '../store';
import type { RequestOutcome } from './middleware/request';
import type { Respond } from './response-url';

/** What every listener may use; built once in compose.ts. */
export interface ListenerContext {
  config: Config;
  cloud: CloudClient;
  policy: Policy;
  changes: Changes;
  /** The slices listeners read (`/vs audit`); changes go through `changes`. */
  store: Pick<Store, 'audit'>;
  logger: Logger;
  /** The cloud API is a sandbox (the built-in one, or one that answers as such): every message says so. Read at render time. */
  sandbox: boolean;
  now: () => number;
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
