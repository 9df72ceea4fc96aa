import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lib/ids.js';
import {
  fixtureDir,
  makeMono8Slice,
  makeSignedSlice,
  makeColourImage,
  type PixelFixture,
  SIGNED_BANDS,
  splitMultipart,
  stowBody,
  testUid,
} from '../../test/dicom-fixtures.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol, makeWorld } from '../delivery/test-factories.js';

const API_KEY = 'dicom-pixels-test-api-key';
const BASE = '/api/dicomweb';

type Json = Record<string, { vr: string; Value?: unknown[]; BulkDataURI?: string }>;

/**
 * The pixel layouts and transfer syntaxes PACS send beyond the CT, ultrasound, mammogram and
 * secondary capture of dicom.test.ts: each one stored by STOW-RS, described by its metadata, given
 * back byte for byte, cut into frames, and drawn by the server as its pixel data says.
 */
describe('DICOMweb pixel data: deflated, YBR colour, signed 16-bit and 8-bit monochrome instances', () => {
  let portal: TestPortal;
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let dir: string;
  let token: string;

  const stow = (files: Buffer[]) => {
    const { body, contentType } = stowBody(files);
    return portal.app.inject({
      method: 'POST',
      url: `${BASE}/studies`,
      headers: { 'x-api-key': API_KEY, 'content-type': contentType },
      payload: body,
    });
  };
  const get = (url: string, accept?: string) =>
    portal.app.inject({ url, headers: { ...bearer(token), ...(accept ? { accept } : {}) } });

  beforeAll(async () => {
    portal = await startTestPortal();
    world = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    token = world.tokens.owner;
    await portal.ctx.db
      .updateTable('institutions')
      .set({ apiKeyHash: sha256Hex(API_KEY) })
      .where('id', '=', world.institution.id)
      .execute();
    dir = fixtureDir();
  }, 120_000);
  afterAll(async () => {
    await portal?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A study of one instance, for a new exam of the owner's: the accession number joins them. */
  async function newStudy(examType: string) {
    const accession = `PIX-${testUid().slice(-10)}`;
    await makeProtocol(portal.ctx, {
      institutionId: world.institution.id,
      patientUserId: world.users.owner.id,
      exams: [{ examKey: accession, type: examType }],
    });
    return { studyUid: testUid(), accession };
  }

  /**
   * Stores the fixture by STOW-RS and checks what every client reads of it before the pixels: the
   * store answer, QIDO-RS and WADO-RS metadata, and the instance itself, byte for byte.
   */
  async function storeAndDescribe(
    studyUid: string,
    fixture: PixelFixture,
    expected: {
      transferSyntax: string;
      photometric: string;
      bitsAllocated: number;
      pixelRepresentation: number;
      frames: number;
    },
  ) {
    const sent = fs.readFileSync(fixture.file);
    const res = await stow([sent]);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const answer = res.json();
    expect(answer['00081198']).toBeUndefined();
    expect(answer['00081199'].Value).toHaveLength(1);
    expect(answer['00081199'].Value[0]['00081155'].Value).toEqual([fixture.sopUid]);
    expect(answer['00081199'].Value[0]['00081190'].Value[0]).toBe(
      `http://portal.test${BASE}/studies/${studyUid}/series/${fixture.seriesUid}/instances/${fixture.sopUid}`,
    );

    const seriesUrl = `${BASE}/studies/${studyUid}/series/${fixture.seriesUid}`;
    const instanceUrl = `${seriesUrl}/instances/${fixture.sopUid}`;
    const [found] = (await get(`${seriesUrl}/instances`)).json() as Json[];
    expect(found!['00083002']!.Value).toEqual([expected.transferSyntax]);
    expect(found!['00280008']!.Value).toEqual([expected.frames]);
    expect([found!['00280010']!.Value, found!['00280011']!.Value]).toEqual([[fixture.height], [fixture.width]]);

    const metadata = await get(`${instanceUrl}/metadata`);
    expect(metadata.statusCode).toBe(200);
    const [meta] = metadata.json() as Json[];
    expect(meta!['00020010']!.Value).toEqual([expected.transferSyntax]);
    expect(meta!['00280004']!.Value).toEqual([expected.photometric]);
    expect(meta!['00280100']!.Value).toEqual([expected.bitsAllocated]);
    expect(meta!['00280103']!.Value).toEqual([expected.pixelRepresentation]);
    const all = Array.from({ length: expected.frames }, (_, i) => i + 1).join(',');
    expect(meta!['7FE00010']!.BulkDataURI).toBe(`http://portal.test${instanceUrl}/frames/${all}`);

    const multipart = await get(instanceUrl);
    expect(multipart.statusCode).toBe(200);
    const parts = splitMultipart(multipart.rawPayload, multipart.headers['content-type'] as string);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.body.equals(sent)).toBe(true);
    const bare = await get(instanceUrl, 'application/dicom');
    expect(bare.headers['content-type']).toBe('application/dicom');
    expect(bare.rawPayload.equals(sent)).toBe(true);
    return { sent, seriesUrl, instanceUrl };
  }

  /** The frames named, as the parts of the WADO-RS answer: media type and bytes. */
  async function frames(instanceUrl: string, numbers: string) {
    const res = await get(`${instanceUrl}/frames/${numbers}`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return splitMultipart(res.rawPayload, res.headers['content-type'] as string).map((p) => ({
      type: /content-type:\s*([^\r\n]+)/i.exec(p.headers)?.[1] ?? '',
      body: p.body,
    }));
  }

  /** A rendered image as RGBA pixels (PNG: exactly what the server drew). */
  async function rendered(url: string) {
    const res = await get(url, 'image/png');
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const png = PNG.sync.read(res.rawPayload);
    const rgb = (x: number, y: number) =>
      Array.from(png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3));
    return { width: png.width, height: png.height, rgb, grey: (x: number, y: number) => rgb(x, y)[0]! };
  }

  /** The middle column of each band of a signed fixture, as shown in frame f (bands move left by f). */
  const bandColumn = (fixture: PixelFixture, band: number, frame = 0) => {
    const place = (band - frame + SIGNED_BANDS.length * 2) % SIGNED_BANDS.length;
    return Math.floor(((place + 0.5) * fixture.width) / SIGNED_BANDS.length);
  };

  it('a signed 16-bit CT slice (values down to -1000, intercept 0): stored, given back, and -1000 drawn darker than +400', async () => {
    const ids = await newStudy('CT');
    const ct = makeSignedSlice(dir, ids);
    const { instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, ct, {
      transferSyntax: '1.2.840.10008.1.2.1',
      photometric: 'MONOCHROME2',
      bitsAllocated: 16,
      pixelRepresentation: 1,
      frames: 1,
    });
    const [frame] = await frames(instanceUrl, '1');
    expect(frame!.type).toBe('application/octet-stream');
    expect(frame!.body.equals(ct.pixels)).toBe(true);
    expect(frame!.body.readInt16LE(0)).toBe(-1000);

    // Window 40/400 from the file: air and lung black, water mid-grey, bone and dense bone white.
    for (const url of [`${instanceUrl}/frames/1/rendered`, `${seriesUrl}/thumbnail`]) {
      const image = await rendered(url);
      expect([image.width, image.height]).toEqual([ct.width, ct.height]);
      const shown = SIGNED_BANDS.map((_, band) => image.grey(bandColumn(ct, band), 20));
      expect(shown[0]).toBeLessThan(10);
      expect(shown[1]).toBeLessThan(10);
      expect(shown[2]).toBeGreaterThan(80);
      expect(shown[2]).toBeLessThan(125);
      expect(shown[3]).toBeGreaterThan(245);
      expect(shown[4]).toBeGreaterThan(245);
      expect(shown[0]!).toBeLessThan(shown[3]!);
    }
  });

  it('signed 16-bit slices compressed losslessly (JPEG lossless, JPEG-LS, RLE): negative values kept, served and drawn as the native one', async () => {
    const ids = await newStudy('CT');
    const cases = [
      ['jpeg-lossless', '1.2.840.10008.1.2.4.70', 'image/jpeg'],
      ['jpeg-ls', '1.2.840.10008.1.2.4.80', 'image/jls'],
      ['rle', '1.2.840.10008.1.2.5', 'image/dicom-rle'],
    ] as const;
    for (const [syntax, uid, media] of cases) {
      const ct = makeSignedSlice(dir, ids, { syntax });
      const { instanceUrl } = await storeAndDescribe(ids.studyUid, ct, {
        transferSyntax: uid,
        photometric: 'MONOCHROME2',
        bitsAllocated: 16,
        pixelRepresentation: 1,
        frames: 1,
      });
      const [frame] = await frames(instanceUrl, '1');
      expect(frame!.type).toBe(`${media}; transfer-syntax=${uid}`);
      const image = await rendered(`${instanceUrl}/frames/1/rendered`);
      const shown = SIGNED_BANDS.map((_, band) => image.grey(bandColumn(ct, band), 20));
      expect({ syntax, air: shown[0]! < 10, water: shown[2]! > 80 && shown[2]! < 125, bone: shown[3]! > 245 }).toEqual({
        syntax,
        air: true,
        water: true,
        bone: true,
      });
      if (syntax === 'jpeg-ls') {
        // Decoded for the browser: the same signed values as were written (-1000 stays -1000).
        const native = await get(instanceUrl, 'application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
        expect(native.statusCode).toBe(200);
        expect(native.rawPayload.subarray(native.rawPayload.length - ct.pixels.length).equals(ct.pixels)).toBe(true);
      }
    }
  });

  it('a deflated multi-frame instance (1.2.840.10008.1.2.1.99): stored as sent, each frame inflated from the whole file, each drawn', async () => {
    const ids = await newStudy('CT');
    const sc = makeSignedSlice(dir, ids, { syntax: 'deflated', frames: 3 });
    const { sent, instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, sc, {
      transferSyntax: '1.2.840.10008.1.2.1.99',
      photometric: 'MONOCHROME2',
      bitsAllocated: 16,
      pixelRepresentation: 1,
      frames: 3,
    });
    // The file really is deflated: its pixels are not in its bytes as they are.
    expect(sent.length).toBeLessThan(sc.pixels.length / 4);
    const frameBytes = sc.width * sc.height * 2;
    const framePixels = (n: number) => sc.pixels.subarray((n - 1) * frameBytes, n * frameBytes);
    const [second] = await frames(instanceUrl, '2');
    expect(second!.type).toBe('application/octet-stream');
    expect(second!.body.equals(framePixels(2))).toBe(true);
    const three = await frames(instanceUrl, '3,1,2');
    expect(three.map((f) => f.body.length)).toEqual([frameBytes, frameBytes, frameBytes]);
    expect(three[0]!.body.equals(framePixels(3))).toBe(true);
    expect(three[1]!.body.equals(framePixels(1))).toBe(true);
    expect(three[2]!.body.equals(framePixels(2))).toBe(true);
    expect((await get(`${instanceUrl}/frames/4`)).statusCode).toBe(404);
    // The metadata's bulk data URI is an address that answers every frame.
    const meta = (await get(`${instanceUrl}/metadata`)).json() as Json[];
    const bulk = await get(meta[0]!['7FE00010']!.BulkDataURI!.replace('http://portal.test', ''));
    expect(bulk.statusCode).toBe(200);
    expect(splitMultipart(bulk.rawPayload, bulk.headers['content-type'] as string)).toHaveLength(3);

    // Each frame drawn as its own pixels: air black and bone white wherever the bands moved.
    for (const frame of [1, 2, 3]) {
      const image = await rendered(`${instanceUrl}/frames/${frame}/rendered`);
      expect(image.grey(bandColumn(sc, 0, frame - 1), 20)).toBeLessThan(10);
      expect(image.grey(bandColumn(sc, 2, frame - 1), 20)).toBeGreaterThan(80);
      expect(image.grey(bandColumn(sc, 2, frame - 1), 20)).toBeLessThan(125);
      expect(image.grey(bandColumn(sc, 3, frame - 1), 20)).toBeGreaterThan(245);
    }
    // The thumbnail is the middle frame (2 of 3).
    const thumbnail = await rendered(`${seriesUrl}/thumbnail`);
    expect(thumbnail.grey(bandColumn(sc, 0, 1), 20)).toBeLessThan(10);
    expect(thumbnail.grey(bandColumn(sc, 3, 1), 20)).toBeGreaterThan(245);
  });

  it('a deflated instance asked for as Explicit VR Little Endian (what the viewer asks when the browser cannot inflate) comes inflated, pixels unchanged', async () => {
    const ids = await newStudy('CT');
    const sc = makeSignedSlice(dir, ids, { syntax: 'deflated', frames: 3 });
    const sent = fs.readFileSync(sc.file);
    expect((await stow([sent])).statusCode).toBe(200);
    const url = `${BASE}/studies/${ids.studyUid}/series/${sc.seriesUid}/instances/${sc.sopUid}`;
    const native = await get(url, 'application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
    expect(native.statusCode, native.body.slice(0, 300)).toBe(200);
    expect(native.headers['content-type']).toBe('application/dicom; transfer-syntax=1.2.840.10008.1.2.1');
    const ours = path.join(dir, `inflated-${sc.sopUid}.dcm`);
    fs.writeFileSync(ours, native.rawPayload);
    const dumped = execFileSync('dcmdump', [ours], { encoding: 'utf8' });
    expect(dumped).toContain('=LittleEndianExplicit');
    expect(dumped).toContain(`[${sc.sopUid}]`);
    expect(dumped).toContain('(0028,0103) US 1');
    // The pixel data closes a native file: the three frames as written, and dcmtk reads the same values.
    expect(native.rawPayload.subarray(native.rawPayload.length - sc.pixels.length).equals(sc.pixels)).toBe(true);
    const theirs = path.join(dir, `inflated-${sc.sopUid}-dcmtk.dcm`);
    execFileSync('dcmconv', ['--write-xfer-little', sc.file, theirs]);
    const raw = (file: string) =>
      execFileSync('dcmj2pnm', ['--write-16-bit-pnm', '--no-windowing', '--all-frames', file], {
        maxBuffer: 1 << 24,
      }).toString('latin1');
    expect(raw(ours)).toBe(raw(theirs));
    // As stored, it is still the deflated file sent.
    expect((await get(url, 'application/dicom')).rawPayload.equals(sent)).toBe(true);
  });

  it('an 8-bit MONOCHROME2 image of an odd number of pixels: its frame is exactly its pixels, its gradient drawn in order', async () => {
    const ids = await newStudy('XRAY');
    const film = makeMono8Slice(dir, ids);
    expect(film.pixels.length % 2).toBe(1);
    const { instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, film, {
      transferSyntax: '1.2.840.10008.1.2.1',
      photometric: 'MONOCHROME2',
      bitsAllocated: 8,
      pixelRepresentation: 0,
      frames: 1,
    });
    const [frame] = await frames(instanceUrl, '1');
    expect(frame!.type).toBe('application/octet-stream');
    // Rows × columns bytes: not the pad byte that makes the element even.
    expect(frame!.body.length).toBe(film.width * film.height);
    expect(frame!.body.equals(film.pixels)).toBe(true);

    for (const url of [`${instanceUrl}/frames/1/rendered`, `${seriesUrl}/thumbnail`]) {
      const image = await rendered(url);
      expect([image.width, image.height]).toEqual([film.width, film.height]);
      const row = Array.from({ length: film.width }, (_, x) => image.grey(x, 24));
      // No window in the file: 0 to 255 drawn black to white, every step brighter than the last.
      for (let x = 1; x < row.length; x++) expect(row[x]!).toBeGreaterThan(row[x - 1]!);
      row.forEach((v, x) => expect(Math.abs(v - film.pixels[24 * film.width + x]!)).toBeLessThanOrEqual(2));
    }
  });

  /** Red, green and blue thirds of a colour fixture, as drawn or decoded (at a row's thirds). */
  const thirds = (width: number, at: (x: number) => number[]) =>
    [width / 6, width / 2, (5 * width) / 6].map((x) => at(Math.floor(x)));
  const expectThirds = (colours: number[][]) => {
    const [red, green, blue] = colours;
    expect(red![0]).toBeGreaterThan(230);
    expect(Math.max(red![1]!, red![2]!)).toBeLessThan(30);
    expect(green![1]).toBeGreaterThan(230);
    expect(Math.max(green![0]!, green![2]!)).toBeLessThan(30);
    expect(blue![2]).toBeGreaterThan(230);
    expect(Math.max(blue![0]!, blue![1]!)).toBeLessThan(30);
  };

  it('a JPEG baseline colour image in YBR_FULL_422 (dcmcjpeg): its frame is the JPEG as sent, red drawn red', async () => {
    const ids = await newStudy('US');
    const us = makeColourImage(dir, ids, 'jpeg');
    const { instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, us, {
      transferSyntax: '1.2.840.10008.1.2.4.50',
      photometric: 'YBR_FULL_422',
      bitsAllocated: 8,
      pixelRepresentation: 0,
      frames: 1,
    });
    const [frame] = await frames(instanceUrl, '1');
    expect(frame!.type).toBe('image/jpeg; transfer-syntax=1.2.840.10008.1.2.4.50');
    // The bitstream as stored (one JPEG, SOI to EOI, perhaps one pad byte), which any JPEG decoder reads.
    expect([frame!.body[0], frame!.body[1]]).toEqual([0xff, 0xd8]);
    const decoded = jpeg.decode(frame!.body);
    expect([decoded.width, decoded.height]).toEqual([us.width, us.height]);
    expectThirds(
      thirds(us.width, (x) => Array.from(decoded.data.subarray((24 * us.width + x) * 4, (24 * us.width + x) * 4 + 3))),
    );

    for (const url of [`${instanceUrl}/frames/1/rendered`, `${seriesUrl}/thumbnail`]) {
      const image = await rendered(url);
      expect([image.width, image.height]).toEqual([us.width, us.height]);
      expectThirds(thirds(us.width, (x) => image.rgb(x, 24)));
    }
  });

  it('an uncompressed YBR_FULL colour image: its frame is the stored Y/Cb/Cr samples, red drawn red', async () => {
    const ids = await newStudy('US');
    const us = makeColourImage(dir, ids, 'ybr-full');
    const { sent, instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, us, {
      transferSyntax: '1.2.840.10008.1.2.1',
      photometric: 'YBR_FULL',
      bitsAllocated: 8,
      pixelRepresentation: 0,
      frames: 1,
    });
    const [frame] = await frames(instanceUrl, '1');
    expect(frame!.type).toBe('application/octet-stream');
    expect(frame!.body.length).toBe(us.width * us.height * 3);
    expect(frame!.body.equals(sent.subarray(sent.length - frame!.body.length))).toBe(true);
    // Red is stored as Y 76, Cb 85, Cr 255: not as RGB.
    expect(Array.from(frame!.body.subarray(0, 3))).toEqual([76, 85, 255]);

    for (const url of [`${instanceUrl}/frames/1/rendered`, `${seriesUrl}/thumbnail`]) {
      const image = await rendered(url);
      expectThirds(thirds(us.width, (x) => image.rgb(x, 24)));
    }
  });

  it('an RGB image in RLE Lossless (dcmcrle, one segment per colour): its frame is the RLE data as sent, red drawn red', async () => {
    const ids = await newStudy('US');
    const us = makeColourImage(dir, ids, 'rle');
    const { instanceUrl, seriesUrl } = await storeAndDescribe(ids.studyUid, us, {
      transferSyntax: '1.2.840.10008.1.2.5',
      photometric: 'RGB',
      bitsAllocated: 8,
      pixelRepresentation: 0,
      frames: 1,
    });
    const [frame] = await frames(instanceUrl, '1');
    expect(frame!.type).toBe('image/dicom-rle; transfer-syntax=1.2.840.10008.1.2.5');
    // PS3.5 G.3.1: the RLE header counts three segments, R, G and B.
    expect(frame!.body.readUInt32LE(0)).toBe(3);

    for (const url of [`${instanceUrl}/frames/1/rendered`, `${seriesUrl}/thumbnail`]) {
      const image = await rendered(url);
      expect([image.width, image.height]).toEqual([us.width, us.height]);
      expectThirds(thirds(us.width, (x) => image.rgb(x, 24)));
    }
  });
});
