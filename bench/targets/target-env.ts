// What a baseline target reads from its environment: the same variables the
// bot reads (src/config.ts), so every target is started the same way.

export interface TargetEnv {
  port: number;
  signingSecret: string;
  botToken: string;
  slackApiUrl: string;
  cloudUrl: string;
  cloudAccountId: string;
  cloudApiKey: string;
  cloudMaxConnections: number;
}

export function readTargetEnv(env: NodeJS.ProcessEnv = process.env): TargetEnv {
  const need = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`bench target: ${name} is not set`);
    return value;
  };
  return {
    port: Number(need('PORT')),
    signingSecret: need('SLACK_SIGNING_SECRET'),
    botToken: need('SLACK_BOT_TOKEN'),
    slackApiUrl: need('SLACK_API_URL'),
    cloudUrl: env.VS_API_URL ?? '',
    cloudAccountId: env.VS_ACCOUNT_ID ?? '',
    cloudApiKey: env.VS_API_KEY ?? '',
    cloudMaxConnections: Number(env.VS_API_MAX_CONNECTIONS ?? 16),
  };
}

/** Ends the target on SIGTERM, after `close`. */
export function exitOnSigterm(close: () => Promise<unknown>): void {
  process.once('SIGTERM', () => {
    void close().finally(() => process.exit(0));
  });
}
