import { XMLParser } from 'fast-xml-parser';
import { Bench, type Task } from 'tinybench';
import { request } from 'undici';
import { createCloudClient } from '../../src/cloud/client';
import { decodeResponse, Responses } from '../../src/cloud/codec';
import type { BenchProfile } from '../profile';
import { round } from '../stats';
import type { BenchWorld } from '../world';

// Scenario 4: the cloud client alone against the sandbox (no delay), listing
// the 300 rules of VS 45 one call after another, next to the least anyone
// could do for the same answer: undici.request of the same URL and a plain
// parse (JSON.parse; fast-xml-parser with its defaults for XML). Then the
// decoding alone (text → validated rules), XML against JSON. Calls are made
// one at a time: concurrent identical reads would share one request in the
// client (single-flight) and flatter it.

export interface CloudClientFigures {
  clientJsonPerSecond: number;
  rawJsonPerSecond: number;
  clientOverRawJson: number;
  clientXmlPerSecond: number;
  rawXmlPerSecond: number;
  clientOverRawXml: number;
  decodeJsonMs: number;
  decodeXmlMs: number;
  xmlOverJsonDecode: number;
  jsonBytes: number;
  xmlBytes: number;
}

const VS_ID = 45;

export async function runCloudClient(world: BenchWorld, micro: BenchProfile['micro']): Promise<CloudClientFigures> {
  const { sandbox } = world;
  sandbox.setDelay(0);
  const base = { url: sandbox.url, accountId: sandbox.accountId, apiKey: sandbox.apiKey, timeoutMs: 10_000, maxConnections: 16 };
  const jsonClient = createCloudClient({ ...base, format: 'json' });
  const xmlClient = createCloudClient({ ...base, format: 'xml' });
  const headers = { authorization: `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}` };
  const urlOf = (format: 'json' | 'xml') => `${sandbox.url}/virtual_machines/${VS_ID}/firewall_rules.${format}`;
  const fetchText = async (format: 'json' | 'xml') => (await request(urlOf(format), { headers })).body.text();
  const xmlParser = new XMLParser();

  const jsonText = await fetchText('json');
  const xmlText = await fetchText('xml');
  const expected = (await jsonClient.listFirewallRules(VS_ID)).length;
  if (expected !== 300 || (await xmlClient.listFirewallRules(VS_ID)).length !== 300) throw new Error(`VS ${VS_ID} should list 300 rules, got ${expected}`);

  try {
    const io = new Bench({ time: micro.timeMs, warmupTime: micro.warmupMs });
    io.add('client json', () => jsonClient.listFirewallRules(VS_ID).then(() => undefined));
    io.add('raw json', async () => void JSON.parse(await fetchText('json')));
    io.add('client xml', () => xmlClient.listFirewallRules(VS_ID).then(() => undefined));
    io.add('raw xml', async () => void xmlParser.parse(await fetchText('xml')));
    await io.run();

    const decoding = new Bench({ time: micro.timeMs, warmupTime: micro.warmupMs });
    decoding.add('decode json', () => void decodeResponse('json', jsonText, Responses.firewallRules));
    decoding.add('decode xml', () => void decodeResponse('xml', xmlText, Responses.firewallRules));
    await decoding.run();

    const perSecond = (bench: Bench, name: string) => 1000 / meanMs(bench, name);
    const clientJson = perSecond(io, 'client json');
    const rawJson = perSecond(io, 'raw json');
    const clientXml = perSecond(io, 'client xml');
    const rawXml = perSecond(io, 'raw xml');
    const decodeJson = meanMs(decoding, 'decode json');
    const decodeXml = meanMs(decoding, 'decode xml');
    return {
      clientJsonPerSecond: round(clientJson, 0),
      rawJsonPerSecond: round(rawJson, 0),
      clientOverRawJson: round(clientJson / rawJson, 2),
      clientXmlPerSecond: round(clientXml, 0),
      rawXmlPerSecond: round(rawXml, 0),
      clientOverRawXml: round(clientXml / rawXml, 2),
      decodeJsonMs: round(decodeJson, 3),
      decodeXmlMs: round(decodeXml, 3),
      xmlOverJsonDecode: round(decodeXml / decodeJson, 2),
      jsonBytes: Buffer.byteLength(jsonText),
      xmlBytes: Buffer.byteLength(xmlText),
    };
  } finally {
    await jsonClient.close();
    await xmlClient.close();
  }
}

/** Mean time of one call of a finished tinybench task, ms. */
export function meanMs(bench: Bench, name: string): number {
  const task: Task | undefined = bench.getTask(name);
  const result = task?.result;
  if (!result || !('latency' in result)) throw new Error(`tinybench task "${name}" did not complete: ${result && 'error' in result ? result.error.message : result?.state}`);
  return result.latency.mean;
}

/** p99 time of one call of a finished tinybench task, ms. */
export function p99Ms(bench: Bench, name: string): number {
  const result = bench.getTask(name)?.result;
  if (!result || !('latency' in result)) throw new Error(`tinybench task "${name}" did not complete`);
  return result.latency.p99;
}
