import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CHANGE_ACTIONS } from '../src/changes';

// The changes VS_APPROVALS may name, as the README and docs/product.md list them, are the table of changes
// (src/changes/definitions.ts), in its order: a change added to the table is added to both lists, and no list names a
// change the table does not have.

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const actionsIn = (line: string | undefined) => [...(line ?? '').matchAll(/`([a-z_]+)`/g)].map(([, name]) => name);

describe('the lists of approvable actions', () => {
  test.each([
    ['docs/reference.md', /^\| `VS_APPROVALS` \| changes that wait for a second person: (.*?) \|/m],
    ['docs/product.md', /^\| `VS_APPROVALS` \| the actions that need a second person: (.*?) \|/m],
    ['docs/product.md', /^`VS_APPROVALS` names the actions that need a second person \(([^;]*);/m],
  ])('%s (%s) names the change table, in its order', (file, line) => {
    expect(actionsIn(line.exec(read(file))?.[1])).toEqual([...CHANGE_ACTIONS]);
  });

  test("the README's example of a second person names every change too", () => {
    const example = /`VS_APPROVALS=([a-z_,]+)`/.exec(read('README.md'))?.[1];
    expect(example?.split(',')).toEqual([...CHANGE_ACTIONS]);
  });
});
