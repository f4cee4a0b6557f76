import type { z } from 'zod';
import { Backup, Disk, FirewallRule, Server, Transaction } from './schemas';

// How an answer of the cloud API is shaped on the wire (docs/cloud-api.md,
// Conventions): a list, whose JSON is an array of wrapped elements and whose
// XML root holds one element per item; or one record under its wrapper key
// (JSON) or root element (XML). The codec (codec.ts) reads both formats by it.

export interface ListShape<S extends z.ZodType = z.ZodType> {
  kind: 'list';
  /** XML root and JSON list name, e.g. `firewall_rules`. */
  listName: string;
  /** JSON wrapper key of each element and XML element name, e.g. `firewall_rule`. */
  itemName: string;
  schema: S;
}

export interface ObjectShape<S extends z.ZodType = z.ZodType> {
  kind: 'object';
  /** JSON wrapper key and XML root, e.g. `disk`. */
  name: string;
  schema: S;
}

/** An answer that is not read (a 204, or a 2xx whose body varies across versions): a change's second request, a removal. */
export interface NoAnswerShape {
  kind: 'none';
}

export type ResponseShape = ListShape | ObjectShape | NoAnswerShape;

/** What decoding an answer of that shape gives. */
export type Decoded<S> = S extends ListShape<infer T> ? z.output<T>[] : S extends ObjectShape<infer T> ? z.output<T> : S extends NoAnswerShape ? null : never;

export const listOf = <S extends z.ZodType>(listName: string, itemName: string, schema: S): ListShape<S> => ({ kind: 'list', listName, itemName, schema });
export const recordOf = <S extends z.ZodType>(name: string, schema: S): ObjectShape<S> => ({ kind: 'object', name, schema });

/** The records the API answers with, each under its wrapper: what reads (reads.ts) and changes (prepared.ts) get back. */
export const Responses = {
  disk: recordOf('disk', Disk),
  backup: recordOf('backup', Backup),
  server: recordOf('virtual_machine', Server),
  transaction: recordOf('transaction', Transaction),
  firewallRule: recordOf('firewall_rule', FirewallRule),
  /** Any 2xx, its body not read. */
  nothing: { kind: 'none' } as NoAnswerShape,
};
