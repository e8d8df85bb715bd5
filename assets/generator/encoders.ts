/**
 * Minimal encoders for the icon files the tray app and its installers need, so the icons can
 * be regenerated offline with Node alone (no ImageMagick or macOS iconutil on the build path).
 *
 * - PNG: 8-bit RGBA, one IDAT, filter type 0 on every row (ISO/IEC 15948 §11.2, ISO/IEC 15948 §9.2).
 * - ICO: PNG-compressed entries, which Windows has read since Vista and NSIS accepts.
 * - ICNS: PNG-compressed entries under the OSTypes Apple has used since OS X 10.7/10.8.
 */
import zlib from 'node:zlib';

/** An image as straight (non-premultiplied) RGBA bytes, row after row. */
export interface RgbaImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function encodePng(image: RgbaImage): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(image.width, 0);
  ihdr.writeUInt32BE(image.height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: truecolour with alpha
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering (each row says which filter; always 0 here)
  ihdr[12] = 0; // no interlace
  const stride = image.width * 4;
  const raw = Buffer.alloc((stride + 1) * image.height);
  for (let y = 0; y < image.height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(image.pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const idat = zlib.deflateSync(raw, { level: 9 });
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Windows icon: a directory of PNG entries (width/height byte 0 means 256). */
export function encodeIco(images: RgbaImage[]): Buffer {
  const pngs = images.map(encodePng);
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // type 1 = icon
  header.writeUInt16LE(images.length, 4);
  const entries: Buffer[] = [];
  let offset = 6 + 16 * images.length;
  images.forEach((image, i) => {
    const entry = Buffer.alloc(16);
    entry[0] = image.width >= 256 ? 0 : image.width;
    entry[1] = image.height >= 256 ? 0 : image.height;
    entry[2] = 0; // no palette
    entry[3] = 0;
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(pngs[i]!.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += pngs[i]!.length;
    entries.push(entry);
  });
  return Buffer.concat([header, ...entries, ...pngs]);
}

/** The ICNS element type for a PNG of the given pixel size and scale (Apple's Icon Composer names). */
export const ICNS_TYPES: ReadonlyArray<{ type: string; pixels: number }> = [
  { type: 'icp4', pixels: 16 },
  { type: 'icp5', pixels: 32 },
  { type: 'ic11', pixels: 32 }, // 16@2x
  { type: 'ic12', pixels: 64 }, // 32@2x
  { type: 'ic07', pixels: 128 },
  { type: 'ic13', pixels: 256 }, // 128@2x
  { type: 'ic08', pixels: 256 },
  { type: 'ic14', pixels: 512 }, // 256@2x
  { type: 'ic09', pixels: 512 },
  { type: 'ic10', pixels: 1024 }, // 512@2x
];

/** macOS icon: 'icns', total length, then (OSType, length including its 8-byte header, PNG data). */
export function encodeIcns(imageOfSize: (pixels: number) => RgbaImage): Buffer {
  const elements = ICNS_TYPES.map(({ type, pixels }) => {
    const png = encodePng(imageOfSize(pixels));
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const body = Buffer.concat(elements);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}
