// The run fails on any unhandled rejection or uncaught exception, wherever it comes from.
const failures: unknown[] = [];
const onRejection = (reason: unknown) => failures.push(reason);
const onException = (error: unknown) => failures.push(error);

beforeAll(() => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
});

afterAll(() => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  if (failures.length > 0) {
    const first = failures[0];
    throw new Error(`unhandled rejection or uncaught exception during the tests: ${first instanceof Error ? first.stack : String(first)}`);
  }
});
