import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeUser } from '../delivery/test-factories.js';

const IN_FLIGHT = 32;

/**
 * An institution's release holds replaced by many console calls at once: each call replaces the
 * whole list, so what stays is one call's list, and the trail tells the changes in the order they
 * took effect (each one's "before" is the "after" of the one before it).
 */
describe('release hold rules under concurrent replacements', () => {
  let portal: TestPortal;
  let admin = '';
  let institutionId = '';

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx, { name: 'Clinica Corrida' })).id;
    const user = await makeUser(portal.ctx, { type: 'ADMIN', name: 'Admin' });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: user.id, username: user.email });
  });
  afterAll(async () => portal?.destroy());

  it(`keeps one call's rules when ${IN_FLIGHT} replacements are in flight`, async () => {
    const url = `/api/administrationbe/institution/${institutionId}/hold-rules`;
    // Each call holds one exam type of its own and lifts every other one.
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        portal.app.inject({
          method: 'PUT',
          url,
          headers: bearer(admin),
          payload: { rules: [{ examTypeCode: `TIPO${i}`, rule: 'PHYSICIAN' }] },
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    const stored = (await portal.app.inject({ method: 'GET', url, headers: bearer(admin) })).json().data.rules as {
      examTypeCode: string;
    }[];
    expect(stored).toHaveLength(1);

    const trail = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['macro'])
      .where('event', '=', 'HOLD_RULES_CHANGED')
      .execute();
    expect(trail).toHaveLength(IN_FLIGHT);
    type Rules = { examTypeCode: string }[];
    const codes = (rules: Rules) => rules.map((r) => r.examTypeCode).join(',');
    const changes = trail.map((t) => JSON.parse(t.macro!) as { before: Rules; after: Rules });
    // One after the other: the first found none, each later one found what one earlier call left,
    // and only the list stored now was found by none.
    const found = changes.map((c) => codes(c.before)).sort();
    const left = changes.map((c) => codes(c.after)).filter((c) => c !== codes(stored));
    expect(found).toEqual(['', ...left].sort());
  });
});
