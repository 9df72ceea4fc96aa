import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import {
  countProtocols,
  createDayCountTriggers,
  dropDayCountTriggers,
  type LicenseScope,
} from './2026_11_23_0090_protocol_day_counts.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Institutions vouch for physicians: a physician sees the protocols requested under his license
 * only in the institutions that vouched for him (the one that invited him, others that confirmed
 * him). Existing physician accounts are vouched for by the institution that invited them.
 *
 * The requester licenses' day counts become one scope per license and institution
 * ('license:<crm>/<uf>@<institution id>'), so a physician's exact total is the sum over the
 * institutions that vouched for him.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('physician_vouches')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('physician_vouches_pk', ['user_id', 'institution_id'])
    .execute();
  await db.schema
    .createIndex('physician_vouches_institution')
    .on('physician_vouches')
    .columns(['institution_id', 'user_id'])
    .execute();
  await sql`insert into physician_vouches (user_id, institution_id, created_by, created_at)
    select u.id, u.institution_id, null, u.created_at from users u
    where u.type = 'PHYSICIAN' and u.institution_id is not null`.execute(db);

  await dropDayCountTriggers(db, dialect);
  await createDayCountTriggers(db, dialect, vouchedLicense);
  await sql`delete from protocol_day_counts where scope like 'license:%'`.execute(db);
  await countProtocols(db, dialect, vouchedLicense, false);
}

/** A requester license's day-count scope from this migration on: one per license and institution. */
export const vouchedLicense: LicenseScope = (alias, institution) =>
  `'license:' || ${alias}.crm || '/' || ${alias}.uf || '@' || ${institution}`;
