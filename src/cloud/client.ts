import type { Dispatcher } from 'undici';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { CloudClient } from './client.types';
import { decodeResponse, Responses, type ResponseShape } from './codec';
import { createCloudHttp, type CloudHttpResponse, type RetryPolicy } from './http';
import { createSingleFlight } from './single-flight';
import { CloudError } from './errors';
import { CHANGE_OPERATIONS, pathId, prepareAddDisk, prepareRestoreBackup, type ChangeAnswers, type ChangeOperation, type PreparedRequest } from './prepared';

// The four operations of docs/cloud-api.md on top of the transport (http.ts) and
// the codec (codec.ts). Reads are single-flight and come back frozen, since
// callers that overlap share them; changes are prepared (prepared.ts) and the
// prepared request is what is sent, exactly once.

/** What the client needs to reach the API: Config['cloud'] (its defaults are config's) with `url` resolved to a real base URL. */
export type CloudClientConfig = Config['cloud'];

/** The four operations, as named in metrics and logs. */
export type CloudOperation = 'list_firewall_rules' | 'list_autoscaling' | 'add_disk' | 'restore_backup';

/**
 * Told once per operation when it settles, retries included: the HTTP status
 * of the answer as a string ("200", "404"), or the failure kind when no status
 * came back ("timeout", "network", "no_connection"), and the seconds it took.
 * The seam for metrics (vs_chatops_cloud_requests_total{operation,status},
 * vs_chatops_cloud_request_seconds); it must not throw, and is not awaited.
 */
export type RequestDoneObserver = (operation: CloudOperation, status: string, seconds: number) => void;

export interface CloudClientDeps {
  /** Gets one debug line per request (method, path, status, ms, attempt). */
  logger?: Logger;
  /** Used instead of the client's own Pools (tests: MockAgent); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Overrides of DEFAULT_RETRY_POLICY, e.g. `{ baseDelayMs: 5 }` in tests. */
  retry?: Partial<RetryPolicy>;
  /** Largest answer accepted; default 5 MB. */
  maxBodyBytes?: number;
  /** Jitter source for the backoff, [0, 1). */
  random?: () => number;
  /** Waits before a retry; tests record the waits instead of sleeping. */
  wait?: (ms: number) => Promise<void>;
  onRequestDone?: RequestDoneObserver;
  /** Called once, when the API first answers as the sandbox (its data is fake). */
  onSandbox?: () => void;
}

export function createCloudClient(config: CloudClientConfig, deps: CloudClientDeps = {}): CloudClient {
  if (!/^https?:\/\//.test(config.url)) {
    // `sandbox` must have been replaced by the simulator's URL by the composition root.
    throw new Error(`the cloud client needs an http(s) base URL, not "${config.url}"`);
  }
  const { maxConnections, changeConnections } = config;
  if (changeConnections >= maxConnections)
    throw new RangeError(`changeConnections (${changeConnections}) must be less than maxConnections (${maxConnections})`);
  const http = createCloudHttp({
    baseUrl: config.url,
    accountId: config.accountId,
    apiKey: config.apiKey,
    format: config.format,
    timeoutMs: config.timeoutMs,
    readConnections: maxConnections - changeConnections,
    changeConnections,
    connectionWaitMs: config.connectionWaitMs,
    maxBodyBytes: deps.maxBodyBytes,
    retry: deps.retry,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    random: deps.random,
    wait: deps.wait,
    onSandbox: deps.onSandbox,
  });
  const observed = observer(deps.onRequestDone, deps.logger);
  const reads = createSingleFlight();
  const format = config.format;
  const decode = <S extends ResponseShape>(response: CloudHttpResponse, shape: S) =>
    decodeResponse(format, response.text, shape, { status: response.status, request: response.request });

  /** Sends a prepared change exactly as prepared: its path and body are what goes on the wire. */
  async function send<O extends ChangeOperation>(request: PreparedRequest<O>): Promise<ChangeAnswers[O]> {
    const { expectedStatuses, answer } = CHANGE_OPERATIONS[request.operation];
    if (request.method !== 'POST' || !request.path.startsWith('/') || !request.path.endsWith(`.${format}`)) {
      // Prepared for another format (VS_API_FORMAT changed since), or not by prepare…(): a bug, not an API call.
      throw new RangeError(`not a ${format} change request of this client: ${request.method} ${request.path}`);
    }
    const body = request.body ?? undefined;
    return observed(request.operation, async (seen) => {
      const response = seen(await http.send({ method: 'POST', path: request.path, body, expectedStatuses }));
      return decode(response, answer) as ChangeAnswers[O];
    });
  }

  return {
    async listFirewallRules(vsId: number) {
      const path = `/virtual_machines/${pathId(vsId)}/firewall_rules.${format}`;
      return reads.run(`${format} ${path}`, () =>
        observed('list_firewall_rules', async (seen) =>
          frozenRecords(decode(seen(await http.send({ method: 'GET', path, expectedStatuses: [200] })), Responses.firewallRules)),
        ),
      );
    },

    async listAutoscaling(vsId: number) {
      const path = `/virtual_machines/${pathId(vsId)}/auto_scaling.${format}`;
      return reads.run(`${format} ${path}`, () =>
        observed('list_autoscaling', async (seen) =>
          frozenRecords(decode(seen(await http.send({ method: 'GET', path, expectedStatuses: [200] })), Responses.autoscaling)),
        ),
      );
    },

    prepareAddDisk: (vsId, params) => prepareAddDisk(format, vsId, params),
    prepareRestoreBackup: (backupId) => prepareRestoreBackup(format, backupId),
    send,
    addDisk: async (vsId, params) => send(prepareAddDisk(format, vsId, params)),
    restoreBackup: async (backupId) => send(prepareRestoreBackup(format, backupId)),

    close: () => http.close(),
  };
}

/** Times an operation and tells the observer how it ended; an observer that throws is logged, never felt by the caller. */
function observer(onDone: RequestDoneObserver | undefined, logger: Logger | undefined) {
  const ignore = <R>(response: R) => response;
  return async <T>(operation: CloudOperation, run: (seen: <R extends { status: number }>(response: R) => R) => Promise<T>): Promise<T> => {
    if (!onDone) return run(ignore);
    let status: number | undefined;
    const started = performance.now();
    const tell = (status: string) => {
      try {
        onDone(operation, status, (performance.now() - started) / 1000);
      } catch (error) {
        logger?.warn('the cloud request observer failed', { error });
      }
    };
    try {
      const result = await run((response) => {
        status = response.status;
        return response;
      });
      tell(String(status));
      return result;
    } catch (error) {
      tell(error instanceof CloudError ? String(error.status ?? status ?? error.kind) : 'error');
      throw error;
    }
  };
}

/**
 * The list is frozen, so a sort or a push by mistake throws instead of
 * reordering what another caller sees; its records are read-only by type.
 * Freezing each record as well cost about as much as validating it.
 */
function frozenRecords<T extends object>(records: T[]): ReadonlyArray<Readonly<T>> {
  return Object.freeze(records);
}
