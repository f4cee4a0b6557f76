import type { Disk, FirewallRule } from '../cloud/schemas';

// What a change's form reads before it opens (definitions.ts, `formReads`):
// the server's built disks for the backup form's picker, its firewall rules
// for the firewall forms (the preview of a new rule, the rule to remove in
// words). Data only: src/slack/blocks words it and the forms show it. One
// opener (src/slack/listeners/commands/open-change-form.ts) runs every row's
// reads, so a change whose form reads first needs no opener of its own.

export interface FormReads {
  /** The disks a backup may be taken of (built), in the server's order. */
  disks?: readonly Disk[];
  /** The server's firewall rules, as they are. */
  rules?: readonly FirewallRule[];
  /** The rule the form is about (a removal). */
  rule?: FirewallRule;
  /** The network interfaces the server's rules are on (a new rule's choices). */
  interfaces?: readonly number[];
}

/** Why a form cannot open as the target stands. */
export type FormUnfit = { kind: 'no_built_disk'; disks: number } | { kind: 'no_interface' } | { kind: 'no_such_rule'; ruleId: number };

/** The reasons that mean the thing the command named does not exist (answered as not found, not as a bad request). */
export const NAMED_THING_MISSING: ReadonlySet<FormUnfit['kind']> = new Set(['no_such_rule']);

export type FormReading =
  /** `fixed`: form values chosen for the person as the target stands (the rule named, the only interface), kept with the form and read with its values. */
  { ok: true; reads: FormReads; fixed?: Readonly<Record<string, string>> } | { ok: false; unfit: FormUnfit };
