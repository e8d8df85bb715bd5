/** Settings: defaults on first run, validation on every change, corrupt files never reset. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsFileError, SettingsStore, SettingsValidationError } from '../../agent/config/settings-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function settingsFile(contents?: string): string {
  const file = path.join(makeTempDir(), 'settings.json');
  if (contents !== undefined) fs.writeFileSync(file, contents);
  return file;
}

describe('SettingsStore', () => {
  it('creates the file with defaults on first run, owner-only', async () => {
    const file = settingsFile();
    const store = await SettingsStore.open(file);
    expect(store.current).toMatchObject({
      agentApi: { port: 4494 },
      auditApi: { port: 9699, vendor: 'vigil' },
      console: { port: 4495 },
      allowList: ['127.0.0.1', '::1'],
    });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(store.current);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('fills defaults for sections an operator left out', async () => {
    const store = await SettingsStore.open(settingsFile('{"agentApi":{"port":5000}}'));
    expect(store.current.agentApi).toEqual({ port: 5000, bindAddress: '::' });
    expect(store.current.auditApi.port).toBe(9699);
  });

  it.each([
    ['{"agentApi": {"port": 4494,}', /not valid JSON/],
    ['{"agentApi": {"port": "4494"}}', /field "agentApi\.port"/],
    ['{"agentApi": {"port": 70000}}', /field "agentApi\.port"/],
    ['{"allowList": ["127.0.0.1", "10.0.0.0/40"]}', /field "allowList\[1\]".*prefix/],
    ['{"auditApi": {"vendr": "netwrix"}}', /field "auditApi\.vendr": unknown field/],
    ['', /not valid JSON/],
  ])('refuses a corrupt file %j naming the file and the problem, leaving it untouched', async (contents, problem) => {
    const file = settingsFile(contents);
    const before = fs.statSync(file);
    const error = await SettingsStore.open(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsFileError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(problem);
    expect(fs.readFileSync(file, 'utf8')).toBe(contents);
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
  });

  it('validates a change before writing it and keeps the old settings when invalid', async () => {
    const file = settingsFile();
    const store = await SettingsStore.open(file);
    const error = await store
      .update((s) => {
        s.console.port = -1;
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsValidationError);
    expect((error as SettingsValidationError).field).toBe('console.port');
    expect(store.current.console.port).toBe(4495);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).console.port).toBe(4495);
  });

  it('persists every change in order and tells subscribers', async () => {
    const file = settingsFile();
    const store = await SettingsStore.open(file);
    const seen: number[] = [];
    store.onChange((next) => seen.push(next.agentApi.port));
    await Promise.all(
      [5001, 5002, 5003].map((port) =>
        store.update((s) => {
          s.agentApi.port = port;
        }),
      ),
    );
    expect(seen).toEqual([5001, 5002, 5003]);
    const reopened = await SettingsStore.open(file);
    expect(reopened.current.agentApi.port).toBe(5003);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
  });
});
