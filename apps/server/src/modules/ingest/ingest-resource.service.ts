import { PassThrough, Readable } from 'node:stream';
import { ServerMessage } from '@portal/shared/errors';
import type { ResourceType } from '@portal/shared/exam-status';
import { RESOURCE_CONTENT_TYPES, SIGNED_CONTENT_TYPES, type IngestResourceResult } from '@portal/shared/schemas/ingest';
import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { removeQuietly, type StoredObject } from '../../plugins/storage.js';
import type { Institution } from '../institutions/institution.service.js';
import { isUniqueViolation } from '../../db/database.js';
import { onExamsChanged } from './exam-changes.js';
import { findExamRow, findResourceRow, insertResourceRow, updateResourceRow } from './ingest.repository.js';
import { requireProtocol } from './ingest.service.js';
import { countPdfPages, inspectContent, PAGE_COUNT_PARSE_MAX_BYTES } from './resource-content.js';
import { storeInstance } from '../dicom/stow.service.js';
import { checkResourceSignature } from '../signatures/signature-check.service.js';
import { newVerificationCode } from '../signatures/verification-code.js';

export interface ResourceUpload {
  number: string;
  examKey: string;
  identifier: string;
  /** The unsigned file's type; absent for the signed version. */
  type?: ResourceType;
  signed: boolean;
  contentType: string;
  /** Content-Length when the client sent one. */
  declaredLength?: number;
  body: Readable;
}

const unsupported = () => new AppError(415, ServerMessage.unsupportedMediaType);
const tooLarge = (maxBytes: number) => new AppError(413, ServerMessage.payloadTooLarge, { maxBytes });

/**
 * Reads the request body through a stream of our own: when the upload is refused half-way, only
 * this stream is torn down, so the client's connection survives to receive the 4xx answer.
 */
function detachableBody(body: Readable): Readable {
  const copy = new PassThrough();
  body.on('error', (error) => copy.destroy(error));
  body.on('close', () => {
    if (!(body as Readable & { complete?: boolean }).complete && !body.readableEnded) {
      copy.destroy(new Error('the upload was interrupted'));
    }
  });
  body.pipe(copy);
  return copy;
}

/**
 * Contract 5: stores an exam's file (or its signed version) under a key the server makes, then
 * records it. 201 for a new resource, 200 for a replacement; an identical re-upload changes
 * nothing. A stored object whose row could not be written is removed again.
 */
export async function ingestResource(
  ctx: AppContext,
  institution: Institution,
  upload: ResourceUpload,
): Promise<{ created: boolean; result: IngestResourceResult }> {
  const allowed: readonly string[] = upload.signed ? SIGNED_CONTENT_TYPES : RESOURCE_CONTENT_TYPES;
  if (!allowed.includes(upload.contentType)) throw unsupported();
  const maxBytes = ctx.config.ingestMaxBytes;
  if (upload.declaredLength !== undefined && upload.declaredLength > maxBytes) throw tooLarge(maxBytes);

  const protocol = await requireProtocol(ctx.db, institution, upload.number);
  const exam = await findExamRow(ctx.db, protocol.id, upload.examKey);
  if (!exam) throw notFound();
  if (upload.signed && !(await findResourceRow(ctx.db, exam.id, upload.identifier))) throw notFound();

  const key = `results/${institution.id}/${newId()}`;
  const inspection = inspectContent(detachableBody(upload.body), upload.contentType);
  const stored = await ctx.storage.put(key, Readable.from(inspection.stream), {
    contentType: upload.contentType,
    maxBytes,
  });

  let outcome: { created: boolean; result: IngestResourceResult; obsoleteKeys: string[] };
  try {
    const pageCount =
      upload.contentType === 'application/pdf' && !upload.signed
        ? await pageCountOf(ctx, key, stored, inspection.pageObjects())
        : null;
    outcome = await recordResource(ctx, upload, exam.id, key, stored, pageCount, protocol.id).catch((error) => {
      // Two uploads of the same new identifier at once: the loser records itself as a replacement.
      if (isUniqueViolation(error)) return recordResource(ctx, upload, exam.id, key, stored, pageCount, protocol.id);
      throw error;
    });
  } catch (error) {
    await removeQuietly(ctx, key);
    throw error;
  }
  if (!upload.signed && upload.contentType === 'application/dicom') {
    await indexDicomUpload(ctx, institution, key, upload.examKey);
  }
  for (const obsolete of outcome.obsoleteKeys) await removeQuietly(ctx, obsolete);
  if (upload.signed) await checkSignatureOnArrival(ctx, exam.id, upload.identifier);
  return { created: outcome.created, result: outcome.result };
}

/**
 * Issue 22.3: a signed file is checked when it arrives and the result kept with the resource. A
 * signature that does not check out is stored all the same (the screens say so); a failure of the
 * check itself leaves the resource unchecked until someone asks.
 */
