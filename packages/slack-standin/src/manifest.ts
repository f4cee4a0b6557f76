import type { AppFunction, FunctionParameter } from './functions';
import { readYaml, type Yaml } from './yaml';

// What the stand-in learns of the app from its manifest, as Slack does when an app is created or updated "From a
// manifest": its slash commands, its shortcuts and its workflow steps (`functions`). The page offers what it
// declares (the composer's commands, the shortcut menu, the Workflows panel), and a person's side delivers no other
// shortcut. A field of the wrong shape stops with a message naming it.

export interface SlashCommand {
  /** With its slash: `/vs`. */
  command: string;
  description: string;
  usageHint?: string;
}

export interface Shortcut {
  name: string;
  /** `global` (the shortcut menu) or `message` (a message's menu). */
  type: 'global' | 'message';
  callbackId: string;
  description: string;
}

export interface AppManifest {
  slashCommands: readonly SlashCommand[];
  shortcuts: readonly Shortcut[];
  /** The workflow steps, by callback_id. */
  functions: Readonly<Record<string, AppFunction>>;
}

/** An app that declares nothing: the stand-in's until it is told the app's manifest. */
export const NO_MANIFEST: AppManifest = { slashCommands: [], shortcuts: [], functions: {} };

type Mapping = { [key: string]: Yaml };

function isMapping(value: Yaml | undefined): value is Mapping {
  return typeof value === 'object' && !Array.isArray(value);
}

/** Reads manifest.yml's text; throws an Error naming the field that does not have a manifest's shape. */
export function readManifest(source: string): AppManifest {
  const document = readYaml(source);
  if (!isMapping(document)) throw new Error('manifest.yml: not a mapping of sections (display_information, features…)');
  const features = optionalMapping(document, 'features', 'features');
  return {
    slashCommands: listOf(features, 'slash_commands', 'features.slash_commands').map((entry, i) => {
      const where = `features.slash_commands[${i}]`;
      const command = text(entry, 'command', where);
      if (!/^\/[a-z0-9_-]+$/.test(command)) throw new Error(`manifest.yml: ${where}.command must be a slash and a name, like /vs`);
      const usageHint = entry.usage_hint === undefined ? undefined : text(entry, 'usage_hint', where);
      return { command, description: text(entry, 'description', where), ...(usageHint === undefined ? {} : { usageHint }) };
    }),
    shortcuts: listOf(features, 'shortcuts', 'features.shortcuts').map((entry, i) => {
      const where = `features.shortcuts[${i}]`;
      const type = text(entry, 'type', where);
      if (type !== 'global' && type !== 'message') throw new Error(`manifest.yml: ${where}.type must be global or message`);
      return { name: text(entry, 'name', where), type, callbackId: text(entry, 'callback_id', where), description: text(entry, 'description', where) };
    }),
    functions: Object.fromEntries(
      Object.entries(optionalMapping(document, 'functions', 'functions')).map(([callbackId, declared]) => [
        callbackId,
        appFunction(declared, `functions.${callbackId}`),
      ]),
    ),
  };
}

function optionalMapping(parent: Mapping, key: string, where: string): Mapping {
  const value = parent[key];
  if (value === undefined) return {};
  if (!isMapping(value)) throw new Error(`manifest.yml: ${where} must be a mapping`);
  return value;
}

function listOf(parent: Mapping, key: string, where: string): Mapping[] {
  const value = parent[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isMapping)) throw new Error(`manifest.yml: ${where} must be a list of mappings`);
  return value;
}

function text(entry: Mapping, key: string, where: string): string {
  const value = entry[key];
  if (typeof value !== 'string' || value === '') throw new Error(`manifest.yml: ${where}.${key} must be text`);
  return value;
}

/** A step as the manifest declares it: each parameter with its type and title (functions.ts checks values against them). */
function appFunction(declared: Yaml, where: string): AppFunction {
  if (!isMapping(declared)) throw new Error(`manifest.yml: ${where} must be a mapping`);
  const parameters = (key: 'input_parameters' | 'output_parameters') => {
    const block = optionalMapping(declared, key, `${where}.${key}`);
    const properties = optionalMapping(block, 'properties', `${where}.${key}.properties`);
    for (const [name, parameter] of Object.entries(properties)) {
      if (!isMapping(parameter)) throw new Error(`manifest.yml: ${where}.${key}.properties.${name} must be a mapping`);
      text(parameter, 'type', `${where}.${key}.properties.${name}`);
      text(parameter, 'title', `${where}.${key}.properties.${name}`);
    }
    const required = block.required;
    if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === 'string')))
      throw new Error(`manifest.yml: ${where}.${key}.required must be a list of names`);
    return { properties: properties as unknown as Record<string, FunctionParameter>, ...(required === undefined ? {} : { required }) };
  };
  return {
    title: text(declared, 'title', where),
    description: text(declared, 'description', where),
    input_parameters: parameters('input_parameters'),
    output_parameters: parameters('output_parameters'),
  };
}
