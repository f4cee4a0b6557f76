import { runSandboxCommand } from '@vs-chatops/cloud-sandbox';
import { READS } from '../src/cloud/reads';

// `npm run sandbox [-- --port N] [--delay MS]`: the cloud API simulator on its own
// (packages/cloud-sandbox), serving the bot's table of reads (src/cloud/reads.ts).

void runSandboxCommand(READS);
