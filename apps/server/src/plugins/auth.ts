import type { FastifyRequest } from 'fastify';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from '../context.js';
import { type Db, heldRow, SEPARATOR, type SqlReader } from '../db/database.js';
import type { SessionRole, SessionTable } from '../db/schema.js';
import { addMs } from '../lib/clock.js';
import { AppError, forbidden, unauthorized } from '../lib/errors.js';
import { newId } from '../lib/ids.js';

const ISSUER = 'results-portal';
const AUDIENCE = 'results-portal';

/** The caller of a request, as its session says. */
export interface AuthContext {
  sessionId: string;
  role: SessionRole;
  userId: string | null;
  shareId: string | null;
  username: string;
  institutionCode: string | null;
  appKey: string;
  expiresAt: string;
  /** The account's facts the access rules need, read with the session (null without an account). */
  account: {
    name: string;
    licenseNumber: string | null;
    licenseState: string | null;
    institutionId: string | null;
    /** Physicians and external users: the tags they belong to. */
    tagIds: string[];
    /** Physicians: the institutions that vouched for them (their license opens those only). */
    vouchedInstitutionIds: string[];
  } | null;
  /** Guest and share sessions: the protocols they reach. */
  protocolIds: string[];
  /** Share sessions: the recipient's e-mail. */
  sharedWith: string | null;
  /** The revision of institutions and their visualizer settings when this call began. */
  settingsRevision: number;
  /**
   * Patients, physicians and external users: the sum of the revisions of their list scopes and
   * read marks when this call began (moved by any change their lists would show); 0 for others.
   */
  listRevision: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `authenticate` when the bearer token is valid. */
    auth: AuthContext | null;
  }
}

export interface NewSession {
  role: SessionRole;
  userId?: string | null;
  shareId?: string | null;
  username: string;
  institutionCode?: string | null;
  appKey?: string;
  /** Guest and share sessions: the protocols they reach. */
  protocolIds?: string[];
  /** Defaults to the configured session lifetime; a share session ends with its share. */
  expiresAt?: Date;
  /**
   * A sign-in with a password: the hash the password was checked against. The session is made
   * only while it is still the account's, with the account's row held, so a sign-in checked just
   * before a password change cannot open a session after the change ended the others.
   */
  passwordHash?: string | null;
}

/** The account's password changed between the check of a sign-in and its session. */
export class PasswordChangedMeanwhile extends Error {
  constructor() {
    super('The password changed while the sign-in was checked');
  }
}

/** Creates a revocable session row and signs its token (HS256 JWT). */
export async function issueSession(
  ctx: AppContext,
  input: NewSession,
): Promise<{ accessToken: string; sessionId: string; expiresAt: Date }> {
  const now = ctx.clock.now();
  const id = newId();
  const expiresAt = input.expiresAt ?? addMs(now, ctx.config.sessionTtlMs);
  await ctx.db.transaction().execute(async (trx) => {
    if (input.passwordHash !== undefined) {
      // PostgreSQL: a password change (an UPDATE of this row) waits for this session or is waited
      // for, then read again; SQLite runs one transaction at a time.
      const account = trx
        .selectFrom('users')
        .select('passwordHash')
        .where('id', '=', input.userId ?? '');
      const row = await heldRow(account, ctx.dialect, 'share').executeTakeFirst();
      if (!row || row.passwordHash !== input.passwordHash) throw new PasswordChangedMeanwhile();
    }
    await trx
      .insertInto('sessions')
      .values({
        id,
        role: input.role,
        userId: input.userId ?? null,
        shareId: input.shareId ?? null,
        username: input.username,
        institutionCode: input.institutionCode ?? null,
        appKey: input.appKey ?? 'login',
        createdAt: now.toISOString(),
        expiresAt: expiresAt.toISOString(),
        revokedAt: null,
      })
      .execute();
    const protocolIds = [...new Set(input.protocolIds ?? [])];
    for (let i = 0; i < protocolIds.length; i += 500) {
      await trx
        .insertInto('sessionProtocols')
        .values(protocolIds.slice(i, i + 500).map((protocolId) => ({ sessionId: id, protocolId })))
        .execute();
    }
  });
  const jwt = new SignJWT({ role: input.role, ...(input.institutionCode ? { code: input.institutionCode } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.userId ?? input.username)
    .setJti(id)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
  const accessToken = await jwt.sign(ctx.jwtSecret);
  return { accessToken, sessionId: id, expiresAt };
}

export async function revokeSession(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db
    .updateTable('sessions')
    .set({ revokedAt: ctx.clock.now().toISOString() })
    .where('id', '=', sessionId)
    .where('revokedAt', 'is', null)
    .execute();
}

/** Revokes every live session of a user, except `keepSessionId` when given. */
export async function revokeUserSessions(
  ctx: AppContext,
  userId: string,
  keepSessionId?: string,
  db: Db = ctx.db,
): Promise<void> {
  let q = db
    .updateTable('sessions')
    .set({ revokedAt: ctx.clock.now().toISOString() })
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null);
  if (keepSessionId) q = q.where('id', '!=', keepSessionId);
  await q.execute();
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1];
}

const verifyKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/** The secret imported once: importing it again for every verification costs as much as the check. */
function verifyKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = verifyKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    verifyKeys.set(secret, key);
  }
  return key;
}

interface VerifiedClaims {
  jti?: string;
  sub?: string;
  exp?: number;
}

/**
 * Tokens whose signature and claims were verified, so a session's later calls skip the HMAC
 * (the session row is still read on every call). Expiry is checked again each time.
 */
const verifiedBySecret = new WeakMap<Uint8Array, Map<string, VerifiedClaims>>();
const VERIFIED_TOKENS_KEPT = 10_000;

async function verifiedClaims(ctx: AppContext, token: string): Promise<VerifiedClaims> {
  // Kept per signing secret: a token is only ever taken as verified by the secret that verified it.
  let verifiedTokens = verifiedBySecret.get(ctx.jwtSecret);
  if (!verifiedTokens) {
    verifiedTokens = new Map();
    verifiedBySecret.set(ctx.jwtSecret, verifiedTokens);
  }
  const known = verifiedTokens.get(token);
  if (known && known.exp !== undefined && known.exp * 1000 > ctx.clock.now().getTime()) return known;
  let payload;
  try {
    ({ payload } = await jwtVerify(token, await verifyKey(ctx.jwtSecret), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: ctx.clock.now(),
    }));
  } catch (error) {
    verifiedTokens.delete(token);
    if (error instanceof joseErrors.JWTExpired) {
      // A share link outliving its share must say so in the words the web app looks for.
      throw unauthorized(error.payload.role === 'SHARE' ? ServerMessage.shareExpired : 'Session expired.');
    }
    throw unauthorized();
  }
  const claims: VerifiedClaims = { jti: payload.jti, sub: payload.sub, exp: payload.exp };
  if (verifiedTokens.size >= VERIFIED_TOKENS_KEPT) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, claims);
  return claims;
}

type SessionCheckRow = Omit<SessionTable, 'createdAt'> & {
  accountId: string | null;
  accountDisabled: number | null;
  accountName: string | null;
  licenseNumber: string | null;
  licenseState: string | null;
  accountInstitutionId: string | null;
  tagIds: string | null;
  vouchedInstitutionIds: string | null;
  shareActive: number | null;
  shareExpiresAt: string | null;
  shareEmail: string | null;
  protocolIds: string | null;
  liveProtocol: number | null;
  settingsRevision: number;
  listRevision: number | string | null;
};

/**
 * The session, its account and the account's tags, its share, (guests and shares) its protocols
 * and whether one of them is still enabled, the revision of the institutions' settings and that of
 * the caller's lists (list_revisions), in one prepared statement: this runs on every authenticated call, and a list needs nothing else to
 * know who is asking. The lists' revision is the sum of the caller's scopes (reader, patient,
 * license, tags: prefixes that never collide), each scope looked up by its key: the same sum as
 * `scope in (a union of the scopes)`, which built a temporary table on every call (on SQLite about
 * 30 of the statement's 40 µs).
 */
