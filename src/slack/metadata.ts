import { z } from 'zod';
import type { TargetKind } from '../changes';

// What a modal remembers between opening and submission. Context only: who
// submits and what they may do is decided again from the submission itself.
export const ModalMetadata = z.object({
  /** Channel the command was typed in; absent when opened from a shortcut. */
  channelId: z
    .string()
    .regex(/^[CGD][A-Z0-9]+$/)
    .optional(),
  vsId: z.number().int().positive().optional(),
  backupId: z.number().int().positive().optional(),
  /** Form values fixed when it opened (the rule removed, the only network interface), read with the form's own. */
  fixed: z.record(z.string().max(40), z.string().max(100)).optional(),
  /** The values whose effect the form shows (a firewall rule's preview), as its form keys them: a submission of others shows it again first. */
  shown: z.string().max(400).optional(),
  /** The slash command's response_url, to post the result where it was asked. */
  responseUrl: z.string().url().optional(),
});
export type ModalMetadata = z.infer<typeof ModalMetadata>;

export function writeMetadata(meta: ModalMetadata): string {
  return JSON.stringify(meta);
}

export function readMetadata(raw: string | undefined): ModalMetadata {
  if (!raw) return {};
  try {
    const parsed = ModalMetadata.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The metadata key of a target kind: a server's id is `vsId`, a backup's `backupId`. */
const TARGET_KEY: Partial<Record<TargetKind, 'vsId' | 'backupId'>> = { vs: 'vsId', backup: 'backupId' };

/** Changes are about servers and backups; the other things they name (a disk, a rule) travel as form values. */
export function targetMetadata(kind: TargetKind, id: number): Pick<ModalMetadata, 'vsId' | 'backupId'> {
  const key = TARGET_KEY[kind];
  return key ? { [key]: id } : {};
}

export function targetIdIn(meta: ModalMetadata, kind: TargetKind): number | undefined {
  const key = TARGET_KEY[kind];
  return key ? meta[key] : undefined;
}
