/**
 * The console's changes to what is monitored ("hosts and outputs: enable/disable, add a
 * folder to watch"), against a real agent watching real folders: each change is saved in
 * settings.json, recorded in the self-audit with the console as actor, and followed by the
 * monitoring — a disabled host records nothing, an added folder is watched, a removed one is not,
 * a disabled output writes no log lines. Bad input is refused naming the field. (The guard's
 * 401 / foreign Host / CSRF refusals of these routes are in console-api-guard.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { HostView, OutputView } from '../../shared/console-api.js';
import { consoleLogin, consoleRequest, type ConsoleResponse } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { actions, logLines, monitorFolders, records, TEST_TIMINGS, waitFor } from '../helpers/activity.js';

let agent: TestAgent;
let watched: string;
let hostId: string;
let outputId: string;
/** The session cookie and key, as the web app sends them. */
let signedIn: Record<string, string>;
let origin: string;

beforeAll(async () => {
  agent = await startTestAgent({ activity: TEST_TIMINGS });
  watched = makeTempDir('vigil-watched-');
  hostId = await monitorFolders(agent, [watched]);
  outputId = agent.settings.current.outputs[0]!.id;
  origin = `http://127.0.0.1:${agent.ports.console}`;
  const session = await consoleLogin(agent);
  signedIn = { Cookie: session.cookie, 'X-Vigil-Session': session.sessionKey };
});
afterAll(() => agent.stop());

/** As the web app sends it: session cookie and the console's own Origin. */
const send = (method: string, p: string, body?: unknown): Promise<ConsoleResponse> =>
  consoleRequest(agent, { method, path: p, body, headers: { ...signedIn, Origin: origin } });

const onDisk = (): {
  hosts: Array<{ id: string; isEnabled: boolean; includePaths: string[] }>;
  outputs: Array<{ id: string; isEnabled: boolean }>;
} => JSON.parse(fs.readFileSync(agent.paths.settings, 'utf8'));

const diskHost = () => onDisk().hosts.find((h) => h.id === hostId)!;

const seen = (file: string) => (a: string[]) => a.includes(`Added ${file}`);

async function selfAudit(objectType: string): Promise<Array<{ who: string; what: string; details: unknown }>> {
  await agent.activity.changeRecorder.flush();
  return records(agent.store.db, 'Vigil Agent')
    .filter((r) => r.object_type === objectType)
    .map((r) => ({ who: r.who, what: r.what, details: JSON.parse(r.details ?? '[]') }));
}

describe('PUT /api/hosts/{id}', () => {
  it('disables a host: saved, audited, and nothing in its folders is recorded until it is enabled again', async () => {
    const off = await send('PUT', `/api/hosts/${hostId}`, { enabled: false });
    expect(off.status, off.text).toBe(200);
    const view = off.json as unknown as HostView;
    expect(view).toMatchObject({ id: hostId, enabled: false, includePaths: [watched] });
    expect(diskHost().isEnabled).toBe(false);
    await agent.activity.monitor.ready();
    expect(agent.activity.monitor.source(hostId)).toBeUndefined();

    const whileOff = path.join(watched, 'while-disabled.txt');
    fs.writeFileSync(whileOff, 'x');

    const on = await send('PUT', `/api/hosts/${hostId}`, { enabled: true });
    expect(on.status, on.text).toBe(200);
    expect((on.json as unknown as HostView).enabled).toBe(true);
    expect(diskHost().isEnabled).toBe(true);
    const control = path.join(watched, 'after-enabled.txt');
    fs.writeFileSync(control, 'x');
    await waitFor(() => actions(agent.store.db), seen(control), 15_000, 'the control file');
    // The control was recorded, so the watcher had every chance to report the other: it must not.
    expect(actions(agent.store.db).filter((a) => a.includes('while-disabled'))).toEqual([]);

    const changes = await selfAudit('Host');
    const hostIdDetail = { PropertyName: 'Id', Before: hostId, After: hostId };
    expect(changes.slice(-2).map((c) => [c.who, c.details])).toEqual([
      ['console', [hostIdDetail, { PropertyName: 'isEnabled', Before: 'true', After: 'false' }]],
      ['console', [hostIdDetail, { PropertyName: 'isEnabled', Before: 'false', After: 'true' }]],
    ]);
  });

  it('refuses a value that is not a boolean, or another field, naming it', async () => {
    for (const [body, field] of [
      [{ enabled: 'false' }, 'enabled'],
      [{ enabled: 0 }, 'enabled'],
      [{}, 'enabled'],
      [{ enabled: true, name: 'renamed' }, 'name'],
    ] as const) {
      const response = await send('PUT', `/api/hosts/${hostId}`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json).toMatchObject({ error: 'invalid_request', field });
      expect(response.json?.['error_description']).toContain(field);
    }
    expect(diskHost().isEnabled).toBe(true);
  });

  it('answers 404 for an unknown host', async () => {
    const response = await send('PUT', '/api/hosts/no-such-host', { enabled: false });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ error: 'not_found', field: 'id' });
    expect(response.json?.['error_description']).toContain('no-such-host');
  });
});

