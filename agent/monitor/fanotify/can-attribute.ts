/**
 * Whether this process can name the actor of file activity (docs/attribution.md): Linux,
 * the addon built, and the capabilities of the Vigil service (CAP_SYS_ADMIN for fanotify
 * filesystem marks, CAP_DAC_READ_SEARCH to turn file handles into paths).
 */
import { loadAddon } from './addon.js';

export type AttributionProbe = { ok: true } | { ok: false; reason: string };

export function canAttribute(platform: NodeJS.Platform = process.platform): AttributionProbe {
  if (platform !== 'linux') return { ok: false, reason: 'not Linux' };
  const { addon, error } = loadAddon();
  if (!addon) return { ok: false, reason: error ?? 'addon not built' };
  const reason = addon.probe();
  return reason === '' ? { ok: true } : { ok: false, reason };
}
