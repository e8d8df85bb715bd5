/**
 * The SIEM's syslog server goes down while the agent runs (docs/activity-pipeline.md "nothing
 * accepted is lost"; docs/activity-pipeline.md). A real rsyslogd receives over TCP; it is
 * stopped for an outage (a few seconds in `npm test`, a full minute under `npm run
 * test:stress`) while file activity goes on:
 * - within the buffer's bound every message of the outage arrives after it, in order, once;
 * - past the bound the oldest are dropped and counted, the newest arrive;
 * - the output reports the outage as a Warning and is OK again afterwards.
 * (test/integration/syslog-output.test.ts covers a server that is down from the start.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { TestAgent } from '../../helpers/test-agent.js';
import { monitorFolders, TEST_TIMINGS, waitFor } from '../../helpers/activity.js';
import { createRsyslog, type Rsyslog } from '../../helpers/rsyslog.js';
import { sized } from '../../helpers/stress.js';
import { startTestAgent } from '../../helpers/test-agent.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const OUTAGE_MS = sized(2_000, 60_000);
const BOUND = 40;

let agent: TestAgent | null = null;
let receiver: Rsyslog | null = null;
afterEach(async () => {
  await agent?.stop();
  await receiver?.stop();
  agent = null;
  receiver = null;
});

const sent = (r: Rsyslog, prefix: string): string[] =>
  r
    .lines('tcp')
    .map((l) => new RegExp(`${prefix}-(\\d+)\\.txt`).exec(l)?.[1])
    .filter((n): n is string => n !== undefined);

async function outage(
  r: Rsyslog,
  watched: string,
  prefix: string,
  files: number,
): Promise<{ droppedDuring: number; deliveredDuring: number }> {
  const a = agent!;
  const droppedBefore = a.activity.status.output('siem')!.stats.droppedCount;
  await r.stop();
  // Wait until the agent has noticed, so no message goes into a socket that is already dead.
  await waitFor(
    () => a.activity.status.output('siem')!.status.type,
    (t) => t === 'Warning',
    15_000,
    'the outage to be noticed',
  );
  const started = Date.now();
  for (let i = 0; i < files; i++) {
    fs.writeFileSync(path.join(watched, `${prefix}-${String(i).padStart(3, '0')}.txt`), 'x');
    // Spread the activity over the outage.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS / files - 5)));
  }
  const remaining = OUTAGE_MS - (Date.now() - started);
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  await waitFor(
    () => a.store.db.prepare('SELECT count(*) FROM activity_records WHERE what LIKE ?').pluck().get(`%${prefix}-%`),
    (n) => n === files,
    15_000,
    'the outage records committed',
  );
  expect(a.activity.status.output('siem')!.status.type).toBe('Warning');
  const deliveredDuring = sent(r, prefix).length;
  await r.start();
  return { droppedDuring: a.activity.status.output('siem')!.stats.droppedCount - droppedBefore, deliveredDuring };
}

it(
  `a ${OUTAGE_MS / 1000} s syslog outage: buffered and delivered after in order within the bound; past it the oldest dropped and counted`,
  async () => {
    receiver = await createRsyslog();
    await receiver.start();
    agent = await startTestAgent({
      activity: { ...TEST_TIMINGS, syslog: { bufferLimit: BOUND, initialBackoffMs: 100, maxBackoffMs: 500 } },
    });
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(agent, [watched]);
    await agent.settings.update((draft) => {
      draft.outputs.push({
        id: 'siem',
        hostId,
        type: 'Syslog',
        isEnabled: true,
        comment: '',
        syslog: {
          protocol: 'TCP',
          server: `127.0.0.1:${receiver!.ports.tcp}`,
          separator: 'Rfc5425',
          template: 'What="{What}"',
          hostNameVerification: true,
        },
        fileFilter: {
          operations: ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'],
          includePaths: [],
          excludePaths: [],
          excludeExtensions: [],
          excludeAccounts: [],
        },
      });
    });
    const r = receiver;
    await waitFor(
      () => agent!.activity.status.output('siem')?.status.type,
      (t) => t === 'OK',
    );
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(watched, `up-${i}.txt`), 'x');
    await waitFor(
      () => sent(r, 'up').length,
      (n) => n === 5,
    );

    // Within the bound: nothing lost.
    const first = await outage(r, watched, 'within', BOUND - 10);
    expect(first).toEqual({ droppedDuring: 0, deliveredDuring: 0 });
    const within = await waitFor(
      () => sent(r, 'within'),
      (l) => l.length >= BOUND - 10,
      30_000,
      'the buffered messages',
    );
    expect(within).toEqual(Array.from({ length: BOUND - 10 }, (_, i) => String(i).padStart(3, '0')));
    await waitFor(
      () => agent!.activity.status.output('siem')!.status.type,
      (t) => t === 'OK',
    );

    // Past the bound: the oldest dropped, counted, reported; the newest delivered.
    const over = BOUND + 25;
    const second = await outage(r, watched, 'over', over);
    expect(second).toEqual({ droppedDuring: 25, deliveredDuring: 0 });
    const delivered = await waitFor(
      () => sent(r, 'over'),
      (l) => l.length >= BOUND,
      30_000,
      'the newest buffered messages',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sent(r, 'over')).toHaveLength(BOUND);
    expect(delivered).toEqual(Array.from({ length: BOUND }, (_, i) => String(i + 25).padStart(3, '0')));
    const view = agent.activity.status.output('siem')!;
    expect(view.status.type).toBe('OK');
    expect(view.stats.droppedCount).toBe(25);
    expect(
      view.statusHistory.some((s) => s.type === 'Warning' && /dropped because the buffer was full/.test(s.details)),
    ).toBe(true);
    // Nothing arrived twice.
    expect(new Set(r.lines('tcp')).size).toBe(r.lines('tcp').length);
  },
  sized(60_000, 240_000),
);
