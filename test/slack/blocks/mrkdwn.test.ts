import fc from 'fast-check';
import {
  channelMention,
  code,
  escapeMrkdwn,
  fallback,
  header,
  mrkdwn,
  preformattedBlock,
  safe,
  sandboxNotice,
  showInvisible,
  truncate,
  userMention,
} from '../../../src/slack/blocks/mrkdwn';

describe('mrkdwn helpers', () => {
  test('escapeMrkdwn turns & < > into entities and nothing else', () => {
    expect(escapeMrkdwn('<!channel> & <@U1> <https://evil|click> *b*')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt; &lt;https://evil|click&gt; *b*');
  });

  test('truncate cuts with an ellipsis, never splitting a surrogate pair or an entity', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('a&amp;b', 4)).toBe('a…');
  });

  test('safe bounds the escaped length', () => {
    expect(safe('<'.repeat(100), 20).length).toBeLessThanOrEqual(20);
    expect(safe(null)).toBe('');
  });

  test('only real Slack ids become mentions', () => {
    expect(userMention('U123ABC')).toBe('<@U123ABC>');
    expect(userMention('<!channel>')).toBe('`&lt;!channel&gt;`');
    expect(channelMention('C0123')).toBe('<#C0123>');
    expect(channelMention('C1>|x')).not.toContain('<#');
  });

  test('code keeps data inside its span', () => {
    expect(code('a`b\nc')).toBe("`a'b c`");
    expect(code('')).toBe('` `');
  });

  test('sandbox notice and fallback text say it is sandbox data', () => {
    expect(JSON.stringify(sandboxNotice())).toContain('sandbox data — not a real cloud account');
    expect(fallback('x', true)).toMatch(/^\[sandbox data\]/);
    expect(fallback('y'.repeat(5000)).length).toBeLessThanOrEqual(3000);
  });

  test('for any text, safe output has no raw < or > and stays within its bound', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 1, max: 300 }), (s, max) => {
        const out = safe(s, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toMatch(/&(?!(amp|lt|gt);)/);
      }),
      { numRuns: 300 },
    );
  });
});

describe('invisible formatting (docs/product.md, Security)', () => {
  /** Bidirectional controls, zero-width characters and marks, the byte-order mark, separators, tags: what reorders or hides text. */
  const INVISIBLE = /[\p{Cf}\u2028\u2029]/u;
  const invisibles = [
    '\u202A',
    '\u202B',
    '\u202C',
    '\u202D',
    '\u202E',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200B',
    '\u200C',
    '\u200D',
    '\u200E',
    '\u200F',
  ];
  const more = ['\uFEFF', '\u2028', '\u2029', '\u00AD', '\u061C', '\u2060', '\u{E0041}'];

  test('is shown by name in data (safe, code), headers, fallbacks and any mrkdwn text, never as it is', () => {
    expect(safe('pay\u202Eexe.txt')).toBe('pay&lt;U+202E&gt;exe.txt');
    expect(code('a\u200Bb')).toBe('`a&lt;U+200B&gt;b`');
    expect(showInvisible('x\u{E0041}y\u2029')).toBe('x<U+E0041>y<U+2029>');
    expect((header('VS 42 \u2067evil\u2069') as { text: { text: string } }).text.text).toBe('VS 42 <U+2067>evil<U+2069>');
    expect(fallback('a\u202Eb')).toBe('a<U+202E>b');
    expect(mrkdwn('made by hand \u202E').text).toBe('made by hand &lt;U+202E&gt;');
    expect(safe('plain, café, 日本語, emoji 😀')).toBe('plain, café, 日本語, emoji 😀');
  });

  test('for any text, safe shows none of it as it is, and a cut never leaves half a name', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...invisibles, ...more) },
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 120 }), (parts, max) => {
        const out = safe(parts.join(''), max);
        expect(out).not.toMatch(INVISIBLE);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).not.toMatch(/&lt;U(\+[0-9A-F]{0,6})?…$/);
      }),
      { numRuns: 500 },
    );
  });

  test('text shown as it is (an exact request) names them, and says so under it; without any, it is shown byte for byte', () => {
    expect(preformattedBlock('POST /x.json\n\n{"label":"a"}')).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'POST /x.json\n\n{"label":"a"}' }] }],
    });
    const shown = preformattedBlock('{"label":"a\u202Eb"}');
    expect(shown.elements).toEqual([
      { type: 'rich_text_preformatted', elements: [{ type: 'text', text: '{"label":"a<U+202E>b"}' }] },
      {
        type: 'rich_text_section',
        elements: [
          {
            type: 'text',
            text:
              'It holds invisible characters (bidirectional controls, zero-width or other formatting), shown above by name, ' +
              'as <U+202E>; they are sent as they are.',
            style: { italic: true },
          },
        ],
      },
    ]);
  });
});
