/**
 * The icon set of the tray app: every file under assets/tray and assets/app, described once.
 * `npm run icons` writes them (generate-icons.ts); test/main/assets.test.ts checks that the
 * committed files are what this module renders.
 */
import {
  almond,
  circle,
  hex,
  rect,
  render,
  ring,
  roundedRect,
  union,
  type Layer,
  type Rgba,
  type Shape,
} from './drawing.js';
import { encodeIcns, encodeIco, encodePng } from './encoders.js';

export const TRAY_STATES = ['running', 'paused', 'error'] as const;
export type TrayIconState = (typeof TRAY_STATES)[number];

/** Mid-tone colours that stay readable on light and dark panels. */
const STATE_COLOURS: Record<TrayIconState, string> = {
  running: '#2e9e5b',
  paused: '#c98a12',
  error: '#d64545',
};

/** The glyph inside the ring: a pupil (watching), two bars (paused), an exclamation mark (error). */
const GLYPHS: Record<TrayIconState, Shape> = {
  running: circle(0.5, 0.5, 0.17),
  paused: union(rect(0.355, 0.33, 0.455, 0.67), rect(0.545, 0.33, 0.645, 0.67)),
  error: union(rect(0.445, 0.25, 0.555, 0.58), circle(0.5, 0.71, 0.065)),
};

function trayLayers(state: TrayIconState, colour: Rgba): Layer[] {
  return [{ shape: union(ring(0.5, 0.5, 0.47, 0.33), GLYPHS[state]), color: colour }];
}

/** macOS template images are black plus alpha; the menu bar tints them (Electron nativeImage docs). */
const TEMPLATE_COLOUR = hex('#000000');

function appIconLayers(): Layer[] {
  return [
    { shape: roundedRect(0.04, 0.04, 0.96, 0.96, 0.2), color: hex('#17324d') },
    { shape: almond(0.5, 0.5, 0.38, 0.22), color: hex('#f4f7fa') },
    { shape: circle(0.5, 0.5, 0.16), color: hex(STATE_COLOURS.running) },
    { shape: circle(0.5, 0.5, 0.075), color: hex('#17324d') },
    { shape: circle(0.545, 0.455, 0.03), color: hex('#f4f7fa') },
  ];
}

export const LINUX_ICON_SIZES = [16, 32, 48, 64, 128, 256, 512] as const;
const TRAY_ICO_SIZES = [16, 20, 24, 32, 40, 48];
const APP_ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];

/** Every generated file, relative to assets/, with a function that produces its bytes. */
export function iconFiles(): Map<string, () => Buffer> {
  const files = new Map<string, () => Buffer>();
  for (const state of TRAY_STATES) {
    const colour = hex(STATE_COLOURS[state]);
    const png = (size: number, c: Rgba) => () => encodePng(render(size, trayLayers(state, c)));
    files.set(`tray/tray-${state}-16.png`, png(16, colour));
    files.set(`tray/tray-${state}-16@2x.png`, png(32, colour));
    files.set(`tray/tray-${state}-32.png`, png(32, colour));
    files.set(`tray/tray-${state}-32@2x.png`, png(64, colour));
    files.set(`tray/tray-${state}Template.png`, png(16, TEMPLATE_COLOUR));
    files.set(`tray/tray-${state}Template@2x.png`, png(32, TEMPLATE_COLOUR));
    files.set(`tray/tray-${state}.ico`, () =>
      encodeIco(TRAY_ICO_SIZES.map((s) => render(s, trayLayers(state, colour)))),
    );
  }
  const app = (size: number) => render(size, appIconLayers());
  files.set('app/icon.png', () => encodePng(app(512)));
  files.set('app/icon.ico', () => encodeIco(APP_ICO_SIZES.map(app)));
  files.set('app/icon.icns', () => encodeIcns(app));
  for (const size of LINUX_ICON_SIZES) files.set(`app/icons/${size}x${size}.png`, () => encodePng(app(size)));
  return files;
}
