import type { Logger } from '../log';

// Whether what the bot shows is sandbox data: from the start when the
// built-in simulator runs, and from the first answer of a cloud API that says
// it is one (a standalone sandbox reached by URL: its header, a SandboxMark of transport.ts).

export interface SandboxLabel {
  /** Read when each message is rendered, so the first answer of a sandbox labels its own message. */
  readonly on: boolean;
  /** The cloud client's onSandbox: the API just answered as the sandbox. */
  readonly noticed: () => void;
}

export function createSandboxLabel(options: { builtIn: boolean; forced?: boolean; cloudUrl: string; logger: Logger }): SandboxLabel {
  let seen = options.builtIn;
  return {
    get on() {
      return options.forced ?? seen;
    },
    noticed() {
      if (seen) return;
      seen = true;
      options.logger.warn(
        'the cloud API at VS_API_URL answers as the sandbox: its servers are fake, not a real cloud account; messages now say "sandbox data"',
        {
          cloudUrl: options.cloudUrl,
        },
      );
    },
  };
}
