/**
 * Directory monitoring over TLS (docs/directory.md "TLS"): a real slapd whose certificate comes
 * from a CA of the test. A domain that trusts another CA — over `ldaps://` and over StartTLS —
 * gets an Error status naming the certificate problem, the agent keeps running, and no secret
 * reaches the status or the agent's log; once the domain trusts the right CA (the CA file
 * replaced in place, or the domain's `caFile` changed) polling recovers by itself and records
 * changes again. Also: a TLS server that is not LDAP, and a plain server spoken to as ldaps://.
 */
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../agent/log/logger.js';
import { call } from '../helpers/resource-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import {
  PEOPLE,
  READER_DN,
  READER_PASSWORD,
  SUFFIX,
  SlapdServer,
  person,
  slapdMissing,
} from '../helpers/slapd-server.js';
import { changesPolicyXml, directoryRecords, waitFor } from '../helpers/directory.js';

const missing = slapdMissing();

interface Pem {
  cert: string;
  key: string;
}

async function certificateAuthority(name: string): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A server certificate for 127.0.0.1 and localhost, signed by `ca`. */
async function serverCertificate(ca: Pem): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A domain on `ldapServer` with one enabled Changes policy over the people, read by the agent. */
async function addDomain(
  agent: TestAgent,
  name: string,
  ldapServer: string,
  tls: 'starttls' | 'none',
  caFile: string,
): Promise<string> {
  const domain = await agent.resources.domains.add(
    {
      name,
      ldapServer,
      userName: READER_DN,
      password: READER_PASSWORD,
      baseDn: SUFFIX,
      pollingIntervalSeconds: 1,
      tls,
      caFile,
    },
    'test',
  );
  await agent.resources.policies.create(
    domain.id,
    { xml: changesPolicyXml('People', `<Context>${PEOPLE}</Context>`) },
    'test',
  );
  await agent.activity.directory.ready();
  return domain.id;
}

describe.skipIf(missing !== null)('a directory over TLS with a CA the domain does not trust', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let dir: string;
  let rightCa: Pem;
  let wrongCa: Pem;
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = makeTempDir('vigil-ldap-tls-');
    rightCa = await certificateAuthority('Vigil test directory CA');
    wrongCa = await certificateAuthority('Some other CA');
    const server = await serverCertificate(rightCa);
    slapd = await SlapdServer.create({ tls: { certPem: server.cert, keyPem: server.key } });
    agent = await startTestAgent({
      activity: { directoryTimeoutMs: 2000 },
      log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }),
    });
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await slapd?.dispose();
  });

  async function shownStatus(id: string): Promise<Record<string, string>> {
    const res = await call(agent, ['read'], 'GET', `/api/v1/domains/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.json!['status'] as Record<string, string>;
  }

  function statusOf(id: string, type: string) {
    return waitFor(`status ${type} of ${id}`, () => {
      const status = agent.activity.domainStatus.get(id);
      return status?.type === type ? status : null;
    });
  }

  /** A change by the editor becomes a record of this domain (the domain reads the directory again). */
  async function recordsAChange(id: string, uid: string): Promise<void> {
    await slapd.editor.add(`uid=${uid},${PEOPLE}`, person(uid));
    await waitFor(`the record of ${uid}`, () =>
      directoryRecords(agent.store.db).some((r) => r.planId === id && r.what === `uid=${uid},${PEOPLE}`),
    );
  }

  it('ldaps:// with the wrong CA is an Error naming the certificate problem; the right CA in the same file recovers by itself', async () => {
    const caFile = path.join(dir, 'ldaps-ca.pem');
    fs.writeFileSync(caFile, wrongCa.cert);
    const id = await addDomain(agent, 'ldaps.test', slapd.ldapsUrl, 'none', caFile);
    const failed = await statusOf(id, 'Error');
    expect(failed.summary).toBe('The TLS connection to the directory failed');
    expect(failed.details).toMatch(/certificate/i);
    expect(failed.details).toContain(caFile);
    const shown = await shownStatus(id);
    expect(shown).toMatchObject({ type: 'Error', summary: failed.summary });
    expect(JSON.stringify(shown)).not.toContain(READER_PASSWORD);

    // The operator puts the right CA in the file: the next poll reads it and succeeds.
    fs.writeFileSync(caFile, rightCa.cert);
    const ok = await statusOf(id, 'OK');
    expect(ok.summary).toMatch(/^Monitoring 1 Changes policy/);
    await agent.activity.directory.source(id)!.rescan();
    await recordsAChange(id, 'ldaps-user');
  }, 60_000);

  it('StartTLS with the wrong CA is an Error too; changing the domain to the right CA file recovers', async () => {
    const wrongFile = path.join(dir, 'wrong-ca.pem');
    const rightFile = path.join(dir, 'right-ca.pem');
    fs.writeFileSync(wrongFile, wrongCa.cert);
    fs.writeFileSync(rightFile, rightCa.cert);
    const id = await addDomain(agent, 'starttls.test', slapd.url, 'starttls', wrongFile);
    const failed = await statusOf(id, 'Error');
    expect(failed.summary).toBe('The TLS connection to the directory failed');
    expect(failed.details).toMatch(/StartTLS/);
    expect(failed.details).toMatch(/certificate/i);

    await agent.resources.domains.update(id, (domain) => ({ ...domain, caFile: rightFile }), 'test');
    await agent.activity.directory.ready();
    await statusOf(id, 'OK');
    await agent.activity.directory.source(id)!.rescan();
    await recordsAChange(id, 'starttls-user');
  }, 60_000);

  it('never writes the bind password to the agent log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).toMatch(/directory poll failed/);
    expect(logLines.join('\n')).not.toContain(READER_PASSWORD);
  });
});

describe.skipIf(missing !== null)('servers that do not speak LDAP over TLS', () => {
  let agent: TestAgent;
  let httpsServer: https.Server;
  let plain: net.Server;
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    const ca = await certificateAuthority('Vigil test web CA');
    const cert = await serverCertificate(ca);
    const dir = makeTempDir('vigil-ldap-https-');
    fs.writeFileSync(path.join(dir, 'ca.pem'), ca.cert);
    httpsServer = https.createServer({ cert: cert.cert, key: cert.key }, (_req, res) => res.end('<html>hello</html>'));
    httpsServer.on('connection', (socket: net.Socket) => sockets.push(socket));
    plain = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.write('220 smtp.example.test ESMTP ready\r\n');
    });
    await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    agent = await startTestAgent({ activity: { directoryTimeoutMs: 1000 } });
    const add = async (name: string, ldapServer: string, caFile = ''): Promise<string> => {
      const domain = await agent.resources.domains.add(
        { name, ldapServer, userName: READER_DN, password: 'x', pollingIntervalSeconds: 1, tls: 'none', caFile },
        'test',
      );
      await agent.resources.policies.create(domain.id, { xml: changesPolicyXml('All', '') }, 'test');
      return domain.id;
    };
    const https443 = (httpsServer.address() as net.AddressInfo).port;
    const plainPort = (plain.address() as net.AddressInfo).port;
    ids.https = await add('https.test', `ldaps://127.0.0.1:${https443}`, path.join(dir, 'ca.pem'));
    ids.plainAsLdaps = await add('plain-ldaps.test', `ldaps://127.0.0.1:${plainPort}`);
    ids.banner = await add('banner.test', `ldap://127.0.0.1:${plainPort}`);
    await agent.activity.directory.ready();
  }, 60_000);
  const ids = { https: '', plainAsLdaps: '', banner: '' };

  afterAll(async () => {
    await agent?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => httpsServer?.close(resolve));
    await new Promise((resolve) => plain?.close(resolve));
  });

  const failure = (id: string) =>
    waitFor(`a failure status of ${id}`, () => {
      const status = agent.activity.domainStatus.get(id);
      return status && status.type !== 'OK' ? status : null;
    });

  it('an HTTPS server reached as ldaps:// (its certificate trusted) does not answer as LDAP: its reply is shown', async () => {
    const status = await failure(ids.https);
    expect(status).toMatchObject({ type: 'Error', summary: 'The server does not answer as an LDAP server' });
    expect(status.details).toContain('"HTTP/1.1 400 Bad Request"');
  });

  it('a plain server reached as ldaps:// fails the TLS handshake, and the status says why', async () => {
    const status = await failure(ids.plainAsLdaps);
    expect(status).toMatchObject({ type: 'Error', summary: 'The TLS connection to the directory failed' });
    expect(status.details).toMatch(/did not answer the TLS handshake with TLS \(wrong version number\)/);
    expect(status.details).not.toMatch(/openssl|\.c:\d+/);
  });

  it('a server that greets in another protocol and keeps the connection open is not LDAP either', async () => {
    const status = await failure(ids.banner);
    expect(status).toMatchObject({ type: 'Error', summary: 'The server does not answer as an LDAP server' });
    expect(status.details).toContain('"220 smtp.example.test ESMTP ready"');
  });

  it('keeps polling all of them and keeps serving', async () => {
    const polls = (): number => agent.activity.directory.source(ids.https)!.status().counters.polls ?? 0;
    const before = polls();
    await waitFor('another poll', () => polls() > before);
    expect((await call(agent, ['read'], 'GET', `/api/v1/domains/${ids.banner}`)).status).toBe(200);
  });
});

