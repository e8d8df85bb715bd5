/** Pieces of the resource services: caller field names, change details, policy XML, host types, domain ids. */
import { describe, expect, it } from 'vitest';
import { changeDetails } from '../../agent/resources/change-details.js';
import { domainIdFromName } from '../../agent/resources/domain-service.js';
import { checkHostType } from '../../agent/resources/host-type.js';
import { parsePolicyXml, policyFieldsFromXml } from '../../agent/resources/policy-xml.js';
import { ServiceError } from '../../agent/util/service-error.js';
import { callerField, placed } from '../../agent/resources/settings-problems.js';

describe('callerField', () => {
  const placements = [placed('hosts', 3), placed('outputs', 7, 'outputs[0]')];
  it('names the field as the caller sent it', () => {
    expect(callerField('hosts[3].includePaths[1]', placements)).toBe('includePaths[1]');
    expect(callerField('hosts[3]', placements)).toBe('');
    expect(callerField('outputs[7].logFile.fileName', placements)).toBe('outputs[0].logFile.fileName');
    expect(callerField('hosts[30].name', placements)).toBe('hosts[30].name');
    expect(callerField('allowList[2]', [{ prefix: 'allowList', as: 'allowList' }])).toBe('allowList[2]');
  });
});

describe('changeDetails', () => {
  it('lists changed fields only, lists as "a; b", secrets as set or not', () => {
    const details = changeDetails(
      { name: 'a', includePaths: ['/x'], password: 'old', same: 1 },
      { name: 'b', includePaths: ['/x', '/y'], password: 'new', same: 1 },
      { secrets: ['password'] },
    );
    expect(details).toEqual([
      { PropertyName: 'name', Before: 'a', After: 'b' },
      { PropertyName: 'includePaths', Before: '/x', After: '/x; /y' },
      { PropertyName: 'password', Before: '(set)', After: '(set)' },
    ]);
    expect(JSON.stringify(details)).not.toMatch(/old|new/);
  });

  it('summarises long values by length and hash', () => {
    const [detail] = changeDetails(null, { xml: `<a>${'x'.repeat(5000)}</a>` });
    expect(detail!.After).toMatch(/^\(5007 characters, SHA-256 [0-9a-f]{16}…\)$/);
    expect(detail!.Before).toBeUndefined();
  });
});

describe('policy XML', () => {
  it('reads name, description, path and enabled from elements or attributes of the root', () => {
    const root = parsePolicyXml(
      '<Policy enabled="false"><Name> LDAP Monitor </Name><Description>d</Description><Path>Policies\\AD</Path><Guid>x</Guid></Policy>',
    );
    expect(policyFieldsFromXml(root)).toEqual({
      name: 'LDAP Monitor',
      description: 'd',
      path: 'Policies\\AD',
      isEnabled: false,
    });
  });

  it.each([
    ['<a><b></a>', /not a well-formed document/],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /DTDs are not allowed/],
    ['<a/><b/>', /well-formed/],
    ['', /well-formed/],
    ['<a>&unknown;</a>', /well-formed/],
  ])('refuses %j naming the xml field', (xml, message) => {
    let error: unknown;
    try {
      parsePolicyXml(xml);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).field).toBe('xml');
    expect((error as ServiceError).message).toMatch(message);
  });
});

describe('checkHostType', () => {
  it('accepts only the platform of the agent and says why', () => {
    expect(checkHostType('Linux', 'type', 'linux')).toBe('Linux');
    expect(checkHostType('Windows', 'type', 'win32')).toBe('Windows');
    expect(() => checkHostType('NetApp', 'type', 'linux')).toThrow(/runs on Linux .* cannot monitor a NetApp host/);
    expect(() => checkHostType('Windows', 'type', 'darwin')).toThrow(/runs on MacOS/);
  });
});

describe('domainIdFromName', () => {
  it('derives a NetBIOS-style id, unique', () => {
    expect(domainIdFromName('corp.example.com', new Set())).toBe('CORP');
    expect(domainIdFromName('corp.example.org', new Set(['CORP']))).toBe('CORP-2');
    expect(domainIdFromName('averyveryverylongname.example', new Set())).toBe('AVERYVERYVERYLO');
  });
});
