import type { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { CodedError } from '../errors';

// A file for one person, in their direct messages with the bot, through
// Slack's upload API (docs/product.md, Long lists): conversations.open for
// the DM's channel (scope im:write), files.getUploadURLExternal for a URL to
// put the bytes at, one POST of the bytes there, then
// files.completeUploadExternal shares the file in that channel (scope
// files:write). The upload URL is a capability, like a response_url: the
// bytes go only to Slack's file host or SLACK_API_URL's origin (a proxy, the
// stand-in), without the bot token, and the URL is never logged or told.

/** Slack's file host, where its upload URLs point. */
const SLACK_FILES = 'https://files.slack.com/';
const UPLOAD_TIMEOUT_MS = 30_000;

/** A step of the upload failed; `slackError` is Slack's error code when Slack refused (e.g. `missing_scope`). */
export class DirectUploadError extends CodedError {
  override readonly name = 'DirectUploadError';
  readonly code = 'SLACK_UPLOAD_FAILED';
  constructor(
    readonly step: 'conversations.open' | 'files.getUploadURLExternal' | 'upload' | 'files.completeUploadExternal',
    readonly slackError: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`the file could not be sent: ${step} failed${slackError ? ` (${slackError})` : ''}`, options);
  }
}

export interface DirectUpload {
  userId: string;
  filename: string;
  /** The file's title in Slack. */
  title: string;
  content: string;
  /** The message the file is shared with (mrkdwn). */
  comment: string;
}

/** Whether Slack gave an upload URL the bytes may go to: its file host, or SLACK_API_URL's origin. */
export function isSlackUploadUrl(url: string, slackApiUrl: string | undefined): boolean {
  if (url.startsWith(SLACK_FILES)) return true;
  if (!slackApiUrl) return false;
  return url.startsWith(`${new URL(slackApiUrl).origin}/`);
}

/** Uploads `file` to the DM of `file.userId` with the bot; throws DirectUploadError naming the step that failed. */
export async function uploadToDirectMessage(
  client: WebClient,
  file: DirectUpload,
  slackApiUrl: string | undefined,
): Promise<{ fileId: string; channelId: string }> {
  const bytes = Buffer.from(file.content, 'utf8');
  const opened = await step('conversations.open', () => client.conversations.open({ users: file.userId }));
  const channelId = opened.channel?.id;
  if (!channelId) throw new DirectUploadError('conversations.open', 'no_channel');

  const target = await step('files.getUploadURLExternal', () => client.files.getUploadURLExternal({ filename: file.filename, length: bytes.length }));
  const { upload_url: uploadUrl, file_id: fileId } = target;
  if (!uploadUrl || !fileId) throw new DirectUploadError('files.getUploadURLExternal', 'no_upload_url');
  if (!isSlackUploadUrl(uploadUrl, slackApiUrl)) throw new DirectUploadError('upload', 'upload_url_not_slack');

  try {
    const res = await request(uploadUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new DirectUploadError('upload', `http_${res.statusCode}`);
  } catch (error) {
    if (error instanceof DirectUploadError) throw error;
    // Not the error itself: undici's messages may hold the URL.
    throw new DirectUploadError('upload', undefined);
  }

  await step('files.completeUploadExternal', () =>
    client.files.completeUploadExternal({ files: [{ id: fileId, title: file.title }], channel_id: channelId, initial_comment: file.comment }),
  );
  return { fileId, channelId };
}

async function step<T>(name: Exclude<DirectUploadError['step'], 'upload'>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const slackError = (error as { data?: { error?: unknown } }).data?.error;
    throw new DirectUploadError(name, typeof slackError === 'string' ? slackError : undefined, { cause: error });
  }
}
