/**
 * Random activity records for property tests: every field of the record shape, optional ones
 * present or not, `When` from before 1970 to year 9999, the text of each field drawn from `text`.
 */
import fc from 'fast-check';
import type { NewActivityRecord } from '../../shared/activity-record.js';

export function recordArbitrary(text: fc.Arbitrary<string>): fc.Arbitrary<NewActivityRecord> {
  return fc.record(
    {
      Who: text,
      Action: text,
      What: text,
      When: fc.integer({ min: -30_000_000_000_000, max: 250_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
      Where: text,
      ObjectType: text,
      DataSource: text,
      MonitoringPlan: fc.record({ Name: text, ID: text }, { requiredKeys: ['Name'] }),
      Item: fc.record({ Name: text }),
      Workstation: text,
      DetailList: fc.array(
        fc.record({ PropertyName: text, Before: text, After: text, Message: text }, { requiredKeys: ['PropertyName'] }),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: ['Who', 'Action', 'What', 'When', 'Where', 'ObjectType', 'DataSource'] },
  );
}
