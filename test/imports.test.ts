import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

// The shape of the import graph (relative imports of src, the workspace packages, test, bench and scripts), read
// with TypeScript's own pre-processor: no import circles, nothing below src/slack imports it (only the composition
// root does), and a package's code stays inside its package (src/ imports packages by name, never the reverse).

const ROOT = join(__dirname, '..');
const DIRS = ['src', 'packages', 'test', 'bench', 'scripts'];

function sourceFiles(): string[] {
  return DIRS.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .map((file) => join(dir, file))
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts') && !file.includes('node_modules')),
  );
}

function importGraph(): Map<string, string[]> {
  const files = new Set(sourceFiles());
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => {
        const base = relative(ROOT, join(ROOT, dirname(file), name));
        return [base, `${base}.ts`, `${base}.js`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')].find((candidate) => files.has(candidate));
      })
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected parts of the graph with more than one file (Tarjan's algorithm), each as its sorted files. */
function circles(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1 || graph.get(file)?.includes(file)) found.push(part.sort().join(' -> '));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  const graph = importGraph();

  test('reads the imports it checks (a graph with no edges would pass anything)', () => {
    expect(graph.get('src/compose.ts')).toContain('src/config.ts');
  });

  test('has no import circles', () => {
    expect(circles(graph)).toEqual([]);
  });

  test('nothing below src/slack imports it: only the composition root wires it in', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith('src/') && !file.startsWith('src/slack/') && file !== 'src/compose.ts')
      .flatMap(([file, targets]) => targets.filter((target) => target.startsWith('src/slack/')).map((target) => `${file} -> ${target}`));
    expect(upward).toEqual([]);
  });

  test("a workspace package's code imports nothing outside its package (the product imports it by name)", () => {
    const packageOf = (file: string) => /^packages\/[^/]+\//.exec(file)?.[0];
    const code = [...graph].filter(([file]) => /^packages\/[^/]+\/src\//.test(file));
    expect(code.length).toBeGreaterThan(10);
    const leaving = code.flatMap(([file, targets]) =>
      targets.filter((target) => packageOf(target) !== packageOf(file)).map((target) => `${file} -> ${target}`),
    );
    expect(leaving).toEqual([]);
  });
});
