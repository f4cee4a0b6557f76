import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OTLP/HTTP receiver on loopback, as a collector's HTTP port (4318) would
// be: it takes POST /v1/traces, keeps every body as sent (what the redaction
// checks read), and decodes the spans of both encodings, OTLP/JSON
// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and protobuf (the default), into
// plain objects. The protobuf reader is written from the OTLP schema
// (opentelemetry-proto, trace/v1/trace.proto and common/v1/common.proto),
// apart from the exporter's own code, and reads only what the tests look at.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

export interface OtlpExport {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL: OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  exports: OtlpExport[];
  /** Every span received so far, of either encoding. */
  spans(): ReceivedSpan[];
  /** Every byte received, bodies and headers, as one string: what must not hold a secret. */
  everything(): string;
  close(): Promise<void>;
}

interface JsonAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}
interface JsonExport {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: JsonKeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function plain(attributes: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? '';
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const json = String(req.headers['content-type']).startsWith('application/json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans() {
      return exports.flatMap((e) => (String(e.headers['content-type']).startsWith('application/json') ? jsonSpans(e.body) : protobufSpans(e.body)));
    },
    everything() {
      return exports.map((e) => `${e.path}\n${JSON.stringify(e.headers)}\n${e.body.toString('latin1')}`).join('\n');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function jsonSpans(body: Buffer): ReceivedSpan[] {
  return ((JSON.parse(body.toString('utf8')) as JsonExport).resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: plain(s.attributes),
        statusCode: s.status?.code ?? 0,
        resource: plain(rs.resource?.attributes),
      })),
    ),
  );
}

// --- OTLP protobuf, read from the wire format ---------------------------------------------------------------------

/** One field of a protobuf message: its number, and its value (a varint or fixed number, or the bytes of a length-delimited one). */
type Field = { no: number; varint?: bigint; bytes?: Buffer; fixed?: Buffer };

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const no = key >>> 3;
    switch (key & 7) {
      case 0:
        fields.push({ no, varint: varint() });
        break;
      case 1:
        fields.push({ no, fixed: buffer.subarray(at, (at += 8)) });
        break;
      case 2: {
        const length = Number(varint());
        fields.push({ no, bytes: buffer.subarray(at, (at += length)) });
        break;
      }
      case 5:
        fields.push({ no, fixed: buffer.subarray(at, (at += 4)) });
        break;
      default:
        throw new Error(`unexpected protobuf wire type ${key & 7}`);
    }
  }
  return fields;
}

const messages = (fields: Field[], no: number) => fields.filter((f) => f.no === no && f.bytes).map((f) => fieldsOf(f.bytes!));
const text = (fields: Field[], no: number) => fields.find((f) => f.no === no)?.bytes?.toString('utf8') ?? '';
const hex = (fields: Field[], no: number) => fields.find((f) => f.no === no)?.bytes?.toString('hex') ?? '';
const number = (fields: Field[], no: number) => Number(fields.find((f) => f.no === no)?.varint ?? 0n);

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string = 1; bool = 2; int64 = 3; double = 4 }. */
function protobufAttributes(keyValues: Field[][]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of keyValues) {
    const value = messages(kv, 2)[0] ?? [];
    const one = value[0];
    if (!one) continue;
    out[text(kv, 1)] =
      one.no === 1
        ? one.bytes!.toString('utf8')
        : one.no === 2
          ? one.varint === 1n
          : one.no === 3
            ? Number(BigInt.asIntN(64, one.varint!))
            : one.fixed!.readDoubleLE(0);
  }
  return out;
}

/**
 * ExportTraceServiceRequest { ResourceSpans = 1 }; ResourceSpans { Resource = 1 (attributes = 1); ScopeSpans = 2 };
 * ScopeSpans { Span = 2 }; Span { trace_id = 1; span_id = 2; parent_span_id = 4; name = 5; kind = 6;
 * attributes = 9; Status = 15 (code = 3) }.
 */
function protobufSpans(body: Buffer): ReceivedSpan[] {
  return messages(fieldsOf(body), 1).flatMap((resourceSpans) => {
    const resource = protobufAttributes(messages(messages(resourceSpans, 1)[0] ?? [], 1));
    return messages(resourceSpans, 2).flatMap((scopeSpans) =>
      messages(scopeSpans, 2).map((span) => ({
        traceId: hex(span, 1),
        spanId: hex(span, 2),
        parentSpanId: hex(span, 4),
        name: text(span, 5),
        kind: number(span, 6),
        attributes: protobufAttributes(messages(span, 9)),
        statusCode: number(messages(span, 15)[0] ?? [], 3),
        resource,
      })),
    );
  });
}
