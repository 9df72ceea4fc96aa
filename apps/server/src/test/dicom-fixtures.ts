import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Real DICOM files made by Debian's dcmtk (dump2dcm, img2dcm, dcmcjpeg, dcmcjpls, dcmcrle) and
 * OpenJPEG's opj_compress: what the tests send through STOW-RS and expect back byte for byte.
 */

export interface StudyIds {
  studyUid: string;
  accession: string;
  patientName?: string;
  patientId?: string;
}

let uidSeq = 0;
/** A UID under the 2.25 root, unique in this run. */
export function testUid(): string {
  uidSeq++;
  return `2.25.${process.pid}${Date.now() % 1_000_000_000}${String(uidSeq).padStart(5, '0')}`;
}

export function fixtureDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dicom-fixtures-'));
}

function run(tool: string, args: string[], cwd: string): void {
  execFileSync(tool, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function dump(lines: Array<[string, string, string]>): string {
  return lines.map(([tag, vr, value]) => `(${tag}) ${vr} ${value}`).join('\n') + '\n';
}

function common(ids: StudyIds, seriesUid: string, sopUid: string, sopClass: string, modality: string, number: number) {
  return [
    ['0008,0016', 'UI', `=${sopClass}`],
    ['0008,0018', 'UI', `[${sopUid}]`],
    ['0008,0020', 'DA', '[20261119]'],
    ['0008,0030', 'TM', '[101500]'],
    ['0008,0050', 'SH', `[${ids.accession}]`],
    ['0008,0060', 'CS', `[${modality}]`],
    ['0008,1030', 'LO', `[${modality} study]`],
    ['0010,0010', 'PN', `[${ids.patientName ?? 'Silva^Maria'}]`],
    ['0010,0020', 'LO', `[${ids.patientId ?? 'PID-1'}]`],
    ['0020,000d', 'UI', `[${ids.studyUid}]`],
    ['0020,000e', 'UI', `[${seriesUid}]`],
    ['0020,0011', 'IS', '[1]'],
    ['0020,0013', 'IS', `[${number}]`],
  ] as Array<[string, string, string]>;
}

/** Signed 16-bit Hounsfield values of a chest-like phantom: body, two lungs, spine and ribs that move with the slice. */
function ctSlice(size: number, slice: number, count: number): Buffer {
  const out = Buffer.alloc(size * size * 2);
  const c = size / 2;
  const t = slice / Math.max(1, count - 1);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = (x - c) / c;
      const dy = (y - c) / c;
      let hu = -1000;
      if ((dx * dx) / 0.8 + (dy * dy) / 0.55 < 1) hu = 40 + ((x * 7 + y * 13) % 20);
      const lung = 0.18 + 0.06 * Math.sin(Math.PI * t);
      if ((dx + 0.4) ** 2 / lung + dy ** 2 / 0.3 < 1 || (dx - 0.4) ** 2 / lung + dy ** 2 / 0.3 < 1) hu = -820;
      if (dx * dx + (dy - 0.45) ** 2 < 0.012) hu = 700;
      const ring = Math.sqrt((dx * dx) / 0.8 + (dy * dy) / 0.55);
      if (ring > 0.9 && ring < 0.95 && Math.sin(Math.atan2(dy, dx) * 12 + t * 6) > 0.3) hu = 900;
      out.writeInt16LE(hu, (y * size + x) * 2);
    }
  }
  return out;
}

export type CtSyntax = 'explicit' | 'implicit' | 'jpeg-lossless' | 'jpeg-ls' | 'rle';

