// Commands that overlap share one frozen answer from the cloud client
// (single-flight), so the message built from it is the same for each of them:
// it is built once per answer. During a burst, the twenty people who asked
// about the same server get their messages as fast as one render allows.
// Keyed weakly by the answer, so a message lives exactly as long as it.

export type OncePerAnswer<A extends object, M> = (answer: A, build: () => M) => M;

export function oncePerAnswer<A extends object, M>(): OncePerAnswer<A, M> {
  const built = new WeakMap<A, M>();
  return (answer, build) => {
    let message = built.get(answer);
    if (message === undefined) {
      message = build();
      built.set(answer, message);
    }
    return message;
  };
}
