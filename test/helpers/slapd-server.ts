/**
 * A real OpenLDAP server for tests: Debian's /usr/sbin/slapd with a generated slapd.conf in a
 * temporary folder, an mdb database for dc=example,dc=test and (unless turned off) the accesslog
 * overlay writing every successful write, with its before-image, to cn=accesslog. It listens on
 * 127.0.0.1 on a free port only. Three accounts:
 * - the root DN `cn=admin,dc=example,dc=test` (sets up fixtures),
 * - `cn=reader,dc=example,dc=test`, the account Vigil binds as (reads the data and the log),
 * - `uid=editor,ou=people,dc=example,dc=test`, a second directory account whose writes the tests
 *   expect to see attributed to it.
 * With `tls` it also has a certificate: StartTLS on the `ldap://` port and TLS from the first byte
 * on a second, `ldaps://` port.
 * `stop()` stops the process and keeps the data (so `start()` brings the same directory back on
 * the same port); `dispose()` stops it and removes the folder. With `bulkPeople`, the directory is
 * loaded with slapadd(8) before the first start (benchmarks: 50,000 entries in seconds, where
 * adding them over LDAP takes minutes and fills the accesslog).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Attribute, Change, Client } from 'ldapts';

export const SUFFIX = 'dc=example,dc=test';
export const ADMIN_DN = `cn=admin,${SUFFIX}`;
export const ADMIN_PASSWORD = 'admin-secret';
export const READER_DN = `cn=reader,${SUFFIX}`;
export const READER_PASSWORD = 'reader-secret';
export const EDITOR_DN = `uid=editor,ou=people,${SUFFIX}`;
export const EDITOR_PASSWORD = 'editor-secret';
export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const MODULES = ['/usr/lib/ldap', '/usr/lib/x86_64-linux-gnu/ldap', '/usr/lib/aarch64-linux-gnu/ldap'];
const SCHEMA = '/etc/ldap/schema';

/** Why slapd cannot run here, or null when it can (tests skip with the reason). */
export function slapdMissing(): string | null {
  if (!fs.existsSync(SLAPD)) return `${SLAPD} is not installed (Debian package slapd)`;
  if (!modulePath()) return 'the slapd modules (back_mdb, accesslog) are not installed';
  return null;
}

