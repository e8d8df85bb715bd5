/**
 * The fleet database's indexes for the audit API's substring filters (pg-audit-query.ts):
 * pg_trgm GIN indexes on the columns Who, What and Where read and on the details (Detail,
 * Before, After), so `Contains` and the other text operators on them find candidate rows through
 * the index instead of reading every record. Defined on the partitioned table, so each day
 * partition, present and future, gets its own.
 */
import type { FleetMigration } from './pg-schema.js';

export const AUDIT_INDEXES_MIGRATION: Omit<FleetMigration, 'version'> = {
  name: 'trigram indexes for the audit API substring filters',
  sql: `
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX vigil_records_who_trgm ON vigil_records USING gin (who gin_trgm_ops);
    CREATE INDEX vigil_records_what_trgm ON vigil_records USING gin (what gin_trgm_ops);
    CREATE INDEX vigil_records_location_trgm ON vigil_records USING gin (location gin_trgm_ops);
    CREATE INDEX vigil_records_details_trgm ON vigil_records USING gin (details gin_trgm_ops);
  `,
};

/**
 * Who Equals and InGroup compare the account with ASCII letters folded; ILIKE under "C" cannot
 * use a btree, and the trigram index answers an exact account slowly (its common trigrams, such
 * as a domain's, list most records). lower() under "C" folds ASCII letters only, the same rule,
 * so this index answers those filters exactly (pg-audit-query.ts, `accountTest`).
 */
export const WHO_FOLDED_INDEX_MIGRATION: Omit<FleetMigration, 'version'> = {
  name: 'btree index on the account with ASCII letters folded, for Who Equals and InGroup',
  sql: `CREATE INDEX vigil_records_who_folded ON vigil_records (lower(who COLLATE "C"));`,
};

/**
 * Who with Action ("who removed files"): the folded account index answers the account, and each
 * of its records was then read to test the action (9,552 rows read for the 2,863 kept, for one
 * account's moves over 10,000,000 records). A second column, the action with ASCII letters folded
 * (the rule Action Equals compares by), lets the index answer both; the account alone still uses
 * its first column, so this one replaces the account's own index.
 */
export const WHO_ACTION_FOLDED_INDEX_MIGRATION: Omit<FleetMigration, 'version'> = {
  name: 'btree index on the folded account and action, for Who with Action; it replaces the account index',
  sql: `
    CREATE INDEX vigil_records_who_action_folded ON vigil_records (lower(who COLLATE "C"), lower(action COLLATE "C"));
    DROP INDEX vigil_records_who_folded;
  `,
};

/**
 * One account's first page ("what did this account do"): the folded account index found all of
 * the account's records (about 20,000 of 10,000,000), which were then sorted by `seq` to keep
 * the oldest 1,000. With `seq` after the equality columns, each day partition's index lists the
 * account's records (or its records of one action) already in `seq` order, and PostgreSQL merges
 * the partitions' lists and stops at the page's end (a Merge Append under the LIMIT). The test
 * must then be an equality, not `= ANY(array)`: before PostgreSQL 17 an array test does not keep
 * the index's order (pg-audit-query.ts, `foldedTest`). These two replace the index of migration 5.
 */
export const SEQ_ORDERED_ACCOUNT_INDEXES_MIGRATION: Omit<FleetMigration, 'version'> = {
  name: 'btree indexes on the folded account (and action) followed by seq, for pages of one account in seq order',
  sql: `
    CREATE INDEX vigil_records_who_folded_seq ON vigil_records (lower(who COLLATE "C"), seq);
    CREATE INDEX vigil_records_who_action_folded_seq
      ON vigil_records (lower(who COLLATE "C"), lower(action COLLATE "C"), seq);
    DROP INDEX vigil_records_who_action_folded;
  `,
};
