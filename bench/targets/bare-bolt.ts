import { createBareBoltApp } from './bolt-app';
import { exitOnSigterm, readTargetEnv } from './target-env';

// Ceiling 2: Bolt whose /vs handler only acks.

const env = readTargetEnv();
const app = createBareBoltApp(env);
app.command('/vs', async ({ ack }) => {
  await ack();
});
void app.start(env.port);
exitOnSigterm(() => app.stop());
