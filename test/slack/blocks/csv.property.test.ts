import fc from 'fast-check';
import { csvCell } from '../../../src/slack/blocks/csv';

// Export CSV's cells never run as formulas (docs/product.md, Long lists: safe in a spreadsheet): whatever text the
// cloud API or a form holds, the first character a spreadsheet reads in its cell (after the spaces, control and
// invisible characters it skips) is never one that starts a formula, and the text itself is kept whole.

/** What Excel, LibreOffice and Google Sheets read as the start of a formula, in every form they take it. */
const FORMULA_STARTS = ['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', '\uFE66', '\uFE62', '\uFE63', '\uFE6B', '\u2212'];
/** What a spreadsheet skips before it: spaces of every kind, control and invisible formatting characters. */
const SKIPPED = [' ', '\t', '\r', '\n', '\u00A0', '\u2003', '\u3000', '\u200B', '\u200E', '\u202E', '\u2060', '\uFEFF', '\u0000', '\u001F'];

/** A cell as a spreadsheet reads it: unquoted (RFC 4180). */
function read(cell: string): string {
  return cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
}

/** The first character a spreadsheet acts on. */
const firstRead = (text: string) => text.replace(/^[\s\p{Cc}\p{Cf}]+/u, '').charAt(0);

const text = fc.oneof(
  // Formula-like: skipped characters, a formula start, anything.
  fc
    .tuple(fc.array(fc.constantFrom(...SKIPPED), { maxLength: 4 }), fc.constantFrom(...FORMULA_STARTS), fc.string({ maxLength: 20 }))
    .map(([skipped, start, rest]) => `${skipped.join('')}${start}${rest}`),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...SKIPPED, ...FORMULA_STARTS, 'a', '1', '"', ','), maxLength: 12 }),
);

describe('CSV cells', () => {
  test('never start a formula, after whatever a spreadsheet skips, and keep their text whole', () => {
    fc.assert(
      fc.property(text, (value) => {
        const cell = read(csvCell(value));
        expect(FORMULA_STARTS).not.toContain(firstRead(cell));
        expect([value, `'${value}`]).toContain(cell);
        // A cell that starts with a tab, a carriage return or a line feed is defused too.
        if (/^[\t\r\n]/.test(value)) expect(cell).toBe(`'${value}`);
      }),
      { numRuns: 2000 },
    );
  });

  test('the forms the review found: after leading spaces, and full width', () => {
    expect(read(csvCell('  =1+1'))).toBe("'  =1+1");
    expect(read(csvCell('\uFF1DSUM(A1)'))).toBe("'\uFF1DSUM(A1)");
    expect(read(csvCell('\uFF0B1'))).toBe("'\uFF0B1");
    expect(read(csvCell('\uFF0D1'))).toBe("'\uFF0D1");
    expect(read(csvCell('\uFF20A1'))).toBe("'\uFF20A1");
    expect(csvCell('plain words')).toBe('plain words');
    expect(csvCell('a - b')).toBe('a - b');
  });
});
