/**
 * Validates XML documents against the published schemas (docs/schemas/<vendor>/) with Debian's
 * xmllint (libxml2-utils; .ci/run installs it), so responses and schemas cannot drift apart.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

export type SchemaName = 'activity-records' | 'activity-record-search' | 'continuation-mark' | 'error-list';

const ROOTS: Record<string, SchemaName> = {
  ActivityRecordList: 'activity-records',
  ActivityRecordSearch: 'activity-record-search',
  ContinuationMark: 'continuation-mark',
  ErrorList: 'error-list',
};

export function schemaFile(schema: SchemaName, vendor: string): string {
  return path.join(REPO_ROOT, 'docs', 'schemas', vendor === 'netwrix' ? 'netwrix' : 'vigil', `${schema}.xsd`);
}

/** Throws with xmllint's message when `xml` does not validate against `schema`. */
export function validateXml(xml: string, schema: SchemaName, vendor = 'vigil'): void {
  const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schemaFile(schema, vendor), '-'], {
    input: xml,
    encoding: 'utf8',
  });
  if (result.error) {
    throw new Error(`xmllint could not run (${result.error.message}); install it: apt-get install -y libxml2-utils`);
  }
  if (result.status !== 0) throw new Error(`not valid against ${schema}.xsd:\n${result.stderr}\n${xml.slice(0, 2000)}`);
}

/** Validates a response body against the schema its root element names. */
export function validateResponse(xml: string, vendor = 'vigil'): void {
  const root = /<([A-Za-z]+)[\s>/]/.exec(xml.replace(/^<\?xml[^>]*\?>\s*/, ''))?.[1] ?? '';
  const schema = ROOTS[root];
  if (!schema) throw new Error(`no schema for a document with root "${root}"`);
  validateXml(xml, schema, vendor);
}
