import { createRequire } from 'node:module';
import path from 'node:path';
import imaging from 'dcmjs-imaging';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export interface RenderOptions {
  /** 1-based; the middle frame when absent. */
  frame?: number;
  /** Longest side of the answer in pixels (thumbnails); the image's own size when absent. */
  maxSide?: number;
  format: 'jpeg' | 'png';
}

const require = createRequire(import.meta.url);
let ready: Promise<void> | undefined;

/** dcmjs-imaging decodes every transfer syntax PACS send (JPEG, JPEG-LS, JPEG 2000, RLE) through its WebAssembly codecs. */
export function codecs(): Promise<void> {
  ready ??= imaging.NativePixelDecoder.initializeAsync({
    webAssemblyModulePathOrUrl: path.join(path.dirname(require.resolve('dcmjs-imaging')), 'dcmjs-native-codecs.wasm'),
  });
  return ready;
}

/** Nearest-neighbour reduction of RGBA pixels: enough for a thumbnail, and cheap. */
function shrink(pixels: Uint8Array, width: number, height: number, maxSide: number) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale >= 1) return { pixels, width, height };
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(height - 1, Math.floor(y / scale));
    for (let x = 0; x < w; x++) {
      const sx = Math.min(width - 1, Math.floor(x / scale));
      const from = (sy * width + sx) * 4;
      out.set(pixels.subarray(from, from + 4), (y * w + x) * 4);
    }
  }
  return { pixels: out, width: w, height: h };
}

/** One frame of a Part 10 file as an image, with the window the file itself proposes. */
export async function renderFrame(
  bytes: Buffer,
  options: RenderOptions & { frame: number },
): Promise<{ contentType: string; body: Buffer }> {
  await codecs();
  const image = new imaging.DicomImage(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
  );
  const rendered = image.render({ frame: options.frame - 1 });
  const { pixels, width, height } = shrink(
    new Uint8Array(rendered.pixels),
    rendered.width,
    rendered.height,
    options.maxSide ?? Number.POSITIVE_INFINITY,
  );
  if (options.format === 'png') {
    const png = new PNG({ width, height });
    png.data = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    return { contentType: 'image/png', body: PNG.sync.write(png) };
  }
  const encoded = jpeg.encode(
    { data: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), width, height },
    85,
  );
  return { contentType: 'image/jpeg', body: encoded.data };
}
