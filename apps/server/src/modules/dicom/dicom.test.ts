import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '../../lib/ids.js';
import {
  fixtureDir,
  makeCtSeries,
  makeJpeg2000Mammogram,
  makeRgbSecondaryCapture,
  makeUltrasoundClip,
  splitMultipart,
  stowBody,
  testUid,
} from '../../test/dicom-fixtures.js';
import { bearer, countRows, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol, makeVisualizerSettings, makeWorld } from '../delivery/test-factories.js';
import { insertStudy } from './dicom.repository.js';

const API_KEY = 'dicom-test-api-key';
const BASE = '/api/dicomweb';

/** Files under the storage folder's DICOM tree (what a refused or repeated upload must not leave). */
function storedDicomFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'files', 'dicom');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(root, f)).isFile(),
  );
}

describe('DICOMweb: STOW-RS in, QIDO-RS and WADO-RS out', () => {
  let portal: TestPortal;
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let dir: string;
  const ct = { studyUid: testUid(), accession: '' };
  let ctSeries: ReturnType<typeof makeCtSeries>;
  let ctFiles: Buffer[];

  const stow = (files: Buffer[], key = API_KEY, url = `${BASE}/studies`) => {
    const { body, contentType } = stowBody(files);
    return portal.app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
  };
  const get = (url: string, token?: string, accept?: string) =>
    portal.app.inject({ url, headers: { ...(token ? bearer(token) : {}), ...(accept ? { accept } : {}) } });

  beforeAll(async () => {
    portal = await startTestPortal({
      env: { DICOM_MAX_INSTANCE_BYTES: String(64 * 1024), DICOM_MAX_STUDY_BYTES: String(4 * 1024 * 1024) },
    });
    world = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    await portal.ctx.db
      .updateTable('institutions')
      .set({ apiKeyHash: sha256Hex(API_KEY) })
      .where('id', '=', world.institution.id)
      .execute();
    // The CT joins exam A1 (Raio X of the owner's protocol A, requested by the physician).
    ct.accession = world.a.exams[1]!.examKey;
    dir = fixtureDir();
    ctSeries = makeCtSeries(dir, ct, { count: 200 });
    ctFiles = ctSeries.files.map((f) => fs.readFileSync(f));
  }, 600_000);
  afterAll(async () => {
    await portal?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores a 200-slice CT series sent in one request and answers the PS3.18 store response', async () => {
    const res = await stow(ctFiles);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/dicom+json');
    const body = res.json();
    expect(body['00081190'].Value[0]).toBe(`http://portal.test${BASE}/studies/${ct.studyUid}`);
    expect(body['00081199'].Value).toHaveLength(200);
    expect(body['00081199'].Value[0]['00081155'].Value[0]).toBe(ctSeries.sopUids[0]);
    expect(body['00081198']).toBeUndefined();
    expect(await countRows(portal.ctx.db, 'dicomInstances')).toBe(200);
    expect(storedDicomFiles(portal.env.DATA_DIR!)).toHaveLength(200);
  }, 60_000);

  it('resending instances changes nothing: same answer, same rows, no file left behind', async () => {
    const rows = await portal.ctx.db.selectFrom('dicomInstances').select(['id', 'storageKey', 'updatedAt']).execute();
    const res = await stow(ctFiles.slice(0, 20));
    expect(res.statusCode).toBe(200);
    expect(res.json()['00081199'].Value).toHaveLength(20);
    const after = await portal.ctx.db.selectFrom('dicomInstances').select(['id', 'storageKey', 'updatedAt']).execute();
    expect(after).toEqual(rows);
    expect(storedDicomFiles(portal.env.DATA_DIR!)).toHaveLength(200);
  });

  it('lists the study of the exam (QIDO-RS) and its series and instances in slice order', async () => {
    const exam = world.a.exams[1]!;
    const studies = await get(`${BASE}/studies?examId=${exam.id}`, world.tokens.owner);
    expect(studies.statusCode).toBe(200);
    const [study] = studies.json();
    expect(study['0020000D'].Value).toEqual([ct.studyUid]);
    expect(study['00201208'].Value).toEqual([200]);
    expect(study['00080061'].Value).toEqual(['CT']);
    const exams = await get(
      `/api/v2/delivery/dashboard/protocols/exams?request=${world.a.protocol.id}`,
      world.tokens.owner,
    );
    expect(exams.json().data.map((e: { id: string; dicomStudyUid: string | null }) => [e.id, e.dicomStudyUid])).toEqual(
      [
        [world.a.exams[0]!.id, null],
        [exam.id, ct.studyUid],
      ],
    );
    const series = (await get(`${BASE}/studies/${ct.studyUid}/series`, world.tokens.owner)).json();
    expect(series).toHaveLength(1);
    expect(series[0]['00201209'].Value).toEqual([200]);
    const instances = (
      await get(`${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/instances`, world.tokens.owner)
    ).json();
    expect(instances.map((i: Record<string, { Value: unknown[] }>) => i['00200013']!.Value[0])).toEqual(
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
  });

  it('answers every instance byte for byte as it was sent (WADO-RS), one by one and as a series', async () => {
    for (const i of [0, 99, 199]) {
      const url = `${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/instances/${ctSeries.sopUids[i]}`;
      const res = await get(url, world.tokens.owner);
      expect(res.statusCode).toBe(200);
      const parts = splitMultipart(res.rawPayload, res.headers['content-type'] as string);
      expect(parts).toHaveLength(1);
      expect(parts[0]!.body.equals(ctFiles[i]!)).toBe(true);
      const bare = await get(url, world.tokens.owner, 'application/dicom');
      expect(bare.headers['content-type']).toBe('application/dicom');
      expect(bare.rawPayload.equals(ctFiles[i]!)).toBe(true);
    }
    const series = await get(`${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}`, world.tokens.owner);
    const parts = splitMultipart(series.rawPayload, series.headers['content-type'] as string);
    expect(parts).toHaveLength(200);
    parts.forEach((p, i) => expect(p.body.equals(ctFiles[i]!)).toBe(true));
  });

  it('serves metadata with the pixel data as a bulk data URI, and native frames as the stored pixels', async () => {
    const meta = (
      await get(`${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/metadata`, world.tokens.owner)
    ).json();
    expect(meta).toHaveLength(200);
    expect(meta[0]['00280010'].Value).toEqual([64]);
    expect(meta[0]['00281052'].Value).toEqual([-1024]);
    expect(meta[0]['00020010'].Value).toEqual(['1.2.840.10008.1.2.1']);
    expect(meta[0]['7FE00010'].BulkDataURI).toMatch(/\/frames\/1$/);
    const frame = await get(
      `${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/instances/${ctSeries.sopUids[99]}/frames/1`,
      world.tokens.owner,
    );
    expect(frame.statusCode).toBe(200);
    const [part] = splitMultipart(frame.rawPayload, frame.headers['content-type'] as string);
    expect(part!.headers).toContain('application/octet-stream');
    expect(part!.body).toHaveLength(64 * 64 * 2);
    // The frame is the file's last 8192 bytes: the pixel data element closes a native file.
    expect(part!.body.equals(ctFiles[99]!.subarray(ctFiles[99]!.length - 8192))).toBe(true);
  });

  it('serves the study only to whom may see the exam: another patient, physician or tag gets 404', async () => {
    const url = `${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/instances/${ctSeries.sopUids[0]}/frames/1`;
    const t = world.tokens;
    const expected: Record<string, number> = {
      owner: 200,
      physician: 200,
      guestA: 200,
      share: 200,
      otherPatient: 404,
      otherPhysician: 404,
      external: 404,
      otherExternal: 404,
      guestB: 404,
      admin: 403,
    };
    for (const [who, status] of Object.entries(expected)) {
      for (const call of [
        url,
        `${BASE}/studies/${ct.studyUid}/metadata`,
        `${BASE}/studies/${ct.studyUid}/series`,
        `${BASE}/studies/${ct.studyUid}/thumbnail`,
        `${BASE}/studies?examId=${world.a.exams[1]!.id}`,
      ]) {
        const res = await get(call, t[who as keyof typeof t]);
        expect({ who, call, status: res.statusCode }).toEqual({ who, call, status });
      }
    }
    expect((await get(url)).statusCode).toBe(401);
    expect((await get(`${BASE}/studies/1.2.3.999/metadata`, t.owner)).statusCode).toBe(404);
  });

  it('traces a study once per session, however many frames are read, and marks the exam read', async () => {
    const session = await portal.sessionFor({
      role: 'PATIENT',
      userId: world.users.owner.id,
      username: world.users.owner.email,
    });
    for (const sop of ctSeries.sopUids.slice(0, 30)) {
      const res = await get(
        `${BASE}/studies/${ct.studyUid}/series/${ctSeries.seriesUid}/instances/${sop}/frames/1`,
        session,
      );
      expect(res.statusCode).toBe(200);
    }
    const events = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'VIEW_IMAGE')
      .where('systemUserId', '=', world.users.owner.id)
      .execute();
    const ofStudy = events.filter((e) => JSON.parse(e.resource ?? '{}').studyInstanceUid === ct.studyUid);
    // The owner's token of the access matrix opened it once, this session once.
    expect(ofStudy).toHaveLength(2);
    expect(JSON.parse(ofStudy[0]!.resource!)).toMatchObject({
      type: 'DICOM_STUDY',
      protocolNumber: world.a.protocol.number,
    });
    const read = await portal.ctx.db
      .selectFrom('examReads')
      .selectAll()
      .where('examId', '=', world.a.exams[1]!.id)
      .execute();
    expect(read.length).toBeGreaterThan(0);
  });

  it('hides the study where the institution hides the image button of that exam type', async () => {
    await makeVisualizerSettings(portal.ctx, world.institution.id, [{ type: 'XRAY', hideButton: true }]);
    try {
      expect((await get(`${BASE}/studies/${ct.studyUid}/metadata`, world.tokens.owner)).statusCode).toBe(404);
    } finally {
      await portal.ctx.db.deleteFrom('visualizerSettings').where('institutionId', '=', world.institution.id).execute();
    }
  });

  it('files a study that arrives before its protocol and joins it when the protocol arrives', async () => {
    const ids = { studyUid: testUid(), accession: 'LATE-ACC-1' };
    const series = makeCtSeries(dir, ids, { count: 3, syntax: 'rle' });
    const res = await stow(series.files.map((f) => fs.readFileSync(f)));
    expect(res.statusCode).toBe(200);
    expect((await get(`${BASE}/studies/${ids.studyUid}/metadata`, world.tokens.owner)).statusCode).toBe(404);
    const late = await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: 'LATE-ACC-1', type: 'CT' }],
    });
    const studies = (await get(`${BASE}/studies?examId=${late.exams[0]!.id}`, world.tokens.owner)).json();
    expect(studies[0]['0020000D'].Value).toEqual([ids.studyUid]);
    const meta = await get(`${BASE}/studies/${ids.studyUid}/metadata`, world.tokens.owner);
    expect(meta.statusCode).toBe(200);
    expect(meta.json()[0]['00020010'].Value).toEqual(['1.2.840.10008.1.2.5']);
    expect((await get(`${BASE}/studies/${ids.studyUid}/metadata`, world.tokens.otherPatient)).statusCode).toBe(404);
  });

  it('orders the studies of an exam by date, one without a date last, and opens the first, on either database', async () => {
    const protocol = await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: 'ORDER-ACC-1', type: 'CT' }],
    });
    const study = (studyUid: string, studyDate: string | null, createdAt: string) =>
      insertStudy(portal.ctx.db, {
        id: newId(),
        institutionId: world.institution.id,
        studyUid,
        accessionNumber: 'ORDER-ACC-1',
        studyDate,
        studyTime: null,
        studyDescription: null,
        patientName: null,
        patientId: null,
        createdAt,
        updatedAt: createdAt,
      });
    // Arrival order: the undated study first, then the later study, then the earlier one.
    const [undated, later, earlier] = [testUid(), testUid(), testUid()];
    await study(undated, null, '2026-01-01T00:00:00.000Z');
    await study(later, '20260301', '2026-03-02T00:00:00.000Z');
    await study(earlier, '20250101', '2026-03-03T00:00:00.000Z');
    const exam = protocol.exams[0]!;
    const listed = (await get(`${BASE}/studies?examId=${exam.id}`, world.tokens.owner)).json();
    expect(listed.map((s: Record<string, { Value: string[] }>) => s['0020000D']!.Value[0])).toEqual([
      earlier,
      later,
      undated,
    ]);
    const exams = await get(
      `/api/v2/delivery/dashboard/protocols/exams?request=${protocol.protocol.id}`,
      world.tokens.owner,
    );
    expect(exams.json().data.map((e: { dicomStudyUid: string | null }) => e.dicomStudyUid)).toEqual([earlier]);
  });

  it('takes every transfer syntax: multi-frame JPEG ultrasound, JPEG 2000 mammogram, RGB secondary capture, JPEG-LS, JPEG lossless, implicit VR', async () => {
    const late = await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: 'MIX-1', type: 'US' }],
    });
    const ids = { studyUid: testUid(), accession: 'MIX-1' };
    const us = makeUltrasoundClip(dir, ids, 12);
    const mg = makeJpeg2000Mammogram(dir, ids);
    const sc = makeRgbSecondaryCapture(dir, ids);
    const jls = makeCtSeries(dir, ids, { count: 2, syntax: 'jpeg-ls' });
    const jpl = makeCtSeries(dir, ids, { count: 2, syntax: 'jpeg-lossless' });
    const implicit = makeCtSeries(dir, ids, { count: 2, syntax: 'implicit' });
    const files = [us.file, mg.file, sc.file, ...jls.files, ...jpl.files, ...implicit.files].map((f) =>
      fs.readFileSync(f),
    );
    const res = await stow(files);
    expect(res.statusCode).toBe(200);
    expect(res.json()['00081199'].Value).toHaveLength(9);
    expect(late.exams[0]).toBeDefined();

    const all = await get(`${BASE}/studies/${ids.studyUid}`, world.tokens.owner);
    expect(all.statusCode, all.body.slice(0, 300)).toBe(200);
    const parts = splitMultipart(all.rawPayload, all.headers['content-type'] as string);
    const sent = new Set(files.map((f) => sha256Hex(f)));
    expect(new Set(parts.map((p) => sha256Hex(p.body)))).toEqual(sent);

    // Frame 5 of the clip is its fifth JPEG fragment, sent as image/jpeg.
    const frame = await get(
      `${BASE}/studies/${ids.studyUid}/series/${us.seriesUid}/instances/${us.sopUid}/frames/5`,
      world.tokens.owner,
    );
    expect(frame.statusCode, frame.body.slice(0, 300)).toBe(200);
    const [framePart] = splitMultipart(frame.rawPayload, frame.headers['content-type'] as string);
    expect(framePart!.headers).toContain('image/jpeg; transfer-syntax=1.2.840.10008.1.2.4.50');
    const decoded = jpeg.decode(framePart!.body);
    expect([decoded.width, decoded.height]).toEqual([80, 60]);
    const three = await get(
      `${BASE}/studies/${ids.studyUid}/series/${us.seriesUid}/instances/${us.sopUid}/frames/1,2,12`,
      world.tokens.owner,
    );
    expect(splitMultipart(three.rawPayload, three.headers['content-type'] as string)).toHaveLength(3);
    expect(
      (
        await get(
          `${BASE}/studies/${ids.studyUid}/series/${us.seriesUid}/instances/${us.sopUid}/frames/13`,
          world.tokens.owner,
        )
      ).statusCode,
    ).toBe(404);

    // Rendered images decode every codec on the server: JPEG 2000, JPEG baseline, native RGB.
    const mgImage = await get(
      `${BASE}/studies/${ids.studyUid}/series/${mg.seriesUid}/instances/${mg.sopUid}/frames/1/rendered`,
      world.tokens.owner,
    );
    expect(mgImage.headers['content-type']).toBe('image/jpeg');
    const mgPixels = jpeg.decode(mgImage.rawPayload);
    expect([mgPixels.width, mgPixels.height]).toEqual([96, 128]);
    // MONOCHROME1: the background (high values) is shown dark, the breast bright.
    expect(mgPixels.data[95 * 4]!).toBeLessThan(60);
    expect(mgPixels.data[(64 * 96 + 5) * 4]!).toBeGreaterThan(150);
    const scImage = await get(`${BASE}/studies/${ids.studyUid}/series/${sc.seriesUid}/thumbnail`, world.tokens.owner);
    const scPixels = jpeg.decode(scImage.rawPayload);
    const at = (x: number) =>
      Array.from(scPixels.data.subarray((15 * scPixels.width + x) * 4, (15 * scPixels.width + x) * 4 + 3));
    expect(at(3)[2]).toBeGreaterThan(200); // blue on the left
    expect(at(20)[1]).toBeGreaterThan(200); // green in the middle
    expect(at(36)[0]).toBeGreaterThan(200); // red on the right
    const usImage = await get(
      `${BASE}/studies/${ids.studyUid}/series/${us.seriesUid}/instances/${us.sopUid}/thumbnail`,
      world.tokens.owner,
    );
    expect(usImage.statusCode).toBe(200);
    for (const f of [...jls.sopUids.map((s) => [jls.seriesUid, s]), ...jpl.sopUids.map((s) => [jpl.seriesUid, s])]) {
      const img = await get(
        `${BASE}/studies/${ids.studyUid}/series/${f[0]}/instances/${f[1]}/frames/1/rendered`,
        world.tokens.owner,
        'image/png',
      );
      expect(img.headers['content-type']).toBe('image/png');
    }
  }, 60_000);

  it('downloads the study as a zip whose DICOMDIR dcmtk reads and whose files are the ones sent', async () => {
    const res = await get(`${BASE}/studies/${ct.studyUid}`, world.tokens.owner, 'application/zip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const out = fs.mkdtempSync(path.join(dir, 'zip-'));
    fs.writeFileSync(path.join(out, 'study.zip'), res.rawPayload);
    execFileSync('unzip', ['-q', 'study.zip', '-d', 'media'], { cwd: out });
    const media = path.join(out, 'media');
    expect(fs.readFileSync(path.join(media, 'DICOM/SE0001/IM000100')).equals(ctFiles[99]!)).toBe(true);
    const dumped = execFileSync('dcmdump', ['+L', path.join(media, 'DICOMDIR')], { encoding: 'utf8' });
    expect(dumped).toContain('MediaStorageDirectoryStorage');
    expect(dumped.split('\n').filter((l) => /DirectoryRecordType/.test(l) && l.includes('[IMAGE'))).toHaveLength(200);
    expect(dumped).toContain('DICOM\\SE0001\\IM000200');
    // dcmtk's dcmmkdir, run over the same files, indexes the same images under the same file ids.
    const reference = path.join(out, 'REFDIR');
    execFileSync('dcmmkdir', ['+r', '+id', media, '+D', reference, '-Pgp', '+I'], { cwd: media, stdio: 'pipe' });
    const records = (text: string) =>
      text
        .split('\n')
        .filter((l) => /ReferencedFileID|ReferencedSOPInstanceUIDInFile/.test(l))
        .map((l) => l.replace(/#.*$/, '').trim())
        .sort();
    const theirs = records(execFileSync('dcmdump', ['+L', reference], { encoding: 'utf8' }));
    expect(theirs).toHaveLength(400);
    expect(records(dumped)).toEqual(theirs);
  });

  it('refuses what it cannot file, names each refusal, and keeps nothing of it', async () => {
    const before = storedDicomFiles(portal.env.DATA_DIR!).length;
    const ids = { studyUid: testUid(), accession: 'BAD-1' };
    const good = makeCtSeries(dir, ids, { count: 1 });
    const noAccession = makeCtSeries(dir, { studyUid: testUid(), accession: '' }, { count: 1 });
    const big = makeCtSeries(dir, ids, { count: 1, size: 256 });
    const res = await stow([
      Buffer.from('not a dicom file at all'),
      fs.readFileSync(noAccession.files[0]!),
      fs.readFileSync(big.files[0]!),
      fs.readFileSync(good.files[0]!),
    ]);
    expect(res.statusCode).toBe(202);
    const failed = res.json()['00081198'].Value as Array<Record<string, { Value: unknown[] }>>;
    expect(failed.map((f) => f['00081197']!.Value[0])).toEqual([0xc000, 0xc000, 0xa700]);
    expect(res.json()['00081199'].Value).toHaveLength(1);
    expect(storedDicomFiles(portal.env.DATA_DIR!).length).toBe(before + 1);

    const none = await stow([Buffer.from('nope')]);
    expect(none.statusCode).toBe(409);
    expect((await stow([fs.readFileSync(good.files[0]!)], 'wrong-key')).statusCode).toBe(401);
    const plain = await portal.app.inject({
      method: 'POST',
      url: `${BASE}/studies`,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/dicom' },
      payload: fs.readFileSync(good.files[0]!),
    });
    expect(plain.statusCode).toBe(415);
    const truncated = stowBody([fs.readFileSync(good.files[0]!)]);
    const cut = await portal.app.inject({
      method: 'POST',
      url: `${BASE}/studies`,
      headers: { 'x-api-key': API_KEY, 'content-type': truncated.contentType },
      payload: truncated.body.subarray(0, truncated.body.length - 40),
    });
    expect(cut.statusCode).toBe(400);
    // Another study than the URL names is refused for that instance.
    const wrong = await stow([fs.readFileSync(good.files[0]!)], API_KEY, `${BASE}/studies/1.2.3.4.5`);
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json()['00081198'].Value[0]['00081197'].Value[0]).toBe(0xa900);
    expect(storedDicomFiles(portal.env.DATA_DIR!).length).toBe(before + 1);
  });

  it('files a Part 10 file uploaded as an exam resource (type=IMAGE) as a study of that exam', async () => {
    const exam = world.c.exams[0]!;
    const ids = { studyUid: testUid(), accession: 'SOMETHING-ELSE' };
    const file = fs.readFileSync(makeCtSeries(dir, ids, { count: 1, syntax: 'jpeg-ls' }).files[0]!);
    const res = await portal.app.inject({
      method: 'PUT',
      url: `/api/v2/delivery/ingest/protocols/${world.c.protocol.number}/exams/${exam.examKey}/resources/IMG-DCM?type=IMAGE`,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/dicom' },
      payload: file,
    });
    expect(res.statusCode).toBe(201);
    const studies = await get(`${BASE}/studies?examId=${exam.id}`, world.tokens.external);
    expect(studies.json().map((s: Record<string, { Value: string[] }>) => s['0020000D']!.Value[0])).toEqual([
      ids.studyUid,
    ]);
    expect(studies.json()[0]['00080050'].Value).toEqual([exam.examKey]);
    const instance = await get(`${BASE}/studies/${ids.studyUid}`, world.tokens.external);
    expect(splitMultipart(instance.rawPayload, instance.headers['content-type'] as string)[0]!.body.equals(file)).toBe(
      true,
    );
    expect((await get(`${BASE}/studies/${ids.studyUid}/metadata`, world.tokens.owner)).statusCode).toBe(404);
  });

  it('keeps a study under its size limit', async () => {
    const ids = { studyUid: testUid(), accession: 'BIG-STUDY' };
    // 64×64 slices of ~9 KiB: the 4 MiB limit is reached after about 460 of them.
    const series = makeCtSeries(dir, ids, { count: 40 });
    const files = series.files.map((f) => fs.readFileSync(f));
    const limited = await startTestPortal({
      reuse: { env: portal.env },
      env: { DICOM_MAX_STUDY_BYTES: String(files[0]!.length * 30) },
    });
    try {
      const { body, contentType } = stowBody(files);
      const res = await limited.app.inject({
        method: 'POST',
        url: `${BASE}/studies`,
        headers: { 'x-api-key': API_KEY, 'content-type': contentType },
        payload: body,
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()['00081199'].Value).toHaveLength(30);
      expect(res.json()['00081198'].Value).toHaveLength(10);
      expect(res.json()['00081198'].Value[0]['00081197'].Value[0]).toBe(0xa700);
    } finally {
      await limited.close();
    }
  });
  it('keeps a study under its size limit when 40 senders store into it at once', async () => {
    const ids = { studyUid: testUid(), accession: 'RACE-STUDY' };
    const series = makeCtSeries(dir, ids, { count: 40 });
    const files = series.files.map((f) => fs.readFileSync(f));
    const sizes = files.map((f) => f.length);
    // Room for 10 instances whatever their few bytes of difference, never for 11.
    const limit = 10 * Math.max(...sizes) + Math.min(...sizes) - 1;
    expect(11 * Math.min(...sizes)).toBeGreaterThan(limit);
    const limited = await startTestPortal({
      reuse: { env: portal.env },
      env: { DICOM_MAX_STUDY_BYTES: String(limit) },
    });
    try {
      // Each sender alone passes the first look (the study is new, or under its limit).
      const answers = await Promise.all(
        files.map((file) => {
          const { body, contentType } = stowBody([file]);
          return limited.app.inject({
            method: 'POST',
            url: `${BASE}/studies`,
            headers: { 'x-api-key': API_KEY, 'content-type': contentType },
            payload: body,
          });
        }),
      );
      const stored = answers.filter((a) => a.statusCode === 200);
      const refused = answers.filter((a) => a.statusCode === 409);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([...stored, ...refused].map((a) => a.statusCode).sort());
      expect(stored).toHaveLength(10);
      for (const a of refused) expect(a.json()['00081198'].Value[0]['00081197'].Value[0]).toBe(0xa700);
      const study = await portal.ctx.db
        .selectFrom('dicomStudies')
        .select('id')
        .where('studyUid', '=', ids.studyUid)
        .executeTakeFirstOrThrow();
      const rows = await portal.ctx.db
        .selectFrom('dicomInstances')
        .select(['size', 'storageKey'])
        .where('studyId', '=', study.id)
        .execute();
      expect(rows).toHaveLength(10);
      expect(rows.reduce((sum, r) => sum + Number(r.size), 0)).toBeLessThanOrEqual(limit);
      // The refused instances left no file behind.
      const onDisk = storedDicomFiles(portal.env.DATA_DIR!).filter((f) => f.includes(ids.studyUid.replace(/\./g, '_')));
      expect(onDisk).toHaveLength(10);
    } finally {
      await limited.close();
    }
  }, 120_000);

  it('serves a JPEG-LS instance as Explicit VR Little Endian when asked, with the pixels dcmtk decodes', async () => {
    await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: 'JLS-1', type: 'TC' }],
    });
    const ids = { studyUid: testUid(), accession: 'JLS-1' };
    const jls = makeCtSeries(dir, ids, { count: 1, syntax: 'jpeg-ls' });
    const sent = fs.readFileSync(jls.files[0]!);
    expect((await stow([sent])).statusCode).toBe(200);
    const url = `${BASE}/studies/${ids.studyUid}/series/${jls.seriesUid}/instances/${jls.sopUids[0]}`;

    const asStored = await get(url, world.tokens.owner, 'application/dicom; transfer-syntax=*');
    expect(sha256Hex(asStored.rawPayload)).toBe(sha256Hex(sent));
    const native = await get(url, world.tokens.owner, 'application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
    expect(native.statusCode, native.body.slice(0, 300)).toBe(200);
    expect(native.headers['content-type']).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
    // dcmtk's own decoder is the reference: same syntax, same pixel values.
    const ours = path.join(dir, 'jls-served.dcm');
    const theirs = path.join(dir, 'jls-dcmtk.dcm');
    fs.writeFileSync(ours, native.rawPayload);
    execFileSync('dcmdjpls', [jls.files[0]!, theirs]);
    expect(execFileSync('dcmdump', ['+P', '0002,0010', ours]).toString()).toContain('LittleEndianExplicit');
    const raw = (file: string) =>
      execFileSync('dcmj2pnm', ['--write-16-bit-pnm', '--no-windowing', file], { maxBuffer: 1 << 24 }).toString();
    expect(raw(ours)).toBe(raw(theirs));
    expect(raw(ours).split(/\s+/).filter(Boolean).length).toBeGreaterThan(64 * 64);

    // A syntax the portal cannot make is not acceptable.
    const jpeg = await get(url, world.tokens.owner, 'application/dicom; transfer-syntax=1.2.840.10008.1.2.4.50');
    expect(jpeg.statusCode).toBe(406);
    // Transcoding is served under the same rules: another patient gets 404.
    expect(
      (await get(url, world.tokens.otherPatient, 'application/dicom; transfer-syntax=1.2.840.10008.1.2.1')).statusCode,
    ).toBe(404);
  }, 60_000);
  it('renders thumbnails as dcmtk renders the same instances (dcmj2pnm), pixel for pixel within a few levels', async () => {
    await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: 'THUMB-1', type: 'TC' }],
    });
    const ids = { studyUid: testUid(), accession: 'THUMB-1' };
    const ct176 = makeCtSeries(dir, ids, { count: 1, size: 176 });
    const sc = makeRgbSecondaryCapture(dir, ids);
    const us = makeUltrasoundClip(dir, ids, 12);
    const res = await stow([ct176.files[0]!, sc.file, us.file].map((f) => fs.readFileSync(f)));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);

    /** A binary PGM or PPM as dcmj2pnm writes it: its size and its samples as RGB. */
    const readPnm = (file: string) => {
      const bytes = fs.readFileSync(file);
      const header = /^(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.subarray(0, 64).toString('latin1'))!;
      const [, kind, w, h] = header;
      const data = bytes.subarray(header[0].length);
      const width = Number(w);
      const height = Number(h);
      const rgb = Buffer.alloc(width * height * 3);
      for (let i = 0; i < width * height; i++) {
        for (let c = 0; c < 3; c++) rgb[i * 3 + c] = kind === 'P6' ? data[i * 3 + c]! : data[i]!;
      }
      return { width, height, rgb };
    };
    /** The thumbnail (PNG) against dcmtk's rendering of the same frame at the same size. */
    const compare = async (url: string, file: string, dcmtkOptions: string[]) => {
      const answer = await get(url, world.tokens.owner, 'image/png');
      expect(answer.headers['content-type']).toBe('image/png');
      const ours = PNG.sync.read(answer.rawPayload);
      const pnm = path.join(dir, `ref-${path.basename(file)}.pnm`);
      execFileSync('dcmj2pnm', [...dcmtkOptions, '--no-interpolation', '+Sxv', String(ours.width), file, pnm]);
      const theirs = readPnm(pnm);
      expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
      // Two shrinks by nearest neighbour may pick neighbouring source pixels at an edge: each pixel
      // is matched within one pixel of the same place in dcmtk's image.
      let sum = 0;
      const differences: number[] = [];
      const channel = (x: number, y: number, c: number) => theirs.rgb[(y * theirs.width + x) * 3 + c]!;
      for (let y = 0; y < theirs.height; y++) {
        for (let x = 0; x < theirs.width; x++) {
          let best = Number.POSITIVE_INFINITY;
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              const nx = Math.min(theirs.width - 1, Math.max(0, x + dx));
              const ny = Math.min(theirs.height - 1, Math.max(0, y + dy));
              let d = 0;
              for (let c = 0; c < 3; c++)
                d = Math.max(d, Math.abs(ours.data[(y * ours.width + x) * 4 + c]! - channel(nx, ny, c)));
              best = Math.min(best, d);
            }
          }
          sum += best;
          differences.push(best);
        }
      }
      differences.sort((a, b) => a - b);
      // Not a blank image matched against a blank image: dark and bright parts on both.
      const levels = Array.from(theirs.rgb);
      expect(Math.min(...levels)).toBeLessThan(60);
      expect(Math.max(...levels)).toBeGreaterThan(200);
      return { mean: sum / differences.length, p99: differences[Math.floor(differences.length * 0.99)]! };
    };

    // A 176×176 CT slice: the file's own window (40/400), shrunk to 128 pixels a side.
    const ctDiff = await compare(
      `${BASE}/studies/${ids.studyUid}/series/${ct176.seriesUid}/thumbnail`,
      ct176.files[0]!,
      ['+Wi', '1'],
    );
    expect(ctDiff.mean).toBeLessThan(0.5);
    expect(ctDiff.p99).toBeLessThanOrEqual(2);
    // The RGB secondary capture, as it is.
    const scDiff = await compare(`${BASE}/studies/${ids.studyUid}/series/${sc.seriesUid}/thumbnail`, sc.file, []);
    expect(scDiff.mean).toBeLessThan(0.5);
    expect(scDiff.p99).toBeLessThanOrEqual(2);
    // The JPEG ultrasound clip's middle frame (frame 7 of 12): two JPEG decoders, a few levels apart at most.
    const usDiff = await compare(
      `${BASE}/studies/${ids.studyUid}/series/${us.seriesUid}/instances/${us.sopUid}/thumbnail`,
      us.file,
      ['+F', '7'],
    );
    expect(usDiff.mean).toBeLessThan(1);
    expect(usDiff.p99).toBeLessThanOrEqual(4);
  }, 120_000);
});
