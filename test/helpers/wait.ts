// Bounded waits, so that a broken feature fails in seconds with what was
// awaited, not at the jest timeout with "Exceeded timeout of 20000 ms".

export interface WaitOptions {
  /** How long to wait, in ms (5 s by default: well under the jest timeout). */
  within?: number;
  /** How often to look again, in ms. */
  every?: number;
  /** More to say on timing out (a process's output, what was seen instead). */
  detail?: () => string;
}

/** What a `find` returns while it has not found: undefined, null or false. */
type NotYet = undefined | null | false;

/**
 * Resolves with what `find` returns once it is found (neither undefined, null nor false); rejects after `within` ms
 * with "timed out after N ms waiting for <what>". An error thrown by `find` counts as not yet (a server not yet
 * listening) and is named in the timeout's message.
 */
export async function waitFor<T>(what: string, find: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions = {}): Promise<T> {
  const within = options.within ?? 5000;
  const deadline = Date.now() + within;
  let lastError: unknown;
  for (;;) {
    try {
      const found = await find();
      if (found !== undefined && found !== null && found !== false) return found;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const error = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})`;
      const detail = options.detail ? `\n${options.detail()}` : '';
      throw new Error(`timed out after ${within} ms waiting for ${what}${error}${detail}`);
    }
    await sleep(options.every ?? 10);
  }
}

/**
 * Settles like `promise`, or rejects after `within` ms with "timed out after N ms waiting for <what>": for promises
 * that resolve on an event (a process exiting, a socket answering) and would otherwise hang to the jest timeout.
 */
export async function awaitWithin<T>(what: string, promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Real time passing. Only where the thing under test runs on real time (a socket, a child process); prefer waitFor. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
