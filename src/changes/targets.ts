// What a change is about: a server or a backup, by id, and the other things a
// change names (a disk backed up, a firewall rule removed). One table of target
// kinds: the form field that carries the id, the title words and the error
// for a missing id.

export type TargetKind = 'vs' | 'backup' | 'disk' | 'rule';

export interface Target {
  kind: TargetKind;
  id: number;
}

interface TargetKindRow {
  /** The form input that carries the id when a form is opened from a shortcut. */
  field: 'vs_id' | 'backup_id' | 'disk_id' | 'rule_id';
  /** A target's title starts with this: "VS 42", "Backup 9". */
  title: string;
  /** The form error for a missing or malformed id. */
  idError: string;
}

export const TARGET_KINDS: { readonly [K in TargetKind]: TargetKindRow } = {
  vs: { field: 'vs_id', title: 'VS', idError: 'Enter the server id: a positive whole number, e.g. 42' },
  backup: { field: 'backup_id', title: 'Backup', idError: 'Enter the backup id: a positive whole number, e.g. 9' },
  disk: { field: 'disk_id', title: 'Disk', idError: 'Pick the disk' },
  rule: { field: 'rule_id', title: 'Firewall rule', idError: 'Enter the rule id: a positive whole number, e.g. 3' },
};

/** The audit's name of a target: `vs:42`, `backup:9`. */
export const targetKey = (target: Target): string => `${target.kind}:${target.id}`;

/** The one title of a target, in audit details and messages alike: "VS 42", "Backup 9". */
export const targetTitle = (target: Target): string => `${TARGET_KINDS[target.kind].title} ${target.id}`;

export const isTargetId = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/** The id in a target's audit name (`backup:9` → 9) when it names a target of `kind`; null otherwise. */
export function targetIdIn(key: string, kind: TargetKind): number | null {
  const prefix = `${kind}:`;
  if (!key.startsWith(prefix)) return null;
  const id = Number(key.slice(prefix.length));
  return isTargetId(id) && String(id) === key.slice(prefix.length) ? id : null;
}
