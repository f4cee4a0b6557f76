import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox, type SandboxOptions } from '@vs-chatops/cloud-sandbox';
import { READS } from '../../src/cloud/reads';

// One thing started for the enclosing describe block (or file): started in
// beforeAll, closed in afterAll, and read inside tests through what this
// returns. The useX helpers (useHarness, useProcessHarness…) are built on it.
// Jest runs beforeAll and afterAll hooks in the order they are declared: what
// is declared first starts first and is also closed first.

/**
 * Starts `start()` in beforeAll and `close`s it in afterAll; returns a stand-in for it that tests read as the thing
 * itself. Reading it outside a test (or after its start failed) throws, naming `what`.
 */
export function useStarted<T extends object>(what: string, start: () => Promise<T>, close: (started: T) => Promise<void>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started) await close(started);
    started = undefined;
  });
  return new Proxy({} as T, {
    get(_target, key) {
      if (!started) throw new Error(`${what} was read (.${String(key)}) outside a test, or its start failed: see beforeAll's error`);
      return Reflect.get(started, key) as unknown;
    },
  });
}

/** A temporary folder for the enclosing describe block (or file), removed after it: `dir.path`. */
export function useTempDir(prefix = 'vs-chatops-test-'): { readonly path: string } {
  return useStarted(
    'the temporary folder',
    () => Promise.resolve({ path: mkdtempSync(join(tmpdir(), prefix)) }),
    (dir) => Promise.resolve(rmSync(dir.path, { recursive: true, force: true })),
  );
}

/** The sandbox cloud API on loopback for the enclosing describe block (or file), back to its seed before each test unless `reset` is false. */
export function useSandbox(options: SandboxOptions = {}, { reset = true } = {}): Sandbox {
  const sandbox = useStarted(
    'the sandbox',
    () => startSandbox({ reads: READS, port: 0, ...options }),
    (started) => started.close(),
  );
  if (reset) beforeEach(() => sandbox.reset());
  return sandbox;
}
