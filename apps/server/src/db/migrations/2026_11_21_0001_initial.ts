import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

const ts = 'text';

export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('institutions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('view_type', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('logo_path', 'text')
    .addColumn('support_email', 'text')
    .addColumn('support_phone_number', 'text')
    .addColumn('support_whatsapp_number', 'text')
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('visualizer_settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('exam_type_code', 'text', (c) => c.notNull())
    .addColumn('hide_button', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('visualizer_settings_institution_type', ['institution_id', 'exam_type_code'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('birth', 'text')
    .addColumn('gender', 'text')
    .addColumn('cpf', 'text', (c) => c.unique())
    .addColumn('phone_mobile', 'text')
    .addColumn('phone_landline', 'text')
    .addColumn('mfa_phone', 'text')
    .addColumn('mfa_channel', 'text')
    .addColumn('mfa_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('frequency_receive_email', 'text', (c) => c.notNull().defaultTo('DEFAULT'))
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('pt-br'))
    .addColumn('license_number', 'text')
    .addColumn('license_state', 'text')
    .addColumn('favorite_tag_id', 'text')
    .addColumn('institution_id', 'text', (c) => c.references('institutions.id'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_license').on('users').columns(['license_number', 'license_state']).execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('tags_institution_tag', ['institution_id', 'tag'])
    .execute();

  await db.schema
    .createTable('tag_members')
    .addColumn('tag_id', 'text', (c) => c.notNull().references('tags.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_members_pk', ['tag_id', 'user_id'])
    .execute();
  await db.schema.createIndex('tag_members_user').on('tag_members').columns(['user_id', 'tag_id']).execute();

  await db.schema
    .createTable('protocols')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('requested_at', ts)
    .addColumn('sort_at', ts, (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.references('tags.id'))
    .addColumn('patient_external_id', 'text', (c) => c.notNull())
    .addColumn('patient_name', 'text', (c) => c.notNull())
    .addColumn('patient_name_search', 'text', (c) => c.notNull())
    .addColumn('patient_birth_date', 'text', (c) => c.notNull())
    .addColumn('patient_gender', 'text', (c) => c.notNull())
    .addColumn('patient_email', 'text')
    .addColumn('patient_phone', 'text')
    .addColumn('patient_cpf', 'text')
    .addColumn('patient_mother_name', 'text')
    .addColumn('patient_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('protocols_institution_number', ['institution_id', 'number'])
    .execute();
  await db.schema.createIndex('protocols_number').on('protocols').columns(['number']).execute();
  await db.schema
    .createIndex('protocols_patient_user')
    .on('protocols')
    .columns(['patient_user_id', 'sort_at', 'id'])
    .execute();
  await db.schema.createIndex('protocols_tag').on('protocols').columns(['tag_id', 'sort_at', 'id']).execute();
  await db.schema
    .createIndex('protocols_institution_sort')
    .on('protocols')
    .columns(['institution_id', 'sort_at', 'id'])
    .execute();
  await db.schema
    .createIndex('protocols_patient_email')
    .on('protocols')
    .columns(['patient_email', 'sort_at'])
    .execute();
  await db.schema.createIndex('protocols_patient_cpf').on('protocols').columns(['patient_cpf']).execute();

  await db.schema
    .createTable('protocol_requesters')
    .addColumn('protocol_id', 'text', (c) => c.notNull().references('protocols.id'))
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('uf', 'text', (c) => c.notNull())
    .addColumn('sort_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('protocol_requesters_pk', ['protocol_id', 'crm', 'uf'])
    .execute();
  await db.schema
    .createIndex('protocol_requesters_license')
    .on('protocol_requesters')
    .columns(['crm', 'uf', 'sort_at', 'protocol_id'])
    .execute();

  await db.schema
    .createTable('exams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('protocol_id', 'text', (c) => c.notNull().references('protocols.id'))
    .addColumn('exam_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('modality_code', 'text', (c) => c.notNull())
    .addColumn('modality_name', 'text', (c) => c.notNull())
    .addColumn('requester_identifier', 'text')
    .addColumn('requester_name', 'text')
    .addColumn('requester_crm', 'text')
    .addColumn('requester_uf', 'text')
    .addColumn('status', 'text')
    .addColumn('status_code', 'text', (c) => c.notNull())
    .addColumn('rectification_status', 'text')
    .addColumn('performed_at', ts)
    .addColumn('delivered_at', ts)
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('exams_protocol_key', ['protocol_id', 'exam_key'])
    .execute();

  await db.schema
    .createTable('resources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('exam_id', 'text', (c) => c.notNull().references('exams.id'))
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('crc32', 'bigint', (c) => c.notNull())
    .addColumn('page_count', 'integer')
    .addColumn('signed_storage_key', 'text')
    .addColumn('signed_content_type', 'text')
    .addColumn('signed_size', 'bigint')
    .addColumn('signed_sha256', 'text')
    .addColumn('signed_crc32', 'bigint')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('resources_exam_identifier', ['exam_id', 'identifier'])
    .execute();

  await db.schema
    .createTable('analytes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('exam_id', 'text', (c) => c.notNull().references('exams.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('unit', 'text')
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('value_number', 'double precision')
    .addColumn('reference_min', 'double precision')
    .addColumn('reference_max', 'double precision')
    .addColumn('reference_text', 'text')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('analytes_exam_code', ['exam_id', 'code'])
    .execute();

  await db.schema
    .createTable('exam_reads')
    .addColumn('viewer_key', 'text', (c) => c.notNull())
    .addColumn('exam_id', 'text', (c) => c.notNull().references('exams.id'))
    .addColumn('read_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('exam_reads_pk', ['viewer_key', 'exam_id'])
    .execute();

  await db.schema
    .createTable('shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('patient_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('message', 'text')
    .addColumn('days_expiration', 'integer', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('institution_id', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('canceled_at', ts)
    .execute();
  await db.schema.createIndex('shares_patient').on('shares').columns(['patient_user_id', 'created_at']).execute();

  await db.schema
    .createTable('share_protocols')
    .addColumn('share_id', 'text', (c) => c.notNull().references('shares.id'))
    .addColumn('protocol_id', 'text', (c) => c.notNull().references('protocols.id'))
    .addPrimaryKeyConstraint('share_protocols_pk', ['share_id', 'protocol_id'])
    .execute();

  await db.schema
    .createTable('terms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('term_type', 'text', (c) => c.notNull())
    .addColumn('user_type', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('terms_type_user_version', ['term_type', 'user_type', 'version'])
    .execute();

  await db.schema
    .createTable('term_acceptances')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('term_id', 'text', (c) => c.notNull().references('terms.id'))
    .addColumn('accepted_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('term_acceptances_pk', ['user_id', 'term_id'])
    .execute();

  await db.schema
    .createTable('one_time_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.references('users.id'))
    .addColumn('email', 'text')
    .addColumn('institution_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('CREATED'))
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('pt-br'))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('mfa_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mfa_codes_user').on('mfa_codes').columns(['user_id', 'purpose', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id'))
    .addColumn('share_id', 'text', (c) => c.references('shares.id'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('institution_code', 'text')
    .addColumn('app_key', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('revoked_at', ts)
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
  await db.schema.createIndex('sessions_share').on('sessions').columns(['share_id']).execute();

  await db.schema
    .createTable('session_protocols')
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
    .addColumn('protocol_id', 'text', (c) => c.notNull().references('protocols.id'))
    .addPrimaryKeyConstraint('session_protocols_pk', ['session_id', 'protocol_id'])
    .execute();

  await db.schema
    .createTable('throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('first_failure_at', ts, (c) => c.notNull())
    .addColumn('last_failure_at', ts, (c) => c.notNull())
    .addColumn('locked_until', ts)
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('occurred_at', ts, (c) => c.notNull())
    .addColumn('application', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text')
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('protocol_id', 'text')
    .addColumn('system_user_id', 'text')
    .addColumn('system_user_name', 'text')
    .addColumn('role', 'text')
    .addColumn('shared_with', 'text')
    .addColumn('patients', 'text')
    .addColumn('macro', 'text')
    .addColumn('ip', 'text')
    .addColumn('request_id', 'text')
    .execute();
  await db.schema
    .createIndex('audit_events_protocol')
    .on('audit_events')
    .columns(['protocol_id', 'occurred_at'])
    .execute();
  // The audit trail is append-only: the database itself refuses to change or erase it.
  if (dialect === 'sqlite') {
    await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
      BEGIN SELECT RAISE(ABORT, 'audit trail is append-only'); END`.execute(db);
    await sql`CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
      BEGIN SELECT RAISE(ABORT, 'audit trail is append-only'); END`.execute(db);
  } else {
    await sql`CREATE FUNCTION audit_events_append_only() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit trail is append-only'; END; $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`.execute(db);
  }

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ts, (c) => c.notNull())
    .addColumn('locked_until', ts)
    .addColumn('last_error', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('sent_at', ts)
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('result_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('exam_id', 'text', (c) => c.notNull().references('exams.id'))
    .addColumn('recipient_email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('queued_at', ts)
    .addUniqueConstraint('result_notifications_exam_recipient', ['exam_id', 'recipient_email'])
    .execute();
  await db.schema
    .createIndex('result_notifications_pending')
    .on('result_notifications')
    .columns(['queued_at', 'frequency', 'recipient_email'])
    .execute();

  await db.schema
    .createTable('smart_status')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('protocol_id', 'text', (c) => c.notNull())
    .addColumn('exam_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('app_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createIndex('exams_protocol').on('exams').columns(['protocol_id', 'position']).execute();
  await db.schema.createIndex('resources_exam').on('resources').columns(['exam_id']).execute();
  await db.schema.createIndex('analytes_exam').on('analytes').columns(['exam_id']).execute();
  await db.schema.createIndex('exam_reads_exam').on('exam_reads').columns(['exam_id']).execute();
  await db.schema.createIndex('share_protocols_protocol').on('share_protocols').columns(['protocol_id']).execute();
}
