/**
 * Writes the tray and application icons under assets/ (`npm run icons`). The output is
 * committed; run this again after changing a design in icons.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { iconFiles } from './icons.js';

const assetsDir = fileURLToPath(new URL('..', import.meta.url));
for (const [relative, produce] of iconFiles()) {
  const target = path.join(assetsDir, relative);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, produce());
  console.log(`wrote assets/${relative}`);
}
