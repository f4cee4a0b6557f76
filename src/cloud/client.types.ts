import type { WireFormat } from './codec';
import type { PreparedRequest } from './prepared';
import type { ReadMethods } from './reads';
import type { Decoded, ResponseShape } from './shapes';

/**
 * The cloud API (docs/cloud-api.md): a method per read of reads.ts
 * (`listFirewallRules(vsId)`, `getServer(vsId)`, `listTransactions(vsId, { page })`…,
 * single-flight and frozen: overlapping callers share them), and the sending of
 * prepared changes. Every failure is a CloudError.
 */
export interface CloudClient extends ReadMethods {
  /** VS_API_FORMAT: what a change must be prepared in to be sent by this client. */
  readonly format: WireFormat;
  /** Sends a prepared change exactly as prepared (method, path, body) and reads its answer as it says. Never retried. */
  send<S extends ResponseShape>(request: PreparedRequest<S>): Promise<Decoded<S>>;
  /**
   * The same reads on the connections kept for changes (VS_API_CHANGE_CONNECTIONS), never on those of reads: what a
   * change reads of the cloud for itself (the newest transaction before it is sent, its transactions while it is
   * followed), so that following many changes never makes a person's read wait. Single-flight among themselves.
   */
  readonly changeReads: ReadMethods;
  /** Closes the connection pool. */
  close(): Promise<void>;
}
