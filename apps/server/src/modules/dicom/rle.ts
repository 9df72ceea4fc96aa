/**
 * One RLE Lossless frame (PS3.5 Annex G) decoded to native pixels, samples interleaved (Planar
 * Configuration 0), multi-byte samples little endian. The header gives up to 15 segments: for each
 * sample, its most significant byte first; each segment is PackBits (G.3.1).
 */
export function decodeRleFrame(
  frame: Buffer,
  image: { pixels: number; samples: number; bytesPerSample: number },
): Buffer {
  const { pixels, samples, bytesPerSample } = image;
  const segments = frame.readUInt32LE(0);
  if (segments !== samples * bytesPerSample || segments > 15) {
    throw new Error(`RLE frame has ${segments} segments, ${samples * bytesPerSample} expected`);
  }
  const out = Buffer.alloc(pixels * samples * bytesPerSample);
  const segment = Buffer.alloc(pixels);
  for (let s = 0; s < segments; s++) {
    const start = frame.readUInt32LE(4 + s * 4);
    const end = s + 1 < segments ? frame.readUInt32LE(8 + s * 4) : frame.length;
    segment.fill(0);
    let at = start;
    let written = 0;
    while (at < end && written < pixels) {
      const n = frame.readInt8(at++);
      if (n >= 0) {
        frame.copy(segment, written, at, Math.min(at + n + 1, end));
        written += n + 1;
        at += n + 1;
      } else if (n !== -128) {
        segment.fill(frame[at]!, written, Math.min(pixels, written + 1 - n));
        written += 1 - n;
        at++;
      }
    }
    const sample = Math.floor(s / bytesPerSample);
    const byte = bytesPerSample - 1 - (s % bytesPerSample);
    for (let p = 0; p < pixels; p++) out[(p * samples + sample) * bytesPerSample + byte] = segment[p]!;
  }
  return out;
}
