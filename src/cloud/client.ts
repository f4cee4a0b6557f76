import type { Dispatcher } from 'undici';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { CloudClient } from './client.types';
import { decodeResponse, encodeAddDiskBody, Responses, type ResponseShape } from './codec';
import { createCloudHttp, type CloudHttpResponse, type RetryPolicy } from './http';
import type { AddDiskParams } from './schemas';
import { createSingleFlight } from './single-flight';

// The four operations of spec 4.1–4.4 on top of the transport (http.ts) and
// the codec (codec.ts). Reads are single-flight and come back frozen, since
// callers that overlap share them; changes go out exactly once.

/** What the client needs to reach the API: Config['cloud'] with `url` resolved to a real base URL. */
export type CloudClientConfig = Pick<Config['cloud'], 'url' | 'accountId' | 'apiKey' | 'format' | 'timeoutMs'> & {
  /** Upper bound on connections to the API; default 16. */
  readonly maxConnections?: number;
};

export interface CloudClientDeps {
  /** Gets one debug line per request (method, path, status, ms, attempt). */
  logger?: Logger;
  /** Used instead of the client's own Pool (tests: MockAgent); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Overrides of DEFAULT_RETRY_POLICY, e.g. `{ baseDelayMs: 5 }` in tests. */
  retry?: Partial<RetryPolicy>;
  /** Largest answer accepted; default 5 MB. */
  maxBodyBytes?: number;
  /** Jitter source for the backoff, [0, 1). */
  random?: () => number;
  /** Called once, when the API first answers as the sandbox (its data is fake). */
  onSandbox?: () => void;
}

const DEFAULT_MAX_CONNECTIONS = 16;

export function createCloudClient(config: CloudClientConfig, deps: CloudClientDeps = {}): CloudClient {
  if (!/^https?:\/\//.test(config.url)) {
    // `sandbox` must have been replaced by the simulator's URL by the composition root.
    throw new Error(`the cloud client needs an http(s) base URL, not "${config.url}"`);
  }
  const http = createCloudHttp({
    baseUrl: config.url,
    accountId: config.accountId,
    apiKey: config.apiKey,
    format: config.format,
    timeoutMs: config.timeoutMs,
    maxConnections: config.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxBodyBytes: deps.maxBodyBytes,
    retry: deps.retry,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    random: deps.random,
    onSandbox: deps.onSandbox,
  });
  const reads = createSingleFlight();
  const format = config.format;
  const decode = <S extends ResponseShape>(response: CloudHttpResponse, shape: S) =>
    decodeResponse(format, response.text, shape, { status: response.status, request: response.request });

  return {
    async listFirewallRules(vsId: number) {
      const path = `/virtual_machines/${pathId(vsId)}/firewall_rules`;
      return reads.run(`${format} ${path}`, async () =>
        frozenRecords(decode(await http.send({ method: 'GET', path, expectedStatuses: [200] }), Responses.firewallRules)),
      );
    },

    async listAutoscaling(vsId: number) {
      const path = `/virtual_machines/${pathId(vsId)}/auto_scaling`;
      return reads.run(`${format} ${path}`, async () =>
        frozenRecords(decode(await http.send({ method: 'GET', path, expectedStatuses: [200] }), Responses.autoscaling)),
      );
    },

    async addDisk(vsId: number, params: AddDiskParams) {
      const path = `/virtual_machines/${pathId(vsId)}/disks`;
      const body = encodeAddDiskBody(format, params);
      // Spec 4.3 answers 201; 200 is what some deployments send for the same thing.
      const response = await http.send({ method: 'POST', path, body, expectedStatuses: [201, 200] });
      return decode(response, Responses.disk);
    },

    async restoreBackup(backupId: number) {
      const path = `/backups/${pathId(backupId)}/restore`;
      // Spec 4.1 shows no status: any 2xx with the backup in the body is success.
      const response = await http.send({ method: 'POST', path, expectedStatuses: [200, 201, 202] });
      return decode(response, Responses.backup);
    },

    close: () => http.close(),
  };
}

/** Ids go into the path; anything but a positive integer is a bug on our side, not an API call. */
function pathId(id: number): string {
  if (!Number.isSafeInteger(id) || id <= 0) throw new RangeError(`expected a positive integer id, got ${String(id)}`);
  return String(id);
}

/**
 * The list is frozen, so a sort or a push by mistake throws instead of
 * reordering what another caller sees; its records are read-only by type.
 * Freezing each record as well cost about as much as validating it.
 */
function frozenRecords<T extends object>(records: T[]): ReadonlyArray<Readonly<T>> {
  return Object.freeze(records);
}
