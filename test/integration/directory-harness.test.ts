/** The slapd test peer itself (test/helpers/slapd-server.ts): it starts, logs writes with their actor, restarts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EDITOR_DN,
  PEOPLE,
  READER_DN,
  READER_PASSWORD,
  SlapdServer,
  person,
  slapdMissing,
} from '../helpers/slapd-server.js';

const missing = slapdMissing();

describe.skipIf(missing !== null)('slapd test peer', () => {
  let slapd: SlapdServer;
  beforeAll(async () => {
    slapd = await SlapdServer.create();
  });
  afterAll(async () => {
    await slapd?.dispose();
  });

  it("logs the editor's writes with their actor in cn=accesslog, readable by the reader", async () => {
    await slapd.editor.add(`uid=ann,${PEOPLE}`, person('ann', 'pw1'));
    await slapd.editor.replace(`uid=ann,${PEOPLE}`, { title: ['Engineer'] });
    await slapd.editor.rename(`uid=ann,${PEOPLE}`, `uid=anne,${PEOPLE}`);
    const log = await slapd.as(READER_DN, READER_PASSWORD, (c) =>
      c.search('cn=accesslog', { scope: 'one', filter: '(reqType=*)', attributes: ['*', '+'] }),
    );
    const mine = log.searchEntries.filter((e) => String(e['reqAuthzID']).toLowerCase() === EDITOR_DN);
    expect(mine.map((e) => e['reqType'])).toEqual(['add', 'modify', 'modrdn']);
  });

  it('comes back with its data after a stop', async () => {
    await slapd.stop();
    await slapd.start();
    const found = await slapd.as(READER_DN, READER_PASSWORD, (c) =>
      c.search(`uid=anne,${PEOPLE}`, { scope: 'base', attributes: ['*', '+'] }),
    );
    expect(found.searchEntries).toHaveLength(1);
  });
});
