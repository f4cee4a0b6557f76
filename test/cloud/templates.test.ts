import { filterTemplates, findTemplate, Template, TEMPLATES } from '../../src/cloud/templates';

describe('the template catalogue', () => {
  it('holds the twelve templates of docs/cloud-api.md, each valid against the Template schema', () => {
    expect(TEMPLATES).toHaveLength(12);
    for (const template of TEMPLATES) expect(Template.safeParse(template).success).toBe(true);
  });

  it('carries the minimums, virtualization and licence of docs/cloud-api.md', () => {
    expect(findTemplate('CentOS 6.7 x64')).toEqual({ label: 'CentOS 6.7 x64', minMemoryMb: 384, minDiskGb: 5, virtualization: ['XEN', 'KVM'], license: null });
    expect(findTemplate('Ubuntu 12.04 x64')).toMatchObject({ minMemoryMb: 128, minDiskGb: 5 });
    expect(findTemplate('Debian 8.0 x64')).toMatchObject({ minMemoryMb: 512, minDiskGb: 6 });
    expect(findTemplate('Windows 2008 x64 standard R2')).toEqual({
      label: 'Windows 2008 x64 standard R2',
      minMemoryMb: 256,
      minDiskGb: 5,
      virtualization: ['KVM'],
      license: 'KMS',
    });
    expect(findTemplate('Windows 2012 x64 datacenter R2')).toMatchObject({ minMemoryMb: 1024, minDiskGb: 20, license: 'KMS' });
  });

  it('labels follow "<name> <version> x64", Windows "<name> <year> x64 <edition> R2"', () => {
    for (const { label, license } of TEMPLATES) {
      expect(label).toMatch(license ? /^Windows \d{4} x64 (datacenter|standard) R2$/ : /^[A-Za-z]+ [\d.]+ x64$/);
    }
  });

  it('finds a template only by its exact, case-sensitive label', () => {
    expect(findTemplate('FreeBSD 10.1 x64')?.minMemoryMb).toBe(256);
    expect(findTemplate('freebsd 10.1 x64')).toBeUndefined();
    expect(findTemplate('FreeBSD 10.1')).toBeUndefined();
    expect(findTemplate(' FreeBSD 10.1 x64')).toBeUndefined();
  });

  it('filters by any part of the label, ignoring case', () => {
    expect(filterTemplates('ubuntu').map((t) => t.label)).toEqual(['Ubuntu 12.04 x64', 'Ubuntu 14.04 x64']);
    expect(filterTemplates('7.1').map((t) => t.label)).toEqual(['CentOS 7.1 x64', 'RHEL 7.1 x64']);
  });

  it('filters by virtualization and licence', () => {
    expect(filterTemplates('kms').every((t) => t.license === 'KMS')).toBe(true);
    expect(filterTemplates('kms')).toHaveLength(4);
    expect(filterTemplates('xen')).toHaveLength(8);
    expect(filterTemplates('KVM')).toHaveLength(12);
  });

  it('gives the whole catalogue for empty text and nothing for text that matches nothing', () => {
    expect(filterTemplates('')).toHaveLength(12);
    expect(filterTemplates('   ')).toHaveLength(12);
    expect(filterTemplates('solaris')).toEqual([]);
  });

  it('cannot be changed by a caller', () => {
    const [first] = filterTemplates('');
    expect(() => {
      (first as { minMemoryMb: number }).minMemoryMb = 1;
    }).toThrow(TypeError);
    filterTemplates('').pop();
    expect(TEMPLATES).toHaveLength(12);
  });
});
