/**
 * Random JSON merge patches (RFC 7396) against the agent API's PATCH routes, over HTTPS
 * (docs/security.md "properties"): every answer is 200 or a 4xx with a named field, never a 5xx;
 * a refused patch changes nothing; an accepted one is what a later GET and settings.json show.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { call } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

const WRITER = ['modifyHost'] as const;
let agent: TestAgent;
let hostPath = '';
let outputPath = '';

beforeAll(async () => {
  agent = await startTestAgent();
  const created = await call(agent, WRITER, 'POST', `/api/v1/agents/${agent.agentId}/hosts`, {
    body: { host: 'patch-target', type: localHostType(), includePaths: ['/srv/a'], outputs: [{ type: 'LogFile' }] },
  });
  expect(created.status, created.text).toBe(201);
  const host = created.json!;
  hostPath = new URL(host['url'] as string).pathname;
  const outputs = await call(agent, WRITER, 'GET', `${hostPath}/outputs`);
  const output = (JSON.parse(outputs.text) as Array<Record<string, unknown>>)[0]!;
  outputPath = new URL(output['url'] as string).pathname;
});
afterAll(() => agent.stop());

/** Values of every JSON shape, with the awkward ones over-represented. */
const value = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, '', ' ', '..', '/srv/b', 'LogFile', 'Syslog', '__proto__'),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('/srv/c', '/srv/a', 'relative', null)), {
    maxLength: 4,
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

function patchOf(fields: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(
    fc.constantFrom(...fields),
    fc.constantFrom('__proto__', 'constructor', 'id', 'url'),
    fc.string(),
  );
  return fc.dictionary(key, value, { maxKeys: 4 });
}

const HOST_FIELDS = [
  'host',
  'type',
  'includePaths',
  'excludePaths',
  'rescanIntervalMinutes',
  'comment',
  'isEnabled',
  'status',
  'outputs',
];
const OUTPUT_FIELDS = ['type', 'isEnabled', 'format', 'comment', 'path', 'server', 'port', 'protocol', 'facility'];

const settingsOnDisk = (): string => fs.readFileSync(agent.paths.settings, 'utf8');

function withoutLiveStatus(resource: unknown): unknown {
  if (typeof resource !== 'object' || resource === null) return resource;
  const { status: _live, ...configured } = resource as Record<string, unknown>;
  return configured;
}

async function checkPatches(path: string, fields: readonly string[]): Promise<{ ok: number; refused: number }> {
  const seen = { ok: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(fc.oneof(patchOf(fields), value), async (patch) => {
      const before = settingsOnDisk();
      const response = await call(agent, WRITER, 'PATCH', path, { raw: JSON.stringify(patch) });
      expect(response.status, response.text).toBeLessThan(500);
      if (response.status === 200) {
        seen.ok++;
        const after = await call(agent, WRITER, 'GET', path);
        // The host's `status` is live: the monitor applies the change after the answer (a host
        // left with no folder turns "No folder is watched" a moment later), so it is left out;
        // every configured field must read back as the PATCH answered it.
        expect(withoutLiveStatus(after.json)).toEqual(withoutLiveStatus(response.json));
        expect(JSON.parse(settingsOnDisk())).toEqual(JSON.parse(JSON.stringify(agent.settings.current)));
        return;
      }
      seen.refused++;
      expect([400, 409, 415]).toContain(response.status);
      expect(response.json?.['error_description']).toEqual(expect.any(String));
      expect(settingsOnDisk()).toBe(before); // nothing written, not even a reformatted copy
    }),
    { numRuns: 150 },
  );
  return seen;
}

describe('random merge patches', () => {
  it('on a host: 200 or a named 4xx, never a 5xx; refused ones change nothing', async () => {
    const seen = await checkPatches(hostPath, HOST_FIELDS);
    // The generator reaches both outcomes (a property that only ever saw refusals proves little).
    expect(seen.ok).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it("on a host's output: the same", async () => {
    const seen = await checkPatches(outputPath, OUTPUT_FIELDS);
    expect(seen.ok).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it('the agent still answers and its settings still load', async () => {
    const response = await call(agent, WRITER, 'GET', hostPath);
    expect(response.status).toBe(200);
    expect(() => JSON.parse(settingsOnDisk())).not.toThrow();
  });
});
