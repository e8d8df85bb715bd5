/**
 * Vector shapes rasterised by supersampling: each pixel is covered by an n×n grid of samples
 * and its alpha is the covered fraction. Coordinates are in the unit square, y pointing down,
 * so one description renders at every size.
 */
import type { RgbaImage } from './encoders.js';

export type Shape = (x: number, y: number) => boolean;
export type Rgba = readonly [number, number, number, number];

export interface Layer {
  shape: Shape;
  color: Rgba;
}

export const circle =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

export const rect =
  (x0: number, y0: number, x1: number, y1: number): Shape =>
  (x, y) =>
    x >= x0 && x <= x1 && y >= y0 && y <= y1;

export function roundedRect(x0: number, y0: number, x1: number, y1: number, r: number): Shape {
  return (x, y) => {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const dx = Math.max(x0 + r - x, 0, x - (x1 - r));
    const dy = Math.max(y0 + r - y, 0, y - (y1 - r));
    return dx * dx + dy * dy <= r * r;
  };
}

export const union =
  (...shapes: Shape[]): Shape =>
  (x, y) =>
    shapes.some((s) => s(x, y));

export const intersect =
  (...shapes: Shape[]): Shape =>
  (x, y) =>
    shapes.every((s) => s(x, y));

export const subtract =
  (shape: Shape, hole: Shape): Shape =>
  (x, y) =>
    shape(x, y) && !hole(x, y);

export const ring = (cx: number, cy: number, outer: number, inner: number): Shape =>
  subtract(circle(cx, cy, outer), circle(cx, cy, inner));

/** A pointed-oval "eye": the lens where two circles overlap, half-width w and half-height h. */
export function almond(cx: number, cy: number, w: number, h: number): Shape {
  const offset = (w * w - h * h) / (2 * h);
  const radius = offset + h;
  return intersect(circle(cx, cy - offset, radius), circle(cx, cy + offset, radius));
}

export function hex(color: string, alpha = 255): Rgba {
  const n = Number.parseInt(color.replace('#', ''), 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, alpha];
}

/** Paints the layers bottom to top with the "over" operator on straight alpha. */
export function render(size: number, layers: Layer[]): RgbaImage {
  const samples = size <= 64 ? 8 : 4;
  const pixels = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (const layer of layers) {
        let hits = 0;
        for (let sy = 0; sy < samples; sy++) {
          for (let sx = 0; sx < samples; sx++) {
            if (layer.shape((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size)) hits++;
          }
        }
        const la = (hits / (samples * samples)) * (layer.color[3] / 255);
        if (la === 0) continue;
        const outA = la + a * (1 - la);
        r = (layer.color[0] * la + r * a * (1 - la)) / outA;
        g = (layer.color[1] * la + g * a * (1 - la)) / outA;
        b = (layer.color[2] * la + b * a * (1 - la)) / outA;
        a = outA;
      }
      const i = (py * size + px) * 4;
      pixels[i] = Math.round(r);
      pixels[i + 1] = Math.round(g);
      pixels[i + 2] = Math.round(b);
      pixels[i + 3] = Math.round(a * 255);
    }
  }
  return { width: size, height: size, pixels };
}
