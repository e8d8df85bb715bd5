/**
 * The fleet database's schema (docs/fleet.md) and its migrations. Every member runs `migrateFleet`
 * at start; the migrations run under a session advisory lock, so members starting together apply
 * each version once and the others wait, then see it recorded in `vigil_schema_migrations`.
 * A migration never edits an earlier one: add a new entry instead.
 */
import type pg from 'pg';
import { whileReachable } from './fleet-connection.js';
import {
  AUDIT_INDEXES_MIGRATION,
  SEQ_ORDERED_ACCOUNT_INDEXES_MIGRATION,
  WHO_ACTION_FOLDED_INDEX_MIGRATION,
  WHO_FOLDED_INDEX_MIGRATION,
} from './pg-audit-indexes.js';

/** pg_advisory_lock keys (arbitrary, fixed; one per purpose so they never wait on each other). */
export const ADVISORY_KEYS = {
  migrations: 0x76696731, // "vig1"
  /** Held per insert transaction: seq order is commit order, so a page never skips a late commit. */
  inserts: 0x76696732,
  partitions: 0x76696733,
} as const;

export interface FleetMigration {
  version: number;
  /** What the migration is for, recorded with it. */
  name: string;
  sql: string;
}

export const FLEET_MIGRATIONS: readonly FleetMigration[] = [
  {
    version: 1,
    name: 'records, fleet keys and agents',
    // `seq`: fleet-wide insertion order (pages walk it). `agent_seq`: the record's seq in its
    // agent's SQLite. The columns mean what agent/store/audit-schema.ts's do. `day` is the UTC day
    // of `when_ms`; a record's day never changes, so UNIQUE (day, rid) makes a re-sent record
    // conflict: forwarded at least once, stored exactly once.
    sql: `
      CREATE TABLE vigil_records (
        seq          bigint GENERATED ALWAYS AS IDENTITY,
        agent_id     text   NOT NULL,
        agent_seq    bigint NOT NULL,
        rid          text   NOT NULL,
        when_ms      bigint NOT NULL,
        who          text   NOT NULL,
        action       text   NOT NULL,
        what         text   NOT NULL,
        location     text   NOT NULL,
        object_type  text   NOT NULL,
        data_source  text   NOT NULL,
        plan_name    text,
        plan_id      text,
        item_name    text,
        workstation  text,
        details      text,
        chain        bytea,
        day          date   NOT NULL,
        UNIQUE (day, rid)
      ) PARTITION BY RANGE (day);
      CREATE TABLE vigil_records_default PARTITION OF vigil_records DEFAULT;
      CREATE INDEX vigil_records_seq ON vigil_records (seq);
      CREATE INDEX vigil_records_when ON vigil_records (when_ms);
      CREATE INDEX vigil_records_agent ON vigil_records (agent_id, agent_seq);
      CREATE TABLE vigil_fleet_keys (
        name text PRIMARY KEY,
        key  bytea NOT NULL
      );
      CREATE TABLE vigil_agents (
        id          text PRIMARY KEY,
        host        text,
        api_address text,
        api_port    int,
        version     text,
        hosts       jsonb,
        last_seen   timestamptz,
        joined_at   timestamptz
      );
    `,
  },
  { version: 2, ...AUDIT_INDEXES_MIGRATION },
  { version: 3, ...WHO_FOLDED_INDEX_MIGRATION },
  {
    version: 4,
    name: "each record's JSON as its agent's SQLite wrote it, for the audit API's pages",
    // Filled by forwarders from this version on (forward-copy.ts); NULL for records forwarded
    // before, whose JSON PostgreSQL writes itself (pg-audit-rows.ts). Adding a nullable column
    // without a default rewrites no partition.
    sql: 'ALTER TABLE vigil_records ADD COLUMN json text;',
  },
  { version: 5, ...WHO_ACTION_FOLDED_INDEX_MIGRATION },
  { version: 6, ...SEQ_ORDERED_ACCOUNT_INDEXES_MIGRATION },
];

export const FLEET_SCHEMA_VERSION = FLEET_MIGRATIONS[FLEET_MIGRATIONS.length - 1]!.version;

/** The database was migrated by a newer Vigil than this one. */
export class FleetSchemaTooNewError extends Error {
  override name = 'FleetSchemaTooNewError';
}

/** The fleet database does not store text as UTF-8. */
export class FleetEncodingError extends Error {
  override name = 'FleetEncodingError';
}

