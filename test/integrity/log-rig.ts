/**
 * Log files written the way the agent writes them, for the tamper tests: a real LogFileOutput
 * over a real audit store, batches committed in transactions, sidecars signed with a real key.
 */
import path from 'node:path';
import { settingsSchema } from '../../agent/config/settings-schema.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { SigningKey } from '../../agent/integrity/signing-key.js';
import { silentLogger } from '../../agent/log/logger.js';
import { DiskGuard } from '../../agent/outputs/disk-guard.js';
import { LogFileOutput } from '../../agent/outputs/log-file-output.js';
import type { StoredItem } from '../../agent/pipeline/pipeline-item.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import { OutputPositions } from '../../agent/store/output-positions.js';
import { StatusRegistry } from '../../agent/status/status-registry.js';
import { makeTempDir } from '../helpers/temp-dir.js';

export const T0 = Date.parse('2026-03-10T08:00:00.000Z');

export interface LogRig {
  root: string;
  dir: string;
  store: AuditStore;
  key: SigningKey;
  clock: { now: number };
  /** A LogFileOutput as the agent starts one (recovered). */
  output(logFile?: Record<string, unknown>): LogFileOutput;
  /** Writes items in a committed transaction, as the pipeline does. */
  commit(output: LogFileOutput, items: StoredItem[]): void;
  close(): void;
}

export async function logRig(logFile: Record<string, unknown> = { headerRow: true }): Promise<LogRig> {
  const root = makeTempDir();
  const dir = path.join(root, 'logs');
  const store = AuditStore.open({ file: path.join(root, 'audit.db') });
  const key = await SigningKey.load(path.join(root, 'secrets'));
  const settings = settingsSchema.parse({
    hosts: [{ id: 'h1', host: 'desk-01', type: localHostType(), includePaths: [root] }],
    outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', logFile }],
  });
  const status = new StatusRegistry();
  const guard = new DiskGuard(
    dir,
    () => ({ maxLocalSize: 10 ** 9, minLocalFreeSpace: 0 }),
    () => 10 ** 12,
  );
  const positions = new OutputPositions(store.db);
  const clock = { now: T0 };
  return {
    root,
    dir,
    store,
    key,
    clock,
    output: (options = logFile) => {
      const o = new LogFileOutput({
        output: { ...settings.outputs[0]!, logFile: { ...settings.outputs[0]!.logFile!, ...options } },
        host: settings.hosts[0]!,
        dir,
        positions,
        guard,
        status,
        log: silentLogger,
        userId: 1000,
        signer: key,
        now: () => clock.now,
      });
      o.recover();
      return o;
    },
    commit: (o, items) => {
      store.transaction(() => o.write(items));
      o.committed();
    },
    close: () => store.close(),
  };
}

let counter = 0;
export function item(timeMs: number, what = `/home/u/file-${++counter}.txt`): StoredItem {
  const record = {
    RID: String(counter),
    Who: 'desk-01\\u',
    Action: 'Added',
    What: what,
    When: new Date(timeMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    Where: 'desk-01',
    ObjectType: 'File',
    DataSource: 'File System',
  };
  return { record, stored: record, timeMs, hostId: 'h1', file: { operation: 'Added', objectType: 'File', path: what } };
}

export function items(count: number, timeMs = T0): StoredItem[] {
  return Array.from({ length: count }, (_, i) => item(timeMs + i));
}
