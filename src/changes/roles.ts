// The roles of docs/product.md (Roles), lowest first. Who has which is the policy's
// business (policy.ts); what each change needs is its definition's.

export type Role = 'none' | 'viewer' | 'operator' | 'admin';

const RANK: Record<Role, number> = { none: 0, viewer: 1, operator: 2, admin: 3 };

/** Whether `role` includes everything `needed` may do. */
export function atLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}
