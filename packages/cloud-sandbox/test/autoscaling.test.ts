import { call, parseXml, typed, unwrap, xmlItems } from './http';
import { useSandbox } from './started';

const sandbox = useSandbox({}, { reset: false });

const SLOT_ORDER = [
  ['memory', 'up'],
  ['memory', 'down'],
  ['cpu', 'up'],
  ['cpu', 'down'],
  ['disk', 'up'],
  ['disk', 'down'],
];
const FIELDS = [
  'id',
  'virtual_machine_id',
  'resource',
  'scale_type',
  'limit_trigger',
  'for_minutes',
  'adjust_units',
  'up_to',
  'above',
  'add_units',
  'created_at',
  'updated_at',
];

async function slots(vsId: number): Promise<Array<Record<string, unknown>>> {
  const res = await call(sandbox, `/virtual_machines/${vsId}/auto_scaling.json`);
  expect(res.status).toBe(200);
  return unwrap(res.text, 'auto_scaling_configuration') as Array<Record<string, unknown>>;
}

describe('GET /virtual_machines/:id/auto_scaling in JSON', () => {
  it('always answers six slots in the order memory, cpu, disk × up, down', async () => {
    for (const id of [42, 43, 44, 45, 46]) {
      const list = await slots(id);
      expect(list.map((s) => [s.resource, s.scale_type])).toEqual(SLOT_ORDER);
      for (const s of list) {
        expect(Object.keys(s)).toEqual(FIELDS);
        expect(s.virtual_machine_id).toBe(id);
      }
    }
  });

  it('configures memory up, memory down and cpu up on the web server and leaves the rest as placeholders', async () => {
    const list = await slots(42);
    expect(list.slice(0, 3).map((s) => s.id)).toEqual([1, 2, 3]);
    expect(list[0]).toMatchObject({ limit_trigger: 90, above: 90, adjust_units: 512, add_units: 512, for_minutes: 5 });
    for (const placeholder of list.slice(3)) {
      for (const f of FIELDS.filter((x) => !['virtual_machine_id', 'resource', 'scale_type'].includes(x))) expect(placeholder[f]).toBeNull();
    }
  });

  it('answers six placeholders for a server without autoscaling', async () => {
    const list = await slots(43);
    expect(list.every((s) => s.id === null && s.limit_trigger === null && s.up_to === null)).toBe(true);
  });

  it('keeps above equal to limit_trigger and add_units equal to adjust_units in configured rules', async () => {
    for (const s of [...(await slots(42)), ...(await slots(46))].filter((x) => x.id !== null)) {
      expect(s.above).toBe(s.limit_trigger);
      expect(s.add_units).toBe(s.adjust_units);
    }
  });

  it('configures every slot of the database server with an up_to cap', async () => {
    const list = await slots(46);
    expect(list.every((s) => typeof s.id === 'number' && typeof s.up_to === 'number')).toBe(true);
  });
});

describe('GET /virtual_machines/:id/auto_scaling in XML', () => {
  it('answers a typed array with one child element per field and nil for placeholders', async () => {
    const res = await call(sandbox, '/virtual_machines/42/auto_scaling.xml');
    expect(res.status).toBe(200);
    const doc = parseXml(res.text);
    expect(doc.auto_scaling_configurations).toMatchObject({ '@_type': 'array' });
    const items = xmlItems(doc, 'auto_scaling_configurations', 'auto_scaling_configuration');
    expect(items).toHaveLength(6);
    for (const item of items) expect(Object.keys(item)).toEqual(FIELDS);
    const [memoryUp, , , cpuDown] = items;
    expect(typed(memoryUp?.limit_trigger)).toEqual({ text: '90', type: 'integer', nil: false });
    expect(typed(memoryUp?.up_to)).toEqual({ text: undefined, type: undefined, nil: true });
    expect(typed(memoryUp?.created_at).type).toBe('datetime');
    expect(cpuDown?.resource).toBe('cpu');
    expect(cpuDown?.scale_type).toBe('down');
    expect(typed(cpuDown?.virtual_machine_id)).toEqual({ text: '42', type: 'integer', nil: false });
    expect(typed(cpuDown?.id).nil).toBe(true);
    expect(typed(cpuDown?.limit_trigger).nil).toBe(true);
  });
});
