import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeVisualizerSettings, makeWorld } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;

/**
 * Lists keep institutions in memory by revision: what another server process changes on the same
 * database (names, settings, visualizer settings, tag members) shows in this process's next call.
 */
describe('two server processes on one database', () => {
  let first: TestPortal;
  let second: TestPortal;
  let w: World;

  beforeAll(async () => {
    first = await startTestPortal();
    w = await makeWorld(first.ctx, (i) => first.sessionFor(i));
    second = await startTestPortal({ reuse: { env: first.env } });
  });
  afterAll(async () => {
    await second?.close();
    await first?.destroy();
  });

  /** A call to the first process. */
  const get = (url: string, token: string) => first.app.inject({ method: 'GET', url, headers: bearer(token) });
  const ownerItem = async () => {
    const res = await get(
      '/api/v2/delivery/dashboard/protocols?initialDate=01/01/2025&finalDate=31/12/2026',
      w.tokens.owner,
    );
    expect(res.statusCode).toBe(200);
    return res.json().data.items.find((i: { requestId: string }) => i.requestId === w.a.protocol.id);
  };

  it("shows the other process's change of an institution's name and settings at the next call", async () => {
    expect(await ownerItem()).toMatchObject({
      institution: { name: 'Clinica Alfa' },
      hasExamStatusVisualizer: false,
    });
    await second.ctx.db
      .updateTable('institutions')
      .set({ name: 'Clinica Alfa Renomeada', settings: JSON.stringify({ hasExamStatusVisualizer: true }) })
      .where('id', '=', w.institution.id)
      .execute();
    expect(await ownerItem()).toMatchObject({
      institution: { name: 'Clinica Alfa Renomeada' },
      hasExamStatusVisualizer: true,
    });
  });

  it('drops its copy when the revision goes back, as after a database is put back from a backup', async () => {
    await ownerItem();
    await second.ctx.db.updateTable('institutions').set({ name: 'Clinica Restaurada' }).execute();
    await second.ctx.db.updateTable('revisions').set({ revision: 0 }).where('name', '=', 'institutions').execute();
    expect(await ownerItem()).toMatchObject({ institution: { name: 'Clinica Restaurada' } });
  });

  it("applies the other process's visualizer settings to lists, details and files at the next call", async () => {
    const [lab, xray] = w.a.exams as [(typeof w.a.exams)[number], (typeof w.a.exams)[number]];
    expect(await ownerItem()).toMatchObject({ examsIds: [lab.id, xray.id], hasImageResolved: true });
    await makeVisualizerSettings(second.ctx, w.institution.id, [
      { type: 'XRAY', hideButton: true },
      { type: 'LAB', enable: false },
    ]);
    expect(await ownerItem()).toMatchObject({ examsIds: [xray.id], hasImageResolved: false });
    const imageUrl = `/api/v2/delivery/resource/image?resourceId=${w.resources.imageA.id}`;
    expect((await get(imageUrl, w.tokens.owner)).statusCode).toBe(404);

    await second.ctx.db.deleteFrom('visualizerSettings').execute();
    expect(await ownerItem()).toMatchObject({ examsIds: [lab.id, xray.id], hasImageResolved: true });
    expect((await get(imageUrl, w.tokens.owner)).statusCode).toBe(200);
  });

  it("lists a tag's protocols to a member the other process adds, and stops when it removes him", async () => {
    const numbers = async () => {
      const res = await get(
        '/api/v2/delivery/protocols/listedByTags?initialDate=01/01/2025&finalDate=31/12/2026',
        w.tokens.otherExternal,
      );
      expect(res.statusCode).toBe(200);
      return res.json().data.items.map((i: { number: string }) => i.number);
    };
    expect(await numbers()).toEqual([]);
    await second.ctx.db
      .insertInto('tagMembers')
      .values({ tagId: w.tag.id, userId: w.users.otherExternal.id, createdAt: '2026-11-20T12:00:00.000Z' })
      .execute();
    expect(await numbers()).toEqual([w.c.protocol.number]);
    await second.ctx.db
      .deleteFrom('tagMembers')
      .where('tagId', '=', w.tag.id)
      .where('userId', '=', w.users.otherExternal.id)
      .execute();
    expect(await numbers()).toEqual([]);
  });
});
