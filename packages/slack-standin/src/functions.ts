// Workflow steps as Slack runs them: the app's functions as its manifest
// declares them (`functions`: typed input and output parameters), one
// execution of a step (its ids, the bot token Slack issues for it alone, its
// inputs), and the checks Slack makes: inputs against the declared parameters
// before a workflow runs a step (Workflow Builder's form), outputs against
// them when the app completes it (functions.completeSuccess answers
// `parameter_validation_failed`). It imports nothing of the stand-in's
// state (which keeps executions): values are plain JSON objects here.

/** A JSON object, as Slack's payloads carry them. */
type Json = Record<string, unknown>;

/** One parameter as the manifest declares it. */
export interface FunctionParameter {
  type: string;
  title: string;
  description?: string;
  enum?: readonly string[];
  choices?: readonly { value: string; title: string }[];
}

/** One step as the manifest's `functions` declares it. */
export interface AppFunction {
  title: string;
  description: string;
  input_parameters: { properties: Record<string, FunctionParameter>; required?: readonly string[] };
  output_parameters: { properties: Record<string, FunctionParameter>; required?: readonly string[] };
}

/** One run of a step, from function_executed to its completion. */
export interface Execution {
  /** function_execution_id (Fx…). */
  id: string;
  /** workflow_execution_id (Wx…). */
  workflowExecutionId: string;
  callbackId: string;
  /** Who ran the workflow on the page (Slack does not tell the app). */
  user: string;
  inputs: Json;
  /** The bot token issued for this execution (bot_access_token): revoked once it completes, expired after 15 minutes. */
  token: string;
  startedAt: number;
  state: 'running' | 'completed' | 'failed';
  outputs?: Json;
  error?: string;
  endedAt?: number;
}

/** An execution as the page sees it: never its token. */
export type ShownExecution = Omit<Execution, 'token'>;

export const shown = ({ token: _token, ...execution }: Execution): ShownExecution => execution;

/** Slack revokes an execution's token when it completes; unused, it expires after 15 minutes. */
export const EXECUTION_TOKEN_TTL_MS = 15 * 60_000;

const isChannelId = (v: unknown) => typeof v === 'string' && /^[CG][A-Z0-9]{2,}$/.test(v);
const isUserId = (v: unknown) => typeof v === 'string' && /^[UW][A-Z0-9]{2,}$/.test(v);

/** Whether a value is of a parameter's type; the problem in Slack's words, or null. */
function typeProblem(name: string, p: FunctionParameter, value: unknown): string | null {
  const ok = (() => {
    switch (p.type) {
      case 'string':
        return typeof value === 'string';
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'slack#/types/channel_id':
        return isChannelId(value);
      case 'slack#/types/user_id':
        return isUserId(value);
      default:
        return true;
    }
  })();
  if (!ok) return `[ERROR] ${name} must be of type ${p.type} [json-pointer:/${name}]`;
  if (p.enum && !p.enum.includes(String(value))) return `[ERROR] ${name} must be one of ${p.enum.join(', ')} [json-pointer:/${name}]`;
  return null;
}

/** Values against declared parameters: every required one present, each of its type; Slack's messages, empty when fine. */
export function parameterProblems(declared: AppFunction['input_parameters'], values: unknown): string[] {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return ['[ERROR] must be an object [json-pointer:/]'];
  const given = values as Json;
  const problems: string[] = [];
  for (const name of declared.required ?? []) {
    if (given[name] === undefined || given[name] === null || given[name] === '')
      problems.push(`[ERROR] missing required field: ${name} [json-pointer:/${name}]`);
  }
  for (const [name, value] of Object.entries(given)) {
    const p = declared.properties[name];
    if (!p) problems.push(`[ERROR] ${name} is not a parameter of this function [json-pointer:/${name}]`);
    else if (value !== undefined && value !== null && value !== '') {
      const problem = typeProblem(name, p, value);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

/**
 * What a person filled in on the page, as Workflow Builder's form hands it to a step: numbers for integer
 * parameters, text as typed; empty fields left out. The problems Slack's form shows are returned instead of sending.
 */
export function inputsFromForm(fn: AppFunction, entered: Record<string, unknown>): { inputs: Json } | { problems: Record<string, string> } {
  const inputs: Json = {};
  const problems: Record<string, string> = {};
  for (const [name, p] of Object.entries(fn.input_parameters.properties)) {
    const raw = entered[name];
    const text = typeof raw === 'string' ? raw.trim() : raw;
    if (text === undefined || text === null || text === '') {
      if ((fn.input_parameters.required ?? []).includes(name)) problems[name] = 'Please complete this required field.';
      continue;
    }
    if (p.type === 'integer' || p.type === 'number') {
      const n = typeof text === 'number' ? text : Number(text);
      if (!Number.isFinite(n) || (p.type === 'integer' && !Number.isInteger(n)))
        problems[name] = p.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.';
      else inputs[name] = n;
      continue;
    }
    if (typeof text !== 'string') {
      problems[name] = 'Enter text.';
      continue;
    }
    if (p.type === 'slack#/types/channel_id' && !isChannelId(text)) {
      problems[name] = 'Choose a channel.';
      continue;
    }
    if (p.enum && !p.enum.includes(text)) {
      problems[name] = `Choose one of ${p.enum.join(', ')}.`;
      continue;
    }
    inputs[name] = text;
  }
  return Object.keys(problems).length > 0 ? { problems } : { inputs };
}

/** The parameters as function_executed lists them (`function.input_parameters`: an array, with is_required). */
export function parameterList(declared: AppFunction['input_parameters']): Json[] {
  return Object.entries(declared.properties).map(([name, p]) => ({
    type: p.type,
    name,
    title: p.title,
    description: p.description ?? '',
    is_required: (declared.required ?? []).includes(name),
  }));
}
