import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

const ts = 'text';

/*
 * Passkeys (WebAuthn credentials) of patients, physicians and external users, and the challenges
 * handed to browsers. Challenges live in the database so that any server process may check the
 * answer to one another process issued; each is deleted as it is answered (single use).
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    // The authenticator's credential id (base64url), unique across the portal.
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    // COSE public key, base64url.
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    // JSON array of transports ("internal", "hybrid", "usb"...).
    .addColumn('transports', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_used_at', ts)
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // REGISTER or SIGN_IN
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webauthn_challenges_expiry').on('webauthn_challenges').column('expires_at').execute();
}
