import type { StoreOptions } from '../../../src/store/kysely/rows';
import type { Store } from '../../../src/store';
import { agentTokensContract } from './agent-tokens';
import { approvalsContract } from './approvals';
import { auditContract } from './audit';
import { breakGlassContract } from './break-glass';
import { changeEventsContract } from './change-events';
import { claimsContract } from './claims';
import { followsContract } from './follows';
import { freezeContract } from './freeze';
import { leasesContract } from './leases';
import { migrationsContract } from './migrations';
import { outboxContract } from './outbox';
import { ratesContract } from './rates';
import { retentionContract } from './retention';
import { storeContract } from './store';
import { watchesContract } from './watches';
import type { ContractStores, StoreContractHarness, StoreLocation } from './types';

export type { ContractStores, StoreContractHarness, StoreLocation } from './types';

// The store contract, once, for every implementation, in one part per slice:
// sqlite-store.test.ts and postgres-store.test.ts run every part against a
// real SQLite file and a real PostgreSQL server. "Instances" are separate
// handles (SQLite: separate connections to one file; PostgreSQL: separate
// pools on one database). Time is whatever number the test passes: no clock
// is read.

export function describeStoreContract(name: string, harness: StoreContractHarness): void {
  describe(`the store contract on ${name}`, () => {
    const opened: Store[] = [];
    const tracked = (location: StoreLocation): StoreLocation => ({
      open: async (options) => {
        const store = await location.open(options);
        opened.push(store);
        return store;
      },
    });
    const fresh = async () => tracked(await harness.fresh());
    const freshAt = async (version: number, seed: readonly string[]) => tracked(await harness.freshAt(version, seed));
    const instances = async (count: number, options?: Partial<StoreOptions>) => {
      const location = await fresh();
      const stores: Store[] = [];
      for (let i = 0; i < count; i++) stores.push(await location.open(options));
      return stores;
    };
    const stores: ContractStores = { fresh, freshAt, instances, one: async (options) => (await instances(1, options))[0]! };
    // Each test's instances are closed when it ends: pools left open would add up on the shared server.
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    describe('audit trail', () => auditContract(stores));
    describe('submission claims', () => claimsContract(stores));
    describe('leases', () => leasesContract(stores));
    describe('outbox', () => outboxContract(stores));
    describe('retention', () => retentionContract(stores));
    describe('approvals', () => approvalsContract(stores));
    describe('freeze', () => freezeContract(stores));
    describe('rates', () => ratesContract(stores));
    describe('followed changes', () => followsContract(stores));
    describe('break glass', () => breakGlassContract(stores));
    describe('change events', () => changeEventsContract(stores));
    describe('agent tokens', () => agentTokensContract(stores));
    describe('watches', () => watchesContract(stores));
    describe('the store as a whole', () => storeContract(stores));
    describe('migrations', () => migrationsContract(stores));
  });
}
