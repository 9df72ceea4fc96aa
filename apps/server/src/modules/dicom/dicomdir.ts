import { randomUUID } from 'node:crypto';

/**
 * A DICOMDIR (PS3.10 7.2, PS3.3 F.3) for one study on media: PATIENT → STUDY → SERIES → IMAGE
 * records, linked by the byte offsets of their items. Written here, in explicit VR little endian,
 * because the offsets must be known while encoding; dcmtk's dcmdump reads it back in the tests.
 */

type Vr = 'CS' | 'DA' | 'TM' | 'LO' | 'PN' | 'SH' | 'UI' | 'IS' | 'UL' | 'US' | 'OB' | 'SQ';
const LONG_VRS = new Set<Vr>(['OB', 'SQ']);

function pad(value: Buffer, vr: Vr): Buffer {
  return value.length % 2 === 0 ? value : Buffer.concat([value, Buffer.from([vr === 'UI' || vr === 'OB' ? 0 : 0x20])]);
}

function element(tag: number, vr: Vr, value: Buffer): Buffer {
  const body = pad(value, vr);
  const head = Buffer.alloc(LONG_VRS.has(vr) ? 12 : 8);
  head.writeUInt16LE(tag >>> 16, 0);
  head.writeUInt16LE(tag & 0xffff, 2);
  head.write(vr, 4, 'latin1');
  if (LONG_VRS.has(vr)) head.writeUInt32LE(body.length, 8);
  else head.writeUInt16LE(body.length, 6);
  return Buffer.concat([head, body]);
}

const str = (tag: number, vr: Vr, value: string | number | null | undefined) =>
  element(tag, vr, Buffer.from(value === null || value === undefined ? '' : String(value), 'latin1'));
const ul = (tag: number, value: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0, 0);
  return element(tag, 'UL', b);
};
const us = (tag: number, value: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(value, 0);
  return element(tag, 'US', b);
};

function item(content: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(0xfffe, 0);
  head.writeUInt16LE(0xe000, 2);
  head.writeUInt32LE(content.length, 4);
  return Buffer.concat([head, content]);
}

/** A UID under the 2.25 root (a UUID as a decimal number, ITU-T X.667). */
export function newUid(): string {
  return `2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString()}`;
}

export interface DicomdirStudy {
  patientId: string | null;
  patientName: string | null;
  studyUid: string;
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  accessionNumber: string | null;
  series: Array<{
    seriesUid: string;
    modality: string | null;
    seriesNumber: number | null;
    instances: Array<{
      /** The path components of the file on the media, each at most 8 characters of A-Z, 0-9 and _. */
      fileId: string[];
      sopClassUid: string;
      sopUid: string;
      transferSyntaxUid: string;
      instanceNumber: number | null;
    }>;
  }>;
}

interface RecordSpec {
  type: 'PATIENT' | 'STUDY' | 'SERIES' | 'IMAGE';
  fields: Buffer[];
  next: number | null;
  lower: number | null;
}

export function buildDicomdir(study: DicomdirStudy): Buffer {
  const records: RecordSpec[] = [];
  const patient =
    records.push({
      type: 'PATIENT',
      fields: [str(0x00100010, 'PN', study.patientName), str(0x00100020, 'LO', study.patientId ?? 'UNKNOWN')],
      next: null,
      lower: null,
    }) - 1;
  const studyIndex =
    records.push({
      type: 'STUDY',
      fields: [
        str(0x00080020, 'DA', study.studyDate),
        str(0x00080030, 'TM', study.studyTime),
        str(0x00080050, 'SH', study.accessionNumber),
        str(0x00081030, 'LO', study.studyDescription),
        str(0x0020000d, 'UI', study.studyUid),
        str(0x00200010, 'SH', ''),
      ],
      next: null,
      lower: null,
    }) - 1;
  records[patient]!.lower = studyIndex;
  let previousSeries: number | null = null;
  for (const series of study.series) {
    const s =
      records.push({
        type: 'SERIES',
        fields: [
          str(0x00080060, 'CS', series.modality ?? 'OT'),
          str(0x0020000e, 'UI', series.seriesUid),
          str(0x00200011, 'IS', series.seriesNumber ?? ''),
        ],
        next: null,
        lower: null,
      }) - 1;
    if (previousSeries === null) records[studyIndex]!.lower = s;
    else records[previousSeries]!.next = s;
    previousSeries = s;
    let previousImage: number | null = null;
    for (const instance of series.instances) {
      const i =
        records.push({
          type: 'IMAGE',
          fields: [
            str(0x00041500, 'CS', instance.fileId.join('\\')),
            str(0x00041510, 'UI', instance.sopClassUid),
            str(0x00041511, 'UI', instance.sopUid),
            str(0x00041512, 'UI', instance.transferSyntaxUid),
            str(0x00200013, 'IS', instance.instanceNumber ?? ''),
          ],
          next: null,
          lower: null,
        }) - 1;
      if (previousImage === null) records[s]!.lower = i;
      else records[previousImage]!.next = i;
      previousImage = i;
    }
  }

  // Offsets are 4-byte values: every item has the same length whatever they are, so encode once
  // with zeros to measure, then again with the real offsets.
  const encode = (offsets: number[]) =>
    records.map((r) =>
      item(
        Buffer.concat([
          ul(0x00041400, r.next === null ? 0 : offsets[r.next]!),
          us(0x00041410, 0xffff),
          ul(0x00041420, r.lower === null ? 0 : offsets[r.lower]!),
          str(0x00041430, 'CS', r.type),
          ...r.fields,
        ]),
      ),
    );

  const sopUid = newUid();
  const metaElements = Buffer.concat([
    element(0x00020001, 'OB', Buffer.from([0, 1])),
    str(0x00020002, 'UI', '1.2.840.10008.1.3.10'),
    str(0x00020003, 'UI', sopUid),
    str(0x00020010, 'UI', '1.2.840.10008.1.2.1'),
    str(0x00020012, 'UI', '2.25.1'),
    str(0x00020013, 'SH', 'PORTAL'),
  ]);
  const meta = Buffer.concat([ul(0x00020000, metaElements.length), metaElements]);
  const preamble = Buffer.concat([Buffer.alloc(128), Buffer.from('DICM', 'latin1')]);
  const datasetHead = (first: number, last: number) =>
    Buffer.concat([str(0x00041130, 'CS', 'PORTAL'), ul(0x00041200, first), ul(0x00041202, last), us(0x00041212, 0)]);

  const measured = encode(records.map(() => 0));
  const sequenceStart = preamble.length + meta.length + datasetHead(0, 0).length + 12;
  const offsets: number[] = [];
  let position = sequenceStart;
  for (const encoded of measured) {
    offsets.push(position);
    position += encoded.length;
  }
  const items = Buffer.concat(encode(offsets));
  return Buffer.concat([
    preamble,
    meta,
    datasetHead(offsets[patient]!, offsets[patient]!),
    element(0x00041220, 'SQ', items),
  ]);
}
