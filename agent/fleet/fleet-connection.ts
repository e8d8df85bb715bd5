/**
 * The connection to the fleet database (docs/fleet.md). The URL in settings names user, host,
 * port and database, and the TLS mode as libpq's `sslmode`; the password comes, as libpq looks
 * for it, from secrets/fleet-password (written by `vigil fleet join --password-stdin`), else
 * PGPASSWORD, else ~/.pgpass. It is read at each new connection, never logged or returned.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type tls from 'node:tls';
import pg from 'pg';
import type { FleetMembershipSettings } from '../config/fleet-membership-schema.js';

export function fleetPasswordFile(dataDir: string): string {
  return path.join(dataDir, 'secrets', 'fleet-password');
}

/** Writes the password owner-only (the secrets folder is created owner-only if missing). */
export function writeFleetPassword(dataDir: string, password: string): void {
  const file = fleetPasswordFile(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, password, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

export function removeFleetPassword(dataDir: string): void {
  fs.rmSync(fleetPasswordFile(dataDir), { force: true });
}

/** One field of a ~/.pgpass line: `\:` and `\\` are escapes; `*` matches anything. */
function pgpassFields(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) current += line[++i];
    else if (c === ':' && fields.length < 4) {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  return fields;
}

/** The password ~/.pgpass (or PGPASSFILE) gives for this connection, as libpq reads it. */
export function pgpassPassword(
  target: { host: string; port: number; database: string; user: string },
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = env['PGPASSFILE'] ?? path.join(os.homedir(), '.pgpass');
  let text: string;
  try {
    const stat = fs.statSync(file);
    // libpq ignores a password file others can read.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) return undefined;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const wanted = [target.host, String(target.port), target.database, target.user];
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = pgpassFields(line);
    if (fields.length !== 5) continue;
    if (wanted.every((value, i) => fields[i] === '*' || fields[i] === value)) return fields[4];
  }
  return undefined;
}

export interface FleetTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: false | tls.ConnectionOptions;
}

/**
 * The URL's parts. `sslmode` as libpq: absent, disable, allow and prefer connect without TLS
 * (node-postgres cannot fall back from TLS to plain text); require encrypts without checking the
 * server's certificate; verify-ca and verify-full check it against `sslrootcert` (a PEM file) or
 * the system's CAs.
 */
export function fleetTarget(databaseUrl: string): FleetTarget {
  const url = new URL(databaseUrl);
  const mode = url.searchParams.get('sslmode') ?? 'disable';
  let ssl: FleetTarget['ssl'] = false;
  if (mode === 'require') ssl = { rejectUnauthorized: false };
  else if (mode === 'verify-ca' || mode === 'verify-full') {
    const rootCert = url.searchParams.get('sslrootcert');
    ssl = {
      rejectUnauthorized: true,
      ...(rootCert ? { ca: fs.readFileSync(rootCert, 'utf8') } : {}),
      ...(mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
    };
  } else if (!['disable', 'allow', 'prefer'].includes(mode)) {
    throw new Error(`sslmode "${mode}" is not one of disable, allow, prefer, require, verify-ca, verify-full`);
  }
  return {
    host: decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')),
    port: url.port === '' ? 5432 : Number(url.port),
    database: decodeURIComponent(url.pathname.slice(1)),
    user: decodeURIComponent(url.username),
    ssl,
  };
}

/** The password for this member: secrets file, PGPASSWORD, ~/.pgpass, in that order. */
export function fleetPassword(dataDir: string, target: FleetTarget, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return fs.readFileSync(fleetPasswordFile(dataDir), 'utf8');
  } catch {
    // not given at join: look further
  }
  return env['PGPASSWORD'] ?? pgpassPassword(target, env) ?? '';
}

export interface FleetPoolOptions {
  /** Connections this member keeps at most (forwarder, registry, audit API). */
  max?: number;
  connectionTimeoutMillis?: number;
}

export function openFleetPool(
  membership: Pick<FleetMembershipSettings, 'database'>,
  dataDir: string,
  options: FleetPoolOptions = {},
): pg.Pool {
  const target = fleetTarget(membership.database);
  const pool = new pg.Pool({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    ssl: target.ssl,
    password: () => fleetPassword(dataDir, target),
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'vigil',
    // A dead server must not hold a query forever: the forwarder retries instead.
    query_timeout: 60_000,
    keepAlive: true,
  });
  // An idle connection dropped by the server is an error event on the pool; the next query
  // reconnects, and the member's state says so.
  pool.on('error', () => undefined);
  return pool;
}

/** How long a watched fleet query waits before the server is checked on a new connection. */
export const REACHABILITY_CHECK_MS = 10_000;

/** Whether the server answers a new connection (and `SELECT 1` on it) within the pool's connection timeout. */
async function serverAnswers(pool: pg.Pool): Promise<boolean> {
  const timeoutMs = pool.options.connectionTimeoutMillis ?? 5_000;
  // The pool keeps `password` non-enumerable (out of logs), so a spread alone would drop it.
  const client = new pg.Client({ ...pool.options, password: pool.options.password, query_timeout: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    // An answer from the server, even a refusal (too many connections, starting up), is an answer.
    return error instanceof pg.DatabaseError;
  } finally {
    // A half-made connection to an unreachable host ends at once; no waiting on a FIN.
    socketOf(client)?.destroy();
  }
}

function socketOf(client: pg.Client | pg.PoolClient): { destroy(): void } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
}

/**
 * A connection from the pool with `onError` listening to it from the moment the pool hands it
 * over. The pool's callback runs while the driver reads the connection's last handshake message,
 * and the same read may hold a FATAL error right after it (a server shutting down, an idle-session
 * timeout): the driver reports that error before the continuation of an awaited `pool.connect()`
 * could add a listener, and an error event without one ends the process.
 */
function checkOut(pool: pg.Pool, onError: (error: Error) => void): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || !client) return reject(error ?? new Error('the pool gave no connection'));
      client.on('error', onError);
      resolve(client);
    });
  });
}

