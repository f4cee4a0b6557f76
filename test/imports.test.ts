import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

// The shape of the import graph (relative imports of src, the workspace packages, test, bench and scripts), read
// with TypeScript's own pre-processor: no import circles, nothing below src/slack imports it (only the composition
// root does), src/cloud and src/store take nothing of ours but config's types, the logger's and the error base, and a
// package (its code and its tests) stays inside its package (src/ imports packages by name, never the reverse).

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

/**
 * The imports of one file that are ours, each with whether it takes types only (`import type`, or every name marked
 * `type`): relative ones as the file they resolve to, the workspace packages by name. Read with TypeScript's parser.
 */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) return [];
    const name = specifier.text;
    if (!name.startsWith('.') && !name.startsWith('@vs-chatops/')) return [];
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    const bindings = clause?.namedBindings;
    const typeOnly = ts.isImportDeclaration(statement)
      ? clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly)))
      : statement.isTypeOnly;
    const base = relative(ROOT, join(ROOT, dirname(file), name));
    const target = name.startsWith('.') ? ([`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => existsSync(join(ROOT, candidate))) ?? base) : name;
    return [{ target, typeOnly }];
  });
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

  test("src/cloud and src/store import nothing of ours but config's and the logger's types and src/errors.ts", () => {
    const allowed = (target: string, typeOnly: boolean) => target === 'src/errors.ts' || (typeOnly && ['src/config.ts', 'src/log.ts'].includes(target));
    const files = [...graph.keys()].filter((file) => /^src\/(cloud|store)\//.test(file));
    expect(files.length).toBeGreaterThan(20);
    const leaving = files.flatMap((file) => {
      const folder = file.split('/').slice(0, 2).join('/');
      return importsOf(file)
        .filter(({ target, typeOnly }) => (target.startsWith('@vs-chatops/') || !target.startsWith(`${folder}/`)) && !allowed(target, typeOnly))
        .map(({ target, typeOnly }) => `${file} -> ${target}${typeOnly ? ' (types)' : ''}`);
    });
    expect(leaving).toEqual([]);
  });

  test("a workspace package's code and its tests import nothing outside the package: neither src/ nor the repository's test/", () => {
    const packageOf = (file: string) => /^packages\/[^/]+\//.exec(file)?.[0];
    const inPackages = [...graph].filter(([file]) => /^packages\/[^/]+\/(src|test)\//.test(file));
    expect(inPackages.filter(([file]) => file.includes('/src/')).length).toBeGreaterThan(10);
    expect(inPackages.filter(([file]) => file.includes('/test/')).length).toBeGreaterThan(10);
    const leaving = inPackages.flatMap(([file, targets]) =>
      targets.filter((target) => packageOf(target) !== packageOf(file)).map((target) => `${file} -> ${target}`),
    );
    expect(leaving).toEqual([]);
  });
});
