import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors';
import { dbPathProblem, openSqliteStore } from '../../src/store/sqlite';

// A VS_DB_PATH that cannot hold the database is a configuration problem,
// named as such with what to do, not SQLite's or the file system's own words.
// (Exit status 2, and a folder the bot's user may not write in: test/main.test.ts.)

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vs-db-path-'));
  writeFileSync(join(dir, 'a-file'), 'not a folder');
  writeFileSync(join(dir, 'notes.txt'), 'these are notes, not a database, and must stay as they are\n'.repeat(100));
  mkdirSync(join(dir, 'a-folder'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What opening `path` stops with: the ConfigError's one problem. */
function problemOpening(path: string): string {
  try {
    openSqliteStore(path);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error(`${path} opened`);
}

test('a directory: the message says so and names a file to use in it', () => {
  const folder = join(dir, 'a-folder');
  expect(problemOpening(folder)).toBe(`VS_DB_PATH (${folder}) is a directory, not a file: set it to a file in it, e.g. ${join(folder, 'vs-chatops.sqlite')}`);
});

test('a path under a file, right under it or deeper: the file in the way is named', () => {
  const file = join(dir, 'a-file');
  const expected = (path: string) =>
    `VS_DB_PATH (${path}) lies under ${file}, which is a file, not a directory: set VS_DB_PATH to a path whose folders are folders`;
  expect(problemOpening(join(file, 'vs.sqlite'))).toBe(expected(join(file, 'vs.sqlite')));
  expect(problemOpening(join(file, 'deeper', 'vs.sqlite'))).toBe(expected(join(file, 'deeper', 'vs.sqlite')));
});

test('a file that is not a SQLite database is refused and left as it was', () => {
  const notes = join(dir, 'notes.txt');
  const before = readFileSync(notes);
  expect(problemOpening(notes)).toBe(`VS_DB_PATH (${notes}) is not a SQLite database: point it at the bot's database file, or at a new path for an empty one`);
  expect(readFileSync(notes).equals(before)).toBe(true);
});

test('folders that do not exist yet are fine: they are made', async () => {
  const path = join(dir, 'new', 'deeper', 'vs.sqlite');
  expect(dbPathProblem(path)).toBeNull();
  const store = openSqliteStore(path);
  await store.close();
});