async function checkSignatureOnArrival(ctx: AppContext, examId: string, identifier: string) {
  const row = await findResourceRow(ctx.db, examId, identifier);
  if (!row) return;
  try {
    await checkResourceSignature(ctx, row);
  } catch (error) {
    ctx.log.warn({ err: error, resourceId: row.id }, 'a signed file could not be checked');
  }
}

/**
 * A DICOM Part 10 file uploaded as an exam's resource is also filed as a DICOM instance of that
 * exam (its examKey standing for the Accession Number), so the viewer opens it like a STOW-RS one.
 * The upload itself stands whatever the index says: a file the index refuses stays a download.
 */
async function indexDicomUpload(ctx: AppContext, institution: Institution, key: string, examKey: string) {
  const outcome = await storeInstance(ctx, institution, await ctx.storage.read(key), { examKey });
  if (outcome.failure) {
    ctx.log.warn(
      { reason: outcome.failure.reason, comment: outcome.failure.comment },
      'a DICOM upload was not indexed',
    );
  }
}

async function pageCountOf(ctx: AppContext, key: string, stored: StoredObject, pageObjects: number) {
  if (pageObjects > 0) return pageObjects;
  if (stored.size > PAGE_COUNT_PARSE_MAX_BYTES) return null;
  return countPdfPages(await ctx.storage.get(key));
}

async function recordResource(
  ctx: AppContext,
  upload: ResourceUpload,
  examId: string,
  key: string,
  stored: StoredObject,
  pageCount: number | null,
  protocolId: string,
): Promise<{ created: boolean; result: IngestResourceResult; obsoleteKeys: string[] }> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now().toISOString();
    const row = await findResourceRow(trx, examId, upload.identifier);
    const obsoleteKeys: string[] = [];
    let created = false;
    let current = row;

    if (upload.signed) {
      if (!row) throw notFound();
      const same =
        row.signedSha256 === stored.sha256 &&
        row.signedSize === stored.size &&
        row.signedContentType === upload.contentType;
      if (same) {
        obsoleteKeys.push(key);
      } else {
        if (row.signedStorageKey) obsoleteKeys.push(row.signedStorageKey);
        else created = true;
        await updateResourceRow(trx, row.id, {
          signedStorageKey: key,
          signedContentType: upload.contentType,
          signedSize: stored.size,
          signedSha256: stored.sha256,
          signedCrc32: stored.crc32,
          signatureCheck: null,
          updatedAt: now,
        });
        await onExamsChanged(ctx, trx, [examId]);
        current = await findResourceRow(trx, examId, upload.identifier);
      }
    } else if (!row) {
      const id = newId();
      await insertResourceRow(trx, {
        id,
        examId,
        identifier: upload.identifier,
        type: upload.type ?? 'REPORT',
        storageKey: key,
        contentType: upload.contentType,
        size: stored.size,
        sha256: stored.sha256,
        crc32: stored.crc32,
        pageCount,
        signedStorageKey: null,
        signedContentType: null,
        signedSize: null,
        signedSha256: null,
        signedCrc32: null,
        verificationCode: newVerificationCode(),
        signatureCheck: null,
        createdAt: now,
        updatedAt: now,
      });
      await onExamsChanged(ctx, trx, [examId]);
      created = true;
      current = await findResourceRow(trx, examId, upload.identifier);
    } else {
      const sameFile =
        row.sha256 === stored.sha256 && row.size === stored.size && row.contentType === upload.contentType;
      const type = upload.type ?? row.type;
      if (sameFile) obsoleteKeys.push(key);
      else {
        obsoleteKeys.push(row.storageKey);
        // The old signature signed the old bytes: it cannot vouch for the new file.
        if (row.signedStorageKey) obsoleteKeys.push(row.signedStorageKey);
      }
      if (!sameFile || type !== row.type) {
        await updateResourceRow(trx, row.id, {
          type,
          ...(sameFile
            ? {}
            : {
                storageKey: key,
                contentType: upload.contentType,
                size: stored.size,
                sha256: stored.sha256,
                crc32: stored.crc32,
                pageCount,
                signedStorageKey: null,
                signedContentType: null,
                signedSize: null,
                signedSha256: null,
                signedCrc32: null,
                signatureCheck: null,
              }),
          updatedAt: now,
        });
        await onExamsChanged(ctx, trx, [examId]);
        current = await findResourceRow(trx, examId, upload.identifier);
      }
    }

    if (!current) throw new Error('resource row missing after write');
    const signed = upload.signed;
    return {
      created,
      obsoleteKeys,
      result: {
        requestId: protocolId,
        number: upload.number,
        examKey: upload.examKey,
        identifier: upload.identifier,
        type: current.type as ResourceType,
        contentType: (signed ? current.signedContentType : current.contentType) ?? upload.contentType,
        size: Number(signed ? current.signedSize : current.size),
        sha256: (signed ? current.signedSha256 : current.sha256) ?? stored.sha256,
        pageCount: signed ? null : current.pageCount,
        signed,
      },
    };
  });
}
