// Leases: `owner` holds a name until a time, across instances. The change
// door leases its target (one change to a server or backup at a time); the
// periodic jobs lease their job's name (one instance runs it at a time).
// A dead holder's lease expires; a live one renews it.

/** A lease: `owner` holds `target` until `nowMs + ttlMs`. */
export interface Lease {
  target: string;
  owner: string;
  nowMs: number;
  ttlMs: number;
}

export interface Leases {
  /**
   * Takes the lease on a target until `nowMs + ttlMs`: true when it was free,
   * expired (taken over from a dead owner) or already `owner`'s (renewed);
   * false while another owner's lease is live. Atomic across instances.
   */
  take(target: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Ends `owner`'s lease on the target; someone else's (a takeover) is left alone. */
  release(target: string, owner: string): Promise<void>;
  /**
   * Moves `owner`'s lease on the target to `nowMs + ttlMs`, expired or not, as long as nobody has taken it
   * over: true when it did. Unlike take(), never makes a lease that is not there (one released meanwhile
   * stays released). The change door keeps its lease so while the cloud API call runs.
   */
  extend(target: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean>;
}
