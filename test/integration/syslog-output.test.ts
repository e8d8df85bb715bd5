/**
 * Syslog outputs against a real receiver (rsyslogd on loopback): RFC 5424 messages that
 * rsyslog parses field by field, over UDP, TCP with octet counting (RFC 6587 §3.4.1) and with
 * a trailer, and TLS (RFC 5425); reconnection with backoff, a bounded buffer while the server
 * is down, and dropped messages counted in the output's status.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { OutputSettings } from '../../agent/config/monitoring-schema.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders, TEST_TIMINGS, waitFor } from '../helpers/activity.js';
import { createRsyslog, type Rsyslog } from '../helpers/rsyslog.js';

let agent: TestAgent | null = null;
let receiver: Rsyslog | null = null;
afterEach(async () => {
  await agent?.stop();
  await receiver?.stop();
  agent = null;
  receiver = null;
});

function syslogOutput(
  id: string,
  hostId: string,
  syslog: Partial<NonNullable<OutputSettings['syslog']>> & { server: string },
): OutputSettings {
  return {
    id,
    hostId,
    type: 'Syslog',
    isEnabled: true,
    comment: '',
    syslog: {
      protocol: 'UDP',
      separator: 'Rfc5425',
      template: 'Action="{Action}" What="{What}" Who="{Who}"',
      hostNameVerification: true,
      ...syslog,
    },
    fileFilter: {
      operations: ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'],
      includePaths: [],
      excludePaths: [],
      excludeExtensions: [],
      excludeAccounts: [],
    },
  };
}

const expectedHostname = os.hostname().replace(/[^\x21-\x7e]/g, '');

describe('syslog output', () => {
  it('sends RFC 5424 messages that rsyslog parses, over UDP, TCP (octet counting) and TLS', async () => {
    receiver = await createRsyslog();
    await receiver.start();
    agent = await startTestAgent({ activity: TEST_TIMINGS });
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(agent, [watched]);
    const server = (port: number): string => `127.0.0.1:${port}`;
    await agent.settings.update((draft) => {
      draft.outputs.push(
        syslogOutput('udp', hostId, { server: server(receiver!.ports.udp), protocol: 'UDP' }),
        syslogOutput('tcp', hostId, { server: server(receiver!.ports.tcp), protocol: 'TCP', separator: 'Rfc5425' }),
        syslogOutput('tls', hostId, {
          server: server(receiver!.ports.tls),
          protocol: 'TLS',
          caCertificate: receiver!.caPem,
        }),
      );
    });
    await agent.activity.outputs.settled();
    await waitFor(
      () => agent!.activity.status.output('tls')?.status.summary ?? '',
      (s) => s.startsWith('Connected'),
    );

    // A tab and a quote in a name: the template escapes them, the message stays one line.
    const names = ['plain.txt', 'with space.txt', 'quote"and\ttab.txt'];
    for (const name of names) fs.writeFileSync(path.join(watched, name), 'x');

    for (const transport of ['udp', 'tcp', 'tls'] as const) {
      const lines = await waitFor(
        () => receiver!.lines(transport),
        (l) => l.length >= names.length,
        15_000,
        transport,
      );
      expect(lines).toHaveLength(names.length);
      for (const line of lines) {
        const [hostname, app, procId, msgId, sd, ...msg] = line.split('|');
        expect({ hostname, app, procId, msgId, sd }).toEqual({
          hostname: expectedHostname,
          app: 'Vigil',
          procId: String(process.pid),
          msgId: 'Added',
          sd: '-',
        });
        expect(msg.join('|')).toMatch(/^Action="Added" What="[^\n]+" Who="[^"]+"$/);
      }
      const texts = lines.join('\n');
      expect(texts).toContain(`What="${path.join(watched, 'with space.txt')}"`);
      expect(texts).toContain(`What="${path.join(watched, 'quote\\"and\\ttab.txt')}"`);
      expect(agent.activity.status.output(transport)!.stats).toMatchObject({ reportedCount: 3, droppedCount: 0 });
    }
  });

  it('frames TCP messages with a trailer when the separator asks for one', async () => {
    receiver = await createRsyslog();
    await receiver.start();
    agent = await startTestAgent({ activity: TEST_TIMINGS });
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(agent, [watched]);
    await agent.settings.update((draft) => {
      draft.outputs.push(
        syslogOutput('lf', hostId, { server: `127.0.0.1:${receiver!.ports.tcp}`, protocol: 'TCP', separator: 'Lf' }),
      );
    });
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(watched, `f${i}.txt`), 'x');
    const lines = await waitFor(
      () => receiver!.lines('tcp'),
      (l) => l.length >= 5,
    );
    expect(lines.map((l) => l.split('|')[3])).toEqual(['Added', 'Added', 'Added', 'Added', 'Added']);
  });

  it('buffers while the server is down, drops the oldest past the limit and says so, then reconnects', async () => {
    receiver = await createRsyslog();
    agent = await startTestAgent({
      activity: { ...TEST_TIMINGS, syslog: { bufferLimit: 5, initialBackoffMs: 100, maxBackoffMs: 400 } },
    });
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(agent, [watched]);
    await agent.settings.update((draft) => {
      draft.outputs.push(syslogOutput('siem', hostId, { server: `127.0.0.1:${receiver!.ports.tcp}`, protocol: 'TCP' }));
    });
    await waitFor(
      () => agent!.activity.status.output('siem')?.status.type,
      (t) => t === 'Warning',
    );
    expect(agent.activity.status.output('siem')!.status.summary).toBe(
      `Cannot reach syslog server 127.0.0.1:${receiver.ports.tcp}`,
    );

    for (let i = 0; i < 12; i++)
      fs.writeFileSync(path.join(watched, `while-down-${String(i).padStart(2, '0')}.txt`), 'x');
    await waitFor(
      () => agent!.activity.status.output('siem')!.stats.droppedCount,
      (n) => n === 7,
    );
    expect(agent.activity.status.output('siem')!.status.details).toContain('7 dropped because the buffer was full');

    await receiver.start();
    const lines = await waitFor(
      () => receiver!.lines('tcp'),
      (l) => l.length >= 5,
      15_000,
      'buffered messages',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.lines('tcp')).toHaveLength(5);
    const view = agent.activity.status.output('siem')!;
    expect(view.status.type).toBe('OK');
    expect(view.stats).toMatchObject({ reportedCount: 5, droppedCount: 7 });
    expect(view.statusHistory.map((s) => s.type)).toContain('Warning');
    // The oldest were dropped: the five newest arrived, in order.
    expect(lines.map((l) => /while-down-(\d+)/.exec(l)?.[1])).toEqual(['07', '08', '09', '10', '11']);
  });
});
