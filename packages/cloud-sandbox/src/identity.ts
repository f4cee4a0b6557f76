// How the sandbox makes itself known. The bot reads these too (its config's defaults for VS_API_URL=sandbox, and
// the header that labels messages "sandbox data"), so they are written here, once, and imported from this package.

/** The sandbox's credentials unless others are given; not secret, it holds no real data. */
export const SANDBOX_ACCOUNT_ID = 'sandbox';
export const SANDBOX_API_KEY = 'sandbox-key';
/**
 * Every answer of the sandbox carries this header (value `1`), so a bot
 * pointed at a standalone sandbox by URL knows its data is fake.
 */
export const SANDBOX_HEADER = 'x-vs-sandbox';
