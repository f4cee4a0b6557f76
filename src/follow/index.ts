// Following a change the cloud accepted to its end (docs/product.md, Following a change to its end): its
// transactions found and polled under a lease (poll.ts, follower.ts), its record given the cloud's outcome, the
// Slack side told through a port. No Slack here: src/compose.ts wires the port.
export { createFollower, FOLLOW_ROUND_MS, type Follower, type FollowReporter } from './follower';
