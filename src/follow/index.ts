// Following a change the cloud accepted to its end (docs/product.md, Following a change to its end): its
// transactions found and polled under a lease (poll.ts, follower.ts), its record given the cloud's outcome, the
// Slack side told through a port. No Slack here: src/compose.ts wires the port.
export {
  createFollower,
  FOLLOW_LEASE_MS,
  FOLLOW_ROUND_MS,
  MAX_TELL_ATTEMPTS,
  MESSAGE_GRACE_MS,
  type Follower,
  type FollowerDeps,
  type FollowReporter,
} from './follower';
export { belongs, FALLBACK_AFTER_MS, poll, type PollSettings, type Polled } from './poll';
