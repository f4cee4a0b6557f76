import { z } from 'zod';

// What a modal remembers between opening and submission. Context only: who
// submits and what they may do is decided again from the submission itself.
export const ModalMetadata = z.object({
  /** Channel the command was typed in; absent when opened from a shortcut. */
  channelId: z.string().regex(/^[CGD][A-Z0-9]+$/).optional(),
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
