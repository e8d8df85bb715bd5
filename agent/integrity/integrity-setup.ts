/**
 * Tamper evidence for a running agent (docs/integrity.md): the signing key and the hourly and
 * shutdown checkpoints of the record chain. The chain itself is computed by the audit store
 * as it inserts.
 */
import type { DataPaths } from '../config/data-dir.js';
import type { Logger } from '../log/logger.js';
import type { AuditStore } from '../store/audit-store.js';
import { ChainCheckpoints } from './chain-checkpoints.js';
import { SigningKey } from './signing-key.js';

export interface Integrity {
  readonly key: SigningKey;
  readonly checkpoints: ChainCheckpoints;
  /** The shutdown checkpoint; runs after everything that writes records has stopped. */
  stop(): void;
}

export async function startIntegrity(store: AuditStore, paths: DataPaths, log: Logger): Promise<Integrity> {
  const key = await SigningKey.load(paths.secrets);
  const checkpoints = new ChainCheckpoints(store, key, log);
  checkpoints.start();
  return { key, checkpoints, stop: () => checkpoints.stop() };
}
