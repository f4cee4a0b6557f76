import { XMLParser } from 'fast-xml-parser';
import { request } from 'undici';
import { createCloudClient } from '../../src/cloud/client';
import { loadConfig } from '../../src/config';
import { decodeResponse } from '../../src/cloud/codec';
import { READS } from '../../src/cloud/reads';
import { parseXml, prescanXml } from '../../src/cloud/xml';
import { decodeListWithScanner } from '../baselines/decode-with-scanner';
import type { BenchProfile } from '../profile';
import { medianRatio, runSideBySide } from '../side-by-side';
import { median, round } from '../stats';
import type { BenchWorld } from '../world';

// Scenario 4: the cloud client alone against the sandbox (no delay), listing
// the 300 rules of VS 45 one call after another, next to the least anyone
// could do for the same answer: undici.request of the same URL and a plain
// parse (JSON.parse; fast-xml-parser with its defaults for XML). Then the
// decoding alone (text → validated rules): JSON, XML as the client reads it
// (its pre-scan, then fast-xml-parser: src/cloud/xml.ts), the pre-scan alone, and
// XML as it was read before, by the hand-written scanner (bench/baselines). Then
// how long the reader takes to refuse hostile XML. Calls are made one at a time:
// concurrent identical reads would share one request in the client
// (single-flight) and flatter it.

export interface CloudClientFigures {
  /** Side-by-side rounds each figure is the median of. */
  rounds: number;
  clientJsonPerSecond: number;
  rawJsonPerSecond: number;
  clientOverRawJson: number;
  clientXmlPerSecond: number;
  rawXmlPerSecond: number;
  clientOverRawXml: number;
  decodeJsonMs: number;
  decodeXmlMs: number;
  xmlOverJsonDecode: number;
  /** The same XML decoded by the scanner the client used before fast-xml-parser (bench/baselines/xml-scanner.ts). */
  decodeXmlScannerMs: number;
  /** The client's XML decoding over the scanner's: what the switch to fast-xml-parser costs per answer. */
  xmlOverScannerDecode: number;
  /** The reader's pre-scan alone on the same answer (part of decodeXmlMs). */
  prescanXmlMs: number;
  /** To refuse 100,000 attributes on one element (0.9 MB), the element first. */
  refuseAttributeBombMs: number;
  /** To refuse the same element after the 300 rules: the pre-scan reads the answer up to it. */
  refuseAttributeBombAfterRulesMs: number;
  /** To refuse elements nested 100,000 deep (0.7 MB). */
  refuseDeepNestingMs: number;
  jsonBytes: number;
  xmlBytes: number;
}

const VS_ID = 45;

const attributes = (count: number) => Array.from({ length: count }, (_, k) => ` a${k.toString(36)}=""`).join('');
const ATTRIBUTE_BOMB = `<firewall_rule${attributes(100_000)}/>`;
const DEEP_NESTING = '<a>'.repeat(100_000) + '</a>'.repeat(100_000);

/** A task that reads hostile XML with the client's reader and expects it refused. */
const refusing = (xml: string) => () => {
  try {
    parseXml(xml);
  } catch {
    return;
  }
  throw new Error('hostile XML was read, not refused');
};

export async function runCloudClient(world: BenchWorld, micro: BenchProfile['micro']): Promise<CloudClientFigures> {
  const { sandbox } = world;
  sandbox.setDelay(0);
  // The shipped connection settings (config's defaults), on the sandbox.
  const base = { ...loadConfig({}).cloud, url: sandbox.url, accountId: sandbox.accountId, apiKey: sandbox.apiKey, timeoutMs: 10_000 };
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
  // The baseline decodes what the client decodes, or the two figures would not compare.
  const byScanner = decodeListWithScanner(xmlText, READS.listFirewallRules.answer);
  if (JSON.stringify(byScanner) !== JSON.stringify(decodeResponse('xml', xmlText, READS.listFirewallRules.answer))) {
    throw new Error('the old scanner and the client read the 300 rules differently');
  }

  try {
    const rounds = { rounds: micro.rounds, iterations: micro.roundIterations, warmupMs: micro.warmupMs };
    const io = await runSideBySide(
      {
        clientJson: () => jsonClient.listFirewallRules(VS_ID).then(() => undefined),
        rawJson: async () => void JSON.parse(await fetchText('json')),
        clientXml: () => xmlClient.listFirewallRules(VS_ID).then(() => undefined),
        rawXml: async () => void xmlParser.parse(await fetchText('xml')),
      },
      rounds,
    );
    const decoding = await runSideBySide(
      {
        json: () => void decodeResponse('json', jsonText, READS.listFirewallRules.answer),
        xml: () => void decodeResponse('xml', xmlText, READS.listFirewallRules.answer),
        xmlScanner: () => void decodeListWithScanner(xmlText, READS.listFirewallRules.answer),
        prescan: () => void prescanXml(xmlText),
      },
      rounds,
    );
    const bombAfterRules = xmlText.replace('</firewall_rules>', `${ATTRIBUTE_BOMB}</firewall_rules>`);
    const hostile = await runSideBySide(
      {
        attributeBomb: refusing(`<firewall_rules type="array">${ATTRIBUTE_BOMB}</firewall_rules>`),
        attributeBombAfterRules: refusing(bombAfterRules),
        deepNesting: refusing(DEEP_NESTING),
      },
      rounds,
    );
    const perSecond = (means: number[]) => 1000 / median(means);
    return {
      rounds: micro.rounds,
      clientJsonPerSecond: round(perSecond(io.clientJson), 0),
      rawJsonPerSecond: round(perSecond(io.rawJson), 0),
      // Time per call of raw over ours: the same as ours/raw in requests per second.
      clientOverRawJson: round(medianRatio(io.rawJson, io.clientJson), 2),
      clientXmlPerSecond: round(perSecond(io.clientXml), 0),
      rawXmlPerSecond: round(perSecond(io.rawXml), 0),
      clientOverRawXml: round(medianRatio(io.rawXml, io.clientXml), 2),
      decodeJsonMs: round(median(decoding.json), 3),
      decodeXmlMs: round(median(decoding.xml), 3),
      xmlOverJsonDecode: round(medianRatio(decoding.xml, decoding.json), 2),
      decodeXmlScannerMs: round(median(decoding.xmlScanner), 3),
      xmlOverScannerDecode: round(medianRatio(decoding.xml, decoding.xmlScanner), 2),
      prescanXmlMs: round(median(decoding.prescan), 3),
      refuseAttributeBombMs: round(median(hostile.attributeBomb), 3),
      refuseAttributeBombAfterRulesMs: round(median(hostile.attributeBombAfterRules), 3),
      refuseDeepNestingMs: round(median(hostile.deepNesting), 3),
      jsonBytes: Buffer.byteLength(jsonText),
      xmlBytes: Buffer.byteLength(xmlText),
    };
  } finally {
    await jsonClient.close();
    await xmlClient.close();
  }
}
