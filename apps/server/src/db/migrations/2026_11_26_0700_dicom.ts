import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * DICOM studies (contract 9). A study belongs to the institution that sent it and is tied to an
 * exam by its Accession Number (the exam's examKey) when both exist, whichever came first: the
 * join is made when the study is read, so nothing has to be linked when the protocol arrives.
 * Counters are not kept: series and instance counts are read from the rows themselves.
 */
export async function up(db: Db, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('dicom_studies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('study_uid', 'text', (c) => c.notNull())
    .addColumn('accession_number', 'text', (c) => c.notNull())
    .addColumn('study_date', 'text')
    .addColumn('study_time', 'text')
    .addColumn('study_description', 'text')
    .addColumn('patient_name', 'text')
    .addColumn('patient_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dicom_studies_uid')
    .unique()
    .on('dicom_studies')
    .columns(['institution_id', 'study_uid'])
    .execute();
  await db.schema
    .createIndex('dicom_studies_accession')
    .on('dicom_studies')
    .columns(['institution_id', 'accession_number'])
    .execute();
  await db.schema.createIndex('dicom_studies_study_uid').on('dicom_studies').column('study_uid').execute();

  await db.schema
    .createTable('dicom_series')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('study_id', 'text', (c) => c.notNull().references('dicom_studies.id'))
    .addColumn('series_uid', 'text', (c) => c.notNull())
    .addColumn('modality', 'text')
    .addColumn('series_number', 'integer')
    .addColumn('series_description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dicom_series_uid')
    .unique()
    .on('dicom_series')
    .columns(['study_id', 'series_uid'])
    .execute();

  await db.schema
    .createTable('dicom_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('study_id', 'text', (c) => c.notNull().references('dicom_studies.id'))
    .addColumn('series_id', 'text', (c) => c.notNull().references('dicom_series.id'))
    .addColumn('sop_uid', 'text', (c) => c.notNull())
    .addColumn('sop_class_uid', 'text', (c) => c.notNull())
    .addColumn('transfer_syntax_uid', 'text', (c) => c.notNull())
    .addColumn('instance_number', 'integer')
    .addColumn('rows', 'integer')
    .addColumn('columns', 'integer')
    .addColumn('number_of_frames', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('crc32', 'bigint', (c) => c.notNull())
    // DICOM JSON (PS3.18 F) of every element but the pixel data, for the metadata calls.
    .addColumn('metadata', 'text', (c) => c.notNull())
    // JSON: per frame, the [offset, length] byte ranges of the stored file that hold it; null when
    // the frames cannot be cut out of the file as stored (deflated data sets).
    .addColumn('frames', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dicom_instances_uid')
    .unique()
    .on('dicom_instances')
    .columns(['series_id', 'sop_uid'])
    .execute();
  await db.schema.createIndex('dicom_instances_study').on('dicom_instances').column('study_id').execute();

  // A study opened by a session: what makes the audit trail say so once, not once per frame.
  await db.schema
    .createTable('dicom_study_opens')
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('study_id', 'text', (c) => c.notNull().references('dicom_studies.id'))
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('dicom_study_opens_pk', ['session_id', 'study_id'])
    .execute();
}
