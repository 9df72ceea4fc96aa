import { AccountMessage } from '@portal/shared/messages';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeTag, makeUser } from '../delivery/test-factories.js';

const IN_FLIGHT = 32;
const NOW = new Date().toISOString();
const BASE = '/api/administrationbe';

/** The statuses of calls sent in turns: the even ones and the odd ones. */
function statusesByTurn(answers: ReadonlyArray<{ statusCode: number }>) {
  return {
    even: answers.filter((_, i) => i % 2 === 0).map((a) => a.statusCode),
    odd: answers.filter((_, i) => i % 2).map((a) => a.statusCode),
  };
}

/** One deletion deleted (200); every other found the tag gone (404). */
function expectDeletedOnce(deletions: number[]): void {
  expect(
    deletions.filter((s) => s === 200),
    deletions.join(','),
  ).toHaveLength(1);
  expect(
    deletions.filter((s) => s !== 200).every((s) => s === 404),
    deletions.join(','),
  ).toBe(true);
}

/**
 * An institution's tags changed by many console calls at once: a tag is deleted once (one trail
 * entry), members added meanwhile go with it or are refused, and a name two tags reach for at the
 * same time goes to one of them while the others are told it is taken (never a server error), and
 * a favourite saved while its tag is deleted, or while its member is taken out of it, does not
 * outlive his membership.
 */
describe('tags under concurrent console calls', () => {
  let portal: TestPortal;
  let admin = '';
  let institutionId = '';
  const call = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    portal.app.inject({ method, url, headers: bearer(admin), ...(payload ? { payload } : {}) });
  /** An external user's favourite group, saved from his account screen. */
  const saveFavourite = (token: string, tagId: string) =>
    portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/externaluser/edit',
      headers: bearer(token),
      payload: { tagId },
    });
  const newTag = async (tag: string) =>
    (await call('POST', `${BASE}/institution/${institutionId}/tags`, { tag })).json().data.id as string;
  const trail = (event: string, tagId: string) =>
    portal.ctx.db
      .selectFrom('auditEvents')
      .select('id')
      .where('event', '=', event)
      .where('macro', 'like', `%${tagId}%`)
      .execute();

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx, { name: 'Clinica Tags' })).id;
    const user = await makeUser(portal.ctx, { type: 'ADMIN', name: 'Admin' });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: user.id, username: user.email });
  });
  afterAll(async () => portal?.destroy());

  it(`deletes a tag once when deletions and member additions, ${IN_FLIGHT} in all, are in flight`, async () => {
    const tagId = await newTag('Cardiologia');
    const url = `${BASE}/institution/${institutionId}/tags/${tagId}`;
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        i % 2
          ? call('DELETE', url)
          : call('POST', `${url}/users`, { email: `externo${i}@mail.test`, name: `Externo ${i}` }),
      ),
    );
    const { odd: deletions, even: additions } = statusesByTurn(answers);
    expectDeletedOnce(deletions);
    expect(
      additions.every((s) => s === 201 || s === 404),
      additions.join(','),
    ).toBe(true);
    expect(await trail('TAG_DELETED', tagId)).toHaveLength(1);
    expect(await portal.ctx.db.selectFrom('tags').select('id').where('id', '=', tagId).execute()).toEqual([]);
    expect(await portal.ctx.db.selectFrom('tagMembers').select('userId').where('tagId', '=', tagId).execute()).toEqual(
      [],
    );
  });

  it(`gives a name to one tag when ${IN_FLIGHT} renames of four tags to it are in flight`, async () => {
    const ids = [await newTag('Norte'), await newTag('Sul'), await newTag('Leste'), await newTag('Oeste')];
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        call('PUT', `${BASE}/institution/${institutionId}/tags/${ids[i % ids.length]}`, { tag: 'Centro' }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(','),
    ).toBe(true);
    for (const a of answers.filter((x) => x.statusCode === 409)) {
      expect(a.json().message).toBe(AccountMessage.tagAlreadyExists);
    }
    const named = await portal.ctx.db
      .selectFrom('tags')
      .select('id')
      .where('institutionId', '=', institutionId)
      .where('tag', '=', 'Centro')
      .execute();
    expect(named).toHaveLength(1);
    // Every rename answered 200 renamed that tag.
    const winners = new Set(answers.flatMap((a, i) => (a.statusCode === 200 ? [ids[i % ids.length]] : [])));
    expect([...winners]).toEqual([named[0]!.id]);
  });

  it(`leaves no deleted tag as a favourite when ${IN_FLIGHT} favourite saves and deletions are in flight`, async () => {
    const external = await makeUser(portal.ctx, { type: 'EXTERNAL', name: 'Externo Favorito' });
    const token = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
    const { id: tagId } = await makeTag(portal.ctx, institutionId, [external.id], 'Favorito');
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        i % 2 ? call('DELETE', `${BASE}/institution/${institutionId}/tags/${tagId}`) : saveFavourite(token, tagId),
      ),
    );
    const { odd: deletions, even: saves } = statusesByTurn(answers);
    expectDeletedOnce(deletions);
    expect(
      saves.every((s) => s === 200 || s === 404),
      saves.join(','),
    ).toBe(true);
    const saved = await portal.ctx.db
      .selectFrom('users')
      .select('favoriteTagId')
      .where('id', '=', external.id)
      .executeTakeFirstOrThrow();
    expect(saved.favoriteTagId).toBeNull();
  });

  it(`leaves no favourite to a member taken out of the tag when ${IN_FLIGHT} saves and removals are in flight, in four rounds`, async () => {
    const external = await makeUser(portal.ctx, { type: 'EXTERNAL', name: 'Externo Removido' });
    const token = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
    const { id: tagId } = await makeTag(portal.ctx, institutionId, [], 'Removido');
    const memberUrl = `${BASE}/institution/${institutionId}/tags/${tagId}/users/${external.id}`;
    const save = () => saveFavourite(token, tagId);
    // Half the saves leave first; the removals and the other half leave a little later each round,
    // so that saves land before, between and after the removal.
    const allSaves: number[] = [];
    for (const [round, lateMs] of [0, 2, 5, 10].entries()) {
      await portal.ctx.db.insertInto('tagMembers').values({ tagId, userId: external.id, createdAt: NOW }).execute();
      const answers = await Promise.all(
        Array.from({ length: IN_FLIGHT }, (_, i) =>
          i % 2
            ? sleep(lateMs).then(() => call('DELETE', memberUrl))
            : i < IN_FLIGHT / 2
              ? save()
              : sleep(lateMs).then(save),
        ),
      );
      const { odd: removals, even: saves } = statusesByTurn(answers);
      allSaves.push(...saves);
      // One removal took him out; the others found him gone.
      expectDeletedOnce(removals);
      expect(
        saves.every((s) => s === 200 || s === 404),
        saves.join(','),
      ).toBe(true);
      const left = await portal.ctx.db
        .selectFrom('users')
        .select('favoriteTagId')
        .where('id', '=', external.id)
        .executeTakeFirstOrThrow();
      expect(left.favoriteTagId, `round ${round}: ${saves.join(',')}`).toBeNull();
      const member = await portal.ctx.db
        .selectFrom('tagMembers')
        .select('userId')
        .where('tagId', '=', tagId)
        .where('userId', '=', external.id)
        .execute();
      expect(member).toEqual([]);
    }
    // Saves landed on both sides of a removal: some kept the favourite for a while, some came too late.
    expect(allSaves).toContain(200);
    expect(allSaves).toContain(404);
    expect(await trail('TAG_USER_REMOVED', tagId)).toHaveLength(4);
  });
});
