import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';

/** ADMIN_EMAIL / ADMIN_PASSWORD at start create the first admin when it does not exist yet. */
export async function ensureAdminAccount(ctx: AppContext, admin: { email: string; password: string }): Promise<void> {
  const existing = await ctx.db.selectFrom('users').select('id').where('email', '=', admin.email).executeTakeFirst();
  if (existing) return;
  const now = ctx.clock.now().toISOString();
  await ctx.db
    .insertInto('users')
    .values({
      id: newId(),
      type: 'ADMIN',
      email: admin.email,
      passwordHash: await hashPassword(admin.password),
      name: 'Administrator',
      active: 1,
      disabled: 0,
      mfaEnabled: 0,
      frequencyReceiveEmail: 'DISABLED',
      language: 'pt-br',
      createdAt: now,
      updatedAt: now,
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  ctx.log.info({ email: admin.email }, 'admin account created');
}
