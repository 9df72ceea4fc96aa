import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Issue 22.3, reports anyone can verify: every file gets a short verification code (unique), and
 * a signed file keeps what the server found when it checked its signature (JSON, the shared
 * `SignatureCheck`), and a report the SHA-256 of its copy stamped with the code and a QR code. Files stored before get their code here.
 */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('resources').addColumn('verification_code', 'text').execute();
  await db.schema.alterTable('resources').addColumn('signature_check', 'text').execute();
  await db.schema.alterTable('resources').addColumn('stamped_sha256', 'text').execute();
  const seen = new Set<string>();
  const code = () => {
    for (;;) {
      let c = '';
      for (let i = 0; i < 10; i++) c += ALPHABET[randomInt(ALPHABET.length)];
      if (!seen.has(c)) {
        seen.add(c);
        return c;
      }
    }
  };
  for (;;) {
    const rows = await db
      .selectFrom('resources')
      .select('id')
      .where('verification_code', 'is', null)
      .limit(1000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      await db.updateTable('resources').set({ verification_code: code() }).where('id', '=', row.id).execute();
    }
  }
  await db.schema
    .createIndex('resources_verification_code')
    .on('resources')
    .column('verification_code')
    .unique()
    .execute();
}
