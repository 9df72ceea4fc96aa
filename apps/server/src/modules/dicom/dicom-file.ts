import zlib from 'node:zlib';
import dcmjs from 'dcmjs';
import dicomParser from 'dicom-parser';
import { DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN, DicomParseError } from './transfer-syntax.js';

/** What the index keeps of one Part 10 file. */
export interface ParsedInstance {
  studyUid: string;
  seriesUid: string;
  sopUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  accessionNumber: string | null;
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  patientName: string | null;
  patientId: string | null;
  modality: string | null;
  seriesNumber: number | null;
  seriesDescription: string | null;
  instanceNumber: number | null;
  rows: number | null;
  columns: number | null;
  numberOfFrames: number;
  /** DICOM JSON of every element but the pixel data (binary values up to 1 KiB inline, larger left out). */
  metadata: Record<string, unknown>;
  /** Per frame, the byte ranges of the file that hold it; null when they cannot be cut (deflated). */
  frames: Array<Array<[number, number]>> | null;
}

const UID = /^[0-9]+(\.[0-9]+)*$/;
const INLINE_BINARY_MAX = 1024;

type JsonElement = { vr: string; Value?: unknown[]; InlineBinary?: string; _rawValue?: unknown };

/** dcmjs's data set as PS3.18 F DICOM JSON: its private `_rawValue` dropped, binary values inline or left out. */
function toDicomJson(dict: Record<string, JsonElement>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [tag, element] of Object.entries(dict)) {
    if (tag.toUpperCase() === '7FE00010') continue;
    const { vr } = element;
    const values = element.Value ?? [];
    if (vr === 'SQ') {
      out[tag] = { vr, Value: values.map((item) => toDicomJson(item as Record<string, JsonElement>)) };
    } else if (values.some((v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v))) {
      const bytes = Buffer.concat(
        values.map((v) =>
          v instanceof ArrayBuffer
            ? Buffer.from(v)
            : Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength),
        ),
      );
      if (bytes.length <= INLINE_BINARY_MAX) out[tag] = { vr, InlineBinary: bytes.toString('base64') };
    } else {
      out[tag] = values.length ? { vr, Value: values } : { vr };
    }
  }
  return out;
}

function inflater(bytes: Uint8Array, position: number): Uint8Array {
  const inflated = zlib.inflateRawSync(bytes.subarray(position));
  const whole = new Uint8Array(position + inflated.length);
  whole.set(bytes.subarray(0, position));
  whole.set(inflated, position);
  return whole;
}

