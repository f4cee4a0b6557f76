import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestFunctions } from '../src/slack/listeners/functions';

// Writes manifest.yml's `functions` from the FUNCTIONS table
// (src/slack/listeners/functions/index.ts), so that a step added or changed
// there is declared to Slack as the bot reads it:
//   node --import tsx scripts/manifest-functions.ts          prints the block
//   node --import tsx scripts/manifest-functions.ts --write  replaces it in manifest.yml
// test/slack/listeners/manifest.test.ts fails until the two agree.

type Value = string | readonly Value[] | { readonly [key: string]: Value };

/** A scalar: plain when YAML reads it back as the same text, else quoted as Prettier would leave it. */
function scalar(text: string): string {
  const plain =
    text !== '' && !/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(text) && !/: |:$| #|\s$/.test(text) && !/^(true|false|null|yes|no|on|off|~|[0-9.+-]+)$/i.test(text);
  if (plain) return text;
  return text.includes("'") ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `'${text}'`;
}

function yaml(value: Value, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (typeof value === 'string') return [`${pad}${scalar(value)}`];
  if (Array.isArray(value))
    return (value as readonly Value[]).flatMap((item) => {
      if (typeof item === 'string') return [`${pad}- ${scalar(item)}`];
      const [first, ...rest] = yaml(item, indent + 2);
      return [`${pad}- ${first!.trimStart()}`, ...rest];
    });
  return Object.entries(value as { readonly [key: string]: Value }).flatMap(([key, item]) =>
    typeof item === 'string' ? [`${pad}${key}: ${scalar(item)}`] : [`${pad}${key}:`, ...yaml(item, indent + 2)],
  );
}

/** The `functions:` block of manifest.yml, as the table declares it. */
export function functionsBlock(): string {
  return ['functions:', ...yaml(manifestFunctions() as unknown as Value, 2)].join('\n');
}

if (require.main === module) {
  const block = functionsBlock();
  if (!process.argv.includes('--write')) {
    process.stdout.write(`${block}\n`);
  } else {
    const path = join(__dirname, '..', 'manifest.yml');
    const manifest = readFileSync(path, 'utf8');
    // From `functions:` to the next top-level key (or a comment above it).
    const found = /^functions:\n(?:(?: .*|)\n)*?(?=^[#a-z])/m.exec(manifest);
    if (!found) throw new Error('manifest.yml has no top-level functions: block to replace');
    writeFileSync(path, manifest.replace(found[0], `${block}\n`));
    process.stdout.write('manifest.yml: functions written from the FUNCTIONS table\n');
  }
}
