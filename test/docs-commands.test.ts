import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../src/slack/listeners/commands';

// The `/vs` tables of docs/reference.md ("Every command", linked from the README) and docs/product.md ("The `/vs` command") list the command table
// (src/slack/listeners/commands/index.ts): a row added to it is added to both, and neither table names a command the
// bot does not have. A command is known by its words (`firewall remove`) and its aliases (`status`).

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The first cells of the markdown table that follows `heading`, up to its first blank line. */
function firstCells(text: string, heading: string): string[] {
  const from = text.indexOf(heading);
  if (from < 0) throw new Error(`no "${heading}"`);
  const lines = text.slice(from).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const table = lines.slice(start);
  const end = table.findIndex((line) => !line.startsWith('|'));
  return (end < 0 ? table : table.slice(0, end)).slice(2).map((row) => row.replace(/\\\|/g, '¦').split('|')[1]!.trim());
}

/** The commands a cell names: each `/vs …` code span, by its leading words (`/vs firewall block <vs_id> …` → `firewall block`). */
function commandsIn(cell: string): string[] {
  return [...cell.matchAll(/`\/vs([^`]*)`/g)].map(([, rest]) => {
    const words: string[] = [];
    for (const token of rest!.trim().split(/\s+/)) {
      if (!/^[a-z]+$/.test(token)) break;
      words.push(token);
    }
    return words.join(' ');
  });
}

const known = new Set(COMMANDS.flatMap((row) => [row.words.join(' '), ...(row.aliases ?? []), ...('whenEmpty' in row && row.whenEmpty ? [''] : [])]));

describe('the tables of /vs commands', () => {
  test.each([
    ['docs/reference.md', '## Every command'],
    ['docs/product.md', '## The `/vs` command'],
  ])('%s (%s) names every command of the table, and no other', (file, heading) => {
    const named = new Set(firstCells(read(file), heading).flatMap(commandsIn));
    expect([...named].sort()).toEqual([...known].sort());
  });

  test('a command missing from a table, or one the bot lacks, is seen', () => {
    const table = '## T\n\n| input | what |\n|---|---|\n| `/vs help` or `/vs` | x |\n| `/vs firewall block <vs_id> <a>`, `/vs firewall allow …` | y \\| z |\n';
    expect(firstCells(table, '## T').flatMap(commandsIn)).toEqual(['help', '', 'firewall block', 'firewall allow']);
  });
});
