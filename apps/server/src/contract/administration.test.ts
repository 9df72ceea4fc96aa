import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAccount } from '../modules/auth/auth.test-support.js';
import { bearer } from '../test/helpers.js';
import { type ContractWorld, expectError, ingestProtocol, login, startContractWorld } from '../test/contract-world.js';

/* Contract section 6, the account calls of section 7 and the status codes section 8 decides. */

let world: ContractWorld;
const app = () => world.portal.app;

beforeAll(async () => {
  world = await startContractWorld();
});
afterAll(async () => world.portal.destroy());

describe('administration API (contract 6)', () => {
  test('duplicate institution code 409; unknown customLoginPage code 404; the page of a known code', async () => {
    const dup = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: world.institution.code, name: 'Copia', viewType: 1 },
    });
    expectError(dup, 409);
    expectError(await app().inject({ method: 'GET', url: '/api/v2/auth/institution/customLoginPage?code=NOPE' }), 404);
    const page = await app().inject({
      method: 'GET',
      url: `/api/v2/auth/institution/customLoginPage?code=${world.institution.code.toLowerCase()}`,
    });
    expect(page.statusCode).toBe(200);
  });

  test('a company user reaches his own institution only; another one is 404', async () => {
    const company = await createAccount(world.portal.ctx, {
      type: 'COMPANY',
      email: 'staff@clinica.test',
      password: 'Senha-forte-1',
      institutionId: world.institution.id,
    });
    expect(company).toBeTruthy();
    const session = await login(world, { userName: 'staff@clinica.test', password: 'Senha-forte-1', appKey: 'admin' });
    const token = session.json<{ data: { accessToken: string } }>().data.accessToken;
    const other = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: 'VIZINHA', name: 'Vizinha', viewType: 1 },
    });
    const otherId = other.json<{ data: { id: string } }>().data.id;
    const own = await app().inject({
      method: 'GET',
      url: `/api/administrationbe/institution/${world.institution.id}`,
      headers: bearer(token),
    });
    expect(own.statusCode).toBe(200);
    expectError(
      await app().inject({
        method: 'GET',
        url: `/api/administrationbe/institution/${otherId}`,
        headers: bearer(token),
      }),
      404,
    );
    expectError(
      await app().inject({
        method: 'GET',
        url: `/api/administrationbe/institution/${otherId}/tags`,
        headers: bearer(token),
      }),
      404,
    );
    // Spec 7.2: tags and their sub-paths answer GET, POST, PUT and DELETE.
    const tag = await app().inject({
      method: 'POST',
      url: `/api/administrationbe/institution/${otherId}/tags`,
      headers: bearer(world.adminToken),
      payload: { tag: 'Convenio B' },
    });
    const tagId = tag.json<{ data: { id: string } }>().data.id;
    const read = await app().inject({
      method: 'GET',
      url: `/api/administrationbe/institution/${otherId}/tags/${tagId}`,
      headers: bearer(world.adminToken),
    });
    expect(read.json()).toEqual({ data: { id: tagId, tag: 'Convenio B' } });
    expectError(
      await app().inject({
        method: 'GET',
        url: `/api/administrationbe/institution/${otherId}/tags/${tagId}`,
        headers: bearer(token),
      }),
      404,
    );
  });
});

describe('account calls of contract 7', () => {
  test('change password and change e-mail take the contract’s fields', async () => {
    const id = await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'troca@paciente.test',
      password: 'Senha-forte-1',
    });
    const token = await world.portal.sessionFor({ role: 'PATIENT', userId: id, username: 'troca@paciente.test' });
    const pass = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/changePassword',
      headers: bearer(token),
      payload: { currentPassword: 'Senha-forte-1', newPassword: 'Senha-nova-2', confirmNewPassword: 'Senha-nova-2' },
    });
    expect(pass.statusCode).toBe(200);
    const wrong = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/changeEmail',
      headers: bearer(token),
      payload: { currentPassword: 'nao-e-essa', newEmail: 'novo@paciente.test', confirmNewEmail: 'novo@paciente.test' },
    });
    expect(wrong.statusCode).toBeGreaterThanOrEqual(400);
    expect(wrong.json<{ message: string }>().message).toBe('Actual password is incorrect');
    const mail = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/changeEmail',
      headers: bearer(token),
      payload: {
        currentPassword: 'Senha-nova-2',
        newEmail: 'novo@paciente.test',
        confirmNewEmail: 'novo@paciente.test',
      },
    });
    expect(mail.statusCode).toBe(200);
  });

  test('accept terms with {"termIds": […]} and save the favourite group with {"tagId"}', async () => {
    const id = await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'termos@paciente.test',
      password: 'Senha-forte-1',
    });
    const token = await world.portal.sessionFor({ role: 'PATIENT', userId: id, username: 'termos@paciente.test' });
    const pending = await app().inject({ method: 'GET', url: '/api/v2/delivery/term/user', headers: bearer(token) });
    expect(pending.statusCode).toBe(200);
    const terms = pending.json<{ data: Array<{ id: string }> }>().data;
    if (terms.length > 0) {
      const accept = await app().inject({
        method: 'POST',
        url: '/api/v2/delivery/term/user',
        headers: bearer(token),
        payload: { termIds: terms.map((t) => t.id) },
      });
      expect(accept.statusCode).toBeLessThan(300);
    }

    const tag = await app().inject({
      method: 'POST',
      url: `/api/administrationbe/institution/${world.institution.id}/tags`,
      headers: bearer(world.adminToken),
      payload: { tag: 'Grupo Favorito' },
    });
    const tagId = tag.json<{ data: { id: string } }>().data.id;
    await app().inject({
      method: 'POST',
      url: `/api/administrationbe/institution/${world.institution.id}/tags/${tagId}/users`,
      headers: bearer(world.adminToken),
      payload: { email: 'grupo@externo.test', name: 'Externo', language: 'pt-br' },
    });
    const external = await world.portal.ctx.db
      .selectFrom('users')
      .select(['id'])
      .where('email', '=', 'grupo@externo.test')
      .executeTakeFirstOrThrow();
    const externalToken = await world.portal.sessionFor({
      role: 'EXTERNAL',
      userId: external.id,
      username: 'grupo@externo.test',
    });
    const saved = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/externaluser/edit',
      headers: bearer(externalToken),
      payload: { tagId },
    });
    expect(saved.statusCode).toBe(200);
    await ingestProtocol(world, '740001', { tag: 'Grupo Favorito' });
    const listed = await app().inject({
      method: 'GET',
      url: '/api/v2/delivery/protocols/listedByTags?size=1000',
      headers: bearer(externalToken),
    });
    expect(listed.statusCode).toBe(200);
    const page = listed.json<{ data: { items: Array<{ number: string }>; size: number } }>().data;
    expect(page.size).toBe(100);
    expect(page.items.map((p) => p.number)).toContain('740001');
  });
});