describe('POST and DELETE /api/hosts/{id}/folders', () => {
  it('watches an added folder at once, and stops when it is removed', async () => {
    const extra = makeTempDir('vigil-added-');
    const added = await send('POST', `/api/hosts/${hostId}/folders`, { path: extra });
    expect(added.status, added.text).toBe(201);
    expect((added.json as unknown as HostView).includePaths).toEqual([watched, extra]);
    expect(diskHost().includePaths).toEqual([watched, extra]);

    const inside = path.join(extra, 'in-added-folder.txt');
    fs.writeFileSync(inside, 'x');
    await waitFor(() => actions(agent.store.db), seen(inside), 15_000, 'a record of the file in the added folder');

    // Adding it again changes nothing (200, not 201); a trailing separator names the same folder.
    const again = await send('POST', `/api/hosts/${hostId}/folders`, { path: `${extra}${path.sep}` });
    expect(again.status, again.text).toBe(200);
    expect(diskHost().includePaths).toEqual([watched, extra]);

    const removed = await send('DELETE', `/api/hosts/${hostId}/folders?path=${encodeURIComponent(extra)}`);
    expect(removed.status, removed.text).toBe(200);
    expect((removed.json as unknown as HostView).includePaths).toEqual([watched]);
    expect(diskHost().includePaths).toEqual([watched]);
    await agent.activity.monitor.ready();

    const afterRemoval = path.join(extra, 'after-removal.txt');
    fs.writeFileSync(afterRemoval, 'x');
    const control = path.join(watched, 'control-after-removal.txt');
    fs.writeFileSync(control, 'x');
    await waitFor(() => actions(agent.store.db), seen(control), 15_000, 'the control file');
    expect(actions(agent.store.db).filter((a) => a.includes('after-removal.txt') && a.includes(extra))).toEqual([]);

    const changes = await selfAudit('Host');
    expect(changes.slice(-2).map((c) => c.who)).toEqual(['console', 'console']);
    expect(JSON.stringify(changes.slice(-2).map((c) => c.details))).toContain(extra.replace(/\\/g, '\\\\'));
  });

  it('refuses a relative, missing or non-existent path, or a file, naming the path', async () => {
    const file = path.join(watched, 'a-file.txt');
    fs.writeFileSync(file, 'x');
    const cases: Array<[unknown, RegExp]> = [
      [{ path: 'relative/folder' }, /absolute/],
      [{}, /missing/],
      [{ path: 42 }, /string/],
      [{ path: path.join(watched, 'no-such-folder') }, /no folder/],
      [{ path: file }, /not a folder/],
    ];
    for (const [body, words] of cases) {
      const response = await send('POST', `/api/hosts/${hostId}/folders`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json).toMatchObject({ error: 'invalid_request', field: 'path' });
      expect(response.json?.['error_description']).toMatch(words);
    }
    expect(diskHost().includePaths).toEqual([watched]);
  });

  it('answers 404 for an unknown host or a folder the host does not watch, 400 for a relative one', async () => {
    const extra = makeTempDir('vigil-unknown-');
    const unknownHost = await send('POST', '/api/hosts/no-such-host/folders', { path: extra });
    expect(unknownHost.status).toBe(404);
    expect(unknownHost.json).toMatchObject({ error: 'not_found', field: 'id' });
    const notWatched = await send('DELETE', `/api/hosts/${hostId}/folders?path=${encodeURIComponent(extra)}`);
    expect(notWatched.status).toBe(404);
    expect(notWatched.json).toMatchObject({ error: 'not_found', field: 'path' });
    const relative = await send('DELETE', `/api/hosts/${hostId}/folders?path=relative`);
    expect(relative.status).toBe(400);
    expect(relative.json).toMatchObject({ error: 'invalid_request', field: 'path' });
    const none = await send('DELETE', `/api/hosts/${hostId}/folders`);
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ field: 'path' });
    expect(diskHost().includePaths).toEqual([watched]);
  });
});

describe('PUT /api/outputs/{id}', () => {
  it('disables an output, which then writes no log lines, and enables it again', async () => {
    const off = await send('PUT', `/api/outputs/${outputId}`, { enabled: false });
    expect(off.status, off.text).toBe(200);
    expect(off.json as unknown as OutputView).toMatchObject({ id: outputId, hostId, enabled: false });
    expect(onDisk().outputs.find((o) => o.id === outputId)?.isEnabled).toBe(false);

    // Log files are written in the same transaction as the records: once a record is stored,
    // its line is in the log file if the output is enabled.
    const unlogged = path.join(watched, 'not-logged.txt');
    fs.writeFileSync(unlogged, 'x');
    await waitFor(() => actions(agent.store.db), seen(unlogged), 15_000, 'the record of not-logged.txt');
    expect(logLines(agent.paths.root).filter((l) => l.includes('not-logged.txt'))).toEqual([]);

    const on = await send('PUT', `/api/outputs/${outputId}`, { enabled: true });
    expect(on.status, on.text).toBe(200);
    expect((on.json as unknown as OutputView).enabled).toBe(true);
    const logged = path.join(watched, 'logged-again.txt');
    fs.writeFileSync(logged, 'x');
    await waitFor(
      () => logLines(agent.paths.root),
      (lines) => lines.some((l) => l.includes('logged-again.txt')),
      15_000,
      'a log line of logged-again.txt',
    );

    const changes = await selfAudit('Output');
    const outputIdDetail = { PropertyName: 'Id', Before: outputId, After: outputId };
    expect(changes.slice(-2).map((c) => [c.who, c.details])).toEqual([
      ['console', [outputIdDetail, { PropertyName: 'isEnabled', Before: 'true', After: 'false' }]],
      ['console', [outputIdDetail, { PropertyName: 'isEnabled', Before: 'false', After: 'true' }]],
    ]);
  });

  it('answers 404 for an unknown output and 400 naming enabled for a non-boolean', async () => {
    const unknown = await send('PUT', '/api/outputs/no-such-output', { enabled: true });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ error: 'not_found', field: 'id' });
    const wrong = await send('PUT', `/api/outputs/${outputId}`, { enabled: 'yes' });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'invalid_request', field: 'enabled' });
  });
});
