import { Pool, request } from 'undici';
import { createBareBoltApp } from './bolt-app';
import { exitOnSigterm, readTargetEnv } from './target-env';

// Ceiling 3, "minimal same-work": the bot's work for `/vs firewall <id>` done
// by hand, with nothing else: ack, one undici GET of the rules from the cloud
// API (a Pool as bounded as the bot's), JSON.parse, one POST to the
// response_url. No validation, no rendering, no logging, no role check.

const env = readTargetEnv();
const cloud = new Pool(env.cloudUrl, { connections: env.cloudMaxConnections, pipelining: 1 });
const cloudHeaders = {
  authorization: `Basic ${Buffer.from(`${env.cloudAccountId}:${env.cloudApiKey}`).toString('base64')}`,
  accept: 'application/json',
};
const app = createBareBoltApp(env);

app.command('/vs', async ({ command, ack }) => {
  await ack();
  const vsId = /\d+/.exec(command.text)?.[0] ?? '0';
  const answer = await cloud.request({ method: 'GET', path: `/virtual_machines/${vsId}/firewall_rules.json`, headers: cloudHeaders });
  const rules = JSON.parse(await answer.body.text()) as unknown[];
  const posted = await request(command.response_url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'in_channel', replace_original: false, text: `VS ${vsId} has ${rules.length} firewall rules` }),
  });
  await posted.body.dump();
});

void app.start(env.port);
exitOnSigterm(async () => {
  await app.stop();
  await cloud.close();
});
