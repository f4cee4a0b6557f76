import type { KnownBlock } from '@slack/types';
import { deepFreeze } from '../../src/slack/once-per-answer';
import { payloadJson, type ResponsePayload } from '../../src/slack/response-url';

describe('the JSON posted to a response_url', () => {
  const blocks = (): KnownBlock[] => [
    { type: 'header', text: { type: 'plain_text', text: 'Firewall rules of VS 42 "quoted"' } },
    { type: 'section', text: { type: 'mrkdwn', text: 'ACCEPT tcp 22 from 10.0.0.0/8 \\ é' } },
  ];

  it.each<[string, ResponsePayload]>([
    ['a summary', { response_type: 'in_channel', replace_original: false, text: 'VS 42', blocks: blocks() }],
    ['an error without blocks', { response_type: 'ephemeral', text: 'no such server' }],
    ['blocks alone', { text: '', blocks: blocks() }],
  ])('reads as JSON.stringify would write it: %s, whether its blocks are frozen or not', (_name, payload) => {
    expect(JSON.parse(payloadJson(payload))).toEqual(payload);
    const frozen = { ...payload, ...(payload.blocks ? { blocks: deepFreeze(payload.blocks) } : {}) };
    expect(JSON.parse(payloadJson(frozen))).toEqual(payload);
    // Twice: the second time from the frozen blocks' JSON made the first time.
    expect(JSON.parse(payloadJson(frozen))).toEqual(payload);
  });

  it('posts the frozen blocks as they were, and blocks that are not frozen as they are now', () => {
    const live = blocks();
    const first = JSON.parse(payloadJson({ text: 'x', blocks: live })) as ResponsePayload;
    live.push({ type: 'divider' });
    const second = JSON.parse(payloadJson({ text: 'x', blocks: live })) as ResponsePayload;
    expect(second.blocks).toHaveLength(first.blocks!.length + 1);
  });
});
