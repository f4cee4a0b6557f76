import type { Logger } from '../log';
import { DEFAULT_RETRY_POLICY, retrying, type RetryPolicy } from './retry';
import { statusError } from './status-error';
import { createTransport, type CloudHttpResponse, type CloudRequest, type Transport, type TransportOptions, type WireFormat } from './transport';

// The cloud API over HTTP, assembled: the transport (transport.ts: budgets,
// pools, auth, deadline, size cap) under the retry policy (retry.ts), with
// unexpected statuses read into CloudErrors (status-error.ts).

export { DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from './retry';
export type { CloudHttpResponse, CloudRequest, HttpMethod } from './transport';

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface CloudHttpOptions extends Omit<TransportOptions, 'maxBodyBytes'> {
  maxBodyBytes?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Waits before a retry (tests). */
  wait?: (ms: number) => Promise<void>;
}

export interface CloudHttp {
  readonly format: WireFormat;
  send(request: CloudRequest): Promise<CloudHttpResponse>;
  readonly transport: Transport;
  close(): Promise<void>;
}

export function createCloudHttp(options: CloudHttpOptions): CloudHttp {
  const transport = createTransport({ ...options, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES });
  const send = retrying({
    transport,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    statusError: (response, request) => statusError(response, request, transport.fail),
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    random: options.random ?? Math.random,
    wait: options.wait,
  });
  return { format: options.format, send, transport, close: () => transport.close() };
}
