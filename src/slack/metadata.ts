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
const TARGET_KEY = { vs: 'vsId', backup: 'backupId' } as const;

export function targetMetadata(kind: TargetKind, id: number): Pick<ModalMetadata, 'vsId' | 'backupId'> {
  return { [TARGET_KEY[kind]]: id };
}

export function targetIdIn(meta: ModalMetadata, kind: TargetKind): number | undefined {
  return meta[TARGET_KEY[kind]];
}
