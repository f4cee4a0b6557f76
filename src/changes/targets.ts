// What a change is about: a server or a backup, by id, and the other things a
// change names (a disk backed up, a firewall rule removed). One table of target
// kinds: the form field that carries the id, the title words and the error
// for a missing id.

export type TargetKind = 'vs' | 'backup' | 'disk' | 'rule';

export interface Target {
  kind: TargetKind;
  id: number;
  /** A server's label, when known: its title is then "web-1 (VS 42)" (docs/product.md, Servers by name). */
  label?: string | null;
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

/** The one title of a target, in audit details and messages alike: "web-1 (VS 42)" (or "VS 42" with no label), "Backup 9". */
export function targetTitle(target: Target): string {
  const title = `${TARGET_KINDS[target.kind].title} ${target.id}`;
  const label = target.kind === 'vs' ? target.label?.trim() : undefined;
  return label ? `${label} (${title})` : title;
}

/** A record's target (`vs:42`) in words, with the server's label kept on the record; null for a key of no known kind. */
export function recordTargetTitle(key: string, label?: string | null): string | null {
  for (const kind of Object.keys(TARGET_KINDS) as TargetKind[]) {
    const id = targetIdIn(key, kind);
    if (id !== null) return targetTitle({ kind, id, label });
  }
  return null;
}

export const isTargetId = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/** The id in a target's audit name (`backup:9` → 9) when it names a target of `kind`; null otherwise. */
export function targetIdIn(key: string, kind: TargetKind): number | null {
  const prefix = `${kind}:`;
  if (!key.startsWith(prefix)) return null;
  const id = Number(key.slice(prefix.length));
  return isTargetId(id) && String(id) === key.slice(prefix.length) ? id : null;
}
