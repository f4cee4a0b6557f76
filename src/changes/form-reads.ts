import type { Disk, FirewallRule } from '../cloud/schemas';

// What a change's form reads before it opens (definitions.ts, `formReads`):
// the server's built disks for the backup form's picker, its firewall rules
// for the firewall forms (the preview of a new rule, the rule to remove in
// words). Data only: src/slack/blocks words it and the forms show it.

export interface FormReads {
  /** The disks a backup may be taken of (built), in the server's order. */
  disks?: readonly Disk[];
  /** The server's firewall rules, as they are. */
  rules?: readonly FirewallRule[];
  /** The rule the form is about (a removal). */
  rule?: FirewallRule;
}

/** Why a form cannot open as the target stands. */
export type FormUnfit = { kind: 'no_built_disk'; disks: number } | { kind: 'no_such_rule'; ruleId: number };

export type FormReading = { ok: true; reads: FormReads } | { ok: false; unfit: FormUnfit };
