import fc from 'fast-check';
import { channelMention, code, escapeMrkdwn, fallback, safe, sandboxNotice, truncate, userMention } from '../../../src/slack/blocks/mrkdwn';

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
