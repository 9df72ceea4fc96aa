import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lib/ids.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeUser, mailsTo } from '../accounts/test-factories.js';
import { createInstitution } from '../institutions/institution.service.js';

const BASE = '/api/v2/delivery/ingest/protocols';
const INVITE_LINK = /http:\/\/portal\.test\/patient\/create\?token=([\w-]+)&language=pt-br/;

/**
 * `autoInvitePatients` (spec 3's invitation status AUTO_INVITE): a protocol ingested for a patient
 * without an account mails him the invitation by itself, once per patient, through the outbox.
 */
describe('automatic patient invitations on ingest', () => {
  let portal: TestPortal;
  let admin: string;
  let inviting: { id: string; apiKey: string };
  let quiet: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };

  const put = (apiKey: string, number: string, patient: Record<string, unknown>) =>
    portal.app.inject({
      method: 'PUT',
      url: `${BASE}/${number}`,
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'senha-protocolo',
        requestedAt: '2026-11-20T09:00:00-03:00',
        patient: { name: 'Beatriz Nunes', birthDate: '1990-02-03', gender: 'F', ...patient },
        exams: [
          {
            examKey: `${number}-E1`,
            description: 'Glicemia de jejum',
            type: 'LAB',
            modalityCode: 'LAB',
            modalityName: 'Laboratório',
            status: 'PENDING',
          },
        ],
      },
    });
  const invitationsTo = async (email: string) =>
    (await mailsTo(portal.ctx, email)).filter((m) => m.text.includes('/patient/create?token='));
  const tokensOf = (email: string) =>
    portal.ctx.db
      .selectFrom('oneTimeTokens')
      .selectAll()
      .where('email', '=', email)
      .where('kind', '=', 'INVITE_PATIENT')
      .execute();
  const settingsOf = async (id: string) => {
    const res = await portal.app.inject({
      method: 'GET',
      url: `/api/administrationbe/institution/${id}`,
      headers: bearer(admin),
    });
    if (res.statusCode !== 200) throw new Error(res.body);
    return res.json().data.settings as Record<string, unknown>;
  };

  beforeAll(async () => {
    portal = await startTestPortal();
    const user = await makeUser(portal.ctx, { type: 'ADMIN', email: 'admin@portal.test' });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: user.id, username: user.email, appKey: 'admin' });
    const open = async (code: string, name: string, settings?: { autoInvitePatients: boolean }) => {
      const { institution, apiKey } = await createInstitution(portal.ctx, { code, name, viewType: 2, settings });
      return { id: institution.id, apiKey };
    };
    inviting = await open('CONVIDA', 'Clínica Convida');
    quiet = await open('CALADA', 'Clínica Calada');
    other = await open('OUTRA', 'Outra Clínica', { autoInvitePatients: true });
  });
  afterAll(async () => portal?.destroy());

  it('is off by default; an admin turns it on in the institution settings and reads it back', async () => {
    expect(await settingsOf(inviting.id)).toMatchObject({ autoInvitePatients: false });
    // Off: a new patient's protocol mails no invitation.
    expect((await put(quiet.apiKey, 'Q-1', { patientId: 'Q1', email: 'quieta@mail.test' })).statusCode).toBe(201);
    expect(await invitationsTo('quieta@mail.test')).toEqual([]);
    expect(await tokensOf('quieta@mail.test')).toEqual([]);

    const changed = await portal.app.inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${inviting.id}`,
      headers: bearer(admin),
      payload: { settings: { autoInvitePatients: true } },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data.settings).toMatchObject({ autoInvitePatients: true, shareEnabled: true });
    expect(await settingsOf(inviting.id)).toMatchObject({ autoInvitePatients: true });
    expect(await settingsOf(quiet.id)).toMatchObject({ autoInvitePatients: false });
  });

  it('invites a new patient once with status AUTO_INVITE; the invitation creates his account with the protocol', async () => {
    expect((await put(inviting.apiKey, 'A-1', { patientId: 'P-1', email: 'Beatriz@Mail.test' })).statusCode).toBe(201);
    // A second protocol and a re-send of the first: still the one invitation.
    expect((await put(inviting.apiKey, 'A-2', { patientId: 'P-1', email: 'beatriz@mail.test' })).statusCode).toBe(201);
    expect((await put(inviting.apiKey, 'A-1', { patientId: 'P-1', email: 'beatriz@mail.test' })).statusCode).toBe(200);

    const [mail, ...more] = await invitationsTo('beatriz@mail.test');
    expect(more).toEqual([]);
    expect(mail!.text).toContain('Clínica Convida');
    const token = INVITE_LINK.exec(mail!.text)![1]!;
    const [stored, ...others] = await tokensOf('beatriz@mail.test');
    expect(others).toEqual([]);
    expect(stored).toMatchObject({ status: 'AUTO_INVITE', tokenHash: sha256Hex(token), institutionId: inviting.id });
    expect(JSON.stringify(stored)).not.toContain(token);

    // The link shows the invited e-mail and name, and creates an active account with protocol A-1.
    const info = await portal.app.inject({ method: 'GET', url: `/api/auth/user/validate?token=${token}` });
    expect(info.json().data).toMatchObject({ email: 'beatriz@mail.test', name: 'Beatriz Nunes' });
    const created = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/create',
      payload: {
        token,
        name: 'Beatriz Nunes',
        password: 'Gaivota-Azul-7',
        confirmPassword: 'Gaivota-Azul-7',
        dateOfBirth: '03/02/1990',
        language: 'pt-br',
        serviceTerms: true,
      },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ active: true });
    expect((await tokensOf('beatriz@mail.test'))[0]).toMatchObject({ status: 'ON_CREATION' });
    const linked = await portal.ctx.db
      .selectFrom('protocols')
      .select(['number', 'patientUserId'])
      .where('number', '=', 'A-1')
      .executeTakeFirstOrThrow();
    expect(linked.patientUserId).toBe(created.json().data.id);

    // With his account in place, a later protocol of a new patient id with his e-mail invites nobody.
    expect((await put(inviting.apiKey, 'A-3', { patientId: 'P-1B', email: 'beatriz@mail.test' })).statusCode).toBe(201);
    expect(await invitationsTo('beatriz@mail.test')).toHaveLength(1);
  });

  it('leaves out patients who already have an account (by e-mail or CPF) and waits for an e-mail', async () => {
    await makeUser(portal.ctx, { type: 'PATIENT', email: 'carla@mail.test' });
    await makeUser(portal.ctx, { type: 'PATIENT', email: 'outro@mail.test', cpf: '52998224725' });
    await put(inviting.apiKey, 'B-1', { patientId: 'P-2', email: 'carla@mail.test' });
    await put(inviting.apiKey, 'B-2', { patientId: 'P-3', email: 'davi@mail.test', cpf: '529.982.247-25' });
    expect(await invitationsTo('carla@mail.test')).toEqual([]);
    expect(await invitationsTo('davi@mail.test')).toEqual([]);

    // No e-mail yet: nothing to send, and nothing taken; the first protocol with an e-mail invites.
    await put(inviting.apiKey, 'C-1', { patientId: 'P-4' });
    expect(
      await portal.ctx.db
        .selectFrom('patientAutoInvitations')
        .selectAll()
        .where('patientExternalId', '=', 'P-4')
        .execute(),
    ).toEqual([]);
    await put(inviting.apiKey, 'C-2', { patientId: 'P-4', email: 'elisa@mail.test' });
    expect(await invitationsTo('elisa@mail.test')).toHaveLength(1);
  });

  it('sends exactly one invitation when 32 ingests of the same new patient are in flight', async () => {
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        put(inviting.apiKey, `R-${i % 8}`, { patientId: 'P-RACE', email: 'fabio@mail.test' }),
      ),
    );
    expect(answers.map((a) => a.statusCode).every((s) => s === 200 || s === 201)).toBe(true);
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(8);
    expect(await invitationsTo('fabio@mail.test')).toHaveLength(1);
    const tokens = await tokensOf('fabio@mail.test');
    expect(tokens.map((t) => t.status)).toEqual(['AUTO_INVITE']);
    const claimed = await portal.ctx.db
      .selectFrom('patientAutoInvitations')
      .selectAll()
      .where('patientExternalId', '=', 'P-RACE')
      .execute();
    expect(claimed).toEqual([expect.objectContaining({ institutionId: inviting.id, tokenId: tokens[0]!.id })]);
  });

  it('invites per institution: the same patient id at another inviting institution gets its own invitation', async () => {
    await put(other.apiKey, 'O-1', { patientId: 'P-RACE', email: 'fabio@mail.test' });
    const mails = await invitationsTo('fabio@mail.test');
    expect(mails).toHaveLength(2);
    expect(mails[1]!.text).toContain('Outra Clínica');
  });

  it('keeps the manual invite call a retry of the automatic one for a day', async () => {
    await put(inviting.apiKey, 'M-1', { patientId: 'P-M', email: 'gil@mail.test' });
    const res = await portal.app.inject({
      method: 'POST',
      url: `${BASE}/M-1/invite`,
      headers: { 'x-api-key': inviting.apiKey },
    });
    expect(res.statusCode).toBe(200);
    expect(await invitationsTo('gil@mail.test')).toHaveLength(1);
  });
});
