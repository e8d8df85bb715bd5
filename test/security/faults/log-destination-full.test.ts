/**
 * F05 (docs/security.md): the agent's own log destination is full. Its stderr goes to
 * /dev/full, where every write fails with ENOSPC. The agent must keep serving every API, count
 * the lines it could not write, and stop cleanly; before the fix Node's unhandled 'error' event
 * on process.stderr killed it at its first log line.
 */
import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { addClient, FORM_HEADERS, startAgentProcess, type AgentProcess } from '../../helpers/agent-process.js';

let agent: AgentProcess | null = null;
afterEach(async () => {
  await agent?.kill();
  agent = null;
});

it.skipIf(!fs.existsSync('/dev/full'))(
  'F05 stderr on a full device: every API keeps answering, lost lines are counted, the stop is clean',
  async () => {
    const full = fs.openSync('/dev/full', 'w');
    try {
      agent = await startAgentProcess({ stderr: full, logLevel: 'debug' });
    } finally {
      fs.closeSync(full);
    }
    const client = await addClient(agent);
    for (let i = 0; i < 20; i++) {
      // Failed token requests log a line each (the reason is logged, not answered).
      const refused = await agent.api({
        method: 'POST',
        path: '/api/v1/token',
        headers: FORM_HEADERS,
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: 'wrong',
        }).toString(),
      });
      expect(refused.status).toBe(401);
    }
    const issued = await agent.api({
      method: 'POST',
      path: '/api/v1/token',
      headers: FORM_HEADERS,
      body: new URLSearchParams({ grant_type: 'client_credentials', ...client_(client) }).toString(),
    });
    expect(issued.status).toBe(200);
    const { access_token } = JSON.parse(issued.text) as { access_token: string };
    expect(
      (await agent.api({ path: '/api/v1/agents', headers: { Authorization: `Bearer ${access_token}` } })).status,
    ).toBe(200);
    expect((await agent.audit({ path: 'activity_records/enum' })).status).toBe(401);
    const diagnostics = await agent.console({ path: '/api/diagnostics' });
    expect(diagnostics.status).toBe(200);
    expect((JSON.parse(diagnostics.text) as { logLinesLost: number }).logLinesLost).toBeGreaterThan(20);
    expect(agent.child.exitCode).toBe(null);
    expect(await agent.stop()).toBe(0);
  },
);

function client_(c: { clientId: string; clientSecret: string }): Record<string, string> {
  return { client_id: c.clientId, client_secret: c.clientSecret };
}
