import { z } from 'zod';
import { keptAs, OUTCOMES } from './outcome';
import { targetKey } from './targets';
import type { AuditQuery } from '../store';

// The one filter of `/vs audit [n] [vs <id>|backup <id>|@person|<outcome>|breakglass]` (docs/product.md, The /vs command:
// `failed`, `denied`, `refused`, or any other outcome of src/changes/outcome.ts; `breakglass`, the changes made under break glass):
// read by the grammar (listeners/commands/grammar.ts), carried in the list's buttons (its pages, its export),
// worded by src/slack/blocks/audit.ts, read by the agents' audit_log tool, and turned here into the store's query, which an index serves.

export const AuditFilter = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('vs'), id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
  z.object({ kind: z.literal('backup'), id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
  z.object({ kind: z.literal('person'), userId: z.string().regex(/^[UW][A-Z0-9]{2,30}$/) }),
  z.object({ kind: z.literal('outcome'), outcome: z.enum(OUTCOMES) }),
  z.object({ kind: z.literal('breakglass') }),
]);
export type AuditFilter = z.infer<typeof AuditFilter>;

/** The records a filter names, as the store reads them (none: every record). */
export function auditQuery(filter: AuditFilter | undefined): AuditQuery {
  switch (filter?.kind) {
    case undefined:
      return {};
    case 'vs':
    case 'backup':
      return { target: targetKey({ kind: filter.kind, id: filter.id }) };
    case 'person':
      // Theirs, and the changes they asked for that someone else approved.
      return { involving: filter.userId };
    case 'outcome':
      return { outcomes: keptAs(filter.outcome) };
    case 'breakglass':
      return { breakGlass: 'uses' };
  }
}

/** The filter as it is typed after `/vs audit`: `vs 42`, `backup 9`, `<@U1>`, `failed`. */
export function typedFilter(filter: AuditFilter): string {
  switch (filter.kind) {
    case 'vs':
    case 'backup':
      return `${filter.kind} ${filter.id}`;
    case 'person':
      return `<@${filter.userId}>`;
    case 'outcome':
      return filter.outcome;
    case 'breakglass':
      return 'breakglass';
  }
}
