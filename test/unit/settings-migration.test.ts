/** settings.json files of older versions are renamed to the API's names, the original kept; others are left alone. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateSettingsFile } from '../../agent/config/settings-migration.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function settingsFile(content: string): string {
  const file = path.join(makeTempDir(), 'settings.json');
  fs.writeFileSync(file, content);
  return file;
}

const read = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('settings migration', () => {
  it('renames a hand-written file without schemaVersion that uses the old names', async () => {
    const original = JSON.stringify({
      hosts: [{ id: 'h1', name: 'desk', enabled: false, type: 'Linux' }],
      outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', enabled: true, logFile: { retentionDays: 3 } }],
      agents: [{ id: 'A', host: 'b.example', apiPort: 4500 }],
    });
    const file = settingsFile(original);
    expect(await migrateSettingsFile(file)).toEqual({ from: 1, writtenBy: '0.1.0', backup: `${file}.bak-0.1.0` });
    expect(read(file)).toEqual({
      hosts: [{ id: 'h1', host: 'desk', isEnabled: false, type: 'Linux' }],
      outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', isEnabled: true, logFile: { daysToRetain: 3 } }],
      agents: [{ id: 'A', host: 'b.example', apiServerPort: 4500 }],
      schemaVersion: 2,
    });
    expect(fs.readFileSync(`${file}.bak-0.1.0`, 'utf8')).toBe(original);
  });

  it('leaves a current file, a file without old names, and a file that is not JSON untouched', async () => {
    for (const content of [
      JSON.stringify({ schemaVersion: 2, hosts: [{ id: 'h1', host: 'desk' }] }),
      JSON.stringify({ hosts: [{ id: 'h1', host: 'desk', isEnabled: true }] }),
      '{ not json',
    ]) {
      const file = settingsFile(content);
      expect(await migrateSettingsFile(file)).toBeNull();
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
      expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
    }
  });

  it('never overwrites an earlier backup that holds another file', async () => {
    const file = settingsFile(JSON.stringify({ schemaVersion: 1, hosts: [] }));
    fs.writeFileSync(`${file}.bak-0.1.0`, 'an older original');
    expect((await migrateSettingsFile(file))?.backup).toBe(`${file}.bak-0.1.0.2`);
    expect(fs.readFileSync(`${file}.bak-0.1.0`, 'utf8')).toBe('an older original');
  });
});
