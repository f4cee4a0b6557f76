import { loadConfig, secretValues } from '../src/config';
import { ConfigError } from '../src/errors';
import { createLogger } from '../src/log';

// The OTEL_* settings of src/config.ts (docs/production.md, Traces): read there and only there, shaped into what the
// SDK is given; traces are off, and nothing of them is built, unless OTEL_EXPORTER_OTLP_ENDPOINT is set.

const minimalHttp = { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_SIGNING_SECRET: 'sig-secret-value', VS_API_URL: 'sandbox' };
const traced = { ...minimalHttp, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('traces settings', () => {
  test('off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (an empty one is unset), or when OTEL_SDK_DISABLED is true', () => {
    expect(loadConfig(minimalHttp).telemetry).toBeNull();
    expect(loadConfig({ ...minimalHttp, OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_SERVICE_NAME: 'x' }).telemetry).toBeNull();
    expect(loadConfig({ ...traced, OTEL_SDK_DISABLED: 'true' }).telemetry).toBeNull();
    expect(loadConfig({ ...traced, OTEL_SDK_DISABLED: 'false' }).telemetry).not.toBeNull();
  });

  test("the specification's defaults: protobuf to <endpoint>/v1/traces, service vs-chatops, every trace kept, batches of 512 every 5 s", () => {
    expect(loadConfig(traced).telemetry).toEqual({
      tracesUrl: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      resource: { 'service.name': 'vs-chatops' },
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMs: 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMs: 30_000 },
    });
    expect(loadConfig({ ...traced, OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp/' }).telemetry?.tracesUrl).toBe(
      'https://otel.example.com/otlp/v1/traces',
    );
  });

  test('every other setting as written: headers and resource attributes percent-decoded, OTEL_SERVICE_NAME over service.name', () => {
    const telemetry = loadConfig({
      ...traced,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20tok-0123456789, x-scope = ops',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_SERVICE_NAME: 'vs-chatops-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod%2Deu,service.name=ignored',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1024',
      OTEL_BSP_EXPORT_TIMEOUT: '5000',
    }).telemetry;
    expect(telemetry).toEqual({
      tracesUrl: 'https://otel.example.com/v1/traces',
      protocol: 'http/json',
      headers: { authorization: 'Bearer tok-0123456789', 'x-scope': 'ops' },
      timeoutMs: 2500,
      compression: 'gzip',
      resource: { 'deployment.environment.name': 'prod-eu', 'service.name': 'vs-chatops-eu' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMs: 1000, maxQueueSize: 4096, maxExportBatchSize: 1024, exportTimeoutMs: 5000 },
    });
  });

  test("the headers' values are secrets: masked in every log line, whole or without their scheme word", () => {
    const config = loadConfig({ ...traced, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20tok-0123456789' });
    const lines: string[] = [];
    const log = createLogger({ secrets: secretValues(config), write: (line) => lines.push(line) });
    log.warn('export refused', { sent: 'Bearer tok-0123456789', token: 'x', detail: 'with tok-0123456789 in it' });
    expect(lines.join('\n')).not.toContain('tok-0123456789');
  });

  test('gRPC is refused by name, with what to use instead', () => {
    expect(problemsOf({ ...traced, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (OTLP over HTTP; gRPC is not offered: use the receiver's HTTP port, usually 4318)",
    ]);
  });

  test('the endpoint: an http(s) base URL without user info, query or fragment; headers never in clear past this machine', () => {
    for (const bad of ['otel:4318', 'ftp://otel.example.com', 'https://user:pw@otel.example.com', 'https://otel.example.com/?token=x']) {
      expect(problemsOf({ ...traced, OTEL_EXPORTER_OTLP_ENDPOINT: bad })).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT must be/)]);
    }
    expect(problemsOf({ ...traced, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel.example.com:4318', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=abc' })).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT uses plain http:// to otel.example.com, which would send OTEL_EXPORTER_OTLP_HEADERS in clear: ' +
        'use https:// (plain http is accepted only on loopback)',
    ]);
    // No headers: nothing secret goes with the spans (they hold none).
    expect(problemsOf({ ...traced, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel.example.com:4318' })).toEqual([]);
    expect(problemsOf({ ...traced, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=abc' })).toEqual([]);
  });

  test('a malformed list, a ratio past 1, an unknown sampler, a batch larger than the queue: each named, no value echoed', () => {
    const problems = problemsOf({
      ...traced,
      OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-equals-sign',
      OTEL_RESOURCE_ATTRIBUTES: 'a=1,oops',
      OTEL_TRACES_SAMPLER: 'jaeger_remote',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
      OTEL_BSP_SCHEDULE_DELAY: '0',
    });
    expect(problems.sort()).toEqual(
      [
        'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be at most OTEL_BSP_MAX_QUEUE_SIZE (100): a batch is taken from the queue',
        expect.stringMatching(/^OTEL_BSP_SCHEDULE_DELAY must be a time in milliseconds greater than 0/),
        expect.stringMatching(/^OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list of headers written key=value/),
        expect.stringMatching(/^OTEL_RESOURCE_ATTRIBUTES must be a comma-separated list of resource attributes written key=value/),
        expect.stringMatching(/^OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on/),
        expect.stringMatching(/^OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1/),
      ].sort(),
    );
    expect(problems.join('\n')).not.toContain('secret-without-equals-sign');
  });
});
