/**
 * This agent as a member of a fleet (docs/fleet.md): the pool to the fleet database, the
 * forwarder of its records, its registration and heartbeat, and the fleet database's upkeep
 * (partitions ahead, retention by whole day partitions). The audit API reads `pool` and waits
 * on `waitForwarded` after a write.
 */
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import { retentionCutoff } from '../store/record-retention.js';
import { openFleetPool } from './fleet-connection.js';
import {
  HEARTBEAT_MS,
  listMembers,
  registerMember,
  type FleetMember,
  type MemberRegistration,
} from './fleet-registry.js';
import { dropPartitionsBefore, ensurePartitions, migrateFleet } from './pg-schema.js';
import { RecordForwarder } from './record-forwarder.js';
import type { PacingOptions } from './reconnect-pacing.js';
import type { FleetState } from './fleet-state.js';

export interface FleetMembership {
  readonly pool: pg.Pool;
  /** The fleet database's URL, without password. */
  readonly database: string;
  state(): FleetState;
  /** Since when the database is unreachable or refuses this agent; null while connected. */
  unreachableSince(): Date | null;
  /** Why the last attempt failed; '' while connected. */
  problem(): string;
  /** Local records not yet in the fleet database. */
  backlog(): number;
  /** Resolves when the local record with this seq is in the fleet database; rejects if unreachable. */
  waitForwarded(seq: number, timeoutMs: number): Promise<void>;
  /** Looks for new local records now (after a local write). */
  nudge(): void;
  members(): Promise<FleetMember[]>;
  /** The members as of the last heartbeat (the agent API lists them without a round trip). */
  knownMembers(): readonly FleetMember[];
  stop(): Promise<void>;
}

export interface FleetMembershipOptions {
  database: string;
  dataDir: string;
  auditDb: string;
  agentId: string;
  log: Logger;
  /** What the member registers (hosts read at each heartbeat). */
  registration: () => Omit<MemberRegistration, 'id'>;
  retentionDays: () => number;
  heartbeatMs?: number;
  /** Partition upkeep and retention. */
  upkeepMs?: number;
  pollMs?: number;
  pacing?: PacingOptions;
}

/** Starts membership; resolves after the first attempt to reach the database (the agent starts either way). */
export async function startFleetMembership(options: FleetMembershipOptions): Promise<FleetMembership> {
  const { log } = options;
  const pool = openFleetPool({ database: options.database }, options.dataDir);
  let known: readonly FleetMember[] = [];
  const register = async (): Promise<void> => {
    await registerMember(pool, { id: options.agentId, ...options.registration() });
    known = await listMembers(pool);
  };
  const upkeep = async (): Promise<void> => {
    await ensurePartitions(pool);
    const dropped = await dropPartitionsBefore(pool, retentionCutoff(Date.now(), options.retentionDays()));
    if (dropped.length > 0) log.info('fleet day partitions past retention dropped', { partitions: dropped.join(', ') });
  };
  const forwarder = new RecordForwarder({
    auditDb: options.auditDb,
    pool,
    database: options.database,
    agentId: options.agentId,
    log,
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.pacing ? { pacing: options.pacing } : {}),
    // Each time the database is (re)gained: schema, partitions, registration.
    prepare: async () => {
      await migrateFleet(pool);
      await register();
    },
  });
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, work: () => Promise<void>, what: string, onFailure?: (error: Error) => void): void => {
    const timer = setInterval(() => {
      if (forwarder.state() !== 'connected') return;
      work().catch((error: Error) => {
        log.warn(`fleet ${what} failed`, { error: error.message });
        onFailure?.(error);
      });
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  // A failed heartbeat is how an idle member learns the database is gone.
  every(options.heartbeatMs ?? HEARTBEAT_MS, register, 'heartbeat', (error) => forwarder.reportFailure(error));
  every(options.upkeepMs ?? 3_600_000, upkeep, 'partition upkeep');
  await forwarder.start();
  if (forwarder.state() === 'connected') {
    await upkeep().catch((error: Error) => log.warn('fleet partition upkeep failed', { error: error.message }));
  }
  let stopping: Promise<void> | null = null;
  return {
    pool,
    database: options.database,
    state: () => forwarder.state(),
    unreachableSince: () => forwarder.unreachableSince(),
    problem: () => forwarder.problem(),
    backlog: () => forwarder.backlog(),
    waitForwarded: (seq, timeoutMs) => forwarder.waitForwarded(seq, timeoutMs),
    nudge: () => forwarder.nudge(),
    members: () => listMembers(pool),
    knownMembers: () => known,
    stop: () =>
      (stopping ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        await forwarder.stop();
        await pool.end().catch(() => undefined);
      })()),
  };
}
