import { filterTemplates, TEMPLATES } from '../../../src/cloud/templates';
import { renderTemplates } from '../../../src/slack/blocks/templates';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { contextTexts, headerText, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

const render = (filter: string, sandbox = false) => renderTemplates({ templates: filterTemplates(filter), filter, sandbox });

describe('template catalogue', () => {
  test('lists every template with min memory, min disk, virtualization and licence', () => {
    const m = render('');
    expect(headerText(m)).toBe('Template catalogue');
    expect(contextTexts(m)[0]).toBe(`${TEMPLATES.length} templates`);
    const lines = sectionTexts(m).join('\n').split('\n');
    expect(lines).toHaveLength(TEMPLATES.length);
    expect(lines).toContain('*Ubuntu 14.04 x64* · min 256 MB RAM · min 5 GB disk · XEN/KVM');
    expect(lines).toContain('*Windows 2012 x64 datacenter R2* · min 1024 MB RAM · min 20 GB disk · KVM · licence KMS');
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m);
  });

  test('a filter shows only the matching templates and says what it matched', () => {
    const m = render('ubuntu');
    const lines = sectionTexts(m).join('\n').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.startsWith('*Ubuntu'))).toBe(true);
    expect(contextTexts(m)[0]).toBe('2 templates matching “ubuntu”');
    expect(m.text).toBe('2 templates matching “ubuntu”');
  });

  test('one match reads in the singular', () => {
    const m = render('FreeBSD');
    expect(contextTexts(m)[0]).toBe('1 template matching “FreeBSD”');
  });

  test('no match says so and points to the full list', () => {
    const m = render('solaris');
    expect(sectionTexts(m)).toEqual(['No template matching “solaris”. `/vs templates` lists them all.']);
    expect(m.text).toBe('No template matching “solaris”');
    expectWithinSlackLimits(m);
  });

  test('a hostile filter is echoed escaped', () => {
    const m = render('<!channel> & <@U1>');
    expect(m.text).toContain('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expectNoDataMarkup(m);
  });

  test('a long catalogue is split into sections that stay within Slack limits', () => {
    const templates = Array.from({ length: 200 }, (_, i) => ({
      label: `Distro ${i} ${'x'.repeat(100)}`,
      minMemoryMb: 512,
      minDiskGb: 5,
      virtualization: ['KVM'],
      license: null,
    }));
    const m = renderTemplates({ templates, filter: '', sandbox: true });
    expect(contextTexts(m)[0]).toBe('200 templates');
    expectWithinSlackLimits(m);
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(render('', true))).toContain(SANDBOX_NOTICE);
    expect(visible(render('', false))).not.toContain(SANDBOX_NOTICE);
  });
});
