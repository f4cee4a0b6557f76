import type { KnownBlock } from '@slack/types';
import { context, fallback, header, safe, section, withSandbox, type Rendered } from './mrkdwn';

/** Structurally the catalogue's Template (src/cloud/templates.ts). */
export interface TemplateRow {
  label: string;
  minMemoryMb: number;
  minDiskGb: number;
  virtualization: readonly string[];
  license: string | null;
}

export function renderTemplates({ templates, filter, sandbox }: { templates: readonly TemplateRow[]; filter: string; sandbox: boolean }): Rendered {
  const shownFilter = filter.trim() ? ` matching “${safe(filter, 40)}”` : '';
  const blocks: KnownBlock[] = [header('Template catalogue')];
  if (templates.length === 0) {
    blocks.push(section(`No template${shownFilter}. \`/vs templates\` lists them all.`));
    return { text: fallback(`No template${shownFilter}`, sandbox), blocks: withSandbox(blocks, sandbox) };
  }
  const lines = templates
    .slice(0, 60)
    .map(
      (t) =>
        `*${safe(t.label, 80)}* · min ${t.minMemoryMb} MB RAM · min ${t.minDiskGb} GB disk · ${safe(t.virtualization.join('/'), 20)}` +
        (t.license ? ` · licence ${safe(t.license, 20)}` : ''),
    );
  blocks.push(context(`${templates.length} template${templates.length === 1 ? '' : 's'}${shownFilter}`));
  for (let i = 0; i < lines.length; i += 15) blocks.push(section(lines.slice(i, i + 15).join('\n')));
  if (templates.length > lines.length) blocks.push(context(`and ${templates.length - lines.length} more: narrow the list with \`/vs templates &lt;text&gt;\``));
  return { text: fallback(`${templates.length} template${templates.length === 1 ? '' : 's'}${shownFilter}`, sandbox), blocks: withSandbox(blocks, sandbox) };
}
