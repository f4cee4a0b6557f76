import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { CloudClient } from './client.types';
import { decodeResponse } from './codec';
import { createCloudHttp, type CloudHttpResponse, type RetryPolicy } from './http';
import type { SandboxMark } from './transport';
import { createSingleFlight } from './single-flight';
import { CloudError } from './errors';
import { pathId, type PreparedRequest } from './prepared';
import { READS, type ReadMethods, type ReadName, type ReadOperation, type ReadPage, type ReadRow } from './reads';
import type { Decoded, ResponseShape } from './shapes';
import type { BudgetClass } from './transport';

// The reads of reads.ts and the sending of changes on top of the transport
// (http.ts) and the codec (codec.ts). Every read goes one way: single-flight
// (overlapping identical reads share one request and its frozen answer),
// retried as the policy allows, within the read connections, observed. A
// change is prepared by its row (src/changes/definitions.ts, with
// prepared.ts's changeRequest) and sent here as it was prepared, exactly
// once: the client knows no change by name.

/** What the client needs to reach the API: Config['cloud'] (its defaults are config's) with `url` resolved to a real base URL. */
export type CloudClientConfig = Config['cloud'];

/**
 * An operation as named in metrics and logs: a read's (ReadOperation, reads.ts), or a change's as its prepared request
 * names it (its row of src/changes/definitions.ts). A fixed set: never a label made of input.
 */
export type CloudOperation = string;

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
  /** Told once, when the API first answers as a sandbox (its data is fake). */
  sandbox?: SandboxMark;
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
    sandbox: deps.sandbox,
  });
  const observed = observer(deps.onRequestDone, deps.logger);
  const reads = createSingleFlight();
  const format = config.format;
  const decode = <S extends ResponseShape>(response: CloudHttpResponse, shape: S) =>
    decodeResponse(format, response.text, shape, { status: response.status, request: response.request });
  /** Rows this cloud answered 404 for while the row read instead answered: an older cloud, asked the other way from then on. */
  const missingPaths = new Set<ReadName>();

  /** One read, as its row says: GET its path, decode its answer, freeze it; on the connections of `budget`. */
  async function read(name: ReadName, args: readonly unknown[], budget: BudgetClass): Promise<unknown> {
    const row: ReadRow = READS[name];
    const path = readPath(row, args, format);
    // Keyed by budget too: a person's read never waits in line behind a change's for a connection of the change budget.
    return reads.run(`${budget} ${format} ${path}`, async () => {
      const instead = row.insteadWhenMissing as ReadName | undefined;
      if (instead === undefined) return fetchAnswer(row, path, row.answer, budget);
      if (!missingPaths.has(name)) {
        try {
          return await fetchAnswer(row, path, row.answer, budget);
        } catch (error) {
          if (!(error instanceof CloudError && error.kind === 'not_found')) throw error;
        }
      }
      // Read by this row's shape: the other row answers with the same record, and this row's allow-list applies.
      const answer = await fetchAnswer(READS[instead], readPath(READS[instead], args, format), row.answer, budget);
      if (!missingPaths.has(name)) {
        missingPaths.add(name);
        const from = { operation: row.operation, instead: READS[instead].operation };
        deps.logger?.info('the cloud API has no such path: reading another instead from now on', from);
      }
      return answer;
    });
  }

  /**
   * The last answer of each path of a row that keeps it (ReadRow.keepsLast): its text's digest (never the text: a
   * server's record on the wire holds its passwords) and its value.
   */
  const lastAnswers = new Map<string, { digest: string; value: unknown }>();

  function fetchAnswer(row: ReadRow, path: string, shape: ResponseShape, budget: BudgetClass): Promise<unknown> {
    return observed(row.operation as ReadOperation, async (seen) => {
      const response = seen(await http.send({ method: 'GET', path, expectedStatuses: [200], budget }));
      if (row.keepsLast !== true || shape !== row.answer) return frozen(decode(response, shape));
      // The same text decodes to the same value: the kept one is given back, checked when it was first read.
      const digest = response.sha256?.() ?? createHash('sha256').update(response.text).digest('base64');
      const last = lastAnswers.get(path);
      if (last !== undefined && last.digest === digest) return last.value;
      const value = deepFreeze(decode(response, shape));
      if (last === undefined && lastAnswers.size >= MAX_KEPT_ANSWERS) lastAnswers.clear();
      lastAnswers.set(path, { digest, value });
      return value;
    });
  }

  /**
   * Sends a prepared change exactly as prepared: its path and body are what goes on the wire. A 404 at its path is
   * asked again at its older path when it has one (older clouds); once accepted, its follow-up is sent.
   */
  async function send<S extends ResponseShape>(request: PreparedRequest<S>): Promise<Decoded<S>> {
    const { expectedStatuses, answer } = request;
    const ours = (path: string) => path.startsWith('/') && path.endsWith(`.${format}`);
    if (
      (request.method !== 'POST' && request.method !== 'DELETE') ||
      !ours(request.path) ||
      (request.olderPath !== undefined && !ours(request.olderPath)) ||
      (request.then !== undefined && !ours(request.then.path))
    ) {
      // Prepared for another format (VS_API_FORMAT changed since), or not by prepare…(): a bug, not an API call.
      throw new RangeError(`not a ${format} change request of this client: ${request.method} ${request.path}`);
    }
    const body = request.body ?? undefined;
    const at = (path: string) =>
      observed(request.operation, async (seen) => decode(seen(await http.send({ method: request.method, path, body, expectedStatuses })), answer));
    let value: Decoded<S>;
    try {
      value = await at(request.path);
    } catch (error) {
      if (request.olderPath === undefined || !(error instanceof CloudError && error.kind === 'not_found')) throw error;
      deps.logger?.info('the cloud API has no such path: sending the change to its older path', { operation: request.operation });
      value = await at(request.olderPath);
    }
    const then = request.then;
    if (then)
      await observed(then.operation, async (seen) => seen(await http.send({ method: then.method, path: then.path, expectedStatuses: then.expectedStatuses })));
    return value;
  }

  const readMethods = (budget: BudgetClass) =>
    Object.fromEntries((Object.keys(READS) as ReadName[]).map((name) => [name, (...args: unknown[]) => read(name, args, budget)])) as unknown as ReadMethods;

  return {
    ...readMethods('read'),
    changeReads: Object.freeze(readMethods('change')),
    format,
    send,

    close: () => http.close(),
  };
}

