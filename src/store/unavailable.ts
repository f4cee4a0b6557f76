import { CodedError } from '../errors';

export const STORE_UNAVAILABLE = 'STORE_UNAVAILABLE';

/**
 * The store's database could not be reached (connection refused or lost,
 * server shutting down, pool exhausted past its wait, disk I/O failing). A
 * change must then be refused ("nothing can be changed right now, because it
 * could not be recorded") and nothing changed. The same store recovers on its
 * own when the database is back: no reopening.
 */
export class StoreUnavailableError extends CodedError {
  override readonly name = 'StoreUnavailableError';
  readonly code = STORE_UNAVAILABLE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError || (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === STORE_UNAVAILABLE);
}

// Which driver errors mean "the database cannot be reached" (refuse the
// change, try again later, the store recovers by itself) rather than a bug or
// a constraint. Anything not listed passes through unchanged.

/** Node socket errors: the server is down, unreachable or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'EHOSTDOWN',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception); 57P01–57P03 (the
 * server is shutting down, crashed, or not yet accepting connections); 53300
 * (too many connections); 57014 (statement timeout: no answer in time).
 */
function unavailablePostgresState(state: string): boolean {
  return state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300' || state === '57014';
}

/** pg reports a lost, silent or unobtainable connection with these messages and no code. */
const PG_CONNECTION_MESSAGES = [
  /connection terminated/i,
  /query read timeout/i,
  /timeout exceeded when trying to connect/i,
  /connection error and is not queryable/i,
  /client was closed and is not queryable/i,
  /cannot use a pool after calling end/i,
];

/** SQLite result codes (better-sqlite3's `code`) that mean the file cannot be used right now. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

export function isUnavailable(error: unknown, depth = 0): boolean {
  // No `instanceof Error`: errors made by Node's core (sockets) come from another realm under test runners.
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (error instanceof StoreUnavailableError) return true;
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && unavailablePostgresState(code)) return true;
  }
  if (typeof message === 'string') {
    if (PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true;
    // better-sqlite3 after close(): the store was shut down under a late caller.
    if (/database connection is not open/i.test(message)) return true;
  }
  // AggregateError from dual-stack connects: one per address tried.
  if (Array.isArray(errors) && errors.some((e) => isUnavailable(e, depth + 1))) return true;
  return cause !== undefined && cause !== error && isUnavailable(cause, depth + 1);
}

/** The error a store method rejects with: StoreUnavailableError for an unreachable database, the original otherwise. */
export function storeError(error: unknown, dialect: 'sqlite' | 'postgres'): unknown {
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  const code = (error as { code?: unknown }).code;
  const what = dialect === 'postgres' ? 'the PostgreSQL database (DATABASE_URL)' : 'the SQLite file (VS_DB_PATH)';
  // The driver's own text can name hosts and files but never credentials; it stays in `cause` for the logs.
  return new StoreUnavailableError(`The store cannot reach ${what}${typeof code === 'string' ? ` (${code})` : ''}.`, { cause: error });
}