function modulePath(): string | undefined {
  return MODULES.find((dir) => fs.existsSync(path.join(dir, 'back_mdb.la')));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function config(dir: string, accesslog: boolean, tls: boolean, bulk: number): string {
  // About 2 KiB per entry with its index keys; mdb needs its map size up front.
  const maxsize = Math.max(104857600, bulk * 8192);
  // slapd answers at most 500 entries per search unless told otherwise, paged or not: a large
  // directory needs this for the account Vigil reads with (docs/directory.md, "Scale").
  const limits = bulk > 0 ? [`limits dn.exact="${READER_DN}" size.prtotal=unlimited`] : [];
  const lines = [
    `include ${SCHEMA}/core.schema`,
    `include ${SCHEMA}/cosine.schema`,
    `include ${SCHEMA}/inetorgperson.schema`,
    `pidfile ${dir}/slapd.pid`,
    `modulepath ${modulePath()}`,
    'moduleload back_mdb',
    ...(accesslog ? ['moduleload accesslog'] : []),
    ...(tls ? [`TLSCertificateFile ${dir}/tls-cert.pem`, `TLSCertificateKeyFile ${dir}/tls-key.pem`] : []),
    'database config',
    'access to * by * none',
  ];
  if (accesslog) {
    lines.push(
      'database mdb',
      'maxsize 104857600',
      'suffix "cn=accesslog"',
      `rootdn "${ADMIN_DN}"`,
      `directory ${dir}/accesslog`,
      'index reqStart eq',
      ...limits,
      `access to * by dn.exact="${READER_DN}" read by * none`,
    );
  }
  lines.push(
    'database mdb',
    `maxsize ${maxsize}`,
    `suffix "${SUFFIX}"`,
    `rootdn "${ADMIN_DN}"`,
    `rootpw ${ADMIN_PASSWORD}`,
    `directory ${dir}/data`,
    'index objectClass,entryUUID eq',
    ...limits,
    `access to attrs=userPassword by dn.exact="${EDITOR_DN}" write by self write by anonymous auth by * none`,
    `access to * by dn.exact="${EDITOR_DN}" write by users read by * none`,
  );
  if (accesslog) {
    lines.push(
      'overlay accesslog',
      'logdb "cn=accesslog"',
      'logops writes',
      'logsuccess TRUE',
      'logpurge 07+00:00 01+00:00',
      'logold (objectClass=*)',
    );
  }
  return lines.join('\n') + '\n';
}

export interface SlapdOptions {
  /** The accesslog overlay on cn=accesslog (default true); off: Vigil compares snapshots. */
  accesslog?: boolean;
  /** The server's certificate (its chain, PEM) and key: StartTLS on `url`, TLS on `ldapsUrl`. */
  tls?: { certPem: string; keyPem: string };
  /**
   * Loads this many more inetOrgPerson entries under ou=people (`bulkPerson(i)`, i from 0) with
   * slapadd before the first start, besides the usual base entries and accounts. slapadd writes
   * no accesslog: the entries are there before monitoring, as in a directory that exists.
   */
  bulkPeople?: number;
}

export class SlapdServer {
  private child: ChildProcess | null = null;
  private stderr = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly accesslog: boolean,
    /** The `ldaps://` port when the server has a certificate, else null. */
    readonly tlsPort: number | null = null,
  ) {}

  get url(): string {
    return `ldap://127.0.0.1:${this.port}`;
  }

  /** `ldaps://127.0.0.1:PORT`; only for a server created with `tls`. */
  get ldapsUrl(): string {
    if (this.tlsPort === null) throw new Error('this slapd was created without a certificate');
    return `ldaps://127.0.0.1:${this.tlsPort}`;
  }

  /** Starts a fresh directory holding the base entries and the reader and editor accounts. */
  static async create(options: SlapdOptions = {}): Promise<SlapdServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-slapd-'));
    const accesslog = options.accesslog ?? true;
    for (const sub of ['data', 'accesslog']) fs.mkdirSync(path.join(dir, sub));
    if (options.tls) {
      fs.writeFileSync(path.join(dir, 'tls-cert.pem'), options.tls.certPem);
      fs.writeFileSync(path.join(dir, 'tls-key.pem'), options.tls.keyPem, { mode: 0o600 });
    }
    const bulk = options.bulkPeople ?? 0;
    fs.writeFileSync(path.join(dir, 'slapd.conf'), config(dir, accesslog, options.tls !== undefined, bulk));
    const server = new SlapdServer(dir, await freePort(), accesslog, options.tls ? await freePort() : null);
    try {
      if (bulk > 0) server.bulkLoad(bulk);
      await server.start();
      if (bulk === 0) await server.seed();
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  async start(): Promise<void> {
    if (this.child) return;
    this.stderr = '';
    const urls = [`${this.url}/`, ...(this.tlsPort === null ? [] : [`${this.ldapsUrl}/`])].join(' ');
    const child = spawn(SLAPD, ['-d', '0', '-h', urls, '-f', path.join(this.dir, 'slapd.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`slapd exited (${child.exitCode}): ${this.stderr}`);
      if (await this.answers()) return;
      if (Date.now() > deadline) throw new Error(`slapd did not answer within 10 s: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ url: this.url, connectTimeout: 500, timeout: 1000 });
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      return true;
    } catch {
      return false;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** Stops slapd and keeps its data (start() brings the same directory back). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async seed(): Promise<void> {
    await this.as(ADMIN_DN, ADMIN_PASSWORD, async (c) => {
      await c.add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' });
      await c.add(READER_DN, {
        objectClass: ['organizationalRole', 'simpleSecurityObject'],
        cn: 'reader',
        userPassword: READER_PASSWORD,
      });
      await c.add(PEOPLE, { objectClass: 'organizationalUnit', ou: 'people' });
      await c.add(GROUPS, { objectClass: 'organizationalUnit', ou: 'groups' });
      await c.add(EDITOR_DN, person('editor', EDITOR_PASSWORD));
    });
  }

  /** The seed entries and `count` bulk people, written with slapadd while slapd is stopped. */
  private bulkLoad(count: number): void {
    const ldif = path.join(this.dir, 'bulk.ldif');
    const out = fs.openSync(ldif, 'w');
    try {
      const seed: Array<[string, Record<string, string | string[]>]> = [
        [SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' }],
        [
          READER_DN,
          { objectClass: ['organizationalRole', 'simpleSecurityObject'], cn: 'reader', userPassword: READER_PASSWORD },
        ],
        [PEOPLE, { objectClass: 'organizationalUnit', ou: 'people' }],
        [GROUPS, { objectClass: 'organizationalUnit', ou: 'groups' }],
        [EDITOR_DN, person('editor', EDITOR_PASSWORD)],
      ];
      for (const [dn, attributes] of seed) fs.writeSync(out, ldifEntry(dn, attributes));
      let chunk = '';
      for (let i = 0; i < count; i++) {
        const { dn, attributes } = bulkPerson(i);
        chunk += ldifEntry(dn, attributes);
        if (chunk.length > 1 << 20) {
          fs.writeSync(out, chunk);
          chunk = '';
        }
      }
      fs.writeSync(out, chunk);
    } finally {
      fs.closeSync(out);
    }
    execFileSync(SLAPADD, ['-q', '-f', path.join(this.dir, 'slapd.conf'), '-b', SUFFIX, '-l', ldif], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    fs.rmSync(ldif);
  }

  /** Runs `work` with a client bound as `dn`; unbinds after. */
  async as<T>(dn: string, password: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ url: this.url, timeout: 5000 });
    try {
      await client.bind(dn, password);
      return await work(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** Directory changes made as the editor account (the actor the tests expect). */
  readonly editor = {
    add: (dn: string, attributes: Record<string, string | string[]>): Promise<void> =>
      this.as(EDITOR_DN, EDITOR_PASSWORD, (c) => c.add(dn, attributes)),
    replace: (dn: string, attributes: Record<string, string[]>): Promise<void> =>
      this.as(EDITOR_DN, EDITOR_PASSWORD, (c) => c.modify(dn, replaceChanges(attributes))),
    rename: (dn: string, newDn: string): Promise<void> =>
      this.as(EDITOR_DN, EDITOR_PASSWORD, (c) => c.modifyDN(dn, newDn)),
    remove: (dn: string): Promise<void> => this.as(EDITOR_DN, EDITOR_PASSWORD, (c) => c.del(dn)),
  };
}

/** An inetOrgPerson with the usual attributes. */
export function person(uid: string, password?: string): Record<string, string | string[]> {
  return {
    objectClass: ['top', 'person', 'organizationalPerson', 'inetOrgPerson'],
    uid,
    cn: uid,
    sn: uid.toUpperCase(),
    ...(password !== undefined ? { userPassword: password } : {}),
  };
}

/** The i-th entry of `bulkPeople`: an inetOrgPerson with the attributes a directory usually holds. */
export function bulkPerson(i: number): { dn: string; attributes: Record<string, string | string[]> } {
  const uid = `person${String(i).padStart(6, '0')}`;
  return {
    dn: `uid=${uid},${PEOPLE}`,
    attributes: {
      ...person(uid, `secret-${i}`),
      givenName: `Given${i}`,
      displayName: `Person ${i}`,
      mail: `${uid}@example.test`,
      telephoneNumber: `+1 555 ${String(i).padStart(7, '0')}`,
      title: `Engineer ${i % 17}`,
      ou: `Team ${i % 50}`,
      description: `Bulk-loaded person ${i}`,
    },
  };
}

/** One LDIF record (RFC 2849); values with characters LDIF cannot carry plainly are base64. */
function ldifEntry(dn: string, attributes: Record<string, string | string[]>): string {
  const line = (name: string, value: string): string =>
    /^[\x21-\x39\x3b\x3d-\x7e][\x20-\x7e]*$/.test(value) && !value.endsWith(' ')
      ? `${name}: ${value}\n`
      : `${name}:: ${Buffer.from(value).toString('base64')}\n`;
  let text = line('dn', dn);
  for (const [name, values] of Object.entries(attributes)) {
    for (const value of Array.isArray(values) ? values : [values]) text += line(name, value);
  }
  return text + '\n';
}

function replaceChanges(attributes: Record<string, string[]>): Change[] {
  // An empty list of values deletes every value of the attribute.
  return Object.entries(attributes).map(
    ([type, values]) => new Change({ operation: 'replace', modification: new Attribute({ type, values }) }),
  );
}
