import { encodeBody, type WireBody, type WireFormat } from './codec';
import type { ResponseShape } from './shapes';

// A change as it will go on the wire, prepared before it is sent: what an
// approval request shows and an audit record keeps is the very value the
// client sends (client.ts `send`), so what people approve is, by
// construction, what the cloud API receives. The credentials are not part of
// it: the transport adds them as a header. Which requests there are is not
// known here: each change's row (src/changes/definitions.ts) declares its
// own with changeRequest(), and the client sends whatever it is given.

export type ChangeMethod = 'POST' | 'DELETE';

/** A request that follows the change's own once the cloud accepted it (firewall rules: apply them), its answer not read. */
export interface PreparedFollowUp {
  readonly operation: string;
  readonly method: 'POST';
  /** Relative to VS_API_URL, with the format suffix. */
  readonly path: string;
  /** The 2xx statuses that mean the cloud accepted it. */
  readonly expectedStatuses: readonly number[];
}

export interface PreparedRequest<S extends ResponseShape = ResponseShape> {
  /** Its name in metrics and logs (vs_chatops_cloud_requests_total{operation}). */
  readonly operation: string;
  readonly method: ChangeMethod;
  /** Relative to VS_API_URL, with the format suffix: `/backups/9/restore.json`. */
  readonly path: string;
  /** The text sent, exactly, in the configured format; null when the request has no body. */
  readonly body: string | null;
  /** The 2xx statuses that mean the cloud accepted it; any other is an error. */
  readonly expectedStatuses: readonly number[];
  /** The shape of its answer. */
  readonly answer: S;
  /** Where older clouds take the same request when this path answers 404 (the same method and body), with the format suffix. */
  readonly olderPath?: string;
  /** Sent once the cloud accepted this one. */
  readonly then?: PreparedFollowUp;
}

/** A change's request as its row declares it: the parts that do not depend on the target or the parameters, and how those fill the rest. */
export interface ChangeRequestSpec<P, S extends ResponseShape> {
  operation: string;
  method: ChangeMethod;
  /**
   * Relative to VS_API_URL, without the format suffix; `:id` stands for the target's id, any other `:name` for the
   * parameter of that name (a positive integer: the change's other targets): `/virtual_machines/:id/disks/:disk_id/backups`.
   */
  path: `/${string}`;
  /** The body its parameters make (codec.ts writes it in the configured format); null: none. */
  body: (params: P) => WireBody;
  expectedStatuses: readonly number[];
  answer: S;
  /** Older clouds: the same request at another path (same placeholders), tried when `path` answers 404. */
  olderPath?: `/${string}`;
  /** A second request, sent once the first was accepted (same placeholders), any 2xx its answer unread. */
  then?: { operation: string; path: `/${string}` };
}

/** A declared change request: the spec, and the request it makes for one target and its parameters. */
export interface ChangeRequest<P, S extends ResponseShape> extends ChangeRequestSpec<P, S> {
  /** The request for `targetId` with `params`, in `format`; sends nothing. */
  prepare(format: WireFormat, targetId: number, params: P): PreparedRequest<S>;
}

/** Declares a change's request (one row of src/changes/definitions.ts each). */
export function changeRequest<P, S extends ResponseShape>(spec: ChangeRequestSpec<P, S>): ChangeRequest<P, S> {
  for (const path of [spec.path, spec.olderPath, spec.then?.path]) {
    if (path !== undefined && !/^(\/[a-z_]+|\/:[a-z_]+)+$/.test(path)) throw new Error(`not a path template: ${path}`);
  }
  if (!spec.path.includes('/:id')) throw new Error(`not a path template with :id: ${spec.path}`);
  const fill = (template: string, format: WireFormat, targetId: number, params: P) =>
    `${template.replace(/:([a-z_]+)/g, (_all, name: string) => pathId(name === 'id' ? targetId : (params as Record<string, unknown>)[name]))}.${format}`;
  return {
    ...spec,
    prepare: (format, targetId, params) => ({
      operation: spec.operation,
      method: spec.method,
      path: fill(spec.path, format, targetId, params),
      body: encodeBody(format, spec.body(params)),
      expectedStatuses: spec.expectedStatuses,
      answer: spec.answer,
      ...(spec.olderPath ? { olderPath: fill(spec.olderPath, format, targetId, params) } : {}),
      ...(spec.then
        ? { then: { operation: spec.then.operation, method: 'POST' as const, path: fill(spec.then.path, format, targetId, params), expectedStatuses: ANY_2XX } }
        : {}),
    }),
  };
}

/** Whatever success a request whose answer varies across versions may answer with. */
const ANY_2XX: readonly number[] = [200, 201, 202, 204];

/** A change request without a body. */
export const noBody = (): WireBody => null;

/** Ids go into the path; anything but a positive integer is a bug on our side, not an API call. */
export function pathId(id: unknown): string {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw new RangeError(`expected a positive integer id, got ${String(id)}`);
  return String(id);
}

/** A request as people read it, exactly as it goes on the wire: its line (method and path), then its body. */
export function requestText(request: { method: string; path: string; body: string | null }): string {
  return `${request.method} ${request.path}${request.body === null ? '' : `\n\n${request.body}`}`;
}

/** Whether a prepared request puts the same bytes on the wire as `b` (a request as recorded): the same method, path and body. */
export function samePreparedRequest(a: PreparedRequest, b: { method: string; path: string; body: string | null }): boolean {
  return a.method === b.method && a.path === b.path && a.body === b.body;
}
