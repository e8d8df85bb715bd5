/** The host status the file activity source reports, as the console and the agent API show it. */
import { describe, expect, it } from 'vitest';
import { hostStatusText } from '../../../agent/monitor/host-status-text.js';
import { w } from './fakes.js';

const base = { missingRoots: [], unwatched: new Map(), unreadable: new Map(), retryMs: 30_000 };

describe('hostStatusText', () => {
  it('says what is monitored when all is well', () => {
    expect(hostStatusText({ ...base, include: [w('docs')] })).toEqual({
      type: 'OK',
      summary: 'Monitoring 1 folder',
      details: w('docs'),
    });
    expect(hostStatusText({ ...base, include: [w('a'), w('b')] }).summary).toBe('Monitoring 2 folders');
  });

  it('warns when there is no folder to monitor, and says how to add one', () => {
    expect(hostStatusText({ ...base, include: [] })).toMatchObject({
      type: 'Warning',
      summary: 'No folder is watched: nothing is recorded',
      details: expect.stringContaining('Add a folder'),
    });
  });

  it('names each reason a folder is not fully monitored', () => {
    const status = hostStatusText({
      include: [w('docs'), w('usb')],
      missingRoots: [w('usb')],
      unwatched: new Map([
        [w('docs', 'a'), 'ENOSPC'],
        [w('docs', 'b'), 'ENOSPC'],
        [w('docs', 'c'), 'EPERM'],
      ]),
      unreadable: new Map([[w('docs', 'secret'), 'EACCES']]),
      retryMs: 30_000,
    });
    expect(status.type).toBe('Warning');
    expect(status.summary).toBe('Some folders are not fully monitored');
    expect(status.details.split('; ')).toEqual([
      `folder ${w('usb')} does not exist (checked again every 30 s)`,
      'the inotify watch limit (fs.inotify.max_user_watches) is reached: 2 folders are not watched live and are checked every 30 s',
      `1 folders cannot be watched (${w('docs', 'c')}: EPERM)`,
      `1 folder cannot be read (${w('docs', 'secret')}: EACCES)`,
    ]);
  });
});
