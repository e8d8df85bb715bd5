/** The netwrix schemas are the vigil ones with the netwrix namespaces (docs/audit-api.md "Vendor profile"), nothing else. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const dir = (vendor: string): string => path.join(REPO_ROOT, 'docs', 'schemas', vendor);

describe('published XML Schemas', () => {
  it('exist for every document, for both vendor profiles, and do not drift apart', () => {
    const files = fs.readdirSync(dir('vigil')).sort();
    expect(files).toEqual([
      'activity-record-search.xsd',
      'activity-records.xsd',
      'continuation-mark.xsd',
      'error-list.xsd',
    ]);
    expect(fs.readdirSync(dir('netwrix')).sort()).toEqual(files);
    for (const file of files) {
      const vigil = fs.readFileSync(path.join(dir('vigil'), file), 'utf8');
      const expected = vigil
        .replaceAll('http://schemas.vigil.dev/', 'http://schemas.netwrix.com/')
        .replace('Vigil audit integration API', 'Vigil audit integration API, netwrix vendor profile');
      expect(fs.readFileSync(path.join(dir('netwrix'), file), 'utf8'), file).toBe(expected);
    }
  });
});
