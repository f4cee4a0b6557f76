import { oncePerAnswer } from '../../src/slack/once-per-answer';

describe('a message built once per shared answer', () => {
  it('builds once for everyone holding the same answer, and again for a new answer', () => {
    const once = oncePerAnswer<readonly number[], { text: string }>();
    let builds = 0;
    const build = (answer: readonly number[]) => () => ({ text: `${answer.length} rules, build ${++builds}` });
    const shared = Object.freeze([1, 2, 3]);
    const first = once(shared, build(shared));
    expect(once(shared, build(shared))).toBe(first);
    expect(builds).toBe(1);
    // A later read is a new answer (single-flight is not a cache): a new message.
    const later = Object.freeze([1, 2, 3]);
    expect(once(later, build(later))).toEqual({ text: '3 rules, build 2' });
  });

  it('freezes the message it shares, all the way down: no one who posts it can change it for the others', () => {
    const once = oncePerAnswer<readonly number[], { text: string; blocks: { type: string; elements: { text: string }[] }[] }>();
    const message = once(Object.freeze([1]), () => ({ text: 't', blocks: [{ type: 'context', elements: [{ text: 'e' }] }] }));
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.blocks)).toBe(true);
    expect(Object.isFrozen(message.blocks[0]!.elements[0])).toBe(true);
    expect(() => message.blocks.push({ type: 'divider', elements: [] })).toThrow(TypeError);
  });
});
