/** Zoom steps and limits shared by the image and PDF viewers. */
export const ZOOM_STEP = 1.25;

export const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface Point {
  x: number;
  y: number;
}

export const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
export const midpoint = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

/** A zoom as a whole percentage, as the toolbar reads it out. */
export const percent = (scale: number) => `${Math.round(scale * 100)}%`;