/**
 * Brings the fleet database to FLEET_SCHEMA_VERSION and creates the day partitions ahead.
 * Safe to run from many members at once. Refuses a database whose encoding is not UTF-8: the
 * members send and read records as UTF-8 bytes (forward-copy.ts, copy-out.ts), which such a
 * database would store and hand back as something else, or refuse record by record.
 */
export async function migrateFleet(pool: pg.Pool, now = Date.now()): Promise<void> {
  // whileReachable: a checked-out connection the server ends between two statements (a restart)
  // fails this work instead of throwing from the connection's 'error' event.
  await whileReachable(pool, async (client) => {
    const encoding = (await client.query<{ name: string }>('SELECT current_setting($1) AS name', ['server_encoding']))
      .rows[0]!.name;
    if (encoding !== 'UTF8') {
      throw new FleetEncodingError(
        `the fleet database's encoding is ${encoding}; Vigil needs a UTF8 database ` +
          `(CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0, docs/fleet.md)`,
      );
    }
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_KEYS.migrations]);
    try {
      await client.query(`
        CREATE TABLE IF NOT EXISTS vigil_schema_migrations (
          version    int PRIMARY KEY,
          name       text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
      const { rows } = await client.query<{ version: number }>(
        'SELECT coalesce(max(version), 0)::int AS version FROM vigil_schema_migrations',
      );
      const current = rows[0]!.version;
      if (current > FLEET_SCHEMA_VERSION) {
        throw new FleetSchemaTooNewError(
          `the fleet database has schema version ${current}, newer than this Vigil understands (${FLEET_SCHEMA_VERSION})`,
        );
      }
      for (const migration of FLEET_MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO vigil_schema_migrations (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_KEYS.migrations]);
    }
  });
  await ensurePartitions(pool, now);
}

const DAY_MS = 86_400_000;
/** Day partitions created ahead of today; later days land in the default partition until then. */
export const PARTITION_DAYS_AHEAD = 7;

/** `YYYY-MM-DD`, the UTC day of a time in milliseconds (`day` of vigil_records). */
export function utcDay(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

function partitionName(day: string): string {
  return `vigil_records_p${day.replace(/-/g, '')}`;
}

/**
 * Creates the partitions of today and the next PARTITION_DAYS_AHEAD days that do not exist yet.
 * A day whose records already sit in the default partition (a clock far ahead, a record with an
 * odd When) keeps them there: creating its partition would fail, and the records stay searchable.
 * Returns the partitions created.
 */
export function ensurePartitions(pool: pg.Pool, now = Date.now()): Promise<string[]> {
  return whileReachable(pool, async (client) => {
    const created: string[] = [];
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_KEYS.partitions]);
      const existing = new Set(
        (
          await client.query<{ name: string }>(
            `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'vigil_records'::regclass`,
          )
        ).rows.map((r) => r.name),
      );
      for (let offset = 0; offset <= PARTITION_DAYS_AHEAD; offset++) {
        const day = utcDay(now + offset * DAY_MS);
        const name = partitionName(day);
        if (existing.has(name)) continue;
        const stranded = await client.query('SELECT 1 FROM vigil_records_default WHERE day = $1 LIMIT 1', [day]);
        if (stranded.rowCount) continue;
        const next = utcDay(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
        await client.query(`CREATE TABLE ${name} PARTITION OF vigil_records FOR VALUES FROM ('${day}') TO ('${next}')`);
        created.push(name);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return created;
  });
}

/**
 * Retention in the fleet database: drops the day partitions wholly before `cutoffMs`'s day and
 * deletes the default partition's records older than it. Returns the partitions dropped.
 */
export function dropPartitionsBefore(pool: pg.Pool, cutoffMs: number): Promise<string[]> {
  const cutoffDay = utcDay(cutoffMs);
  return whileReachable(pool, async (client) => {
    const dropped: string[] = [];
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_KEYS.partitions]);
      const { rows } = await client.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'vigil_records'::regclass AND c.relname ~ '^vigil_records_p[0-9]{8}$'`,
      );
      for (const { name } of rows) {
        const digits = name.slice('vigil_records_p'.length);
        const day = `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}`;
        if (day >= cutoffDay) continue;
        await client.query(`DROP TABLE ${name}`);
        dropped.push(name);
      }
      await client.query('DELETE FROM vigil_records_default WHERE when_ms < $1', [cutoffMs]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return dropped;
  });
}