/** Paths whose last answer is kept at most (ReadRow.keepsLast): a list of 100,000 servers at 100 a page. */
const MAX_KEPT_ANSWERS = 1000;

/**
 * The path a read asks for: its ids in place of the `:name` segments (each a
 * positive integer, or a RangeError: a bug on our side, not an API call), the
 * page as `/page/N` before the format suffix (or `page` in the query, for a row paged so), the page size as `per_page`.
 */
function readPath(row: ReadRow, args: readonly unknown[], format: string): string {
  let next = 0;
  const filled = row.path.replace(/:[A-Za-z]+/g, () => pathId(args[next++]));
  const page = row.paged ? (args[next] as ReadPage | undefined) : undefined;
  if (row.paged === 'query') {
    const query = [
      ...(page?.page === undefined ? [] : [`page=${pathId(page.page)}`]),
      ...(page?.perPage === undefined ? [] : [`per_page=${pathId(page.perPage)}`]),
    ];
    return `${filled}.${format}${query.length === 0 ? '' : `?${query.join('&')}`}`;
  }
  const pageNumber = page?.page === undefined || page.page === 1 ? '' : `/page/${pathId(page.page)}`;
  const perPage = page?.perPage === undefined ? '' : `?per_page=${pathId(page.perPage)}`;
  return `${filled}${pageNumber}.${format}${perPage}`;
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
 * A list is frozen, so a sort or a push by mistake throws instead of
 * reordering what another caller sees; its records are read-only by type
 * (freezing each one cost about as much as validating it). A single record is
 * frozen through, nested lists included.
 */
function frozen<T>(answer: T): T {
  return Array.isArray(answer) ? Object.freeze(answer) : deepFreeze(answer);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
