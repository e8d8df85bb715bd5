/**
 * One bound connection to a domain's LDAP server (docs/directory.md): `ldaps://` is TLS from the
 * first byte; `ldap://` upgrades with StartTLS (RFC 4513 section 3) before anything else is
 * sent, unless the domain says `tls: "none"`. The upgrade is required, not taken when offered: a
 * rootDSE read in clear text can be rewritten on the way to hide StartTLS and get the bind
 * password in clear (RFC 4513 section 3.1.5). The CA file, when set, is the only CA trusted. Then a
 * simple bind (RFC 4513 section 5.1.3) as the domain's account. Errors say what failed in words
 * an operator can act on, and never carry the password.
 */
import fs from 'node:fs/promises';
import net, { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, ResultCodeError, type Entry } from 'ldapts';
import type { DomainSettings } from '../config/directory-schema.js';
import {
  SessionError,
  startTlsFailure,
  startTlsRefused,
  transportFailure,
  watchFirstReply,
  type RepliesSeen,
} from './session-failure.js';

export interface RootDse {
  namingContexts: string[];
  defaultNamingContext: string;
  /** Active Directory announces its capabilities (`supportedCapabilities`, 1.2.840.113556.1.4.800). */
  isActiveDirectory: boolean;
}

export interface LdapSession {
  readonly client: Client;
  readonly rootDse: RootDse;
  /** The server's host name or address, for the records' `Where`. */
  readonly host: string;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Per-operation timeout in milliseconds. */
  timeoutMs?: number;
}

const AD_CAPABILITY = '1.2.840.113556.1.4.800';

function list(value: Entry[string] | undefined): string[] {
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  return values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

export function serverHost(ldapServer: string): string {
  return new URL(ldapServer).hostname.replace(/^\[|\]$/g, '');
}

async function readRootDse(client: Client): Promise<RootDse> {
  const { searchEntries } = await client.search('', {
    scope: 'base',
    filter: '(objectClass=*)',
    attributes: ['namingContexts', 'defaultNamingContext', 'supportedCapabilities'],
  });
  const entry = searchEntries[0] ?? ({ dn: '' } as Entry);
  return {
    namingContexts: list(entry['namingContexts']),
    defaultNamingContext: list(entry['defaultNamingContext'])[0] ?? '',
    isActiveDirectory: list(entry['supportedCapabilities']).includes(AD_CAPABILITY),
  };
}

/** Opens, secures and binds a session; the caller closes it. */
export async function openSession(
  domain: Pick<DomainSettings, 'ldapServer' | 'userName' | 'tls' | 'caFile'>,
  password: string | null,
  options: SessionOptions = {},
): Promise<LdapSession> {
  const server = domain.ldapServer;
  const host = serverHost(server);
  // SNI carries host names only (RFC 6066 section 3).
  let tlsOptions: ConnectionOptions = { ...(isIP(host) ? {} : { servername: host }), minVersion: 'TLSv1.2' };
  if (domain.caFile !== '') {
    try {
      tlsOptions = { ...tlsOptions, ca: await fs.readFile(domain.caFile, 'utf8') };
    } catch (error) {
      throw new SessionError('tls', `cannot read the CA file ${domain.caFile}: ${(error as Error).message}`);
    }
  }
  const timeout = options.timeoutMs ?? 10_000;
  // ldapts speaks TLS from the first byte whenever it is given TLS options: only for ldaps://.
  const ldaps = server.toLowerCase().startsWith('ldaps://');
  // After a server closed its side (or sent something that is not LDAP), ldapts 8 keeps its half
  // of the socket open: the session destroys every socket it opened, or each failed poll would
  // leave one connection behind.
  const sockets: Socket[] = [];
  const replies: RepliesSeen = { notLdap: null };
  const tracked = <S extends Socket>(socket: S): S => {
    sockets.push(socket);
    watchFirstReply(socket, replies);
    return socket;
  };
  const failure = (error: Error): SessionError =>
    error instanceof SessionError ? error : transportFailure(error, server, host, domain.caFile, replies);
  const client = new Client({
    url: server,
    timeout,
    connectTimeout: timeout,
    ...(ldaps ? { tlsOptions } : {}),
    createConnection: ((port: number, host: string) => tracked(net.connect(port, host))) as typeof net.connect,
    // ldaps:// calls it with (port, host, options), StartTLS with (options) alone.
    createSecureConnection: ((...args: Parameters<typeof tls.connect>) =>
      tracked(tls.connect(...args))) as typeof tls.connect,
  });
  const close = async (): Promise<void> => {
    await client.unbind().catch(() => undefined);
    for (const socket of sockets.splice(0)) socket.destroy();
  };
  try {
    if (!ldaps && domain.tls === 'starttls') {
      await client.startTLS(tlsOptions).catch((error: Error) => {
        if (error instanceof ResultCodeError) throw startTlsRefused(error, server);
        throw startTlsFailure(error, server, host, domain.caFile, replies);
      });
    }
    const rootDse = await readRootDse(client).catch((error: Error) => {
      throw failure(error);
    });
    if (domain.userName !== '') {
      await client.bind(domain.userName, password ?? '').catch((error: Error) => {
        if (error instanceof InvalidCredentialsError) {
          throw new SessionError('bind', `${server} refused the bind as ${domain.userName}: invalid credentials`);
        }
        throw new SessionError('bind', `the bind as ${domain.userName} failed: ${error.message}`);
      });
    }
    return { client, rootDse, host, close };
  } catch (error) {
    await close();
    throw failure(error as Error);
  }
}

/**
 * The base DN to watch: the domain's own, else the rootDSE's `defaultNamingContext`, else its
 * first naming context that is not an accesslog database.
 */
export function effectiveBaseDn(domain: Pick<DomainSettings, 'baseDn'>, rootDse: RootDse): string {
  if (domain.baseDn !== '') return domain.baseDn;
  if (rootDse.defaultNamingContext !== '') return rootDse.defaultNamingContext;
  return rootDse.namingContexts.find((nc) => !/^cn=accesslog$/i.test(nc.trim())) ?? '';
}
