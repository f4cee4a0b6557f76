import type { FirewallRule } from '../../cloud/schemas';
import { oneLine, safe } from './mrkdwn';

// One firewall rule in words, shared by the rules' summary, the port question's answer and the remove-rule form,
// apart from the summary (which imports the exports, and through them the audit's renderers).

/** "`#3` ✅ ACCEPT TCP from any to port 443 — Allow web (enabled, logging)" */
export function ruleLine(r: FirewallRule): string {
  const command = r.command.toUpperCase();
  const mark = command === 'ACCEPT' ? ':white_check_mark:' : command === 'DROP' || command === 'REJECT' ? ':no_entry:' : ':grey_question:';
  // Every value is flattened to one line: a newline in API data must not start a fake rule line.
  const address = r.address ? `\`${inCode(r.address, 60)}\`` : '*any*';
  const port = r.port ? `port \`${inCode(r.port, 60)}\`` : '*all ports*';
  const extras: string[] = [];
  if (r.enabled === false) extras.push('disabled');
  if (r.enable_logging === true) extras.push('logging');
  const description = r.description ? ` — ${safe(oneLine(r.description), 120)}` : '';
  const flags = extras.length ? ` _(${extras.join(', ')})_` : '';
  return `\`#${r.position}\` ${mark} *${safe(oneLine(command), 20)}* ${safe(oneLine(r.protocol), 10)} from ${address} to ${port}${description}${flags}`;
}

/** Text inside a code span: one line, escaped, and no backtick to close the span early. */
function inCode(s: string, max: number): string {
  return safe(oneLine(s), max).replace(/`/g, "'");
}
