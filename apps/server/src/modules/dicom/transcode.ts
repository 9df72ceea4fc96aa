import dcmjs from 'dcmjs';
import imaging from 'dcmjs-imaging';
import { frameOfFile } from './dicom-file.js';
import { codecs } from './render.js';
import {
  canTranscode,
  DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN as DEFLATED,
  EXPLICIT_VR_LITTLE_ENDIAN,
} from './transfer-syntax.js';

/** The image attributes dcmjs-imaging's decoders read, as its own pixel object gives them. */
interface PixelInfo {
  getWidth(): number;
  getHeight(): number;
  getBitsAllocated(): number;
  getBitsStored(): number;
  getSamplesPerPixel(): number;
  getPixelRepresentation(): number;
  getPlanarConfiguration(): number;
  getPhotometricInterpretation(): string;
}
/** dcmjs-imaging's JPEG-LS decoder (CharLS in WebAssembly), public on the class but not in its typings. */
const decoder = imaging.NativePixelDecoder as unknown as {
  decodeJpegLs(pixel: PixelInfo, encoded: Uint8Array): Uint8Array;
};

export class TranscodeError extends Error {}

type Element = { vr: string; Value?: unknown[] };

/**
 * A JPEG-LS or deflated Part 10 file as Explicit VR Little Endian (PS3.18 8.7.3.5: the transfer
 * syntax a client asks for). JPEG-LS: every frame is decoded. Deflated: the data set, inflated as it
 * is read, is written back as it is (its pixels are native already). The rest is unchanged.
 */
export async function transcode(bytes: Buffer): Promise<Buffer> {
  await codecs();
  const file = dcmjs.data.DicomMessage.readFile(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
  );
  const meta = file.meta as Record<string, Element | undefined>;
  const dict = file.dict as Record<string, Element | undefined>;
  const syntax = String(meta['00020010']?.Value?.[0] ?? '');
  if (!canTranscode(syntax)) throw new TranscodeError(`cannot transcode from ${syntax}`);
  if (syntax === DEFLATED) {
    meta['00020010'] = { vr: 'UI', Value: [EXPLICIT_VR_LITTLE_ENDIAN] };
    return Buffer.from(file.write());
  }
  const value = (tag: string) => Number(dict[tag]?.Value?.[0] ?? 0);
  const samples = value('00280002') || 1;
  const pixel: PixelInfo = {
    getWidth: () => value('00280011'),
    getHeight: () => value('00280010'),
    getBitsAllocated: () => value('00280100'),
    getBitsStored: () => value('00280101'),
    getSamplesPerPixel: () => samples,
    getPixelRepresentation: () => value('00280103'),
    getPlanarConfiguration: () => value('00280006'),
    getPhotometricInterpretation: () => String(dict['00280004']?.Value?.[0] ?? 'MONOCHROME2'),
  };
  const frameSize = pixel.getWidth() * pixel.getHeight() * samples * Math.ceil(pixel.getBitsAllocated() / 8);
  const frames = Math.max(1, value('00280008') || 1);
  const pixels = Buffer.alloc(frameSize * frames + ((frameSize * frames) % 2));
  for (let f = 0; f < frames; f++) {
    const decoded = decoder.decodeJpegLs(pixel, new Uint8Array(frameOfFile(bytes, f)));
    if (decoded.byteLength !== frameSize)
      throw new TranscodeError(`frame ${f + 1} decoded to ${decoded.byteLength} bytes`);
    pixels.set(decoded, f * frameSize);
  }
  meta['00020010'] = { vr: 'UI', Value: [EXPLICIT_VR_LITTLE_ENDIAN] };
  // CharLS hands colour samples interleaved (R1G1B1R2...).
  if (samples > 1) dict['00280006'] = { vr: 'US', Value: [0] };
  dict['7FE00010'] = {
    vr: pixel.getBitsAllocated() > 8 ? 'OW' : 'OB',
    Value: [pixels.buffer.slice(pixels.byteOffset, pixels.byteOffset + pixels.length)],
  };
  return Buffer.from(file.write());
}
