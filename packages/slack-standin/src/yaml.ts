// Reads an app manifest (manifest.yml) into plain values: what the stand-in learns of the app (manifest.ts), and
// what the bot's tests hold to its listener tables. Only the YAML a manifest is written in: block mappings and
// lists by indentation, lists of mappings (`- key: value`), plain, single- and double-quoted scalars, folded and
// literal block scalars (`>-`, `|`), `[]`, comments. Anything else throws, naming the line, so a manifest cannot
// drift into a form this reads wrongly. Written by hand because a manifest uses a small part of YAML and the
// project has no YAML library to keep: what this does not take, it refuses.

export type Yaml = string | boolean | Yaml[] | { [key: string]: Yaml };

interface Line {
  indent: number;
  text: string;
  number: number;
}

export function readYaml(source: string): Yaml {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, i) => {
    if (/^\s*(#.*)?$/.test(raw)) return;
    lines.push({ indent: raw.length - raw.trimStart().length, text: raw.trim(), number: i + 1 });
  });
  let at = 0;
  const fail = (line: Line, why: string): never => {
    throw new Error(`manifest.yml line ${line.number}: ${why}: ${line.text}`);
  };

  function scalar(text: string, line: Line): Yaml {
    if (text === '[]') return [];
    if (text.startsWith("'")) {
      if (!text.endsWith("'") || text.length < 2) fail(line, 'unterminated quote');
      return text.slice(1, -1).replace(/''/g, "'");
    }
    if (text.startsWith('"')) return JSON.parse(text) as string;
    if (/[[\]{}&*!%@`]/.test(text[0]!) || / #/.test(text) || /: /.test(text)) fail(line, 'a plain scalar this reader does not take');
    if (text === 'true' || text === 'false') return text === 'true';
    return text;
  }

  /** A block scalar's lines, deeper than `indent`: folded (`>`) into one line, or literal (`|`). */
  function blockScalar(indent: number, folded: boolean, keep: boolean): string {
    const parts: string[] = [];
    while (at < lines.length && lines[at]!.indent > indent) parts.push(lines[at++]!.text);
    const text = parts.join(folded ? ' ' : '\n');
    return keep ? `${text}\n` : text;
  }

  function value(rest: string, indent: number, line: Line): Yaml {
    if (rest === '') {
      if (at < lines.length && lines[at]!.indent > indent) return block(lines[at]!.indent);
      return '';
    }
    if (/^[>|][-+]?$/.test(rest)) return blockScalar(indent, rest.startsWith('>'), rest.endsWith('+'));
    return scalar(rest, line);
  }

  function mapping(indent: number, first?: { text: string; line: Line }): { [key: string]: Yaml } {
    const result: { [key: string]: Yaml } = {};
    const entry = (text: string, line: Line) => {
      const m = /^([A-Za-z0-9_$#/.-]+):(?: (.*))?$/.exec(text);
      if (!m) fail(line, 'not a key: value');
      if (m![1]! in result) fail(line, 'a key twice');
      result[m![1]!] = value((m![2] ?? '').trim(), indent, line);
    };
    if (first) entry(first.text, first.line);
    while (at < lines.length && lines[at]!.indent === indent && !lines[at]!.text.startsWith('- ')) {
      const line = lines[at++]!;
      entry(line.text, line);
    }
    return result;
  }

  function list(indent: number): Yaml[] {
    const items: Yaml[] = [];
    while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('- ')) {
      const line = lines[at++]!;
      const item = line.text.slice(2).trim();
      // A list of mappings: `- key: value`, then the mapping's other keys two columns deeper.
      if (/^[A-Za-z0-9_$#/.-]+:(?: |$)/.test(item)) items.push(mapping(indent + 2, { text: item, line }));
      else items.push(scalar(item, line));
    }
    return items;
  }

  function block(indent: number): Yaml {
    return lines[at]!.text.startsWith('- ') ? list(indent) : mapping(indent);
  }

  const document = block(0);
  if (at < lines.length) fail(lines[at]!, 'not read (indentation?)');
  return document;
}
