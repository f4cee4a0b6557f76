import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The page shows Slack's emoji codes as the emoji (packages/slack-standin/page/blocks.js has
// its own table, the page having no emoji font of Slack's): every code the bot
// writes must be in it, or the page shows `:ice_cube:` where Slack shows 🧊.

const ROOT = join(__dirname, '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

test('every emoji code the bot writes is one the page knows (the outcomes’ signs among them)', () => {
  const page = readFileSync(join(ROOT, 'packages', 'slack-standin', 'page', 'blocks.js'), 'utf8');
  const table = page.slice(page.indexOf('const EMOJI = {'), page.indexOf('};', page.indexOf('const EMOJI = {')));
  const known = new Set([...table.matchAll(/^\s+'?([a-z0-9_+]+)'?: '/gm)].map((m) => m[1]));
  const written = new Set(
    [...filesUnder(join(ROOT, 'src', 'slack')), join(ROOT, 'src', 'changes', 'outcome.ts')]
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/[`'"\s(]:([a-z][a-z0-9_]*):[\s`'"]/g)].map((m) => m[1]!)),
  );
  expect(written.size).toBeGreaterThan(5);
  expect([...written].filter((code) => !known.has(code))).toEqual([]);
});