function text(ds: dicomParser.DataSet, tag: string): string | null {
  const value = ds.string(tag);
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function integer(ds: dicomParser.DataSet, tag: string, kind: 'IS' | 'US'): number | null {
  if (!ds.elements[tag]) return null;
  const value = kind === 'US' ? ds.uint16(tag) : ds.intString(tag);
  return value === undefined || Number.isNaN(value) ? null : value;
}

/**
 * The bytes of one native frame: rows × columns × samples × bytes per sample (PS3.5 8.1.1), so that
 * the pad byte closing odd-length pixel data (an 8-bit image of an odd number of pixels) is no part
 * of the last frame. Bit-packed data (BitsAllocated 1) or a missing attribute: the pixel data shared
 * out evenly.
 */
function nativeFrameLength(ds: dicomParser.DataSet, pixelsLength: number, frames: number): number {
  const rows = integer(ds, 'x00280010', 'US') ?? 0;
  const columns = integer(ds, 'x00280011', 'US') ?? 0;
  const samples = integer(ds, 'x00280002', 'US') ?? 1;
  const bitsAllocated = integer(ds, 'x00280100', 'US') ?? 0;
  const length = (rows * columns * samples * bitsAllocated) / 8;
  if (bitsAllocated % 8 === 0 && length > 0 && length * frames <= pixelsLength) return length;
  return Math.floor(pixelsLength / frames);
}

/** The byte ranges of each frame, as PS3.5 A.4 lays encapsulated fragments out (or native frames one after another). */
function frameRanges(
  ds: dicomParser.DataSet,
  transferSyntaxUid: string,
  frames: number,
): Array<Array<[number, number]>> | null {
  const pixels = ds.elements.x7fe00010 ?? ds.elements.x7fe00008 ?? ds.elements.x7fe00009;
  if (!pixels) return [];
  if (transferSyntaxUid === DEFLATED_EXPLICIT_VR_LITTLE_ENDIAN) return null;
  if (!pixels.encapsulatedPixelData) {
    const length = nativeFrameLength(ds, pixels.length, frames);
    if (length <= 0) return null;
    return Array.from({ length: frames }, (_, i) => [[pixels.dataOffset + i * length, length]]);
  }
  const fragments = pixels.fragments ?? [];
  if (fragments.length === 0) return null;
  if (frames === 1) return [fragments.map((f): [number, number] => [f.position, f.length])];
  const table = pixels.basicOffsetTable ?? [];
  if (table.length === frames) {
    return table.map((start, i) => {
      const end = i + 1 < table.length ? table[i + 1]! : Number.POSITIVE_INFINITY;
      return fragments
        .filter((f) => f.offset >= start && f.offset < end)
        .map((f): [number, number] => [f.position, f.length]);
    });
  }
  if (fragments.length === frames) return fragments.map((f) => [[f.position, f.length]]);
  // JPEG without an offset table: a frame starts where a fragment opens with an SOI marker.
  try {
    const made = dicomParser.createJPEGBasicOffsetTable(ds, pixels, fragments);
    if (made.length !== frames) return null;
    return made.map((start, i) => {
      const end = i + 1 < made.length ? made[i + 1]! : Number.POSITIVE_INFINITY;
      return fragments
        .filter((f) => f.offset >= start && f.offset < end)
        .map((f): [number, number] => [f.position, f.length]);
    });
  } catch {
    return null;
  }
}

/** Parses one DICOM Part 10 file (PS3.10: 128-byte preamble, "DICM", meta group). Throws DicomParseError. */
export function parseInstance(bytes: Buffer): ParsedInstance {
  if (bytes.length < 132 || bytes.toString('latin1', 128, 132) !== 'DICM') {
    throw new DicomParseError('not a DICOM Part 10 file (no DICM prefix)');
  }
  let ds: dicomParser.DataSet;
  try {
    ds = dicomParser.parseDicom(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), { inflater });
  } catch (error) {
    throw new DicomParseError(
      `unreadable DICOM: ${String(error instanceof Error ? error.message : error).slice(0, 200)}`,
    );
  }
  const transferSyntaxUid = text(ds, 'x00020010');
  const studyUid = text(ds, 'x0020000d');
  const seriesUid = text(ds, 'x0020000e');
  const sopUid = text(ds, 'x00080018') ?? text(ds, 'x00020003');
  const sopClassUid = text(ds, 'x00080016') ?? text(ds, 'x00020002');
  for (const [name, uid] of Object.entries({ transferSyntaxUid, studyUid, seriesUid, sopUid, sopClassUid })) {
    if (!uid || uid.length > 64 || !UID.test(uid)) throw new DicomParseError(`missing or invalid ${name}`);
  }
  const numberOfFrames = Math.max(1, integer(ds, 'x00280008', 'IS') ?? 1);

  let metadata: Record<string, unknown>;
  try {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    const message = dcmjs.data.DicomMessage.readFile(copy, { untilTag: '7FE00010', includeUntilTagValue: false });
    metadata = toDicomJson(message.dict as Record<string, JsonElement>);
  } catch (error) {
    throw new DicomParseError(
      `unreadable DICOM: ${String(error instanceof Error ? error.message : error).slice(0, 200)}`,
    );
  }
  // The transfer syntax belongs to the file meta group; the viewer needs it beside the data set.
  metadata['00020010'] = { vr: 'UI', Value: [transferSyntaxUid] };

  return {
    studyUid: studyUid!,
    seriesUid: seriesUid!,
    sopUid: sopUid!,
    sopClassUid: sopClassUid!,
    transferSyntaxUid: transferSyntaxUid!,
    accessionNumber: text(ds, 'x00080050'),
    studyDate: text(ds, 'x00080020'),
    studyTime: text(ds, 'x00080030'),
    studyDescription: text(ds, 'x00081030'),
    patientName: text(ds, 'x00100010'),
    patientId: text(ds, 'x00100020'),
    modality: text(ds, 'x00080060'),
    seriesNumber: integer(ds, 'x00200011', 'IS'),
    seriesDescription: text(ds, 'x0008103e'),
    instanceNumber: integer(ds, 'x00200013', 'IS'),
    rows: integer(ds, 'x00280010', 'US'),
    columns: integer(ds, 'x00280011', 'US'),
    numberOfFrames,
    metadata,
    frames: frameRanges(ds, transferSyntaxUid!, numberOfFrames),
  };
}

/** One frame of a whole file, for files whose frames are not cut out of the stored bytes (deflated). */
export function frameOfFile(bytes: Buffer, frameIndex: number): Buffer {
  const ds = dicomParser.parseDicom(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), { inflater });
  const pixels = ds.elements.x7fe00010;
  if (!pixels) throw new DicomParseError('no pixel data');
  if (pixels.encapsulatedPixelData) {
    return Buffer.from(dicomParser.readEncapsulatedImageFrame(ds, pixels, frameIndex));
  }
  const frames = Math.max(1, integer(ds, 'x00280008', 'IS') ?? 1);
  const length = nativeFrameLength(ds, pixels.length, frames);
  return Buffer.from(ds.byteArray.buffer, ds.byteArray.byteOffset + pixels.dataOffset + frameIndex * length, length);
}
