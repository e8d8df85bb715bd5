/**
 * canAttribute() off Linux (docs/attribution.md): the reason names the platform, whatever the
 * addon, so the host resource can say why records carry no actor.
 */
import { describe, expect, it } from 'vitest';
import { addonCandidates } from '../../agent/monitor/fanotify/addon.js';
import { canAttribute } from '../../agent/monitor/fanotify/can-attribute.js';

describe('canAttribute', () => {
  it('says "not Linux" on macOS and Windows', () => {
    expect(canAttribute('darwin')).toEqual({ ok: false, reason: 'not Linux' });
    expect(canAttribute('win32')).toEqual({ ok: false, reason: 'not Linux' });
  });

  it('looks for the addon beside a packaged app archive before inside it', () => {
    const candidates = addonCandidates('/opt/Vigil/resources/app.asar/dist/agent/monitor/fanotify');
    const unpacked = '/opt/Vigil/resources/app.asar.unpacked/native/build/Release/vigil_fanotify.node';
    const resources = '/opt/Vigil/resources/native/build/Release/vigil_fanotify.node';
    expect(candidates).toContain(unpacked);
    expect(candidates).toContain(resources);
  });
});
