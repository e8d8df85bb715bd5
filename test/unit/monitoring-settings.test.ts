/** Hosts and outputs in settings.json: defaults, cross-checks, and errors that name the field. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../agent/config/settings-schema.js';
import { fieldProblems } from '../../agent/util/validation-errors.js';
import { localHostType, parseHostPort } from '../../agent/config/monitoring-schema.js';

const type = localHostType();
const other = type === 'Windows' ? 'Linux' : 'Windows';
const folder = path.resolve('/data/watched');

function problems(input: unknown): string[] {
  const result = settingsSchema.safeParse(input);
  return result.success ? [] : fieldProblems(result.error).map((p) => `${p.field}: ${p.message}`);
}

const host = { id: 'h1', host: 'workstation', type, includePaths: [folder] };

describe('monitoring settings', () => {
  it('fills defaults: enabled host, hourly rescans, TSV log files kept 10 days, every operation', () => {
    const settings = settingsSchema.parse({ hosts: [host], outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile' }] });
    expect(settings.hosts[0]).toMatchObject({ isEnabled: true, excludePaths: [], rescanIntervalMinutes: 60 });
    expect(settings.outputs[0]).toMatchObject({
      isEnabled: true,
      logFile: { format: 'Tsv', daysToRetain: 10, headerRow: false, zipClosedFiles: true },
      fileFilter: { operations: ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'] },
    });
    expect(settings.logStorage).toEqual({ maxLocalSize: 5 * 1024 ** 3, minLocalFreeSpace: 64 * 1024 ** 2 });
    expect(settings.auditStore.retentionDays).toBe(180);
  });

  it('refuses a host type this agent cannot monitor, saying why', () => {
    expect(problems({ hosts: [{ ...host, type: other }] })).toEqual([
      `hosts[0].type: this agent runs on ${type} and can only monitor its own file system (type "${type}"), not a ${other} host`,
    ]);
    expect(problems({ hosts: [{ ...host, type: 'NetApp' }] })[0]).toMatch(/^hosts\[0\]\.type: /);
  });

  it.each([
    [{ hosts: [{ ...host, includePaths: ['relative/path'] }] }, 'hosts[0].includePaths[0]: must be an absolute path'],
    [{ hosts: [host, { ...host }] }, 'hosts[1].id: another host already has id "h1"'],
    [
      { hosts: [host], outputs: [{ id: 'o1', hostId: 'nope', type: 'LogFile' }] },
      'outputs[0].hostId: no host has id "nope"',
    ],
    [
      { hosts: [host], outputs: [{ id: 'o1', hostId: 'h1', type: 'Syslog' }] },
      'outputs[0].syslog: a Syslog output needs syslog options (server)',
    ],
    [
      { hosts: [host], outputs: [{ id: 'o1', hostId: 'h1', type: 'Syslog', syslog: { server: 'siem.example.com' } }] },
      'outputs[0].syslog.server: must be HOST:PORT, e.g. siem.example.com:514',
    ],
    [
      { hosts: [host], outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', logFile: { daysToRetain: 0 } }] },
      'outputs[0].logFile.daysToRetain: Too small: expected number to be >=1',
    ],
    [{ hosts: [{ ...host, colour: 'red' }] }, 'hosts[0].colour: unknown field'],
    [{ logStorage: { maxLocalSize: 1000 } }, 'logStorage.maxLocalSize: Too small: expected number to be >=104857600'],
  ])('names the field of a bad value (%#)', (input, expected) => {
    expect(problems(input)).toContain(expected);
  });

  it('refuses two log file outputs that would write the same files', () => {
    const outputs = [
      { id: 'o1', hostId: 'h1', type: 'LogFile' },
      { id: 'o2', hostId: 'h1', type: 'LogFile' },
    ];
    expect(problems({ hosts: [host], outputs })).toEqual([
      'outputs[1].logFile.fileName: output "o1" already writes workstation_Log_*.tsv; give this output another logFile.fileName',
    ]);
    const distinct = [outputs[0], { ...outputs[1], logFile: { fileName: 'second' } }];
    expect(problems({ hosts: [host], outputs: distinct })).toEqual([]);
    const json = [outputs[0], { ...outputs[1], logFile: { format: 'Json' } }];
    expect(problems({ hosts: [host], outputs: json })).toEqual([]);
  });

  it('refuses a domain output that would write the files of a host output or of another domain output', () => {
    const domains = [{ id: 'EXAMPLE', name: 'example.test', ldapServer: 'ldap://127.0.0.1' }];
    const hostOutput = { id: 'o1', hostId: 'h1', type: 'LogFile', logFile: { fileName: 'example.test' } };
    const domainOutput = { id: 'd1', domainId: 'EXAMPLE', type: 'LogFile' };
    expect(problems({ hosts: [host], outputs: [hostOutput], domains, domainOutputs: [domainOutput] })).toEqual([
      'domainOutputs[0].logFile.fileName: output "o1" already writes example.test_Log_*.tsv; give this output another logFile.fileName',
    ]);
    expect(problems({ hosts: [host], domains, domainOutputs: [domainOutput, { ...domainOutput, id: 'd2' }] })).toEqual([
      'domainOutputs[1].logFile.fileName: output "d1" already writes example.test_Log_*.tsv; give this output another logFile.fileName',
    ]);
    const syslog = { id: 'd2', domainId: 'EXAMPLE', type: 'Syslog', syslog: { server: 'siem.example.com:514' } };
    expect(problems({ hosts: [host], domains, domainOutputs: [domainOutput, syslog] })).toEqual([]);
  });

  it('reads syslog servers as HOST:PORT, including bracketed IPv6', () => {
    expect(parseHostPort('siem.example.com:514')).toEqual({ host: 'siem.example.com', port: 514 });
    expect(parseHostPort('10.0.0.5:6514')).toEqual({ host: '10.0.0.5', port: 6514 });
    expect(parseHostPort('[::1]:514')).toEqual({ host: '::1', port: 514 });
    for (const bad of ['siem', 'siem:0', 'siem:70000', 'si em:514', '::1:514', '-bad.example:514']) {
      expect(parseHostPort(bad)).toBeNull();
    }
  });
});