/** A CT series of `count` slices of size×size signed 16-bit pixels (rescale −1024, window 40/400). */
export function makeCtSeries(
  dir: string,
  ids: StudyIds,
  options: { count: number; size?: number; syntax?: CtSyntax; seriesUid?: string },
): { seriesUid: string; files: string[]; sopUids: string[] } {
  const size = options.size ?? 64;
  const seriesUid = options.seriesUid ?? testUid();
  const files: string[] = [];
  const sopUids: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const sopUid = testUid();
    const raw = path.join(dir, `ct-${sopUid}.raw`);
    // Stored values are HU + 1024 with a rescale intercept of -1024, as scanners write them.
    const hu = ctSlice(size, i, options.count);
    for (let p = 0; p < hu.length; p += 2) hu.writeInt16LE(hu.readInt16LE(p) + 1024, p);
    fs.writeFileSync(raw, hu);
    const lines = [
      ...common(ids, seriesUid, sopUid, 'CTImageStorage', 'CT', i + 1),
      ['0018,0050', 'DS', '[1.0]'],
      ['0020,0032', 'DS', `[-100\\-100\\${i}]`],
      ['0020,0037', 'DS', '[1\\0\\0\\0\\1\\0]'],
      ['0020,1041', 'DS', `[${i}]`],
      ['0028,0002', 'US', '1'],
      ['0028,0004', 'CS', '[MONOCHROME2]'],
      ['0028,0010', 'US', String(size)],
      ['0028,0011', 'US', String(size)],
      ['0028,0030', 'DS', '[0.7\\0.7]'],
      ['0028,0100', 'US', '16'],
      ['0028,0101', 'US', '16'],
      ['0028,0102', 'US', '15'],
      ['0028,0103', 'US', '1'],
      ['0028,1050', 'DS', '[40]'],
      ['0028,1051', 'DS', '[400]'],
      ['0028,1052', 'DS', '[-1024]'],
      ['0028,1053', 'DS', '[1]'],
      ['7fe0,0010', 'OW', `=${path.basename(raw)}`],
    ] as Array<[string, string, string]>;
    const dumpFile = path.join(dir, `ct-${sopUid}.dump`);
    fs.writeFileSync(dumpFile, dump(lines));
    const native = path.join(dir, `ct-${sopUid}.dcm`);
    run(
      'dump2dcm',
      [options.syntax === 'implicit' ? '--write-xfer-implicit' : '--write-xfer-little', dumpFile, native],
      dir,
    );
    fs.rmSync(raw);
    fs.rmSync(dumpFile);
    let file = native;
    const syntax = options.syntax ?? 'explicit';
    if (syntax === 'jpeg-lossless' || syntax === 'jpeg-ls' || syntax === 'rle') {
      file = path.join(dir, `ct-${sopUid}-${syntax}.dcm`);
      if (syntax === 'jpeg-lossless') run('dcmcjpeg', ['--encode-lossless-sv1', native, file], dir);
      if (syntax === 'jpeg-ls') run('dcmcjpls', ['--encode-lossless', native, file], dir);
      if (syntax === 'rle') run('dcmcrle', [native, file], dir);
      fs.rmSync(native);
    }
    files.push(file);
    sopUids.push(sopUid);
  }
  return { seriesUid, files, sopUids };
}

/** A multi-frame ultrasound clip (`frames` frames of 8-bit RGB), JPEG baseline encoded by dcmcjpeg, one fragment per frame. */
export function makeUltrasoundClip(
  dir: string,
  ids: StudyIds,
  frames = 12,
): { file: string; sopUid: string; seriesUid: string } {
  const width = 80;
  const height = 60;
  const sopUid = testUid();
  const seriesUid = testUid();
  const raw = Buffer.alloc(width * height * 3 * frames);
  for (let f = 0; f < frames; f++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const o = ((f * height + y) * width + x) * 3;
        const r = Math.hypot(x - width / 2, y - 5);
        const v = r < 50 && r > 8 ? Math.round(128 + 100 * Math.sin(r / 4 - f / 2)) : 0;
        raw[o] = v;
        raw[o + 1] = v;
        raw[o + 2] = x < 6 ? 200 : v;
      }
    }
  }
  fs.writeFileSync(path.join(dir, `us-${sopUid}.raw`), raw);
  const lines = [
    ...common(ids, seriesUid, sopUid, 'UltrasoundMultiframeImageStorage', 'US', 1),
    ['0008,2144', 'IS', '[10]'],
    ['0018,1063', 'DS', '[100]'],
    ['0028,0002', 'US', '3'],
    ['0028,0004', 'CS', '[RGB]'],
    ['0028,0006', 'US', '0'],
    ['0028,0008', 'IS', `[${frames}]`],
    ['0028,0009', 'AT', '(0018,1063)'],
    ['0028,0010', 'US', String(height)],
    ['0028,0011', 'US', String(width)],
    ['0028,0100', 'US', '8'],
    ['0028,0101', 'US', '8'],
    ['0028,0102', 'US', '7'],
    ['0028,0103', 'US', '0'],
    ['7fe0,0010', 'OB', `=us-${sopUid}.raw`],
  ] as Array<[string, string, string]>;
  fs.writeFileSync(path.join(dir, `us-${sopUid}.dump`), dump(lines));
  const native = path.join(dir, `us-${sopUid}-native.dcm`);
  run('dump2dcm', ['--write-xfer-little', `us-${sopUid}.dump`, native], dir);
  const file = path.join(dir, `us-${sopUid}.dcm`);
  run('dcmcjpeg', ['--encode-baseline', '--uid-never', native, file], dir);
  return { file, sopUid, seriesUid };
}