function sessionCheckSql(r: SqlReader): string {
  return `select s.id, s.role, s.user_id as "userId", s.share_id as "shareId", s.username,
    s.institution_code as "institutionCode", s.app_key as "appKey", s.expires_at as "expiresAt",
    s.revoked_at as "revokedAt", u.id as "accountId", u.disabled as "accountDisabled", u.name as "accountName",
    u.license_number as "licenseNumber", u.license_state as "licenseState", u.institution_id as "accountInstitutionId",
    case when s.role in ('PHYSICIAN', 'EXTERNAL') then (select ${r.joined('tm.tag_id', 'tm.tag_id')}
      from tag_members tm where tm.user_id = s.user_id) end as "tagIds",
    case when s.role = 'PHYSICIAN' then (select ${r.joined('pv.institution_id', 'pv.institution_id')}
      from physician_vouches pv where pv.user_id = s.user_id) end as "vouchedInstitutionIds",
    sh.active as "shareActive", sh.expires_at as "shareExpiresAt", sh.email as "shareEmail",
    case when s.role in ('GUEST', 'SHARE') then (select ${r.joined('sp.protocol_id', 'sp.protocol_id')}
      from session_protocols sp where sp.session_id = s.id) end as "protocolIds",
    case when s.role = 'GUEST' then (select 1 from session_protocols sp join protocols p on p.id = sp.protocol_id
      where sp.session_id = s.id and p.disabled = 0 limit 1) end as "liveProtocol",
    (select rv.revision from revisions rv where rv.name = 'institutions') as "settingsRevision",
    case when s.role in ('PATIENT', 'PHYSICIAN', 'EXTERNAL') then
      coalesce((select lr.revision from list_revisions lr where lr.scope = 'reader:' || s.user_id), 0)
      + case when s.role = 'PATIENT' then
          coalesce((select lr.revision from list_revisions lr where lr.scope = 'patient:' || s.user_id), 0) else 0 end
      + case when s.role = 'PHYSICIAN' then coalesce((select lr.revision from list_revisions lr
          where lr.scope = 'license:' || u.license_number || '/' || upper(u.license_state)), 0) else 0 end
      + case when s.role <> 'PATIENT' then coalesce((select sum(lr.revision) from tag_members tm
          join list_revisions lr on lr.scope = 'tag:' || tm.tag_id where tm.user_id = s.user_id), 0) else 0 end
    end as "listRevision"
  from sessions s left join users u on u.id = s.user_id left join shares sh on sh.id = s.share_id
  where s.id = ?`;
}
const sessionChecks = new WeakMap<SqlReader, string>();

const splitList = (joined: string | null): string[] => (joined ? joined.split(SEPARATOR) : []);

/**
 * Verifies a session token: signature (HS256 only), issuer, audience, expiry, and the session row
 * (revoked, expired, its share ended, its protocols disabled). Throws 401/403 as contract 3 says.
 */
export async function verifyAccessToken(ctx: AppContext, token: string): Promise<AuthContext> {
  const payload = await verifiedClaims(ctx, token);
  if (!payload.jti) throw unauthorized(ServerMessage.userNotInformedOnJwt);
  const reader = ctx.database.reader;
  let text = sessionChecks.get(reader);
  if (!text) {
    text = sessionCheckSql(reader);
    sessionChecks.set(reader, text);
  }
  const [session] = await reader.all<SessionCheckRow>(text, [payload.jti]);
  const now = ctx.clock.now().toISOString();
  if (!session) throw unauthorized();
  // The claims must name the session's own subject: a token is never moved to another session.
  if (payload.sub !== (session.userId ?? session.username)) throw unauthorized();
  if (session.role === 'SHARE') {
    if (!session.shareActive || !session.shareExpiresAt || session.shareExpiresAt <= now || session.revokedAt) {
      throw unauthorized(ServerMessage.shareExpired);
    }
  }
  if (session.revokedAt || session.expiresAt <= now) throw unauthorized();
  if (session.role === 'GUEST' && !session.liveProtocol) throw forbidden(ServerMessage.protocolOrEmailDisabled);
  if (session.userId && (session.accountId === null || session.accountDisabled)) throw unauthorized();
  return {
    sessionId: session.id,
    role: session.role,
    userId: session.userId,
    shareId: session.shareId,
    username: session.username,
    institutionCode: session.institutionCode,
    appKey: session.appKey,
    expiresAt: session.expiresAt,
    account:
      session.accountId === null
        ? null
        : {
            name: session.accountName ?? '',
            licenseNumber: session.licenseNumber,
            licenseState: session.licenseState,
            institutionId: session.accountInstitutionId,
            tagIds: splitList(session.tagIds),
            vouchedInstitutionIds: splitList(session.vouchedInstitutionIds),
          },
    protocolIds: splitList(session.protocolIds),
    sharedWith: session.role === 'SHARE' ? session.shareEmail : null,
    settingsRevision: Number(session.settingsRevision),
    listRevision: Number(session.listRevision ?? 0),
  };
}

/** preHandler: requires a valid bearer token (401 otherwise) and sets `request.auth`. */
export function authenticate(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token) throw unauthorized();
    request.auth = await verifyAccessToken(ctx, token);
  };
}

/** The authenticated caller, or 401. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/** The authenticated caller when its role is one of `roles`, else 403. */
export function requireRole(request: FastifyRequest, ...roles: SessionRole[]): AuthContext {
  const auth = requireAuth(request);
  if (!roles.includes(auth.role)) throw new AppError(403, ServerMessage.forbidden);
  return auth;
}
