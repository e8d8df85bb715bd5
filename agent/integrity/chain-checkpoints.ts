/**
 * Signed checkpoints of the record chain (docs/integrity.md), kept in `chain_checkpoints`:
 * - `head`: the chain value of record `seq`, the newest at the time; written every hour and at
 *   shutdown, so later edits of anything up to it are caught even by someone who recomputes
 *   the whole chain.
 * - `retention`: retention deleted every record before `seq`; `chain` is the chain value of
 *   the deleted predecessor, so the first kept record still links to something signed.
 * Other signed things (the log files' sidecars) are signed at the same moments through
 * `onCheckpoint`.
 */
import type Database from 'better-sqlite3';
import type { AuditStore } from '../store/audit-store.js';
import type { Logger } from '../log/logger.js';
import type { SigningKey } from './signing-key.js';

export type CheckpointKind = 'head' | 'retention';

export interface CheckpointRow {
  id: number;
  kind: CheckpointKind;
  seq: number;
  chain: Buffer;
  time_ms: number;
  signature: Buffer;
}

/** What a checkpoint's signature covers (UTF-8). */
export function checkpointMessage(kind: string, seq: number, chain: Buffer, timeMs: number): Buffer {
  return Buffer.from(`vigil-chain-checkpoint\n${kind}\n${seq}\n${chain.toString('hex')}\n${timeMs}`, 'utf8');
}

const HOUR_MS = 3_600_000;

export class ChainCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners: Array<(timeMs: number) => void> = [];

  constructor(
    private readonly store: AuditStore,
    private readonly key: SigningKey,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Signs at each checkpoint as well (the log files' sidecars). */
  onCheckpoint(listener: (timeMs: number) => void): void {
    this.listeners.push(listener);
  }

  /** Checkpoints now and every `intervalMs` (an hour) from now on. */
  start(intervalMs = HOUR_MS): void {
    this.checkpointSafely();
    this.timer = setInterval(() => this.checkpointSafely(), intervalMs);
    this.timer.unref();
  }

  /** The last checkpoint, at shutdown (after the pipeline has committed what it held). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.checkpointSafely();
  }

  /** Signs the chain head (if any record is stored and it moved since the last one). */
  checkpoint(): void {
    const timeMs = this.now();
    this.store.transaction(() => {
      const head = this.store.db.prepare('SELECT seq, chain FROM activity_records ORDER BY seq DESC LIMIT 1').get() as
        { seq: number; chain: Buffer } | undefined;
      if (!head) return;
      const last = this.store.db
        .prepare("SELECT seq FROM chain_checkpoints WHERE kind = 'head' ORDER BY id DESC LIMIT 1")
        .get() as { seq: number } | undefined;
      if (last?.seq !== head.seq) insertCheckpoint(this.store.db, this.key, 'head', head.seq, head.chain, timeMs);
    });
    for (const listener of this.listeners) listener(timeMs);
  }

  /** For `AuditStore.deleteOlderThan`: records a retention deletion inside its transaction. */
  readonly recordRetention = (firstKeptSeq: number, predecessorChain: Buffer): void => {
    insertCheckpoint(this.store.db, this.key, 'retention', firstKeptSeq, predecessorChain, this.now());
  };

  private checkpointSafely(): void {
    try {
      this.checkpoint();
    } catch (error) {
      this.log.error('chain checkpoint failed', { error: (error as Error).message });
    }
  }
}

function insertCheckpoint(
  db: Database.Database,
  key: SigningKey,
  kind: CheckpointKind,
  seq: number,
  chain: Buffer,
  timeMs: number,
): void {
  const signature = key.sign(checkpointMessage(kind, seq, chain, timeMs));
  db.prepare('INSERT INTO chain_checkpoints (kind, seq, chain, time_ms, signature) VALUES (?, ?, ?, ?, ?)').run(
    kind,
    seq,
    chain,
    timeMs,
    signature,
  );
}