describe.skipIf(missing !== null)('a server without TLS behind a domain that asks for StartTLS', () => {
  let slapd: SlapdServer;
  let agent: TestAgent;
  let relay: net.Server;
  const sockets: net.Socket[] = [];
  /** Every byte the agent sent towards the server. */
  const sent: Buffer[] = [];

  beforeAll(async () => {
    slapd = await SlapdServer.create();
    const target = new URL(slapd.url);
    relay = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.push(client, upstream);
      for (const socket of [client, upstream]) socket.on('error', () => undefined);
      client.on('data', (chunk: Buffer) => sent.push(chunk));
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    agent = await startTestAgent({ activity: { directoryTimeoutMs: 2000 } });
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => relay?.close(resolve));
    await slapd?.dispose();
  });

  it('is an Error that says StartTLS was refused, and the bind password never crosses the network', async () => {
    const port = (relay.address() as net.AddressInfo).port;
    const id = await addDomain(agent, 'plain.test', `ldap://127.0.0.1:${port}`, 'starttls', '');
    const failed = await waitFor('the Error status', () => {
      const status = agent.activity.domainStatus.get(id);
      return status?.type === 'Error' ? status : null;
    });
    expect(failed.summary).toBe('The TLS connection to the directory failed');
    expect(failed.details).toMatch(/refused StartTLS/);
    expect(failed.details).toMatch(/set the domain's TLS to none/);
    expect(sent.length).toBeGreaterThan(0);
    expect(Buffer.concat(sent).includes(READER_PASSWORD)).toBe(false);

    // The operator's explicit choice: read without TLS.
    await agent.resources.domains.update(id, (d) => ({ ...d, tls: 'none' }), 'test');
    await agent.activity.directory.ready();
    await waitFor('the OK status', () => agent.activity.domainStatus.get(id)?.type === 'OK');
    expect(Buffer.concat(sent).includes(READER_PASSWORD)).toBe(true);
  }, 60_000);
});
