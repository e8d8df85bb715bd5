/**
 * Password guessing on the audit API against a real agent (docs/security.md F5): concurrent
 * guesses are counted before their password is checked, a valid login of one user does not
 * reopen guessing at another, and a legitimate login during a burst waits for a bounded number
 * of password checks only.
 */
import https from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { startAuditFixture, PASSWORD, type AuditFixture } from '../helpers/audit-fixture.js';

let fx: AuditFixture | undefined;
afterEach(async () => {
  await fx?.stop();
  fx = undefined;
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  at: number;
}

/** One request per connection, all at once: nothing queues in the client. */
function enumAs(f: AuditFixture, agent: https.Agent, auth: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: f.agent.ports.audit,
        path: '/vigil/api/v1/activity_records/enum',
        headers: { Authorization: `Basic ${Buffer.from(auth).toString('base64')}` },
        agent,
        servername: 'localhost',
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], at: performance.now() }),
        );
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('the audit API login limiter', () => {
  it('60 concurrent wrong passwords: at most 10 are checked, the rest get 429 with Retry-After; a legitimate login meanwhile waits behind at most those 10', async () => {
    fx = await startAuditFixture();
    const agent = new https.Agent({ keepAlive: false, ca: fx.agent.identity.certPem, maxSockets: Infinity });
    try {
      const burst = Array.from({ length: 60 }, (_, i) => enumAs(fx!, agent, `reader:wrong guess ${i}`));
      await new Promise((resolve) => setTimeout(resolve, 300)); // the burst has reached the agent
      // `auditor` has never logged in: its check is a full scrypt run, behind whatever queues.
      const legitimate = await enumAs(fx, agent, `auditor:${PASSWORD}`);
      const answers = await Promise.all(burst);
      expect(legitimate.status).toBe(200);
      const checked = answers.filter((a) => a.status === 401);
      const refused = answers.filter((a) => a.status === 429);
      expect(checked.length).toBeLessThanOrEqual(10);
      expect(checked.length + refused.length).toBe(60);
      for (const answer of refused) expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      // Before the fix all 60 were checked, two at a time, and the legitimate login came after them.
      expect(checked.filter((a) => a.at < legitimate.at).length).toBeLessThanOrEqual(10);
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it('9 guesses, then a valid login as another user, three times: the guesses get 429 after the 10th', async () => {
    fx = await startAuditFixture();
    const guesses: number[] = [];
    const logins: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 9; i++) {
        guesses.push(
          (await fx.reader.request({ path: 'activity_records/enum', auth: `reader:guess ${round}-${i}` })).status,
        );
      }
      logins.push((await fx.auditor.request({ path: 'activity_records/enum' })).status);
    }
    expect(logins).toEqual([200, 200, 200]);
    expect(guesses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(guesses.slice(10)).toEqual(Array(17).fill(429));
  }, 120_000);
});
