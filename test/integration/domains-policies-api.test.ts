/**
 * Domains and policies through the agent API over real HTTPS: domains (kept by the
 * console through DomainService) are read here, never with their password; policies are
 * created from JSON or raw XML (well-formed, no DTD), listed with the isEnabled and path
 * filters, changed with a merge patch, deleted, and kept across a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../agent/log/logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { TestAgent } from '../helpers/test-agent.js';
import { domainViewSchema } from '../../agent/api/schemas/domain-schemas.js';
import { policyViewSchema } from '../../agent/api/schemas/policy-schemas.js';
import { POLICY_XML_MAX } from '../../agent/config/directory-schema.js';
import { MAX_POLICIES, MAX_TOTAL_POLICY_XML } from '../../agent/resources/policy-limits.js';
import { DOMAIN_DETAILED_ONLY } from '../../shared/detailed-only.js';
import { call, conforms, listOf } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

const PC = ['policyChange'] as const;
let agent: TestAgent;
let base = '';

const LDAP_XML = `<?xml version="1.0" encoding="utf-8"?>
<Policy Enabled="false">
  <Name>LDAP Monitor</Name>
  <Description>Who queries the directory</Description>
  <Path>Policies\\Auditing</Path>
  <Guid>{11111111-2222-3333-4444-555555555555}</Guid>
  <EventType>LDAP</EventType>
</Policy>`;

beforeAll(async () => {
  agent = await startTestAgent();
  const domain = await agent.resources.domains.add(
    {
      name: 'corp.example.com',
      ldapServer: 'ldaps://dc1.corp.example.com:636',
      userName: 'CORP\\reader',
      password: 'S3cret-pass!',
    },
    'console',
  );
  base = `/api/v1/domains/${domain.id}`;
});
afterAll(() => agent.stop());

async function createPolicy(body: unknown, raw?: string): Promise<Record<string, unknown>> {
  const response = raw
    ? await call(agent, PC, 'POST', `${base}/policies`, { raw, contentType: 'application/xml; charset=utf-8' })
    : await call(agent, PC, 'POST', `${base}/policies`, { body });
  expect(response.status, response.text).toBe(201);
  expect(response.headers['location']).toBe(response.json!['url']);
  return conforms(policyViewSchema, response.json) as Record<string, unknown>;
}

describe('domains', () => {
  it('keeps the bind password in an owner-only file under secrets/, never in settings.json', async () => {
    expect(fs.readFileSync(agent.paths.settings, 'utf8')).not.toContain('S3cret-pass!');
    const file = path.join(agent.paths.domainPasswords, Buffer.from('CORP').toString('hex'));
    expect(fs.readFileSync(file, 'utf8')).toBe('S3cret-pass!');
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('moves a bind password an older settings.json holds into its file at start, and logs no password', async () => {
    const dataDir = makeTempDir();
    const first = await startTestAgent({ dataDir });
    await first.resources.domains.add({ name: 'old.example', ldapServer: 'ldap://10.0.0.5' }, 'test');
    await first.stop();
    const settings = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8'));
    settings.domains[0].password = 'Directory-Bind-Pa55';
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify(settings));

    const lines: string[] = [];
    const second = await startTestAgent({
      dataDir,
      log: createLogger({ level: 'debug', write: (l) => lines.push(l) }),
    });
    try {
      expect(fs.readFileSync(second.paths.settings, 'utf8')).not.toContain('Directory-Bind-Pa55');
      expect(second.settings.current.domains[0]).not.toHaveProperty('password');
      const file = path.join(second.paths.domainPasswords, Buffer.from('OLD').toString('hex'));
      expect(fs.readFileSync(file, 'utf8')).toBe('Directory-Bind-Pa55');
      expect(lines.join('\n')).toMatch(/moved domain bind passwords out of settings.json/);
      expect(lines.join('\n')).not.toContain('Directory-Bind-Pa55');
    } finally {
      await second.stop();
    }
  });

  it('lists and shows the domain; the password never appears; the limited view has no Detailed Only attribute', async () => {
    const detailed = await call(agent, ['read'], 'GET', base);
    expect(detailed.status).toBe(200);
    expect(conforms(domainViewSchema, detailed.json)).toMatchObject({
      id: 'CORP',
      name: 'corp.example.com',
      isEnabled: true,
      ldapServer: 'ldaps://dc1.corp.example.com:636',
      userName: 'CORP\\reader',
      masterAgentId: agent.agentId,
    });
    const limited = await call(agent, ['accessActivityData'], 'GET', base);
    for (const key of DOMAIN_DETAILED_ONLY) expect(limited.json).not.toHaveProperty(key);
    const list = await call(agent, ['policyChange'], 'GET', '/api/v1/domains');
    expect(listOf(list).map((d) => d['id'])).toEqual(['CORP']);
    for (const response of [detailed, limited, list]) expect(response.text).not.toContain('S3cret');
    const agents = listOf(await call(agent, ['read'], 'GET', `${base}/agents`));
    expect(agents.map((a) => a['id'])).toEqual([agent.agentId]);
    expect((await call(agent, ['read'], 'GET', '/api/v1/domains/NOPE')).status).toBe(404);
  });

  it('is not changed through the agent API', async () => {
    const response = await call(agent, ['read', 'policyChange', 'modifyHost', 'modifyAgent'], 'PATCH', base, {
      body: { name: 'x' },
    });
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toBe('GET, HEAD');
  });
});

describe('policies', () => {
  it('creates a policy from JSON; fields given win over the XML', async () => {
    const policy = await createPolicy({ name: 'Authentication Monitor', path: 'Policies\\Auth', xml: LDAP_XML });
    expect(policy).toMatchObject({
      name: 'Authentication Monitor',
      path: 'Policies\\Auth',
      description: 'Who queries the directory',
      isEnabled: false,
      xml: LDAP_XML,
    });
    expect(policy['guid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(policy['guid']).not.toBe('11111111-2222-3333-4444-555555555555');
  });

  it('creates a policy from the raw XML document', async () => {
    const policy = await createPolicy(undefined, LDAP_XML);
    expect(policy).toMatchObject({
      name: 'LDAP Monitor',
      path: 'Policies\\Auditing',
      isEnabled: false,
      domainId: 'CORP',
    });
    const same = await call(agent, ['read'], 'GET', new URL(policy['url'] as string).pathname);
    expect(same.json).toEqual(policy);
  });

  it.each([
    ['<!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]><Policy><Name>&x;</Name></Policy>', /DTDs are not allowed/],
    ['<Policy><Name>a</Policy>', /well-formed.*line 1/],
    ['<Policy><Name>x</Name></Policy><Second/>', /well-formed/],
    ['just text', /well-formed/],
    ['<Policy><Description>no name</Description></Policy>', /needs a name/],
  ])('refuses the XML %j naming the field', async (xml, message) => {
    const response = await call(agent, PC, 'POST', `${base}/policies`, { raw: xml, contentType: 'application/xml' });
    expect(response.status, response.text).toBe(400);
    expect(response.json!['field']).toBe(/name/.test(String(message)) ? 'name' : 'xml');
    expect(response.json!['error_description']).toMatch(message);
  });

  it.each([
    [{ name: 'x' }, 'xml'],
    [{ name: 'x', xml: '<a><b></a>' }, 'xml'],
    [{ name: '', xml: '<a/>' }, 'name'],
    [{ name: 'x', xml: '<a/>', isEnabled: 'no' }, 'isEnabled'],
    [{ name: 'x', xml: '<a/>', guid: 'mine' }, 'guid'],
    [{ name: 'x', xml: '<a/>', owner: 'me' }, 'owner'],
  ])('refuses the JSON %j naming %s', async (body, field) => {
    const response = await call(agent, PC, 'POST', `${base}/policies`, { body });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ error: 'invalid_request', field });
  });

  it('refuses other content types', async () => {
    const response = await call(agent, PC, 'POST', `${base}/policies`, { raw: 'name=x', contentType: 'text/plain' });
    expect(response.status).toBe(415);
  });

  it('filters the list on isEnabled and path', async () => {
    await createPolicy({ name: 'A on', path: 'Filters\\One', isEnabled: true, xml: '<P/>' });
    await createPolicy({ name: 'B off', path: 'Filters\\One\\Deeper', isEnabled: false, xml: '<P/>' });
    await createPolicy({ name: 'C on', path: 'Filters\\Two', isEnabled: true, xml: '<P/>' });
    const names = async (query: string): Promise<unknown[]> =>
      listOf(await call(agent, ['read'], 'GET', `${base}/policies?${query}`)).map((p) => p['name']);
    expect(await names('path=filters%5Cone')).toEqual(['A on', 'B off']);
    expect(await names('path=Filters%5COne&isEnabled=true')).toEqual(['A on']);
    expect(await names('path=Filters&isEnabled=false')).toEqual(['B off']);
    expect(await names('path=Filters%5CT')).toEqual([]);
    const bad = await call(agent, ['read'], 'GET', `${base}/policies?isEnabled=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ field: 'isEnabled' });
  });

  it('changes a policy with a merge patch: updatedAt moves, guid stays; bad XML is refused', async () => {
    const policy = await createPolicy({ name: 'Patchable', xml: '<P><Name>ignored</Name></P>' });
    const url = new URL(policy['url'] as string).pathname;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await call(agent, PC, 'PATCH', url, { body: { isEnabled: false, description: 'now off' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({
      name: 'Patchable',
      isEnabled: false,
      description: 'now off',
      guid: policy['guid'],
    });
    expect(String(patched.json!['updatedAt']) > String(policy['updatedAt'])).toBe(true);
    for (const [body, field] of [
      [{ xml: '<P>' }, 'xml'],
      [{ xml: null }, 'xml'],
      [{ guid: 'x' }, 'guid'],
      [{ updatedAt: 'x' }, 'updatedAt'],
      [{ name: null }, 'name'],
    ] as const) {
      const response = await call(agent, PC, 'PATCH', url, { body });
      expect({ body, status: response.status, field: response.json?.['field'] }).toEqual({ body, status: 400, field });
    }
    const reset = await call(agent, PC, 'PATCH', url, { body: { description: null, xml: '<P2/>' } });
    expect(reset.json).toMatchObject({ description: '', xml: '<P2/>' });
  });

  it('deletes a policy; a policy is found only under its own domain', async () => {
    const other = await agent.resources.domains.add(
      { name: 'other.example', ldapServer: 'ldap://10.1.1.1' },
      'console',
    );
    const policy = await createPolicy({ name: 'Deleted', xml: '<P/>' });
    const id = policy['id'] as string;
    expect((await call(agent, ['read'], 'GET', `/api/v1/domains/${other.id}/policies/${id}`)).status).toBe(404);
    expect((await call(agent, PC, 'DELETE', `${base}/policies/${id}`)).status).toBe(204);
    expect((await call(agent, ['read'], 'GET', `${base}/policies/${id}`)).status).toBe(404);
    expect((await call(agent, PC, 'DELETE', `${base}/policies/${id}`)).status).toBe(404);
  });

  it('keeps policies across a restart', async () => {
    const policy = await createPolicy({ name: 'Durable', xml: '<Durable/>' });
    const dataDir = agent.dataDir;
    await agent.stop();
    agent = await startTestAgent({ dataDir });
    const again = await call(agent, ['read'], 'GET', new URL(policy['url'] as string).pathname);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ name: 'Durable', xml: '<Durable/>', guid: policy['guid'] });
  });
});

// Policies live in settings.json, which every settings change rewrites on the event loop: their
// size is bounded so that no settings change (a client added, a permission changed) stalls the
// agent's answers.
describe('how much policy data the agent keeps', () => {
  let full: TestAgent;
  let fullBase = '';
  beforeAll(async () => {
    full = await startTestAgent();
    fullBase = `/api/v1/domains/${(await full.resources.domains.add({ name: 'big.example', ldapServer: 'ldap://10.0.0.5' }, 'console')).id}`;
  });
  afterAll(() => full.stop());

  const largest = (n: number): string => {
    const shell = `<Policy><Name>big ${n}</Name><Data></Data></Policy>`;
    return shell.replace('<Data></Data>', `<Data>${'x'.repeat(POLICY_XML_MAX - shell.length)}</Data>`);
  };

  it('refuses the policy that would pass 1 MiB of XML in all, naming the limit; a settings write at the limit stays far under 100 ms', async () => {
    for (let n = 1; n <= 4; n++) {
      const response = await call(full, PC, 'POST', `${fullBase}/policies`, {
        raw: largest(n),
        contentType: 'application/xml',
      });
      expect(response.status, response.text).toBe(201);
    }
    const refused = await call(full, PC, 'POST', `${fullBase}/policies`, {
      raw: largest(5),
      contentType: 'application/xml',
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_request', field: 'xml' });
    expect(refused.json?.['error_description']).toContain(`at most ${MAX_TOTAL_POLICY_XML} characters`);
    expect(full.settings.current.policies).toHaveLength(4);

    // How long an unrelated settings change holds the event loop, at the limit: the least of a
    // few tries, so a busy test machine does not decide the answer.
    let least = Infinity;
    for (let i = 0; i < 5; i++) {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      await full.settings.update((s) => {
        s.agent.comment = `try ${i}`;
      });
      delay.disable();
      least = Math.min(least, delay.max / 1e6);
    }
    expect(least).toBeLessThan(100);
  });

  it(`refuses policy number ${MAX_POLICIES + 1}, naming the limit`, async () => {
    const domainId = fullBase.split('/').pop()!;
    for (const policy of full.settings.current.policies)
      await full.resources.policies.remove(domainId, policy.id, 'test');
    for (let n = 0; n < MAX_POLICIES; n++) {
      await full.resources.policies.create(domainId, { name: `small ${n}`, xml: '<Policy/>' }, 'test');
    }
    const refused = await call(full, PC, 'POST', `${fullBase}/policies`, {
      body: { name: 'one more', xml: '<Policy/>' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json?.['error_description']).toContain(`at most ${MAX_POLICIES} policies`);
  });
});
