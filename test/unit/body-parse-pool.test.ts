/**
 * The parse workers of large write bodies (agent/audit/body-parse-pool.ts), with real worker
 * threads: a body that runs past its deadline fails alone, and one user's slow bodies leave the
 * other users a worker (docs/security.md F19).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BodyParsePool, INLINE_PARSE_LIMIT } from '../../agent/audit/body-parse-pool.js';
import { recordsNs } from '../helpers/audit-fixture.js';

const record = (who: string, note: string): string =>
  `<ActivityRecord><Who>${who}</Who><ObjectType>File</ObjectType><Action>Added</Action><What>/srv/a.txt</What>` +
  `<Where>ws1</Where><When>2026-11-20T10:00:00Z</When>` +
  `<DetailList><Detail><PropertyName>Note</PropertyName><After>${note}</After></Detail></DetailList></ActivityRecord>`;
const body = (records: string[]): Buffer =>
  Buffer.from(`<ActivityRecordList xmlns="${recordsNs()}">${records.join('')}</ActivityRecordList>`);

/** Just over the inline limit: parsed in a worker, in a few milliseconds. */
const small = (who: string): Buffer =>
  body(Array.from({ length: Math.ceil(INLINE_PARSE_LIMIT / 1000) + 1 }, () => record(who, 'n'.repeat(800))));
/** About 16 MiB: seconds of parsing, far past the deadline below. */
const slow = body(Array.from({ length: 1000 }, () => record('slow', 's'.repeat(16_000))));

let pool: BodyParsePool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('body parse pool', () => {
  it("one user's slow bodies fail alone; another user's write is parsed meanwhile", async () => {
    pool = new BodyParsePool({ timeoutMs: 300, workers: 2, perUser: 1 });
    // Both workers started and warm, so what the deadline measures is parsing.
    await Promise.all([pool.parse(small('w1'), 'xml', 'vigil', 'a'), pool.parse(small('w2'), 'xml', 'vigil', 'b')]);

    const slowOnes = [1, 2, 3].map(() =>
      pool!.parse(slow, 'xml', 'vigil', 'mallory').then(
        () => 'parsed',
        (e: Error) => e.message,
      ),
    );
    const other = pool.parse(small('alice'), 'xml', 'vigil', 'alice');
    await expect(other).resolves.toHaveLength(Math.ceil(INLINE_PARSE_LIMIT / 1000) + 1);
    // Each slow body is parsed in turn (at most one at a time for its user) and runs out of time.
    expect(await Promise.all(slowOnes)).toEqual(
      Array(3).fill(expect.stringMatching(/parsing the request body took too long$/)),
    );
    // The pool recovers: killed workers are replaced on demand.
    await expect(pool.parse(small('bob'), 'xml', 'vigil', 'bob')).resolves.toHaveLength(
      Math.ceil(INLINE_PARSE_LIMIT / 1000) + 1,
    );
  }, 60_000);

  it('reports a body that does not parse as the InputError it is', async () => {
    pool = new BodyParsePool();
    const broken = Buffer.concat([small('x'), Buffer.from('<trailing/>')]);
    await expect(pool.parse(broken, 'xml', 'vigil', 'a')).rejects.toMatchObject({ category: 'XMLError' });
  });
});
