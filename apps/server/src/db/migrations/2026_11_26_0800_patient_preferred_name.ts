import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Spec 3's trace record names the patient by name, preferred name, mother's name, document and
 * birth date as the institution sent them; the preferred (social) name is kept beside the others.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('protocols').addColumn('patient_preferred_name', 'text').execute();
}