/** A digital mammogram (12 bits stored, MONOCHROME1) in JPEG 2000 lossless: opj_compress's codestream wrapped by dump2dcm. */
export function makeJpeg2000Mammogram(dir: string, ids: StudyIds): { file: string; sopUid: string; seriesUid: string } {
  const width = 96;
  const height = 128;
  const sopUid = testUid();
  const seriesUid = testUid();
  const pgm = Buffer.alloc(width * height * 2);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const breast = Math.hypot(x / width, (y - height / 2) / height) < 0.55;
      const v = breast ? 1500 + ((x * 37 + y * 11) % 900) : 4000;
      pgm.writeUInt16BE(v, (y * width + x) * 2);
    }
  }
  fs.writeFileSync(
    path.join(dir, `mg-${sopUid}.pgm`),
    Buffer.concat([Buffer.from(`P5\n${width} ${height}\n4095\n`), pgm]),
  );
  run('opj_compress', ['-i', `mg-${sopUid}.pgm`, '-o', `mg-${sopUid}.j2k`], dir);
  const lines = [
    ['0002,0010', 'UI', '=JPEG2000LosslessOnly'],
    ...common(ids, seriesUid, sopUid, 'DigitalMammographyXRayImageStorageForPresentation', 'MG', 1),
    ['0028,0002', 'US', '1'],
    ['0028,0004', 'CS', '[MONOCHROME1]'],
    ['0028,0010', 'US', String(height)],
    ['0028,0011', 'US', String(width)],
    ['0028,0100', 'US', '16'],
    ['0028,0101', 'US', '12'],
    ['0028,0102', 'US', '11'],
    ['0028,0103', 'US', '0'],
    ['7fe0,0010', 'OB', '(PixelSequence)'],
    ['fffe,e000', 'pi', '(no value available)'],
    ['fffe,e000', 'pi', `=mg-${sopUid}.j2k`],
    ['fffe,e0dd', 'na', '(SequenceDelimitationItem)'],
  ] as Array<[string, string, string]>;
  fs.writeFileSync(path.join(dir, `mg-${sopUid}.dump`), dump(lines));
  const file = path.join(dir, `mg-${sopUid}.dcm`);
  run('dump2dcm', [`mg-${sopUid}.dump`, file], dir);
  return { file, sopUid, seriesUid };
}

/** An RGB secondary capture made by img2dcm from a 24-bit BMP. */
export function makeRgbSecondaryCapture(
  dir: string,
  ids: StudyIds,
): { file: string; sopUid: string; seriesUid: string } {
  const width = 40;
  const height = 30;
  const sopUid = testUid();
  const seriesUid = testUid();
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const bmp = Buffer.alloc(54 + rowBytes * height);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(bmp.length, 2);
  bmp.writeUInt32LE(54, 10);
  bmp.writeUInt32LE(40, 14);
  bmp.writeInt32LE(width, 18);
  bmp.writeInt32LE(height, 22);
  bmp.writeUInt16LE(1, 26);
  bmp.writeUInt16LE(24, 28);
  bmp.writeUInt32LE(rowBytes * height, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = 54 + y * rowBytes + x * 3;
      bmp[o] = x < width / 3 ? 255 : 0; // blue
      bmp[o + 1] = x >= width / 3 && x < (2 * width) / 3 ? 255 : 0; // green
      bmp[o + 2] = x >= (2 * width) / 3 ? 255 : 0; // red
    }
  }
  fs.writeFileSync(path.join(dir, `sc-${sopUid}.bmp`), bmp);
  const file = path.join(dir, `sc-${sopUid}.dcm`);
  run(
    'img2dcm',
    [
      '--input-format',
      'BMP',
      '-k',
      `StudyInstanceUID=${ids.studyUid}`,
      '-k',
      `SeriesInstanceUID=${seriesUid}`,
      '-k',
      `SOPInstanceUID=${sopUid}`,
      '-k',
      `AccessionNumber=${ids.accession}`,
      '-k',
      `PatientName=${ids.patientName ?? 'Silva^Maria'}`,
      '-k',
      `PatientID=${ids.patientId ?? 'PID-1'}`,
      '-k',
      'Modality=OT',
      '-k',
      'SeriesNumber=9',
      '-k',
      'InstanceNumber=1',
      `sc-${sopUid}.bmp`,
      file,
    ],
    dir,
  );
  return { file, sopUid, seriesUid };
}

/** What a pixel fixture is made of: the file and the pixel values it was written from. */
export interface PixelFixture {
  file: string;
  sopUid: string;
  seriesUid: string;
  width: number;
  height: number;
  /** The stored pixel data of every frame, one after another, before any compression. */
  pixels: Buffer;
}

