import type { StoreOptions } from '../../../src/store/kysely/rows';
import type { Store } from '../../../src/store';

// What the parts of the store contract share: the harness an implementation's test gives, and the stores each part gets.

export interface StoreLocation {
  /** Opens one more handle ("instance") on this location's database. */
  open: (options?: Partial<StoreOptions>) => Promise<Store>;
}

export interface StoreContractHarness {
  /** A fresh, empty database. */
  fresh(): Promise<StoreLocation>;
  /** A fresh database at schema `version` (the shipped migrations up to it, applied as shipped), `seed` run on it. */
  freshAt(version: number, seed: readonly string[]): Promise<StoreLocation>;
  /** Called once after the suite (drop what fresh() made). */
  cleanup?(): Promise<void>;
}

/** What each part of the contract gets: stores on fresh databases, closed after each test. */
export interface ContractStores {
  /** A fresh database whose every opened handle is closed after the test (closing twice is harmless). */
  fresh: () => Promise<StoreLocation>;
  /** The same, at an older schema version with `seed` written in it: opening it migrates it forward. */
  freshAt: (version: number, seed: readonly string[]) => Promise<StoreLocation>;
  /** `count` instances on one fresh database. */
  instances: (count: number, options?: Partial<StoreOptions>) => Promise<Store[]>;
  /** One instance on a fresh database. */
  one: (options?: Partial<StoreOptions>) => Promise<Store>;
}
