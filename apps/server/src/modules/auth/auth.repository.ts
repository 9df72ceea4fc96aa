import type { Db } from '../../db/database.js';
import type { UserType } from '../../db/schema.js';

export interface AccountRow {
  id: string;
  type: UserType;
  email: string;
  passwordHash: string | null;
  name: string;
  active: number;
  disabled: number;
  birth: string | null;
  cpf: string | null;
  mfaEnabled: number;
  mfaPhone: string | null;
  mfaChannel: string | null;
  phoneMobile: string | null;
  language: string;
  institutionId: string | null;
  awaitingInstitutionId: string | null;
}

const ACCOUNT_COLUMNS = [
  'id',
  'type',
  'email',
  'passwordHash',
  'name',
  'active',
  'disabled',
  'birth',
  'cpf',
  'mfaEnabled',
  'mfaPhone',
  'mfaChannel',
  'phoneMobile',
  'language',
  'institutionId',
  'awaitingInstitutionId',
] as const;

export interface ProtocolCandidate {
  id: string;
  number: string;
  passwordHash: string;
  patientBirthDate: string;
  patientName: string;
  disabled: number;
  institutionId: string;
  institutionCode: string;
}

export async function findAccountByEmail(db: Db, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('users').select(ACCOUNT_COLUMNS).where('email', '=', email).executeTakeFirst();
}

export async function findAccountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('users').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** CPFs may be kept bare or formatted; both forms are looked up. */
export async function findAccountByCpf(db: Db, digits: string, formatted: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('users')
    .select(ACCOUNT_COLUMNS)
    .where('cpf', 'in', [digits, formatted])
    .orderBy('createdAt')
    .executeTakeFirst();
}

function protocolCandidates(db: Db) {
  return db
    .selectFrom('protocols')
    .innerJoin('institutions', 'institutions.id', 'protocols.institutionId')
    .select([
      'protocols.id',
      'protocols.number',
      'protocols.passwordHash',
      'protocols.patientBirthDate',
      'protocols.patientName',
      'protocols.disabled',
      'protocols.institutionId',
      'institutions.code as institutionCode',
    ]);
}

/** Protocols with this number, in one institution (by code) or in all. */
export async function findProtocolsByNumber(
  db: Db,
  number: string,
  institutionCode: string | undefined,
): Promise<ProtocolCandidate[]> {
  let q = protocolCandidates(db).where('protocols.number', '=', number);
  if (institutionCode) q = q.where('institutions.code', '=', institutionCode);
  return q.orderBy('protocols.sortAt', 'desc').execute();
}

/** Protocols whose patient e-mail is this address, newest first, at most `limit`. */
export async function findProtocolsByPatientEmail(
  db: Db,
  email: string,
  institutionCode: string | undefined,
  limit: number,
): Promise<ProtocolCandidate[]> {
  let q = protocolCandidates(db).where('protocols.patientEmail', '=', email);
  if (institutionCode) q = q.where('institutions.code', '=', institutionCode);
  return q.orderBy('protocols.sortAt', 'desc').limit(limit).execute();
}

export async function institutionCodeById(db: Db, id: string | null): Promise<string | null> {
  if (!id) return null;
  const row = await db.selectFrom('institutions').select('code').where('id', '=', id).executeTakeFirst();
  return row?.code ?? null;
}

export async function institutionExists(db: Db, code: string): Promise<boolean> {
  const row = await db.selectFrom('institutions').select('id').where('code', '=', code).executeTakeFirst();
  return row !== undefined;
}

/** The patient's linked protocols that are not disabled. */
export async function countPatientProtocols(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('protocols')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('patientUserId', '=', userId)
    .where('disabled', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The live protocols a guest or share session reaches, and the first one's patient. */
export async function sessionProtocolSummary(
  db: Db,
  sessionId: string,
): Promise<{ count: number; first: { number: string; patientName: string; patientBirthDate: string } | null }> {
  const base = db
    .selectFrom('sessionProtocols')
    .innerJoin('protocols', 'protocols.id', 'sessionProtocols.protocolId')
    .where('sessionProtocols.sessionId', '=', sessionId)
    .where('protocols.disabled', '=', 0);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const first = await base
    .select(['protocols.number', 'protocols.patientName', 'protocols.patientBirthDate'])
    .orderBy('protocols.sortAt', 'desc')
    .limit(1)
    .executeTakeFirst();
  return { count: Number(count.n), first: first ?? null };
}

/** The recipient and protocols of a share, for the trace of its opening. */
/** When a share ends: its expiry, or its cancellation when that came first; null for an unknown share. */
export async function shareEnd(db: Db, shareId: string): Promise<string | null> {
  const share = await db
    .selectFrom('shares')
    .select(['expiresAt', 'canceledAt'])
    .where('id', '=', shareId)
    .executeTakeFirst();
  if (!share) return null;
  return share.canceledAt && share.canceledAt < share.expiresAt ? share.canceledAt : share.expiresAt;
}

export async function shareOpeningFacts(
  db: Db,
  shareId: string,
): Promise<{ email: string; protocols: Array<{ id: string; number: string; institutionCode: string }> } | null> {
  const share = await db.selectFrom('shares').select(['email']).where('id', '=', shareId).executeTakeFirst();
  if (!share) return null;
  const protocols = await db
    .selectFrom('shareProtocols')
    .innerJoin('protocols', 'protocols.id', 'shareProtocols.protocolId')
    .innerJoin('institutions', 'institutions.id', 'protocols.institutionId')
    .select(['protocols.id', 'protocols.number', 'institutions.code as institutionCode'])
    .where('shareProtocols.shareId', '=', shareId)
    .execute();
  return { email: share.email, protocols };
}
