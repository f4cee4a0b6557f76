import type { WebClient } from '@slack/web-api';
import type { ChannelDirectory, GroupDirectory } from '../changes';

// What the policy asks of Slack, through the bot's own Web API client.

/** Members of a user group (S…): usergroups.users.list (scope usergroups:read). */
export function slackGroupDirectory(client: WebClient): GroupDirectory {
  return {
    membersOf: async (groupId) => (await client.usergroups.users.list({ usergroup: groupId })).users ?? [],
  };
}

/** Slack answers at most 999 channels a page. */
const CHANNELS_PER_PAGE = 999;

/**
 * Whether a user is in a channel, asked from the user's side:
 * users.conversations with `user` lists the channels that person is in
 * (scopes channels:read and groups:read; a private channel only where the bot
 * is a member too, as conversations.members needs). One call for anyone in
 * fewer than a thousand channels, whatever the size of the channel asked
 * about; the channel's side (conversations.members) would take a call per
 * thousand members. Not cached: a person just removed from the channel is
 * refused at once.
 */
export function slackChannelDirectory(client: WebClient): ChannelDirectory {
  return {
    async isMember(userId, channelId) {
      const pages = client.paginate('users.conversations', {
        user: userId,
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: CHANNELS_PER_PAGE,
      });
      for await (const page of pages) {
        if (((page as { channels?: { id?: string }[] }).channels ?? []).some((channel) => channel.id === channelId)) return true;
      }
      return false;
    },
  };
}
