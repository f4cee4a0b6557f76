import type { KnownBlock, SectionBlock } from '@slack/types';
import fc from 'fast-check';
import type { AutoscalingSlot } from '../../../src/cloud/schemas';
import { renderAutoscaling, slotWords } from '../../../src/slack/blocks/autoscaling';
import { renderTemplates } from '../../../src/slack/blocks/templates';
import { allTexts, expectSlackSafe, hostileText } from './slack-limits';

type Template = { label: string; minMemoryMb: number; minDiskGb: number; virtualization: ('XEN' | 'KVM')[]; license: 'KMS' | null };

const visible = (blocks: KnownBlock[]) => allTexts(blocks).join('\n');
const sections = (blocks: KnownBlock[]) => blocks.filter((b): b is SectionBlock => b.type === 'section').map((b) => b.text?.text ?? '');

function slot(resource: AutoscalingSlot['resource'], scale_type: AutoscalingSlot['scale_type'], rule?: { limit: number; minutes: number | null; units: number | null; upTo: number | null }): AutoscalingSlot {
  return {
    id: rule ? 1 : null,
    virtual_machine_id: 42,
    resource,
    scale_type,
    limit_trigger: rule?.limit ?? null,
    for_minutes: rule?.minutes ?? null,
    adjust_units: rule?.units ?? null,
    up_to: rule?.upTo ?? null,
    above: rule?.limit ?? null,
    add_units: rule?.units ?? null,
    created_at: null,
    updated_at: null,
    configured: rule !== undefined,
  };
}

describe('renderAutoscaling', () => {
  const six = [
    slot('memory', 'up', { limit: 90, minutes: 5, units: 1, upTo: 4 }),
    slot('memory', 'down', { limit: 20, minutes: 10, units: 1, upTo: null }),
    slot('cpu', 'up', { limit: 80, minutes: 15, units: 2, upTo: 8 }),
    slot('cpu', 'down'),
    slot('disk', 'up'),
    slot('disk', 'down'),
  ];

  test('one section per resource, in order, with both slots in words', () => {
    const m = renderAutoscaling({ vsId: 42, slots: six, sandbox: false });
    expect(m.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Autoscaling · VS 42' } });
    const [memory, cpu, disk] = sections(m.blocks);
    expect(memory).toBe('*Memory*\nUp: +1 unit when usage ≥ 90% for 5 min, at most 4 per 24 h\nDown: −1 unit when usage ≤ 20% for 10 min');
    expect(cpu).toBe('*CPU*\nUp: +2 units when usage ≥ 80% for 15 min, at most 8 per 24 h\nDown: _not configured_');
    expect(disk).toBe('*Disk*\nUp: _not configured_\nDown: _not configured_');
    expect(m.text).toContain('3 of 6');
  });

  test('slots missing from the answer read "not configured" too', () => {
    const m = renderAutoscaling({ vsId: 42, slots: [six[0]!], sandbox: false });
    const texts = sections(m.blocks);
    expect(texts).toHaveLength(3);
    expect(texts[0]).toContain('Down: _not configured_');
    expect(texts[1]).toBe('*CPU*\nUp: _not configured_\nDown: _not configured_');
    expect(renderAutoscaling({ vsId: 42, slots: [], sandbox: false }).text).toContain('0 of 6');
  });

  test('no period and no cap leave their clauses out', () => {
    expect(slotWords(slot('cpu', 'up', { limit: 75, minutes: null, units: 3, upTo: null }), 'up')).toBe('+3 units when usage ≥ 75%');
  });

  test('the sandbox notice appears only on the sandbox', () => {
    expect(visible(renderAutoscaling({ vsId: 1, slots: six, sandbox: true }).blocks)).toMatch(/sandbox data/);
    expect(visible(renderAutoscaling({ vsId: 1, slots: six, sandbox: false }).blocks)).not.toMatch(/sandbox/);
  });

  test('any slots keep Slack limits', () => {
    const anySlot = fc
      .tuple(fc.constantFrom('memory', 'cpu', 'disk'), fc.constantFrom('up', 'down'), fc.boolean(), fc.integer(), fc.option(fc.integer(), { nil: null }), fc.option(fc.integer(), { nil: null }), fc.option(fc.integer(), { nil: null }))
      .map(([resource, scale, configured, limit, minutes, units, upTo]) => slot(resource as AutoscalingSlot['resource'], scale as AutoscalingSlot['scale_type'], configured ? { limit, minutes, units, upTo } : undefined));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.array(anySlot, { maxLength: 40 }), fc.boolean(), (vsId, slots, sandbox) => {
        expectSlackSafe(renderAutoscaling({ vsId, slots, sandbox }));
      }),
      { numRuns: 100 },
    );
  });
});

describe('renderTemplates', () => {
  const ubuntu: Template = { label: 'Ubuntu 14.04 x64', minMemoryMb: 256, minDiskGb: 5, virtualization: ['XEN', 'KVM'], license: null };
  const windows: Template = { label: 'Windows 2012 x64 standard R2', minMemoryMb: 1024, minDiskGb: 20, virtualization: ['KVM'], license: 'KMS' };

  test('one compact line per template: label, min memory, min disk, virtualization, licence', () => {
    const m = renderTemplates({ templates: [ubuntu, windows], filter: '', sandbox: false });
    const text = sections(m.blocks).join('\n');
    expect(text).toContain('*Ubuntu 14.04 x64* · min 256 MB RAM · min 5 GB disk · XEN/KVM');
    expect(text).toContain('*Windows 2012 x64 standard R2* · min 1024 MB RAM · min 20 GB disk · KVM · licence KMS');
    expect(visible(m.blocks)).toMatch(/2 templates/);
  });

  test('one template, filtered: says what matched', () => {
    const m = renderTemplates({ templates: [windows], filter: 'windows', sandbox: false });
    expect(visible(m.blocks)).toMatch(/1 template matching “windows”/);
  });

  test('an empty match says so and how to see them all; the filter is escaped', () => {
    const m = renderTemplates({ templates: [], filter: '<!channel> & co', sandbox: false });
    const text = visible(m.blocks);
    expect(text).toContain('No template matching “&lt;!channel&gt; &amp; co”');
    expect(text).toContain('`/vs templates`');
    expectSlackSafe(m);
  });

  test('the sandbox notice appears only on the sandbox', () => {
    expect(visible(renderTemplates({ templates: [ubuntu], filter: '', sandbox: true }).blocks)).toMatch(/sandbox data/);
    expect(visible(renderTemplates({ templates: [ubuntu], filter: '', sandbox: false }).blocks)).not.toMatch(/sandbox/);
  });

  test('any catalogue and filter keep Slack limits and let no markup through', () => {
    const anyTemplate = fc.record({
      label: hostileText,
      minMemoryMb: fc.integer(),
      minDiskGb: fc.integer(),
      virtualization: fc.array(fc.constantFrom<'XEN' | 'KVM'>('XEN', 'KVM'), { maxLength: 2 }),
      license: fc.constantFrom<'KMS' | null>('KMS', null),
    });
    fc.assert(
      fc.property(fc.array(anyTemplate, { maxLength: 120 }), hostileText, fc.boolean(), (templates, filter, sandbox) => {
        expectSlackSafe(renderTemplates({ templates, filter, sandbox }));
      }),
      { numRuns: 60 },
    );
  });
});