/**
 * Work on a connection of its own from the pool that fails as soon as the server is known to be
 * out of reach. A link that silently drops packets (a pulled cable, a network partition) gives
 * no error: the socket retransmits for many minutes and a query waits for its `query_timeout`, a
 * minute in which the member still says "connected". A long wait can be normal too (batches
 * queue on the inserts lock), so the work is not cut short by a timer: every `checkAfterMs` the
 * server is asked on a new connection, and only if that fails is the connection destroyed and
 * the work failed. The connection goes back to the pool after the work, or is discarded if the
 * work failed (it may be inside a transaction or a COPY).
 */
export async function whileReachable<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  checkAfterMs = REACHABILITY_CHECK_MS,
): Promise<T> {
  let broken: Error | undefined;
  // Errors reach the work's promise; without a listener a checked-out client's 'error' would throw.
  const onError = (error: Error): void => void (broken ??= error);
  const client = await checkOut(pool, onError);
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    timer = setTimeout(() => {
      void serverAnswers(pool).then((answers) => {
        if (settled) return;
        if (answers) return check();
        broken = new Error('the fleet database stopped answering (a new connection failed too)');
        socketOf(client)?.destroy();
      });
    }, checkAfterMs);
  };
  check();
  let failed: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    failed = broken ?? (error as Error);
    throw failed;
  } finally {
    settled = true;
    clearTimeout(timer);
    client.removeListener('error', onError);
    // As pool.query does: a connection whose query failed is not reused.
    client.release(failed);
  }
}

/** One statement through whileReachable: the fleet's query path (forwarder, registry, audit reads). */
export function queryWhileReachable<R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  /** The statement, or its text with a `name` that prepares it once per connection. */
  query: string | { text: string; name?: string; rowMode?: 'array' },
  values: unknown[],
  checkAfterMs = REACHABILITY_CHECK_MS,
): Promise<pg.QueryResult<R>> {
  return whileReachable(
    pool,
    (client) => client.query<R>(typeof query === 'string' ? { text: query, values } : { ...query, values }),
    checkAfterMs,
  );
}
