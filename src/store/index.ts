import type { Config } from '../config';
import type { Logger } from '../log';
import type { AuditStore } from './audit-store';
import { SCHEMA_VERSION } from './migrations';
import { openPostgresAuditStore } from './postgres-audit-store';
import { openSqliteAuditStore } from './sqlite-audit-store';

// The contract and its types: ./audit-store.

/**
 * The store the configuration asks for: PostgreSQL when DATABASE_URL is set
 * (several instances), otherwise SQLite at VS_DB_PATH (one instance). Runs
 * the migrations (one instance at a time) before it resolves. Rejects with
 * StoreUnavailableError when the database cannot be reached.
 */
export async function openStore(config: Config, logger: Logger): Promise<AuditStore> {
  const log = logger.child({ component: 'store' });
  const common = {
    // Posts are queued only where someone sends them: with VS_AUDIT_CHANNEL set.
    auditPosts: config.auditChannel !== undefined,
    auditRetentionDays: config.ops.auditRetentionDays,
  };
  if (config.databaseUrl) {
    const store = await openPostgresAuditStore(config.databaseUrl, { ...common, maxConnections: config.dbMaxConnections, logger: log });
    log.info('store ready', { dialect: 'postgres', schemaVersion: SCHEMA_VERSION, maxConnections: config.dbMaxConnections });
    return store;
  }
  const store = openSqliteAuditStore(config.dbPath, common);
  log.info('store ready', { dialect: 'sqlite', schemaVersion: SCHEMA_VERSION, path: config.dbPath });
  return store;
}
