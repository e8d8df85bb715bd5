/**
 * The permission engine against the permission table (test/helpers/permission-table.ts): every
 * permission set × every resource kind × list / get by id (local, other, missing) / write /
 * download, asserting the visibility, the view and the 401-not-403 rule of docs/permissions.md.
 */
import { describe, expect, it } from 'vitest';
import { AccessPolicy, RESOURCE_KINDS, type Locality } from '../../shared/permission-engine.js';
import {
  allPermissionSets,
  expectedDownload,
  expectedView,
  expectedWrite,
  label,
} from '../helpers/permission-table.js';

const LOCALITIES: Locality[] = ['local', 'other'];

interface Resource {
  id: string;
  locality: Locality;
}
const COLLECTION: Resource[] = [
  { id: 'here', locality: 'local' },
  { id: 'there-1', locality: 'other' },
  { id: 'there-2', locality: 'other' },
];

describe.each(allPermissionSets().map((set) => [label(set), set] as const))('permissions %s', (_name, permissions) => {
  const access = new AccessPolicy(permissions);

  describe.each(RESOURCE_KINDS.map((kind) => [kind]))('%s', (kind) => {
    it('lists exactly what the table shows, in order, each in its view; a kind it cannot see at all is refused', () => {
      const expected = COLLECTION.flatMap((r) => {
        const view = expectedView(permissions, kind, r.locality);
        return view ? [{ id: r.id, view }] : [];
      });
      expect(
        access.filter(kind, COLLECTION, (r) => r.locality).map(({ item, view }) => ({ id: item.id, view })),
      ).toEqual(expected);
      // The route-level gate: no read at all on this kind → 401 before the handler.
      const anyView = LOCALITIES.some((l) => expectedView(permissions, kind, l) !== null);
      expect(access.allowsAny(kind, 'read')).toBe(anyView);
    });

    it.each(LOCALITIES)('gets an existing %s resource by id: its view, or 401 (never 403)', (locality) => {
      const view = expectedView(permissions, kind, locality);
      expect(access.byId(kind, 'read', { exists: true, locality })).toEqual(
        view ? { outcome: 'allowed', view } : { outcome: 'unauthorized' },
      );
    });

    it('gets a missing id: 404 only if the client could see such a resource, else 401', () => {
      const couldSee = expectedView(permissions, kind, 'other') !== null;
      expect(access.byId(kind, 'read', { exists: false, locality: 'other' })).toEqual(
        couldSee ? { outcome: 'not_found' } : { outcome: 'unauthorized' },
      );
    });

    it('writes only with the permission that manages the kind', () => {
      const write = expectedWrite(permissions, kind);
      for (const locality of LOCALITIES) {
        expect(access.allows(kind, 'write', locality)).toBe(write);
        const decision = access.byId(kind, 'write', { exists: true, locality });
        expect(decision.outcome).toBe(write ? 'allowed' : 'unauthorized');
        // whoever may change a resource also reads it in full
        if (write) expect(decision).toEqual({ outcome: 'allowed', view: 'detailed' });
      }
      expect(access.allowsAny(kind, 'write')).toBe(write);
    });

    it('downloads only log files of this agent, and only with Access activity data', () => {
      for (const locality of LOCALITIES) {
        expect(access.allows(kind, 'download', locality)).toBe(
          kind === 'logFile' && expectedDownload(permissions, locality),
        );
      }
    });
  });
});

describe('permission rules of docs/permissions.md spelled out', () => {
  it('Read sees everything detailed but may not download log files', () => {
    const read = new AccessPolicy(['read']);
    expect(read.view('agent', 'other')).toBe('detailed');
    expect(read.view('logFile', 'local')).toBe('detailed');
    expect(read.allows('logFile', 'download', 'local')).toBe(false);
  });

  it('Access activity data sees only local resources, limited, and no policies', () => {
    const aad = new AccessPolicy(['accessActivityData']);
    expect(aad.view('host', 'local')).toBe('limited');
    expect(aad.view('host', 'other')).toBeNull();
    expect(aad.allowsAny('policy', 'read')).toBe(false);
    expect(aad.allows('logFile', 'download', 'local')).toBe(true);
  });

  it('combining permissions gives the widest view and all rights', () => {
    const both = new AccessPolicy(['accessActivityData', 'read']);
    expect(both.view('agent', 'local')).toBe('detailed');
    expect(both.allows('logFile', 'download', 'local')).toBe(true);
  });

  it('a missing log file of this agent is 404 for a client that may see this agent files', () => {
    const aad = new AccessPolicy(['accessActivityData']);
    expect(aad.byId('logFile', 'download', { exists: false, locality: 'local' })).toEqual({ outcome: 'not_found' });
    expect(new AccessPolicy(['read']).byId('logFile', 'download', { exists: true, locality: 'local' })).toEqual({
      outcome: 'unauthorized',
    });
  });
});
