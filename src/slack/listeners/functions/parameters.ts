import { z } from 'zod';
import { parseIp, unmapIpv4, type IpAddress } from '../../../firewall/address';
import { PORT_MAX } from '../../../firewall/ports';
import type { Protocol } from '../../../firewall/port-question';
import { stepInputRefusals as said } from '../../blocks/steps';
import { mayNameServer, parseId } from '../commands/grammar';

// The parameters of the workflow steps, declared once: each says how
// manifest.yml declares it (type, title, description, choices) and how a
// value Slack sends is read (a zod schema whose messages are what the
// workflow's people read). A step's inputs and outputs are built from them,
// and manifestFunction() writes the step as manifest.yml's `functions`
// holds it (test/slack/listeners/manifest.test.ts keeps the two in step).

/** The parameter types of Slack's functions that the steps use. */
export type ParameterType = 'string' | 'integer' | 'boolean' | 'slack#/types/channel_id';

/** One parameter as manifest.yml declares it. */
export interface ManifestParameter {
  type: ParameterType;
  title: string;
  description: string;
  /** A string from a fixed list (Workflow Builder offers a menu). */
  enum?: readonly string[];
  choices?: readonly { value: string; title: string }[];
}

/** One step as manifest.yml's `functions` declares it. */
export interface ManifestFunction {
  title: string;
  description: string;
  input_parameters: { properties: Record<string, ManifestParameter>; required: string[] };
  output_parameters: { properties: Record<string, ManifestParameter>; required: string[] };
}

/** An input: its declaration, and how what Slack sends is read into `T`. */
export interface InputParameter<T> extends ManifestParameter {
  optional: boolean;
  schema: z.ZodType<T>;
  /**
   * `server`: a name read here is looked up in the name index before the step runs (src/slack/listeners/functions/step.ts),
   * so that the step receives the server's id.
   */
  lookUp?: 'server';
}

/** An output: its declaration; an `integer` carries a number, a `boolean` true or false, anything else text. */
export type OutputParameter<T extends string | number | boolean> = ManifestParameter & {
  type: T extends number ? 'integer' : T extends boolean ? 'boolean' : Exclude<ParameterType, 'integer' | 'boolean'>;
};

/** Slack sends an optional input left empty as nothing, null or an empty string. */
const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** A required input: missing is refused by its title; otherwise `read`. */
function required<T>(name: string, title: string, read: (value: unknown, ctx: z.RefinementCtx) => T): z.ZodType<T> {
  return z.unknown().transform((value, ctx) => {
    if (!given(value)) {
      ctx.addIssue({ code: 'custom', message: said.missing(name, title) });
      return z.NEVER;
    }
    return read(value, ctx);
  });
}

/** An optional input: missing reads as undefined; otherwise `read`. */
function optional<T>(read: (value: unknown, ctx: z.RefinementCtx) => T): z.ZodType<T | undefined> {
  return z.unknown().transform((value, ctx) => (given(value) ? read(value, ctx) : undefined));
}

const refuse = (ctx: z.RefinementCtx, message: string) => {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
};

type Declared = Pick<ManifestParameter, 'title' | 'description'>;

/** A positive integer id (a number, or digits with an optional leading #, as `/vs` reads ids). */
export function idInput(name: string, what: string, d: Declared): InputParameter<number> {
  return {
    type: 'integer',
    title: d.title,
    description: d.description,
    optional: false,
    schema: required(name, d.title, (value, ctx) => parseId(value) ?? refuse(ctx, said.notAnId(name, value, what))),
  };
}

/**
 * A server (docs/product.md, Servers by name): its id (a number, or digits with an optional leading #), or its label,
 * hostname or address, read as text and looked up before the step runs. The step receives the id.
 */
export function serverInput(name: string, what: string, d: Declared): InputParameter<number> {
  return {
    type: 'string',
    title: d.title,
    description: d.description,
    optional: false,
    lookUp: 'server',
    // A name travels as its text until step.ts has looked it up: the row's listener only ever sees an id.
    schema: required(name, d.title, (value, ctx) => {
      const id = parseId(value);
      if (id !== null) return id;
      const text = typeof value === 'string' ? value.trim() : '';
      return mayNameServer(text) ? (text as unknown as number) : refuse(ctx, said.notAnId(name, value, what));
    }),
  };
}

/** A port, 1–65535. */
export function portInput(name: string, d: Declared): InputParameter<number> {
  return {
    type: 'integer',
    ...d,
    optional: false,
    schema: required(name, d.title, (value, ctx) => {
      const port = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : NaN;
      return Number.isInteger(port) && port >= 1 && port <= PORT_MAX ? port : refuse(ctx, said.notAPort(name, value));
    }),
  };
}

