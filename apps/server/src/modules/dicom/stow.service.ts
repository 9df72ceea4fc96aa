import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import { newId } from '../../lib/ids.js';
import { removeQuietly } from '../../plugins/storage.js';
import type { Institution } from '../institutions/institution.service.js';
import type { ParsedInstance } from './dicom-file.js';
import { dicomCodecs } from './dicom-codecs.js';
import { DicomParseError } from './transfer-syntax.js';
import {
  findInstance,
  findSeries,
  findStudy,
  insertInstance,
  insertSeries,
  insertStudy,
  type InstanceRow,
  lockStudy,
  studySize,
  updateInstance,
  updateStudy,
} from './dicom.repository.js';
import { mediaTypeParameters, MultipartError, readParts } from './multipart.js';

/** PS3.4 C.4.2.1.4 / PS3.18 10.5.3: the failure reasons a STOW-RS answer gives per instance. */
export const FailureReason = {
  /** Refused: out of resources (here: the instance or the study is over its size limit). */
  outOfResources: 0xa700,
  /** The data set does not match what was asked (another study than the URL's). */
  mismatch: 0xa900,
  /** Cannot understand: not a Part 10 file, or one the portal cannot file (no Accession Number). */
  cannotUnderstand: 0xc000,
  /** Processing failure: the portal could not store it. */
  processingFailure: 0x0110,
} as const;

export interface InstanceOutcome {
  sopClassUid: string | null;
  sopUid: string | null;
  studyUid: string | null;
  seriesUid: string | null;
  failure?: { reason: number; comment: string };
  /** Stored now, or already stored with the same bytes. */
  stored?: 'new' | 'replaced' | 'same';
}

export class StowRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** UIDs are digits and dots; storage keys take neither dots nor upper case. */
const keyPart = (uid: string) => uid.replace(/\./g, '_');

/**
 * STOW-RS (PS3.18 10.5): reads a multipart/related body part by part and files each Part 10
 * instance. An instance is stored whole or not at all; a refused one is named in the answer and
 * the others still count.
 */
export async function stowStudies(
  ctx: AppContext,
  institution: Institution,
  contentType: string | undefined,
  body: Readable,
  requiredStudyUid?: string,
): Promise<InstanceOutcome[]> {
  const { type, params } = mediaTypeParameters(contentType);
  if (type !== 'multipart/related') throw new StowRequestError(415, 'STOW-RS takes multipart/related');
  const partType = (params.type ?? 'application/dicom').toLowerCase();
  if (partType !== 'application/dicom') {
    throw new StowRequestError(415, 'only application/dicom parts are accepted (no metadata and bulk data form)');
  }
  if (!params.boundary) throw new StowRequestError(400, 'multipart/related needs a boundary parameter');

  const outcomes: InstanceOutcome[] = [];
  try {
    for await (const part of readParts(body, params.boundary, ctx.config.dicomMaxInstanceBytes)) {
      const blank = { sopClassUid: null, sopUid: null, studyUid: null, seriesUid: null };
      if ('oversized' in part) {
        outcomes.push({
          ...blank,
          failure: {
            reason: FailureReason.outOfResources,
            comment: `the instance is larger than ${ctx.config.dicomMaxInstanceBytes} bytes`,
          },
        });
        continue;
      }
      const declared = mediaTypeParameters(part.headers['content-type'] ?? 'application/dicom').type;
      if (declared !== 'application/dicom') {
        outcomes.push({
          ...blank,
          failure: { reason: FailureReason.cannotUnderstand, comment: `a part of type ${declared}` },
        });
        continue;
      }
      outcomes.push(await storeInstance(ctx, institution, part.body, { requiredStudyUid }));
    }
  } catch (error) {
    if (error instanceof MultipartError) throw new StowRequestError(400, error.message);
    throw error;
  }
  if (outcomes.length === 0) throw new StowRequestError(400, 'the request carries no instance');
  return outcomes;
}

/**
 * Files one Part 10 instance (from STOW-RS or the resource upload). Never throws for a bad file.
 * `examKey`: the exam the resource upload names, which then stands for the Accession Number.
 */
