import { CodedError } from '../errors';

// A connection budget: at most `size` requests of one class (reads, or
// changes) hold a connection at once. A request that finds none free waits in
// line, for a bounded time; past it, it is not sent at all. Reads and changes
// each have their own budget, so a burst of slow reads cannot make a change
// wait, and the wait for a connection is never counted in a request's deadline.

export class BudgetWaitTimeout extends CodedError {
  override readonly name = 'BudgetWaitTimeout';
  readonly code = 'CLOUD_BUDGET_WAIT_TIMEOUT';
}

export interface ConnectionBudget {
  readonly size: number;
  /** Resolves with the release of a slot; rejects with BudgetWaitTimeout after `waitMs` without one. */
  acquire(waitMs: number): Promise<() => void>;
  /** Requests holding a slot, and requests waiting for one. */
  readonly inUse: number;
  readonly waiting: number;
}

export function createBudget(size: number): ConnectionBudget {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`a connection budget needs at least 1 slot, not ${size}`);
  let free = size;
  const line: { grant: (release: () => void) => void }[] = [];

  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = line.shift();
      if (next) next.grant(releaser());
      else free += 1;
    };
  };

  return {
    size,
    get inUse() {
      return size - free;
    },
    get waiting() {
      return line.length;
    },
    acquire(waitMs) {
      if (free > 0) {
        free -= 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: (release: () => void) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        const timer = setTimeout(
          () => {
            const at = line.indexOf(waiter);
            if (at >= 0) line.splice(at, 1);
            reject(new BudgetWaitTimeout(`no connection came free within ${waitMs} ms`));
          },
          Math.max(0, waitMs),
        );
        line.push(waiter);
      });
    },
  };
}