/** A whole number (a number, or digits), handed on as the form's text input would be: its range is the form's to check. */
export function wholeNumberInput(name: string, d: Declared): InputParameter<string> {
  return {
    type: 'integer',
    ...d,
    optional: false,
    schema: required(name, d.title, (value, ctx) => {
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
      return /^[0-9]+$/.test(text) ? text : refuse(ctx, said.notAWholeNumber(name, value));
    }),
  };
}

/** tcp or udp, in any case; tcp when not given. */
export function protocolInput(name: string, d: Declared): InputParameter<Protocol> {
  const choices = [
    { value: 'tcp', title: 'TCP' },
    { value: 'udp', title: 'UDP' },
  ] as const;
  return {
    type: 'string',
    ...d,
    enum: choices.map((c) => c.value),
    choices,
    optional: true,
    schema: optional((value, ctx) => {
      const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
      return text === 'tcp' || text === 'udp' ? text : refuse(ctx, said.notAProtocol(name, value));
    }).transform((protocol) => protocol ?? 'tcp'),
  };
}

/** One IPv4 or IPv6 address, or none. */
export function addressInput(name: string, d: Declared): InputParameter<IpAddress | null> {
  return {
    type: 'string',
    ...d,
    optional: true,
    schema: optional((value, ctx) => {
      const ip = typeof value === 'string' ? parseIp(value.trim()) : null;
      return ip ? unmapIpv4(ip) : refuse(ctx, said.notAnAddress(name, value));
    }).transform((ip) => ip ?? null),
  };
}

/** Text, as a form's text input hands it to the door (the door validates it as the form would). */
export function textInput(name: string, d: Declared & { optional?: boolean }): InputParameter<string | undefined> {
  const read = (value: unknown, ctx: z.RefinementCtx) => (typeof value === 'string' ? value : refuse(ctx, said.notText(name)));
  return {
    type: 'string',
    title: d.title,
    description: d.description,
    optional: d.optional ?? false,
    schema: d.optional ? optional(read) : required(name, d.title, read),
  };
}

/** One of a few words (Workflow Builder offers them as a menu). */
export function choiceInput<C extends string>(name: string, d: Declared & { choices: readonly { value: C; title: string }[] }): InputParameter<C> {
  const values = d.choices.map((c) => c.value);
  return {
    type: 'string',
    title: d.title,
    description: d.description,
    enum: values,
    choices: d.choices,
    optional: false,
    schema: required(name, d.title, (value, ctx) => values.find((v) => v === value) ?? refuse(ctx, said.notAChoice(name, value, values))),
  };
}

/** A channel (Workflow Builder offers a channel picker). */
export function channelInput(name: string, d: Declared): InputParameter<string> {
  return {
    type: 'slack#/types/channel_id',
    ...d,
    optional: false,
    schema: required(name, d.title, (value, ctx) =>
      typeof value === 'string' && /^[CG][A-Z0-9]{2,}$/.test(value) ? value : refuse(ctx, said.notAChannel(name, value)),
    ),
  };
}

type Inputs = Record<string, InputParameter<unknown>>;
type Outputs = Record<string, OutputParameter<string> | OutputParameter<number> | OutputParameter<boolean>>;

/** What a step runs with: each input read by its schema. */
export type InputValues<I extends Inputs> = { [K in keyof I]: I[K] extends InputParameter<infer T> ? T : never };
/** What a step completes with: each output's value. */
export type OutputValues<O extends Outputs> = { [K in keyof O]: O[K]['type'] extends 'integer' ? number : O[K]['type'] extends 'boolean' ? boolean : string };

/** Reads a step's inputs: every value, or every problem, in the inputs' order, in the words the workflow's people read. */
export function readInputs<I extends Inputs>(inputs: I, raw: unknown): { ok: true; values: InputValues<I> } | { ok: false; problems: string[] } {
  const given = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, parameter] of Object.entries(inputs)) {
    const read = parameter.schema.safeParse(given[name]);
    if (read.success) values[name] = read.data;
    else problems.push(...read.error.issues.map((issue) => issue.message));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values: values as InputValues<I> };
}

/** A step as manifest.yml declares it. */
export function manifestFunction(o: { title: string; description: string; inputs: Inputs; outputs: Outputs }): ManifestFunction {
  const declared = (parameters: Record<string, ManifestParameter>) =>
    Object.fromEntries(
      Object.entries(parameters).map(([name, p]) => [
        name,
        {
          type: p.type,
          title: p.title,
          description: p.description,
          ...(p.enum ? { enum: [...p.enum] } : {}),
          ...(p.choices ? { choices: p.choices.map((c) => ({ ...c })) } : {}),
        },
      ]),
    );
  return {
    title: o.title,
    description: o.description,
    input_parameters: {
      properties: declared(o.inputs),
      required: Object.entries(o.inputs)
        .filter(([, p]) => !p.optional)
        .map(([name]) => name),
    },
    // Every output is given whenever a step completes.
    output_parameters: { properties: declared(o.outputs), required: Object.keys(o.outputs) },
  };
}