/** Writes `lines` (with the pixels in `raw`) as a Part 10 file by dump2dcm, in explicit little endian. */
function dumpToFile(dir: string, name: string, lines: Array<[string, string, string]>, raw: Buffer): string {
  fs.writeFileSync(path.join(dir, `${name}.raw`), raw);
  fs.writeFileSync(path.join(dir, `${name}.dump`), dump(lines));
  const file = path.join(dir, `${name}.dcm`);
  run('dump2dcm', ['--write-xfer-little', `${name}.dump`, file], dir);
  fs.rmSync(path.join(dir, `${name}.raw`));
  fs.rmSync(path.join(dir, `${name}.dump`));
  return file;
}

/** The five Hounsfield bands of the signed fixtures, left to right: air, lung, water, bone, dense bone. */
export const SIGNED_BANDS = [-1000, -500, 0, 400, 1000] as const;

/**
 * Signed 16-bit pixels stored as they are (PixelRepresentation 1, RescaleIntercept 0, window 40/400),
 * in five vertical bands of SIGNED_BANDS; frame f moves the bands f places to the left. 'deflated'
 * rewrites the file by dcmconv in Deflated Explicit VR Little Endian (1.2.840.10008.1.2.1.99), as
 * some PACS send secondary captures; the lossless codecs (dcmcjpeg, dcmcjpls, dcmcrle) keep the
 * negative values. With `frames` > 1 it is a multi-frame secondary capture.
 */
export function makeSignedSlice(
  dir: string,
  ids: StudyIds,
  options: { syntax?: CtSyntax | 'deflated'; frames?: number } = {},
): PixelFixture {
  const width = 60;
  const height = 40;
  const frames = options.frames ?? 1;
  const sopUid = testUid();
  const seriesUid = testUid();
  const pixels = Buffer.alloc(width * height * 2 * frames);
  for (let f = 0; f < frames; f++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const band = (Math.floor((x * SIGNED_BANDS.length) / width) + f) % SIGNED_BANDS.length;
        pixels.writeInt16LE(SIGNED_BANDS[band]!, ((f * height + y) * width + x) * 2);
      }
    }
  }
  const multiFrame = frames > 1;
  const lines = [
    ...common(
      ids,
      seriesUid,
      sopUid,
      multiFrame ? 'MultiframeGrayscaleWordSecondaryCaptureImageStorage' : 'CTImageStorage',
      multiFrame ? 'OT' : 'CT',
      1,
    ),
    ...(multiFrame ? ([['0028,0008', 'IS', `[${frames}]`]] as Array<[string, string, string]>) : []),
    ['0028,0002', 'US', '1'],
    ['0028,0004', 'CS', '[MONOCHROME2]'],
    ['0028,0010', 'US', String(height)],
    ['0028,0011', 'US', String(width)],
    ['0028,0100', 'US', '16'],
    ['0028,0101', 'US', '16'],
    ['0028,0102', 'US', '15'],
    ['0028,0103', 'US', '1'],
    ['0028,1050', 'DS', '[40]'],
    ['0028,1051', 'DS', '[400]'],
    ['0028,1052', 'DS', '[0]'],
    ['0028,1053', 'DS', '[1]'],
    ['7fe0,0010', 'OW', `=signed-${sopUid}.raw`],
  ] as Array<[string, string, string]>;
  const native = dumpToFile(dir, `signed-${sopUid}`, lines, pixels);
  const syntax = options.syntax ?? 'explicit';
  const tool = {
    explicit: null,
    implicit: ['dcmconv', '--write-xfer-implicit'],
    deflated: ['dcmconv', '--write-xfer-deflated'],
    'jpeg-lossless': ['dcmcjpeg', '--encode-lossless-sv1'],
    'jpeg-ls': ['dcmcjpls', '--encode-lossless'],
    rle: ['dcmcrle'],
  }[syntax];
  if (!tool) return { file: native, sopUid, seriesUid, width, height, pixels };
  const file = path.join(dir, `signed-${sopUid}-${syntax}.dcm`);
  run(tool[0]!, [...tool.slice(1), native, file], dir);
  fs.rmSync(native);
  return { file, sopUid, seriesUid, width, height, pixels };
}

/**
 * An 8-bit MONOCHROME2 image (a digitised film, say) of 65×49 pixels, an odd number of bytes that
 * the file pads to an even length: a left-to-right gradient from 0 to 255, no window in the file.
 */
