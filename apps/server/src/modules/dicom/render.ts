import { createRequire } from 'node:module';
import path from 'node:path';
import dcmjs from 'dcmjs';
import imaging from 'dcmjs-imaging';
import dicomParser from 'dicom-parser';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { frameOfFile } from './dicom-file.js';
import { decodeRleFrame } from './rle.js';

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

const RLE_LOSSLESS = '1.2.840.10008.1.2.5';
type Element = { vr: string; Value?: unknown[] };

/**
 * A colour RLE file's frame as a one-frame Explicit VR Little Endian file, or null for any other
 * file. dcmjs-imaging's RLE decoder hands colour samples plane by plane (R…, G…, B…) while the data
 * set says interleaved (Planar Configuration 0, as RLE files carry), so it would draw stripes of
 * the wrong colours: the frame is decoded here and drawn as native pixels.
 */
function colourRleFrame(bytes: Buffer, frameIndex: number): ArrayBuffer | null {
  // The file meta group alone first: every other file is rendered as it is, unread here.
  const header = dicomParser.readPart10Header(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  if (header.string('x00020010')?.trim() !== RLE_LOSSLESS) return null;
  const file = dcmjs.data.DicomMessage.readFile(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
  );
  const meta = file.meta as Record<string, Element | undefined>;
  const dict = file.dict as Record<string, Element | undefined>;
  const value = (tag: string) => Number(dict[tag]?.Value?.[0] ?? 0);
  const samples = value('00280002') || 1;
  if (samples === 1) return null;
  const bytesPerSample = Math.ceil(value('00280100') / 8);
  const pixels = decodeRleFrame(frameOfFile(bytes, frameIndex), {
    pixels: value('00280010') * value('00280011'),
    samples,
    bytesPerSample,
  });
  meta['00020010'] = { vr: 'UI', Value: ['1.2.840.10008.1.2.1'] };
  dict['00280006'] = { vr: 'US', Value: [0] };
  if (dict['00280008']) dict['00280008'] = { vr: 'IS', Value: [1] };
  const even = pixels.length % 2 ? Buffer.concat([pixels, Buffer.alloc(1)]) : pixels;
  dict['7FE00010'] = {
    vr: bytesPerSample > 1 ? 'OW' : 'OB',
    Value: [even.buffer.slice(even.byteOffset, even.byteOffset + even.length)],
  };
  return file.write() as ArrayBuffer;
}

/** One frame of a Part 10 file as an image, with the window the file itself proposes. */
export async function renderFrame(
  bytes: Buffer,
  options: RenderOptions & { frame: number },
): Promise<{ contentType: string; body: Buffer }> {
  await codecs();
  const rle = colourRleFrame(bytes, options.frame - 1);
  const image = new imaging.DicomImage(
    rle ?? (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer),
  );
  const rendered = image.render({ frame: rle ? 0 : options.frame - 1 });
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
