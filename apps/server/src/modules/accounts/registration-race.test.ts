import { AccountMessage } from '@portal/shared/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol } from './test-factories.js';

const IN_FLIGHT = 32;

/**
 * One protocol's number and password sent with many sign-ups at once (a leaked printout, or the
 * patient's own double click raced by someone else): one account gets the protocol; no other
 * account is made believing it has it.
 */
describe('patient sign-up with a protocol under concurrent calls', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it(`makes one account with the protocol when ${IN_FLIGHT} sign-ups with it are in flight`, async () => {
    const institution = await makeInstitution(portal.ctx);
    const protocol = await makeProtocol(portal.ctx, { institutionId: institution.id, password: 'abc-123' });
    const emails = Array.from({ length: IN_FLIGHT }, (_, i) => `corrida${i}@mail.test`);
    const answers = await Promise.all(
      emails.map((email, i) =>
        portal.app.inject({
          method: 'POST',
          url: '/api/v2/auth/user/create',
          // Each from its own address: the sign-up pace per address is not what is tried here.
          remoteAddress: `10.7.0.${i + 1}`,
          payload: {
            name: 'Ana Pereira',
            login: email,
            password: 'Horizonte#2026',
            confirmPassword: 'Horizonte#2026',
            dateOfBirth: '17/05/1980',
            language: 'pt-br',
            serviceTerms: true,
            protocol: protocol.number,
            protocolPassword: 'abc-123',
          },
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    // The others are told the protocol is taken; or the protocol number's attempt gate, which
    // lets a few checks of one number run at once, answers 429; or, past the password-hashing
    // queue, the server asks to come back (503).
    for (const a of answers.filter((x) => x.statusCode !== 201)) {
      expect([409, 429, 503], statuses.join(',')).toContain(a.statusCode);
      if (a.statusCode === 409) expect(a.json().message).toBe(AccountMessage.protocolLinkedToAnotherAccount);
    }
    const accounts = await portal.ctx.db.selectFrom('users').select('id').where('email', 'in', emails).execute();
    expect(accounts).toHaveLength(1);
    const winner = answers.find((a) => a.statusCode === 201)!.json().data.id as string;
    expect(accounts[0]!.id).toBe(winner);
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', protocol.id)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBe(winner);
  });
});
