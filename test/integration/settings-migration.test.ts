/**
 * An agent upgraded over a settings.json written by 0.1.0 (test/fixtures/settings-0.1.0.json,
 * produced by that version through its resource services) starts, serves the same resources,
 * and keeps the original file as settings.json.bak-0.1.0 (README.md, "Upgrading").
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_SCHEMA_VERSION } from '../../agent/config/settings-schema.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { ALL, call, listOf } from '../helpers/resource-client.js';

const FIXTURE = path.join(import.meta.dirname, '../fixtures/settings-0.1.0.json');
const fixtureText = fs.readFileSync(FIXTURE, 'utf8');

// The fixture's hosts are Linux hosts, and an agent monitors only its own platform.
describe.skipIf(process.platform !== 'linux')('a settings.json written by 0.1.0', () => {
  let dataDir: string;
  let agent: TestAgent | undefined;

  beforeAll(async () => {
    dataDir = makeTempDir();
    fs.writeFileSync(path.join(dataDir, 'settings.json'), fixtureText, { mode: 0o600 });
    agent = await startTestAgent({ dataDir });
  });

  afterAll(async () => {
    await agent?.stop();
  });

  it('keeps the original byte for byte as settings.json.bak-0.1.0', () => {
    expect(fs.readFileSync(path.join(dataDir, 'settings.json.bak-0.1.0'), 'utf8')).toBe(fixtureText);
  });

  it('is rewritten with the API names', () => {
    const written = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(written['schemaVersion']).toBe(SETTINGS_SCHEMA_VERSION);
    expect(written['hosts']).toEqual([
      expect.objectContaining({ host: 'workstation-7', isEnabled: true }),
      expect.objectContaining({ host: 'lab box', isEnabled: false }),
    ]);
    const text = JSON.stringify(written);
    for (const old of ['"name":"workstation-7"', '"enabled"', '"retentionDays":30', '"apiPort"']) {
      expect(text).not.toContain(old);
    }
  });

  it('serves the same hosts and outputs', async () => {
    const hosts = listOf(await call(agent!, ALL, 'GET', '/api/v1/hosts'));
    expect(hosts).toEqual([
      expect.objectContaining({
        id: '5ca3107f-13c7-4552-995e-5a9fb326503c',
        host: 'workstation-7',
        type: 'Linux',
        isEnabled: true,
        comment: 'main desk',
        includePaths: ['/srv/vigil-fixture/projects'],
        excludePaths: ['/srv/vigil-fixture/projects/cache'],
        rescanIntervalMinutes: 30,
        monitorReads: false,
        outputs: [
          expect.objectContaining({
            id: '9f3486ad-2fb5-4739-b4f1-4829ea54e70f',
            type: 'LogFile',
            isEnabled: true,
            comment: 'daily tsv',
            logFile: { format: 'Tsv', daysToRetain: 30, headerRow: true, zipClosedFiles: false },
          }),
          expect.objectContaining({
            id: '067c7fab-f50c-4786-a7a0-0f3add675619',
            type: 'Syslog',
            isEnabled: false,
            syslog: expect.objectContaining({ server: '127.0.0.1:6514', protocol: 'TCP' }),
            fileFilter: expect.objectContaining({ excludeExtensions: ['tmp'] }),
          }),
        ],
      }),
      expect.objectContaining({
        id: '6ba6fe95-1e87-41cf-b960-5f4709d8037d',
        host: 'lab box',
        isEnabled: false,
        rescanIntervalMinutes: 0,
        monitorReads: true,
        outputs: [],
      }),
    ]);
  });

  it('serves the same domain, its output and policy, and the registered agent', async () => {
    const domains = listOf(await call(agent!, ALL, 'GET', '/api/v1/domains'));
    expect(domains).toEqual([
      expect.objectContaining({
        id: 'CORP',
        name: 'corp.example.com',
        isEnabled: false,
        comment: 'hq',
        ldapServer: 'ldaps://dc1.corp.example.com:636',
        userName: 'CORP\\reader',
        outputs: [
          expect.objectContaining({
            id: '5fc2fbde-4a88-4776-ad5d-076fb0ee654c',
            isEnabled: true,
            logFile: { format: 'Json', daysToRetain: 12, headerRow: false, zipClosedFiles: true },
          }),
        ],
      }),
    ]);
    const policies = listOf(await call(agent!, ALL, 'GET', '/api/v1/domains/CORP/policies'));
    expect(policies).toEqual([
      expect.objectContaining({
        id: '7b68de0d-4f23-4822-9d28-ede03acdc672',
        name: 'Auditing',
        path: 'Policies\\Auditing',
        isEnabled: false,
        xml: '<Policy/>',
      }),
    ]);
    const agents = listOf(await call(agent!, ALL, 'GET', '/api/v1/agents'));
    expect(agents).toContainEqual(
      expect.objectContaining({
        id: 'AGENT-19D831528D14',
        host: 'agent2.corp.example.com',
        apiServerPort: 4500,
        comment: 'second floor',
      }),
    );
  });

  it('is migrated once: the next start leaves the file and the backup as they are', async () => {
    await agent!.stop();
    const migrated = fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8');
    agent = await startTestAgent({ dataDir });
    expect(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).toBe(migrated);
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('settings.json.bak'))).toEqual([
      'settings.json.bak-0.1.0',
    ]);
  });
});
