/** The safe XML reader: what it refuses, what it decodes, and the element tree it builds. */
import { describe, expect, it } from 'vitest';
import { parseXmlDocument } from '../../agent/audit/xml-document.js';
import { AuditError } from '../../agent/audit/audit-errors.js';

const parse = (xml: string) => parseXmlDocument(xml, 8);
function refusal(xml: string): AuditError {
  try {
    parse(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(AuditError);
    return error as AuditError;
  }
  throw new Error('accepted');
}

describe('parseXmlDocument', () => {
  it('builds elements with resolved namespaces, decoded text and indexed paths', () => {
    const root = parse(
      `<?xml version="1.0"?><!-- c --><r:Root xmlns:r="urn:r" xmlns="urn:d" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x"><A k="1 &amp; 2">a &lt; b &#x263A;</A><A><![CDATA[<keep &amp;>]]></A><B/></r:Root>`,
    );
    expect(root).toMatchObject({ name: 'Root', namespace: 'urn:r', path: '/r:Root' });
    expect([...root.attributes.keys()]).toEqual([]);
    expect(root.children.map((c) => [c.name, c.namespace, c.path, c.text])).toEqual([
      ['A', 'urn:d', '/r:Root/A[1]', 'a < b ☺'],
      ['A', 'urn:d', '/r:Root/A[2]', '<keep &amp;>'],
      ['B', 'urn:d', '/r:Root/B', ''],
    ]);
    expect(root.children[0]!.attributes.get('k')).toBe('1 & 2');
  });

  it.each([
    ['<!DOCTYPE a><a/>', /^0xC00CE584 /, 'line 1, column 1'],
    ['<a>\n<!ENTITY x "y"></a>', /^0xC00CE584 /, 'line 2, column 1'],
    ['<a>\u0000</a>', /^0xC00CE502 .*U\+0000/, 'line 1, column 4'],
    ['<a><b></a>', /^0xC00CE56D /, 'line 1, column 7'],
    ['<a/><b/>', /^0xC00CE558 .*exactly one root/, undefined],
    ['', /^0xC00CE558 /, 'line 1'],
    ['<a>&bogus;</a>', /^0xC00CE509 /, '/a'],
    ['<a>&#xD800;</a>', /^0xC00CE509 /, '/a'],
    ['<p:a/>', /prefix "p" is not declared/, '/p:a'],
    [`${'<a>'.repeat(12)}${'</a>'.repeat(12)}`, /^0xC00CE577 /, undefined],
  ])('refuses %j', (xml, message, location) => {
    const error = refusal(xml);
    expect(error.category).toBe('XMLError');
    expect(error.message).toMatch(message);
    expect(error.location).toBe(location);
  });
});
