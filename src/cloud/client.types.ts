import type { Decoded, ResponseShape, WireFormat } from './codec';
import type { PreparedRequest } from './prepared';
import type { AutoscalingSlot, FirewallRule } from './schemas';

/** The reads of docs/cloud-api.md (Firewall rules, Autoscaling rules), and the sending of prepared changes. Every failure is a CloudError. */
export interface CloudClient {
  /** GET /virtual_machines/:id/firewall_rules (docs/cloud-api.md, Firewall rules). Frozen: overlapping callers share it. */
  listFirewallRules(vsId: number): Promise<ReadonlyArray<Readonly<FirewallRule>>>;
  /** GET /virtual_machines/:id/auto_scaling (docs/cloud-api.md, Autoscaling rules): six slots, placeholders kept. Frozen, shared likewise. */
  listAutoscaling(vsId: number): Promise<ReadonlyArray<Readonly<AutoscalingSlot>>>;
  /** VS_API_FORMAT: what a change must be prepared in to be sent by this client. */
  readonly format: WireFormat;
  /** Sends a prepared change exactly as prepared (method, path, body) and reads its answer as it says. Never retried. */
  send<S extends ResponseShape>(request: PreparedRequest<S>): Promise<Decoded<S>>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}
