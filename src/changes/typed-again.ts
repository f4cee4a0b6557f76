import { z } from 'zod';

// A form's confirmation of what it changes: the id typed again (restoring a
// backup overwrites a disk; a power action interrupts a server).

/** The `confirm` input: `id` typed again; ids may be written with a leading # everywhere (docs/product.md, The `/vs` command), this one too. */
export function typedAgain(id: number, mismatch: string) {
  return z
    .string({ error: mismatch })
    .optional()
    .refine((s) => s !== undefined && s.trim().replace(/^#/, '') === String(id), mismatch);
}