export async function storeInstance(
  ctx: AppContext,
  institution: Institution,
  bytes: Buffer,
  options: { requiredStudyUid?: string; examKey?: string } = {},
): Promise<InstanceOutcome> {
  const { requiredStudyUid } = options;
  const { parseInstance } = await dicomCodecs();
  let parsed: ParsedInstance;
  try {
    parsed = parseInstance(bytes);
  } catch (error) {
    if (!(error instanceof DicomParseError)) throw error;
    return {
      sopClassUid: null,
      sopUid: null,
      studyUid: null,
      seriesUid: null,
      failure: { reason: FailureReason.cannotUnderstand, comment: error.message },
    };
  }
  if (options.examKey) parsed = { ...parsed, accessionNumber: options.examKey };
  const ids = {
    sopClassUid: parsed.sopClassUid,
    sopUid: parsed.sopUid,
    studyUid: parsed.studyUid,
    seriesUid: parsed.seriesUid,
  };
  const fail = (reason: number, comment: string): InstanceOutcome => ({ ...ids, failure: { reason, comment } });
  if (requiredStudyUid && parsed.studyUid !== requiredStudyUid) {
    return fail(FailureReason.mismatch, 'the instance belongs to another study than the request names');
  }
  if (!parsed.accessionNumber) {
    return fail(
      FailureReason.cannotUnderstand,
      'no Accession Number (0008,0050): the instance cannot be tied to an exam',
    );
  }
  if (bytes.length > ctx.config.dicomMaxInstanceBytes) {
    return fail(FailureReason.outOfResources, `the instance is larger than ${ctx.config.dicomMaxInstanceBytes} bytes`);
  }

  const existingStudy = await findStudy(ctx.db, institution.id, parsed.studyUid);
  if (existingStudy && existingStudy.accessionNumber !== parsed.accessionNumber) {
    return fail(
      FailureReason.processingFailure,
      'the study is already filed under another Accession Number: send the study again under one',
    );
  }
  const existingSeries = existingStudy ? await findSeries(ctx.db, existingStudy.id, parsed.seriesUid) : undefined;
  const existing = existingSeries ? await findInstance(ctx.db, existingSeries.id, parsed.sopUid) : undefined;
  const overStudyLimit = () =>
    fail(FailureReason.outOfResources, `the study would exceed ${ctx.config.dicomMaxStudyBytes} bytes`);
  // A first look, to refuse before storing; the transaction below checks again under the study's lock.
  if (existingStudy) {
    const total = (await studySize(ctx.db, existingStudy.id)) - Number(existing?.size ?? 0) + bytes.length;
    if (total > ctx.config.dicomMaxStudyBytes) return overStudyLimit();
  }

  const key = [
    'dicom',
    institution.id,
    keyPart(parsed.studyUid),
    keyPart(parsed.seriesUid),
    `${keyPart(parsed.sopUid)}-${newId().slice(0, 8)}`,
  ].join('/');
  let stored;
  try {
    stored = await ctx.storage.put(key, Readable.from([bytes]), {
      contentType: 'application/dicom',
      maxBytes: ctx.config.dicomMaxInstanceBytes,
    });
  } catch (error) {
    ctx.log.error({ err: error }, 'a DICOM instance could not be stored');
    return fail(FailureReason.processingFailure, 'the instance could not be stored');
  }

  let outcome: Recorded;
  try {
    const record = () => recordInstance(ctx, institution, parsed, key, stored);
    outcome = await record().catch((error) => {
      // Two senders of the same new study, series or instance at once: the loser finds the winner's rows.
      if (isUniqueViolation(error)) return record();
      throw error;
    });
  } catch (error) {
    await removeQuietly(ctx, key);
    if (error instanceof StudyOverLimit) return overStudyLimit();
    ctx.log.error({ err: error }, 'a DICOM instance could not be recorded');
    return fail(FailureReason.processingFailure, 'the instance could not be recorded');
  }
  if (outcome.obsoleteKey) await removeQuietly(ctx, outcome.obsoleteKey);
  return { ...ids, stored: outcome.stored };
}

type Recorded = { stored: 'new' | 'replaced' | 'same'; obsoleteKey: string | null };

/** Thrown inside the transaction (rolling back a study or series it created) when the study would pass its limit. */
class StudyOverLimit extends Error {}

async function recordInstance(
  ctx: AppContext,
  institution: Institution,
  parsed: ParsedInstance,
  key: string,
  stored: { size: number; sha256: string; crc32: number },
): Promise<Recorded> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now().toISOString();
    let study = await findStudy(trx, institution.id, parsed.studyUid);
    if (!study) {
      study = {
        id: newId(),
        institutionId: institution.id,
        studyUid: parsed.studyUid,
        accessionNumber: parsed.accessionNumber!,
        studyDate: parsed.studyDate,
        studyTime: parsed.studyTime,
        studyDescription: parsed.studyDescription,
        patientName: parsed.patientName,
        patientId: parsed.patientId,
        createdAt: now,
        updatedAt: now,
      };
      await insertStudy(trx, study);
    }
    // Concurrent senders of one study each passing the limit by an instance: the size is summed
    // with the study held, and the instance recorded before another sender may sum it.
    await lockStudy(trx, ctx.dialect, study.id);
    let series = await findSeries(trx, study.id, parsed.seriesUid);
    if (!series) {
      series = {
        id: newId(),
        studyId: study.id,
        seriesUid: parsed.seriesUid,
        modality: parsed.modality,
        seriesNumber: parsed.seriesNumber,
        seriesDescription: parsed.seriesDescription,
        createdAt: now,
      };
      await insertSeries(trx, series);
    }
    const row = await findInstance(trx, series.id, parsed.sopUid);
    if (row && row.sha256 === stored.sha256 && Number(row.size) === stored.size) {
      return { stored: 'same', obsoleteKey: key };
    }
    const total = (await studySize(trx, study.id)) - Number(row?.size ?? 0) + stored.size;
    if (total > ctx.config.dicomMaxStudyBytes) throw new StudyOverLimit();
    const fields: Omit<InstanceRow, 'id' | 'createdAt'> = {
      studyId: study.id,
      seriesId: series.id,
      sopUid: parsed.sopUid,
      sopClassUid: parsed.sopClassUid,
      transferSyntaxUid: parsed.transferSyntaxUid,
      instanceNumber: parsed.instanceNumber,
      rows: parsed.rows,
      columns: parsed.columns,
      numberOfFrames: parsed.numberOfFrames,
      storageKey: key,
      size: stored.size,
      sha256: stored.sha256,
      crc32: stored.crc32,
      metadata: JSON.stringify(parsed.metadata),
      frames: parsed.frames ? JSON.stringify(parsed.frames) : null,
      updatedAt: now,
    };
    if (row) {
      await updateInstance(trx, row.id, fields);
    } else {
      await insertInstance(trx, { ...fields, id: newId(), createdAt: now });
    }
    await updateStudy(trx, study.id, { updatedAt: now });
    return { stored: row ? 'replaced' : 'new', obsoleteKey: row ? row.storageKey : null };
  });
}
