/** Notification texts for real agent failures, and the throttle that keeps them rare. */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { spawnAgentOnFreePorts, waitForReady } from '../helpers/cli.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { NotificationThrottle, issueNotification, startFailureNotification } from '../../main/notifications.js';

async function startFailure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the start to fail');
}

describe('notifications for agent errors', () => {
  it('port in use: names the port and the setting to change', async () => {
    const first = await startTestAgent();
    try {
      const error = await startFailure(() => startTestAgent({ ports: { api: first.ports.api } }));
      const text = startFailureNotification(error);
      expect(text.title).toBe(`Vigil could not start: port ${first.ports.api} is in use`);
      expect(text.body).toContain('"agentApi.port"');
      expect(text.key).toBe(`port-in-use:${first.ports.api}`);
    } finally {
      await first.stop();
    }
  });

  it('a headless agent already on the data folder: says which process', async () => {
    const dataDir = makeTempDir();
    const headless = spawnAgentOnFreePorts(dataDir);
    try {
      await waitForReady(headless);
      const error = await startFailure(() => startTestAgent({ dataDir }));
      const text = startFailureNotification(error);
      expect(text.title).toBe('Vigil is already running');
      expect(text.body).toContain(`process ${headless.pid}`);
      expect(text.body).toContain(dataDir);
    } finally {
      headless.kill('SIGTERM');
      await once(headless, 'close');
    }
  });

  it('any other start failure shows its own message', () => {
    const text = startFailureNotification(new Error('settings.json: field "agentApi.port": expected a number'));
    expect(text).toMatchObject({ title: 'Vigil could not start', body: expect.stringContaining('agentApi.port') });
  });

  it('disk quota gets a title of its own', () => {
    expect(issueNotification({ code: 'disk_quota', message: 'the 5 GB quota is reached' }).title).toMatch(/disk quota/);
    expect(issueNotification({ code: 'watcher', message: 'x' }).title).toBe('Vigil needs attention');
  });

  it('shows a cause once per interval, and different causes independently', () => {
    let now = 0;
    const throttle = new NotificationThrottle(60_000, () => now);
    expect(throttle.allow('port-in-use:4494')).toBe(true);
    expect(throttle.allow('port-in-use:4494')).toBe(false);
    expect(throttle.allow('issue:disk_quota')).toBe(true);
    now = 59_999;
    expect(throttle.allow('port-in-use:4494')).toBe(false);
    now = 60_000;
    expect(throttle.allow('port-in-use:4494')).toBe(true);
  });
});
