// The checker the properties rely on must itself catch what Slack would refuse or act on.

import type { View } from '@slack/types';
import { viewLimitProblems } from '../../../src/slack/blocks/limits';
import { brokenUnicode, dataMarkup, messageViolations, modalViolations } from './limits';

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } });

describe('the Slack limit checker', () => {
  test('accepts a plain message', () => {
    expect(messageViolations({ text: 'hi', blocks: [section('hello')] })).toEqual([]);
  });

  test('flags mrkdwn that is not verbatim, wherever it is (Slack would link a bare URL or @here in it)', () => {
    const parsed = { type: 'mrkdwn', text: 'see https://evil.example' };
    const blocks = [
      { type: 'section', text: parsed },
      { type: 'context', elements: [section('x').text, parsed] },
    ];
    expect(messageViolations({ text: 'hi', blocks })).toEqual([
      'blocks[0].text: mrkdwn text is not verbatim (Slack would link a bare URL or @here in it)',
      'blocks[1].elements[1]: mrkdwn text is not verbatim (Slack would link a bare URL or @here in it)',
    ]);
  });

  test('flags too many blocks, long texts, too many fields and context elements, long buttons and empty fallback', () => {
    const blocks = [
      ...Array.from({ length: 48 }, () => section('x')),
      section('x'.repeat(3001)),
      { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'y'.repeat(2001) })) },
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      { type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'b'.repeat(76) }, value: '1' }] },
    ];
    const problems = messageViolations({ text: '', blocks }).join('\n');
    expect(problems).toMatch(/53 blocks > 50/);
    expect(problems).toMatch(/text is 3001 > 3000/);
    expect(problems).toMatch(/11 fields > 10/);
    expect(problems).toMatch(/field 0: text is 2001 > 2000/);
    expect(problems).toMatch(/header.*151 > 150/);
    expect(problems).toMatch(/11 elements > 10/);
    expect(problems).toMatch(/button text is 76 > 75/);
    expect(problems).toMatch(/fallback text is empty/);
  });

  test('flags a modal title over 24 characters', () => {
    expect(modalViolations({ type: 'modal', title: { type: 'plain_text', text: 'x'.repeat(25) }, blocks: [] }).join()).toMatch(/25 > 24/);
  });

  test("the bot's own check before views.open flags a checkbox's description over 75 characters (Slack refuses the whole view)", () => {
    const box = (description: string): View => ({
      type: 'modal',
      title: { type: 'plain_text', text: 'Add firewall rule' },
      blocks: [
        {
          type: 'input',
          block_id: 'confirm_risk',
          label: { type: 'plain_text', text: 'I know' },
          element: {
            type: 'checkboxes',
            action_id: 'confirm_risk',
            options: [{ text: { type: 'plain_text', text: 'I know' }, value: 'true', description: { type: 'plain_text', text: description } }],
          },
        },
      ],
    });
    expect(viewLimitProblems(box('x'.repeat(75)))).toEqual([]);
    expect(viewLimitProblems(box('x'.repeat(76))).join()).toMatch(/description/);
  });

  test('flags raw markup from data but allows the renderer’s own mentions of the acting user and channel', () => {
    for (const bad of ['<!channel>', '<!here>', '<@U123>', '<#C1>', '<https://evil|click>', '<vs_id>', 'a < b']) {
      expect(dataMarkup({ blocks: [section(bad)] })).toHaveLength(1);
    }
    expect(dataMarkup({ text: '<!channel>', blocks: [] })).toHaveLength(1);
    expect(dataMarkup({ blocks: [section('by <@U0ME> in <#C0HERE>: &lt;!channel&gt; &amp;')] }, { users: ['U0ME'], channels: ['C0HERE'] })).toEqual([]);
    expect(dataMarkup({ blocks: [section('<@U0OTHER>')] }, { users: ['U0ME'] })).toHaveLength(1);
  });

  test('flags half of an emoji', () => {
    expect(brokenUnicode({ blocks: [section('ok 😀')] })).toEqual([]);
    expect(brokenUnicode({ blocks: [section('cut \ud83d')] })).toHaveLength(1);
    expect(brokenUnicode({ blocks: [section('\ude00 cut')] })).toHaveLength(1);
  });
});
