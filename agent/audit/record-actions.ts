/**
 * The values `Action` may take in a written record: the actions docs/audit-api.md lists
 * (docs/audit-api.md "Write"), also listed in docs/schemas/ (the `Action` type of
 * activity-records.xsd and activity-records.schema.json). A search may still name any value.
 */
const CHANGES: ReadonlyArray<readonly [done: string, attempted: string]> = [
  ['Added', 'Add'],
  ['Removed', 'Remove'],
  ['Modified', 'Modify'],
  ['Read', 'Read'],
  ['Moved', 'Move'],
  ['Renamed', 'Rename'],
];

export const RECORD_ACTIONS: readonly string[] = [
  ...CHANGES.flatMap(([done, attempted]) => [done, `${attempted} (Failed Attempt)`]),
  'Checked in',
  'Checked out',
  'Discard check out',
  'Successful Logon',
  'Failed Logon',
  'Logoff',
  'Copied',
  'Sent',
  'Session start',
  'Session end',
  'Activated',
];

const KNOWN = new Set(RECORD_ACTIONS);

export const isRecordAction = (value: string): boolean => KNOWN.has(value);
