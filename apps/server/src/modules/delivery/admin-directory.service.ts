import { BRAZILIAN_STATES, type BrazilianState } from '@portal/shared/limits';
import { normalizeLanguage } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { allInstitutions, institutionById, tagsOfUser, userByEmail } from './admin-directory.repository.js';
import { MUNICIPALITIES } from './municipalities.js';

type Institution = NonNullable<Awaited<ReturnType<typeof institutionById>>>;

function publicInstitution(i: Institution) {
  return {
    id: i.id,
    code: i.code,
    name: i.name,
    token: i.token,
    viewType: i.viewType,
    logoPath: i.logoPath,
    supportEmail: i.supportEmail,
    supportPhoneNumber: i.supportPhoneNumber,
    supportWhatsAppNumber: i.supportWhatsappNumber,
  };
}

/** The caller as an administrator; the session check already read its account. */
function administrator(auth: AuthContext) {
  if (auth.role !== 'ADMIN' && auth.role !== 'COMPANY') throw forbidden();
  return { role: auth.role, institutionId: auth.account?.institutionId ?? null };
}

/** GET userlogged/institutionAdmin: the institution a company user administers (admins: none, they reach all). */
export async function loggedUserInstitution(ctx: AppContext, auth: AuthContext) {
  const actor = administrator(auth);
  if (actor.role === 'ADMIN' || !actor.institutionId) return null;
  const institution = await institutionById(ctx.db, actor.institutionId);
  return institution ? publicInstitution(institution) : null;
}

/** GET listOfPartnerClinics: every institution for admins, their own for company users. */
export async function partnerClinics(ctx: AppContext, auth: AuthContext) {
  const actor = administrator(auth);
  const rows = await allInstitutions(ctx.db);
  return rows.filter((r) => actor.role === 'ADMIN' || r.id === actor.institutionId).map(publicInstitution);
}

/** GET city/state/{uf}: IBGE's municipalities of a federative unit, the capital first. */
export function municipalitiesOf(uf: string) {
  const state = uf.toUpperCase();
  if (!(BRAZILIAN_STATES as readonly string[]).includes(state)) throw notFound();
  return MUNICIPALITIES[state as BrazilianState].map((m) => ({ ...m, uf: state }));
}

/** GET user?userName&language: an account by e-mail; company users see their institution's only. */
export async function findUser(ctx: AppContext, auth: AuthContext, userName: string, language?: string) {
  const actor = administrator(auth);
  const user = await userByEmail(ctx.db, userName.trim().toLowerCase());
  if (!user || (actor.role === 'COMPANY' && user.institutionId !== actor.institutionId)) throw notFound();
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    type: user.type,
    active: user.active === 1,
    disabled: user.disabled === 1,
    language: normalizeLanguage(language) ?? normalizeLanguage(user.language) ?? 'pt-br',
    institutionId: user.institutionId,
  };
}

/** GET institutionUserTags: the caller's tags, as the tag selector shows them (spec 3). */
export async function institutionUserTags(ctx: AppContext, auth: AuthContext) {
  if (!auth.userId || (auth.role !== 'PHYSICIAN' && auth.role !== 'EXTERNAL')) return [];
  const tags = await tagsOfUser(ctx.db, auth.userId);
  return tags.map(({ favoriteTagId, ...t }) => ({ ...t, value: t.id, text: t.tag, favorite: favoriteTagId === t.id }));
}
