import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

// Every path the docs and the comments name exists (docs/product.md and docs/cloud-api.md are cited the same
// way): a reader who follows one must find the file. A path is named when it starts at one of the repository's
// folders below and ends in a file extension or a slash; a Markdown link is followed from its own file.

const ROOT = path.resolve(__dirname, '..');
const CODE_FOLDERS = ['src', 'test', 'bench', 'scripts', 'packages'];
const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage', 'reports', '.stryker-tmp']);

/** A repository-relative path: one of our top folders, then more of a path, ending in an extension or a slash. */
const NAMED_PATH = /(?<![\w./@:-])(?:src|test|docs|bench|scripts|packages)\/[\w./-]*/g;
/** The target of a Markdown link or image that is not a URL nor an anchor. */
const MARKDOWN_LINK = /\]\((?![a-z][\w+.-]*:|#)([^)\s#]+)/gi;

/** One file's text to look in: a Markdown file whole, or a code file's comments. */
interface Named {
  file: string; // repository-relative
  text: string;
}

/** The paths a text names, as written (a sentence's full stop left off). */
function pathsIn(text: string): string[] {
  const paths: string[] = [];
  for (const [match] of text.matchAll(NAMED_PATH)) {
    const named = match.replace(/\.+$/, '');
    if (named.endsWith('/') || /\.\w+$/.test(named)) paths.push(named);
  }
  return paths;
}

/** Every comment of a TypeScript or JavaScript file, found by TypeScript's own parser (not fooled by `//` in a string). */
function commentsOf(fileName: string, source: string): string {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const comments = new Map<number, string>();
  const collect = (pos: number) => {
    for (const range of [...(ts.getLeadingCommentRanges(source, pos) ?? []), ...(ts.getTrailingCommentRanges(source, pos) ?? [])]) {
      comments.set(range.pos, source.slice(range.pos, range.end));
    }
  };
  const visit = (node: ts.Node) => {
    collect(node.pos);
    collect(node.end);
    node.forEachChild(visit);
  };
  collect(0);
  visit(file);
  return [...comments]
    .sort(([a], [b]) => a - b)
    .map(([, comment]) => comment)
    .join('\n');
}

/** Where a path named in `file` may be: from the repository's root, or from the root of the package that holds it. */
function exists(file: string, named: string, root: string): boolean {
  const packageRoot = /^packages\/[^/]+\//.exec(file)?.[0];
  return existsSync(path.join(root, named)) || (packageRoot !== undefined && existsSync(path.join(root, packageRoot, named)));
}

/**
 * The paths .gitignore names literally (no wildcard): outputs of a run (bench/results.json), which a comment may
 * name though no clone has them.
 */
function ignoredPaths(root: string): string[] {
  const gitignore = path.join(root, '.gitignore');
  if (!existsSync(gitignore)) return [];
  return readFileSync(gitignore, 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^\//, ''))
    .filter((line) => line !== '' && !/[#!*?[\\]/.test(line));
}

/** Each path that names nothing, as "<file>: <path>". */
function missingPaths(files: Named[], root: string): string[] {
  const ignored = ignoredPaths(root);
  const isOutput = (named: string) => ignored.some((output) => named === output || (output.endsWith('/') && named.startsWith(output)));
  const missing: string[] = [];
  for (const { file, text } of files) {
    for (const named of pathsIn(text)) {
      if (!exists(file, named, root) && !isOutput(named)) missing.push(`${file}: ${named}`);
    }
    if (!file.endsWith('.md')) continue;
    for (const [, target = ''] of text.matchAll(MARKDOWN_LINK)) {
      if (!existsSync(path.join(root, path.dirname(file), decodeURIComponent(target)))) missing.push(`${file}: ${target}`);
    }
  }
  return missing;
}

/** The files under a folder of the repository, as repository-relative paths, leaving out installed and generated folders. */
function filesUnder(folder: string): string[] {
  if (!existsSync(path.join(ROOT, folder))) return [];
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : filesUnder(file);
    return entry.isFile() ? [file] : [];
  });
}

/** The repository's docs and comments. */
function repositoryTexts(): Named[] {
  const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
  const markdown = ['README.md', ...filesUnder('docs'), ...CODE_FOLDERS.flatMap(filesUnder)].filter((file) => file.endsWith('.md'));
  const code = [...readdirSync(ROOT).filter((file) => CODE.test(file)), ...CODE_FOLDERS.flatMap(filesUnder).filter((file) => CODE.test(file))];
  const hashComments = ['.env.example', 'manifest.yml'].map((file) => ({
    file,
    text: read(file)
      .split('\n')
      .filter((line) => line.trimStart().startsWith('#'))
      .join('\n'),
  }));
  return [...markdown.map((file) => ({ file, text: read(file) })), ...code.map((file) => ({ file, text: commentsOf(file, read(file)) })), ...hashComments];
}

describe('paths named in the docs and in comments', () => {
  let texts: Named[] = [];
  beforeAll(() => {
    texts = repositoryTexts();
  });

  test('every one exists', () => {
    expect(texts.map(({ file }) => file)).toEqual(expect.arrayContaining(['README.md', 'docs/product.md', 'src/main.ts', 'test/docs-paths.test.ts']));
    expect(pathsIn(texts.find(({ file }) => file === 'src/store/audit.ts')?.text ?? '')).toContain('docs/product.md');
    expect(missingPaths(texts, ROOT)).toEqual([]);
  });

  test('none cites the contract or the API reference from outside the repository (PRODUCT.md, "spec 4.3")', () => {
    const outside = /\bPRODUCT\.md\b|\bspec (?:section )?\d|\bspec\/cloud-api|cloud-api-beyond\.md|\.\.\/shared\//;
    const citing = texts.flatMap(({ file, text }) => text.split('\n').flatMap((line) => (outside.test(line) ? [`${file}: ${line.trim()}`] : [])));
    expect(citing).toEqual([]);
  });

  test('a path that names nothing is reported with the file that names it', () => {
    const source = [
      'const url = "https://example.com/src/nowhere.ts"; // see src/cloud/client.ts and test/cloud/nowhere.test.ts.',
      '/* docs/product.md, Approvals; bench/nowhere/ */',
      'const notAComment = "src/in-a-string.ts";',
    ].join('\n');
    const files: Named[] = [
      { file: 'src/example.ts', text: commentsOf('example.ts', source) },
      { file: 'docs/example.md', text: 'See [the product](product.md), [nothing](nothing.md), [Slack](https://api.slack.com/) and src/gone/.' },
    ];
    expect(missingPaths(files, ROOT)).toEqual([
      'src/example.ts: test/cloud/nowhere.test.ts',
      'src/example.ts: bench/nowhere/',
      'docs/example.md: src/gone/',
      'docs/example.md: nothing.md',
    ]);
  });

  test("a package's file may name its own files from the package root, and any file a run's output git ignores", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docs-paths-'));
    try {
      mkdirSync(path.join(root, 'packages/example/src'), { recursive: true });
      writeFileSync(path.join(root, 'packages/example/src/own.ts'), '');
      writeFileSync(path.join(root, '.gitignore'), '# outputs\nbench/results.json\nbench/profiles/\n*.cpuprofile\n');
      const text = 'Its own src/own.ts, but not src/absent.ts; bench/results.json, bench/profiles/run.cpuprofile, not bench/other.json.';
      expect(missingPaths([{ file: 'packages/example/README.md', text }], root)).toEqual([
        'packages/example/README.md: src/absent.ts',
        'packages/example/README.md: bench/other.json',
      ]);
      expect(missingPaths([{ file: 'README.md', text }], root)).toEqual(['README.md: src/own.ts', 'README.md: src/absent.ts', 'README.md: bench/other.json']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