export function makeMono8Slice(dir: string, ids: StudyIds): PixelFixture {
  const width = 65;
  const height = 49;
  const sopUid = testUid();
  const seriesUid = testUid();
  const pixels = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels[y * width + x] = Math.round((x * 255) / (width - 1));
  }
  const lines = [
    ...common(ids, seriesUid, sopUid, 'SecondaryCaptureImageStorage', 'OT', 1),
    ['0008,0064', 'CS', '[DF]'],
    ['0028,0002', 'US', '1'],
    ['0028,0004', 'CS', '[MONOCHROME2]'],
    ['0028,0010', 'US', String(height)],
    ['0028,0011', 'US', String(width)],
    ['0028,0100', 'US', '8'],
    ['0028,0101', 'US', '8'],
    ['0028,0102', 'US', '7'],
    ['0028,0103', 'US', '0'],
    ['7fe0,0010', 'OB', `=mono8-${sopUid}.raw`],
  ] as Array<[string, string, string]>;
  return { file: dumpToFile(dir, `mono8-${sopUid}`, lines, pixels), sopUid, seriesUid, width, height, pixels };
}

/** Red, green and blue, a third of the width each (left to right). */
const THIRDS: ReadonlyArray<readonly [number, number, number]> = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
];

/** PS3.3 C.7.6.3.1.2: YBR_FULL from RGB. */
function toYbrFull([r, g, b]: readonly [number, number, number]): [number, number, number] {
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  return [
    clamp(0.299 * r + 0.587 * g + 0.114 * b),
    clamp(-0.168736 * r - 0.331264 * g + 0.5 * b + 128),
    clamp(0.5 * r - 0.418688 * g - 0.081312 * b + 128),
  ];
}

/**
 * A colour ultrasound-like image in red, green and blue thirds, 64×48. 'jpeg': written RGB, then
 * JPEG baseline by dcmcjpeg, which makes it YBR_FULL_422 (as ultrasound carts send). 'ybr-full':
 * uncompressed YBR_FULL samples, interleaved. 'rle': RGB, RLE Lossless by dcmcrle (one segment per
 * colour). `pixels` holds the RGB the image shows.
 */
export function makeColourImage(dir: string, ids: StudyIds, kind: 'jpeg' | 'ybr-full' | 'rle'): PixelFixture {
  const width = 64;
  const height = 48;
  const sopUid = testUid();
  const seriesUid = testUid();
  const pixels = Buffer.alloc(width * height * 3);
  const stored = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const rgb = THIRDS[Math.floor((x * 3) / width)]!;
      pixels.set(rgb, (y * width + x) * 3);
      stored.set(kind === 'ybr-full' ? toYbrFull(rgb) : rgb, (y * width + x) * 3);
    }
  }
  const lines = [
    ...common(ids, seriesUid, sopUid, 'UltrasoundImageStorage', 'US', 1),
    ['0028,0002', 'US', '3'],
    ['0028,0004', 'CS', kind === 'ybr-full' ? '[YBR_FULL]' : '[RGB]'],
    ['0028,0006', 'US', '0'],
    ['0028,0010', 'US', String(height)],
    ['0028,0011', 'US', String(width)],
    ['0028,0100', 'US', '8'],
    ['0028,0101', 'US', '8'],
    ['0028,0102', 'US', '7'],
    ['0028,0103', 'US', '0'],
    ['7fe0,0010', 'OB', `=colour-${sopUid}.raw`],
  ] as Array<[string, string, string]>;
  const native = dumpToFile(dir, `colour-${sopUid}`, lines, stored);
  if (kind === 'ybr-full') return { file: native, sopUid, seriesUid, width, height, pixels };
  const file = path.join(dir, `colour-${sopUid}-${kind}.dcm`);
  if (kind === 'rle') run('dcmcrle', [native, file], dir);
  else run('dcmcjpeg', ['--encode-baseline', '--uid-never', native, file], dir);
  fs.rmSync(native);
  return { file, sopUid, seriesUid, width, height, pixels };
}

/** A multipart/related STOW-RS body carrying the files given. */
export function stowBody(
  files: ReadonlyArray<Buffer>,
  boundary = 'stow-test-boundary-7d2a',
): { body: Buffer; contentType: string } {
  const pieces: Buffer[] = [];
  for (const file of files) {
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), file, Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    body: Buffer.concat(pieces),
    contentType: `multipart/related; type="application/dicom"; boundary=${boundary}`,
  };
}

/** The parts of a multipart/related answer, split by its boundary. */
export function splitMultipart(body: Buffer, contentType: string): Array<{ headers: string; body: Buffer }> {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ headers: string; body: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd);
    parts.push({
      headers: body.subarray(start + 2, headerEnd).toString('latin1'),
      body: body.subarray(headerEnd + 4, next),
    });
    at = next + 2;
  }
  return parts;
}
