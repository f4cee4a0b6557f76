import { renderAutoscaling, slotWords } from '../../../src/slack/blocks/autoscaling';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { headerText, placeholder, SANDBOX_NOTICE, sectionTexts, slot, visible } from './fixtures';

const render = (slots: ReturnType<typeof slot>[], sandbox = false) => renderAutoscaling({ vsId: 42, slots, sandbox });

const fullSet = () => [
  slot({ id: 1, resource: 'memory', scale_type: 'up', limit_trigger: 90, for_minutes: 5, adjust_units: 1, up_to: 4 }),
  slot({ id: 2, resource: 'memory', scale_type: 'down', limit_trigger: 20, for_minutes: 30, adjust_units: 2, up_to: 1 }),
  slot({ id: 3, resource: 'cpu', scale_type: 'up', limit_trigger: 80, for_minutes: 10, adjust_units: 2, up_to: 8 }),
  slot({ id: 4, resource: 'cpu', scale_type: 'down', limit_trigger: 10, for_minutes: 60, adjust_units: 1, up_to: 2 }),
  slot({ id: 5, resource: 'disk', scale_type: 'up', limit_trigger: 85, for_minutes: 1, adjust_units: 10, up_to: 3 }),
  slot({ id: 6, resource: 'disk', scale_type: 'down', limit_trigger: 15, for_minutes: 120, adjust_units: 5, up_to: 1 }),
];

describe('autoscaling summary', () => {
  test('shows Memory, CPU and Disk, each with its up and down slot in words', () => {
    const m = render(fullSet());
    expect(headerText(m)).toBe('Autoscaling · VS 42');
    expect(sectionTexts(m)).toEqual([
      '*Memory*\nUp: +1 unit when usage ≥ 90% for 5 min, at most 4 per 24 h\nDown: −2 units when usage ≤ 20% for 30 min, at most 1 per 24 h',
      '*CPU*\nUp: +2 units when usage ≥ 80% for 10 min, at most 8 per 24 h\nDown: −1 unit when usage ≤ 10% for 60 min, at most 2 per 24 h',
      '*Disk*\nUp: +10 units when usage ≥ 85% for 1 min, at most 3 per 24 h\nDown: −5 units when usage ≤ 15% for 120 min, at most 1 per 24 h',
    ]);
    expect(m.text).toBe('Autoscaling of VS 42: 6 of 6 rules configured');
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m);
  });

  test('the order of the slots from the API does not change the summary', () => {
    expect(render([...fullSet()].reverse())).toEqual(render(fullSet()));
  });

  test('placeholder slots (id null) read "not configured" and are not counted', () => {
    const slots = [
      slot({ id: 1, resource: 'memory', scale_type: 'up', limit_trigger: 90, for_minutes: 5, adjust_units: 1, up_to: 4 }),
      placeholder('memory', 'down'),
      placeholder('cpu', 'up'),
      placeholder('cpu', 'down'),
      placeholder('disk', 'up'),
      placeholder('disk', 'down'),
    ];
    const m = render(slots);
    expect(sectionTexts(m)[0]).toBe('*Memory*\nUp: +1 unit when usage ≥ 90% for 5 min, at most 4 per 24 h\nDown: _not configured_');
    expect(sectionTexts(m)[1]).toBe('*CPU*\nUp: _not configured_\nDown: _not configured_');
    expect(m.text).toBe('Autoscaling of VS 42: 1 of 6 rules configured');
  });

  test('slots the API left out read "not configured" too', () => {
    const m = render([slot({ id: 3, resource: 'cpu', scale_type: 'up', limit_trigger: 80, for_minutes: 10, adjust_units: 2, up_to: 8 })]);
    expect(sectionTexts(m)).toHaveLength(3);
    expect(sectionTexts(m)[0]).toBe('*Memory*\nUp: _not configured_\nDown: _not configured_');
    expect(sectionTexts(m)[1]).toContain('Up: +2 units when usage ≥ 80%');
    expect(m.text).toContain('1 of 6');
  });

  test('no slots at all still shows the three resources, all not configured', () => {
    const m = render([]);
    expect(
      sectionTexts(m)
        .join('\n')
        .match(/not configured/g),
    ).toHaveLength(6);
    expect(m.text).toContain('0 of 6');
    expectWithinSlackLimits(m);
  });

  test('the older field names above/add_units are read when limit_trigger/adjust_units are absent', () => {
    const s = slot({ id: 7, resource: 'memory', scale_type: 'up', above: 75, add_units: 3, for_minutes: 15, up_to: 2 });
    expect(slotWords(s, 'up')).toBe('+3 units when usage ≥ 75% for 15 min, at most 2 per 24 h');
  });

  test('values sent as strings (as some deployments do) read the same', () => {
    const s = slot({ id: '1', resource: 'cpu', scale_type: 'down', limit_trigger: '10', for_minutes: '60', adjust_units: '1', up_to: '2' });
    expect(slotWords(s, 'down')).toBe('−1 unit when usage ≤ 10% for 60 min, at most 2 per 24 h');
  });

  test('a rule without a duration or a daily cap leaves those parts out instead of printing null', () => {
    const s = slot({ id: 1, resource: 'cpu', scale_type: 'up', limit_trigger: 90, adjust_units: 1 });
    expect(slotWords(s, 'up')).toBe('+1 unit when usage ≥ 90%');
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(render(fullSet(), true))).toContain(SANDBOX_NOTICE);
    expect(visible(render(fullSet(), false))).not.toContain(SANDBOX_NOTICE);
  });
});
