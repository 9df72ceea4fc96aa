import { DEFAULT_LANGUAGE } from '@portal/shared/limits';
import { TermMessage } from '@portal/shared/messages';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import {
  acceptedTermIds,
  currentTerms,
  findUserTypeAndLanguage,
  insertAcceptances,
  type TermRow,
} from './terms.repository.js';

export interface TermView {
  id: string;
  termType: 'TERMS' | 'PP';
  userType: string;
  version: number;
  language: string;
  data: string;
  createdAt: string;
}

function textIn(row: TermRow, language: string): { language: string; data: string } {
  let texts: Record<string, string> = {};
  try {
    texts = JSON.parse(row.content) as Record<string, string>;
  } catch {
    texts = {};
  }
  const chosen = texts[language] !== undefined ? language : DEFAULT_LANGUAGE;
  return { language: chosen, data: texts[chosen] ?? '' };
}

function view(row: TermRow, language: string): TermView {
  return {
    id: row.id,
    termType: row.termType === 'PP' ? 'PP' : 'TERMS',
    userType: row.userType,
    version: row.version,
    createdAt: row.createdAt,
    ...textIn(row, language),
  };
}

/** The current service terms and privacy policy of a user type (public: the sign-up forms show them). */
export async function listCurrentTerms(ctx: AppContext, userType: string, language?: string | null) {
  const rows = await currentTerms(ctx.db, userType);
  return rows.map((row) => view(row, language ?? DEFAULT_LANGUAGE));
}

/** The current terms the caller has not accepted; a new version of a term appears here again. */
export async function pendingTerms(ctx: AppContext, auth: AuthContext, language?: string | null) {
  if (!auth.userId) return [];
  const user = await findUserTypeAndLanguage(ctx.db, auth.userId);
  if (!user) return [];
  const rows = await currentTerms(ctx.db, user.type);
  const accepted = await acceptedTermIds(
    ctx.db,
    auth.userId,
    rows.map((r) => r.id),
  );
  return rows
    .filter((row) => !accepted.has(row.id))
    .map((row) => ({ ...view(row, language ?? user.language), newTerm: true }));
}

/** Records the acceptance of current terms of the caller's user type, with the time. */
export async function acceptTerms(ctx: AppContext, auth: AuthContext, termIds: string[]) {
  const acceptedAt = ctx.clock.now().toISOString();
  const user = auth.userId ? await findUserTypeAndLanguage(ctx.db, auth.userId) : undefined;
  if (!auth.userId || !user) throw badRequest(TermMessage.termNotCurrent);
  const current = new Set((await currentTerms(ctx.db, user.type)).map((r) => r.id));
  const unique = [...new Set(termIds)];
  if (unique.some((id) => !current.has(id))) throw badRequest(TermMessage.termNotCurrent);
  await insertAcceptances(ctx.db, auth.userId, unique, acceptedAt);
  return { accepted: unique, acceptedAt };
}

/** Registration with the terms box ticked: the new account accepts its type's current terms. */
export async function acceptCurrentTermsOnCreation(ctx: AppContext, db: Db, userId: string, userType: string) {
  const rows = await currentTerms(db, userType);
  await insertAcceptances(
    db,
    userId,
    rows.map((r) => r.id),
    ctx.clock.now().toISOString(),
  );
}
