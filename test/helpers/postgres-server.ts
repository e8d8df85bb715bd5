/**
 * A real PostgreSQL for fleet tests: Debian's server binaries (the highest version under
 * /usr/lib/postgresql/), `initdb` run as the `postgres` account in a temporary folder it owns,
 * scram-sha-256 authentication, listening on 127.0.0.1 on a free port with its unix socket
 * inside that folder. A role `vigil` owns the database `vigil`, where `pg_trgm` is installed.
 * `.ci/run` installs the packages.
 */
import { execFile, execFileSync } from 'node:child_process';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgres://vigil@127.0.0.1:PORT/vigil`, without the password. */
  url: string;
  /** The `vigil` role's password. */
  password: string;
  port: number;
  /** The superuser, password included, for test set-up. */
  adminUrl: string;
  /** The server's folder (its cluster and log), removed by `stop()`. */
  dir: string;
  /** `pg_ctl stop -m fast`, then the folder is removed; idempotent. */
  stop(): Promise<void>;
  /** Stops and starts the same cluster on the same port. */
  restart(): Promise<void>;
  /** Stops the server and leaves it stopped (its data kept) until `start()`. */
  pause(): Promise<void>;
  start(): Promise<void>;
}

/** The bin folder of the highest PostgreSQL version installed. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((name) => /^\d+(\.\d+)?$/.test(name) && fs.existsSync(path.join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server under ${root} (install postgresql)`);
  return path.join(root, versions[0]!, 'bin');
}

/**
 * `url` with `password` in it: node-postgres lets a connection string's fields override the
 * separate `password` option, so tests connect with one URL that carries both.
 */
export function urlWithPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** A port nothing listens on now (this helper imports nothing of vitest, so benchmarks use it too). */
async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function accountIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Servers still running when the test process exits are stopped immediately. */
const running = new Set<() => void>();
process.once('exit', () => {
  for (const stopNow of running) stopNow();
});

export interface PostgresOptions {
  password?: string;
  /** Further addresses to listen on besides 127.0.0.1 (e.g. a veth end in a partition test). */
  listenAddresses?: string[];
  /** Further client networks (CIDR) allowed to log in with scram-sha-256. */
  allowNetworks?: string[];
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const password = options.password ?? randomBytes(12).toString('hex');
  const adminPassword = randomBytes(12).toString('hex');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-pg-'));
  const data = path.join(dir, 'data');
  const socketDir = path.join(dir, 'socket');
  fs.mkdirSync(socketDir);
  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${adminPassword}\n`, { mode: 0o600 });
  const { uid, gid } = accountIds('postgres');
  for (const p of [dir, socketDir, pwfile]) fs.chownSync(p, uid, gid);
  fs.chmodSync(dir, 0o700);

  const asPostgres = (binary: string, args: string[]): Promise<unknown> =>
    run('runuser', ['-u', 'postgres', '--', path.join(bin, binary), ...args], { cwd: dir, timeout: 60_000 });

  await asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--pwfile',
    pwfile,
    '--auth',
    'scram-sha-256',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-instructions',
  ]);
  fs.rmSync(pwfile);
  for (const network of options.allowNetworks ?? []) {
    fs.appendFileSync(path.join(data, 'pg_hba.conf'), `host all all ${network} scram-sha-256\n`);
  }
  const port = await freeTcpPort();
  // Test clusters trade durability against a power cut for speed; a crash of PostgreSQL
  // itself (kill -9) is still recovered from the WAL.
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    [
      `listen_addresses = '${['127.0.0.1', ...(options.listenAddresses ?? [])].join(',')}'`,
      `port = ${port}`,
      `unix_socket_directories = '${socketDir}'`,
      `fsync = off`,
      `full_page_writes = off`,
      `max_connections = 200`,
      `shared_buffers = 32MB`,
      '',
    ].join('\n'),
  );

  let stopped = false;
  let up = false;
  const stopNow = (): void => {
    try {
      execFileSync(
        'runuser',
        ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate'],
        {
          stdio: 'ignore',
          cwd: dir,
        },
      );
    } catch {
      // already stopped
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const start = async (): Promise<void> => {
    await asPostgres('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', path.join(dir, 'server.log')]);
    up = true;
  };
  const pause = async (): Promise<void> => {
    if (!up) return;
    await asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    up = false;
  };
  running.add(stopNow);
  try {
    await start();
    const adminUrl = `postgres://postgres:${adminPassword}@127.0.0.1:${port}/postgres`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE vigil LOGIN PASSWORD '${password.replace(/'/g, "''")}'`);
      await admin.query('CREATE DATABASE vigil OWNER vigil');
    } finally {
      await admin.end();
    }
    const inVigil = new pg.Client({ connectionString: `postgres://postgres:${adminPassword}@127.0.0.1:${port}/vigil` });
    await inVigil.connect();
    try {
      await inVigil.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    } finally {
      await inVigil.end();
    }
    return {
      url: `postgres://vigil@127.0.0.1:${port}/vigil`,
      password,
      port,
      adminUrl,
      dir,
      start,
      pause,
      async restart() {
        await pause();
        await start();
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        running.delete(stopNow);
        await pause().catch(() => undefined);
        stopNow();
      },
    };
  } catch (error) {
    running.delete(stopNow);
    stopNow();
    throw error;
  }
}
