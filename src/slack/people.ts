import type { WebClient } from '@slack/web-api';
import type { EmailDirectory } from '../oncall';
import type { EventFactsOf } from '../timeline';
import { peopleOf } from '../timeline';
import type { Logger } from '../log';

// What the parts below Slack ask of it about people and messages, through the bot's own Web API client: a person's
// email (on call matches people to PagerDuty by it; scope users:read.email) and name as Slack shows it (change events
// name people, never by id), each from one users.info kept for a while; and a message's permalink (chat.getPermalink).

export interface SlackPeople extends EmailDirectory {
  /** A person's name as Slack shows it (display name, else real name, else handle); null when Slack does not say. */
  nameOf(userId: string): Promise<string | null>;
}

interface Profile {
  email: string | null;
  name: string | null;
}

const nonEmpty = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** users.info, once per person per `cacheMs` (a lookup under way is shared); a failure is not kept. */
export function slackPeople(client: WebClient, options: { cacheMs: number; now?: () => number }): SlackPeople {
  const now = options.now ?? (() => Date.now());
  const kept = new Map<string, { profile: Profile; untilMs: number }>();
  const flights = new Map<string, Promise<Profile>>();

  function profileOf(userId: string): Promise<Profile> {
    const hit = kept.get(userId);
    if (hit && hit.untilMs > now()) return Promise.resolve(hit.profile);
    const flying = flights.get(userId);
    if (flying) return flying;
    const flight = (async () => {
      const answer = await client.users.info({ user: userId });
      const user = (answer.user ?? {}) as { name?: unknown; real_name?: unknown; profile?: { email?: unknown; display_name?: unknown; real_name?: unknown } };
      const profile: Profile = {
        email: nonEmpty(user.profile?.email),
        name: nonEmpty(user.profile?.display_name) ?? nonEmpty(user.profile?.real_name) ?? nonEmpty(user.real_name) ?? nonEmpty(user.name),
      };
      kept.set(userId, { profile, untilMs: now() + options.cacheMs });
      return profile;
    })().finally(() => flights.delete(userId));
    flights.set(userId, flight);
    return flight;
  }

  return {
    emailOf: async (userId) => (await profileOf(userId)).email,
    nameOf: async (userId) => (await profileOf(userId)).name,
  };
}

/** A change event's facts from Slack: the names of who asked and approved, and its message's permalink. Never rejects. */
export function changeEventFacts(client: WebClient, people: SlackPeople, log: Logger): EventFactsOf {
  return async (item) => {
    const names = new Map<string, string>();
    await Promise.all(
      peopleOf(item).map(async (id) => {
        const name = await people.nameOf(id).catch(() => null);
        if (name) names.set(id, name);
      }),
    );
    let link: string | null = null;
    if (item.message) {
      try {
        const answer = await client.chat.getPermalink({ channel: item.message.channelId, message_ts: item.message.ts });
        link = typeof answer.permalink === 'string' && /^https?:\/\//.test(answer.permalink) ? answer.permalink : null;
      } catch (error) {
        log.debug('no permalink for a change event; it goes without its link', { record: item.record.id, error: (error as { code?: unknown }).code });
      }
    }
    return { names, link };
  };
}
