/**
 * Changes policies through the agent API's existing policy routes (docs/directory.md): a policy
 * whose `<Changes>` does not parse is refused with 400 naming the element; one that parses is
 * stored as given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/resource-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const PC = ['policyChange'] as const;
let agent: TestAgent;
let base = '';

beforeAll(async () => {
  agent = await startTestAgent();
  const domain = await agent.resources.domains.add({ name: 'example.test', ldapServer: 'ldap://127.0.0.1:1' }, 'test');
  base = `/api/v1/domains/${domain.id}/policies`;
});
afterAll(() => agent.stop());

const policy = (changes: string): string => `<Policy><Name>People</Name><Changes>${changes}</Changes></Policy>`;

async function refused(changes: string): Promise<string> {
  const response = await call(agent, PC, 'POST', base, { raw: policy(changes), contentType: 'application/xml' });
  expect(response.status, response.text).toBe(400);
  expect(response.json!['field']).toBe('xml');
  return String(response.json!['error_description']);
}

describe('Changes policies', () => {
  it('refuses an operation that is not one of the five, naming the element', async () => {
    expect(await refused('<Operation>Deleted</Operation>')).toMatch(
      /\/Policy\/Changes\/Operation.*"Deleted".*Added, Removed, Modified, Moved, Renamed/,
    );
  });

  it('refuses an element Changes does not know, naming it', async () => {
    expect(await refused('<Context>ou=people,dc=example,dc=test</Context><Attribute>cn</Attribute>')).toMatch(
      /\/Policy\/Changes\/Attribute/,
    );
  });

  it('refuses a context that is not a DN and a class that is not a name', async () => {
    expect(await refused('<Context>people</Context>')).toMatch(/Context.*distinguished name/);
    expect(await refused('<Class>inet org person</Class>')).toMatch(/Class.*objectClass/);
  });

  it('stores a policy whose Changes parse', async () => {
    const xml = policy(
      '<Operation>Added</Operation><Operation>modified</Operation><Context>ou=people,dc=example,dc=test</Context>' +
        '<Class>inetOrgPerson</Class><ExcludeAttribute>description</ExcludeAttribute>',
    );
    const response = await call(agent, PC, 'POST', base, { raw: xml, contentType: 'application/xml' });
    expect(response.status, response.text).toBe(201);
    expect(response.json!['xml']).toBe(xml);
  });
});
