/**
 * "Test connection" of a domain (console, `vigil domain test`): connect, secure, bind and read
 * the rootDSE now, and say in words what works: the data source, the base DN that would be read,
 * and whether the account can read an accesslog (who made each change) or not (Who unknown).
 */
import type { DomainSettings } from '../config/directory-schema.js';
import { canReadAccesslog } from './accesslog-reader.js';
import { DATA_SOURCE_AD, DATA_SOURCE_LDAP } from './directory-source.js';
import { effectiveBaseDn, openSession } from './ldap-session.js';

export interface ConnectionTestResult {
  ok: boolean;
  summary: string;
  details: string;
  dataSource?: string;
  baseDn?: string;
  accesslog?: boolean;
}

export async function testConnection(
  domain: Pick<DomainSettings, 'ldapServer' | 'userName' | 'tls' | 'caFile' | 'baseDn'>,
  password: string | null,
  timeoutMs = 10_000,
): Promise<ConnectionTestResult> {
  let session;
  try {
    session = await openSession(domain, password, { timeoutMs });
  } catch (error) {
    return { ok: false, summary: 'The connection failed', details: (error as Error).message };
  }
  try {
    const baseDn = effectiveBaseDn(domain, session.rootDse);
    const accesslog = await canReadAccesslog(session.client);
    const dataSource = session.rootDse.isActiveDirectory ? DATA_SOURCE_AD : DATA_SOURCE_LDAP;
    return {
      ok: true,
      summary: `Connected to ${dataSource} ${session.host}`,
      details: accesslog
        ? `Reads ${baseDn || '(no base DN)'} and its accesslog: each change names who made it.`
        : `Reads ${baseDn || '(no base DN)'}; no readable accesslog: changes are found by comparing snapshots and Who is unknown.`,
      dataSource,
      baseDn,
      accesslog,
    };
  } finally {
    await session.close();
  }
}
