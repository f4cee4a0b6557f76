import { z } from 'zod';

// The template catalogue (docs/cloud-api.md, Templates). The API describes each template but
// omits the literal labels; these follow its pattern "<distribution> <version>
// x64" (Windows: "<name> <year> x64 <edition> R2"). Labels are exact and
// case-sensitive, as the API treats them.

export const Virtualization = z.enum(['XEN', 'KVM']);
export type Virtualization = z.infer<typeof Virtualization>;

export const Template = z.object({
  label: z.string().min(1),
  minMemoryMb: z.number().int().positive(),
  minDiskGb: z.number().int().positive(),
  virtualization: z.array(Virtualization).min(1),
  license: z.literal('KMS').nullable(),
});
export type Template = z.infer<typeof Template>;

const both: Virtualization[] = ['XEN', 'KVM'];

const CATALOGUE: readonly Template[] = z
  .array(Template)
  .parse([
    { label: 'CentOS 6.7 x64', minMemoryMb: 384, minDiskGb: 5, virtualization: both, license: null },
    { label: 'CentOS 7.1 x64', minMemoryMb: 384, minDiskGb: 5, virtualization: both, license: null },
    { label: 'Debian 8.0 x64', minMemoryMb: 512, minDiskGb: 6, virtualization: both, license: null },
    { label: 'FreeBSD 10.1 x64', minMemoryMb: 256, minDiskGb: 5, virtualization: both, license: null },
    { label: 'RHEL 6.7 x64', minMemoryMb: 512, minDiskGb: 6, virtualization: both, license: null },
    { label: 'RHEL 7.1 x64', minMemoryMb: 512, minDiskGb: 6, virtualization: both, license: null },
    { label: 'Ubuntu 12.04 x64', minMemoryMb: 128, minDiskGb: 5, virtualization: both, license: null },
    { label: 'Ubuntu 14.04 x64', minMemoryMb: 256, minDiskGb: 5, virtualization: both, license: null },
    { label: 'Windows 2008 x64 datacenter R2', minMemoryMb: 1024, minDiskGb: 20, virtualization: ['KVM'], license: 'KMS' },
    { label: 'Windows 2008 x64 standard R2', minMemoryMb: 256, minDiskGb: 5, virtualization: ['KVM'], license: 'KMS' },
    { label: 'Windows 2012 x64 datacenter R2', minMemoryMb: 1024, minDiskGb: 20, virtualization: ['KVM'], license: 'KMS' },
    { label: 'Windows 2012 x64 standard R2', minMemoryMb: 1024, minDiskGb: 20, virtualization: ['KVM'], license: 'KMS' },
  ])
  .map((template) => Object.freeze({ ...template, virtualization: Object.freeze([...template.virtualization]) as Virtualization[] }));

Object.freeze(CATALOGUE);

/** The whole catalogue, in the order of docs/cloud-api.md. Frozen: callers share it. */
export const TEMPLATES: readonly Template[] = CATALOGUE;

/** The template with exactly this label (case-sensitive), or undefined. */
export function findTemplate(label: string): Template | undefined {
  return CATALOGUE.find((template) => template.label === label);
}

/**
 * Templates whose label, virtualization or license contains `text`, ignoring
 * case and surrounding spaces; empty text gives the whole catalogue.
 */
export function filterTemplates(text: string): Template[] {
  const needle = text.trim().toLowerCase();
  if (needle === '') return [...CATALOGUE];
  return CATALOGUE.filter((template) =>
    [template.label, ...template.virtualization, template.license ?? ''].some((part) => part.toLowerCase().includes(needle)),
  );
}
