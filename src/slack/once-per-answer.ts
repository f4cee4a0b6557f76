// Commands that overlap share one frozen answer from the cloud client
// (single-flight), so the message built from it is the same for each of them:
// it is built once per answer. During a burst, the twenty people who asked
// about the same server get their messages as fast as one render allows.
// Keyed weakly by the answer, so a message lives exactly as long as it.
//
// The message is frozen, as the answer is: everyone who shares it posts it
// as it is, and since it cannot change, its blocks are turned into JSON once
// (response-url.ts), not once per post.

export type OncePerAnswer<A extends object, M> = (answer: A, build: () => M) => M;

export function oncePerAnswer<A extends object, M>(): OncePerAnswer<A, M> {
  const built = new WeakMap<A, M>();
  return (answer, build) => {
    let message = built.get(answer);
    if (message === undefined) {
      message = deepFreeze(build());
      built.set(answer, message);
    }
    return message;
  };
}

/** Freezes a message and everything in it (plain objects and arrays: what a renderer builds). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
