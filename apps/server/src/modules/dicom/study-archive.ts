import { PassThrough, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { AppContext } from '../../context.js';
import { writeZip, type ZipEntry, zipLength } from '../delivery/zip-writer.js';
import { seriesOfStudy } from './dicom.repository.js';
import { buildDicomdir } from './dicomdir.js';
import { type OpenedStudy, selectInstances } from './wado.service.js';

const num = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * The whole study as PS3.10 media in a zip: DICOMDIR at the root and the files as stored under
 * DICOM/SEnnnn/IMnnnnnn (file ids of 8 characters at most), for another physician's workstation.
 */
export async function studyArchive(
  ctx: AppContext,
  found: OpenedStudy,
): Promise<{ fileName: string; body: Readable; size: number }> {
  const { study, protocol, exam } = found;
  const series = await seriesOfStudy(ctx.db, study.id);
  const instances = await selectInstances(ctx, found);
  const entries: ZipEntry[] = [];
  const dirSeries = series.map((s, si) => ({
    seriesUid: s.seriesUid,
    modality: s.modality,
    seriesNumber: s.seriesNumber,
    instances: instances
      .filter((i) => i.seriesId === s.id)
      .map((i, ii) => {
        const fileId = ['DICOM', `SE${num(si + 1, 4)}`, `IM${num(ii + 1, 6)}`];
        entries.push({
          name: fileId.join('/'),
          size: Number(i.size),
          crc32: Number(i.crc32),
          open: () => ctx.storage.get(i.storageKey),
        });
        return {
          fileId,
          sopClassUid: i.sopClassUid,
          sopUid: i.sopUid,
          transferSyntaxUid: i.transferSyntaxUid,
          instanceNumber: i.instanceNumber,
        };
      }),
  }));
  const dicomdir = buildDicomdir({
    patientId: study.patientId,
    patientName: study.patientName,
    studyUid: study.studyUid,
    studyDate: study.studyDate,
    studyTime: study.studyTime,
    studyDescription: study.studyDescription,
    accessionNumber: study.accessionNumber,
    series: dirSeries,
  });
  entries.unshift({ name: 'DICOMDIR', size: dicomdir.length, crc32: zlib.crc32(dicomdir), open: async () => dicomdir });

  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const sink = async (chunk: Uint8Array) => {
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  };
  void writeZip(entries, sink, ctx.clock.now())
    .then(() => out.end())
    .catch((error: unknown) => {
      ctx.log.error({ err: error }, 'a study archive failed');
      out.destroy(error as Error);
    });
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-');
  return {
    fileName: `${safe(protocol.number)}_${safe(exam.row.examKey)}_DICOM.zip`,
    body: out,
    size: zipLength(entries),
  };
}
