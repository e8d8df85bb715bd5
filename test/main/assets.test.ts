/**
 * The icons in assets/: present for every state and platform main/ asks for, the sizes and
 * formats each platform needs, and identical to what assets/generator renders (so the
 * committed files and their generator cannot drift apart).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ICNS_TYPES } from '../../assets/generator/encoders.js';
import { LINUX_ICON_SIZES, TRAY_STATES, iconFiles } from '../../assets/generator/icons.js';
import { assetsDir, trayIconFile, windowIconFile } from '../../main/tray-icons.js';
import { REPO_ROOT } from '../helpers/cli.js';

const ASSETS = path.join(REPO_ROOT, 'assets');

interface Png {
  width: number;
  height: number;
  colourType: number;
  /** Decoded RGBA rows (the generator writes filter type 0 only). */
  pixels: Buffer;
}

function readPng(data: Buffer): Png {
  expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(data.toString('ascii', 12, 16)).toBe('IHDR');
  const width = data.readUInt32BE(16);
  const height = data.readUInt32BE(20);
  const colourType = data[25]!;
  const idat: Buffer[] = [];
  for (let offset = 8; offset < data.length;) {
    const length = data.readUInt32BE(offset);
    if (data.toString('ascii', offset + 4, offset + 8) === 'IDAT')
      idat.push(data.subarray(offset + 8, offset + 8 + length));
    offset += length + 12;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const start = y * (width * 4 + 1);
    expect(raw[start]).toBe(0);
    rows.push(raw.subarray(start + 1, start + 1 + width * 4));
  }
  return { width, height, colourType, pixels: Buffer.concat(rows) };
}

function readAsset(relative: string): Buffer {
  return fs.readFileSync(path.join(ASSETS, relative));
}

/** [width, PNG] for each entry of an .ico file. */
function icoEntries(data: Buffer): Array<[number, Png]> {
  expect(data.readUInt16LE(0)).toBe(0);
  expect(data.readUInt16LE(2)).toBe(1);
  const count = data.readUInt16LE(4);
  return Array.from({ length: count }, (_, i) => {
    const entry = 6 + 16 * i;
    const width = data[entry] || 256;
    const size = data.readUInt32LE(entry + 8);
    const offset = data.readUInt32LE(entry + 12);
    return [width, readPng(data.subarray(offset, offset + size))];
  });
}

describe('tray icons', () => {
  it('are looked up in the repository assets/ when running unpackaged (npm start)', () => {
    expect(assetsDir({ isPackaged: false, appPath: REPO_ROOT, resourcesPath: '/unused' })).toBe(ASSETS);
    expect(assetsDir({ isPackaged: true, appPath: '/x/app.asar', resourcesPath: '/x' })).toBe(
      path.join('/x', 'assets'),
    );
  });

  it.each(['darwin', 'win32', 'linux'] as const)('exist for every state on %s', (platform) => {
    for (const state of TRAY_STATES) {
      const file = trayIconFile(state, platform, ASSETS);
      expect(fs.existsSync(file), file).toBe(true);
      if (file.endsWith('.png')) expect(fs.existsSync(file.replace(/\.png$/, '@2x.png')), `${file} @2x`).toBe(true);
    }
  });

  it('are 16/32 px PNGs with @2x, black-only macOS templates, and 16–48 px .ico files', () => {
    for (const state of TRAY_STATES) {
      for (const [name, size] of [
        [`tray-${state}-16.png`, 16],
        [`tray-${state}-16@2x.png`, 32],
        [`tray-${state}-32.png`, 32],
        [`tray-${state}-32@2x.png`, 64],
        [`tray-${state}Template.png`, 16],
        [`tray-${state}Template@2x.png`, 32],
      ] as const) {
        const png = readPng(readAsset(`tray/${name}`));
        expect([png.width, png.height, png.colourType], name).toEqual([size, size, 6]);
        if (name.includes('Template')) {
          for (let i = 0; i < png.pixels.length; i += 4) expect(png.pixels.readUIntBE(i, 3), name).toBe(0);
        }
      }
      const ico = icoEntries(readAsset(`tray/tray-${state}.ico`));
      expect(ico.map(([w, png]) => [w, png.width])).toEqual([16, 20, 24, 32, 40, 48].map((s) => [s, s]));
    }
  });

  it('differ between states, so the state is visible', () => {
    const pixels = TRAY_STATES.map((s) => readPng(readAsset(`tray/tray-${s}Template.png`)).pixels);
    expect(pixels[0]!.equals(pixels[1]!)).toBe(false);
    expect(pixels[1]!.equals(pixels[2]!)).toBe(false);
    expect(pixels[0]!.equals(pixels[2]!)).toBe(false);
  });

  it('are what the generator renders', () => {
    for (const [relative, produce] of iconFiles()) {
      if (!relative.startsWith('tray/') || !relative.endsWith('.png')) continue;
      expect(readPng(readAsset(relative)).pixels.equals(readPng(produce()).pixels), relative).toBe(true);
    }
  });
});

describe('application icons', () => {
  it('has a 512 px PNG (also the window icon)', () => {
    expect(windowIconFile(ASSETS)).toBe(path.join(ASSETS, 'app', 'icon.png'));
    const png = readPng(readAsset('app/icon.png'));
    expect([png.width, png.height]).toEqual([512, 512]);
  });

  it('has a Windows .ico up to 256 px (NSIS needs 256)', () => {
    expect(icoEntries(readAsset('app/icon.ico')).map(([w]) => w)).toEqual([16, 24, 32, 48, 64, 128, 256]);
  });

  it('has a macOS .icns with every size from 16 to 1024 px', () => {
    const data = readAsset('app/icon.icns');
    expect(data.toString('ascii', 0, 4)).toBe('icns');
    expect(data.readUInt32BE(4)).toBe(data.length);
    const found: Array<[string, number]> = [];
    for (let offset = 8; offset < data.length;) {
      const type = data.toString('ascii', offset, offset + 4);
      const length = data.readUInt32BE(offset + 4);
      found.push([type, readPng(data.subarray(offset + 8, offset + length)).width]);
      offset += length;
    }
    expect(found).toEqual(ICNS_TYPES.map(({ type, pixels }) => [type, pixels]));
  });

  it('has the Linux icon set electron-builder expects (<size>x<size>.png)', () => {
    for (const size of LINUX_ICON_SIZES) {
      const png = readPng(readAsset(`app/icons/${size}x${size}.png`));
      expect([png.width, png.height]).toEqual([size, size]);
    }
  });
});
