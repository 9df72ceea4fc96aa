import type { AnswerDoc, OperationDoc, OperationDocs } from '../../plugins/openapi.js';

const STUDY = '1.2.826.0.1.3680043.8.498.10';
const SERIES = '1.2.826.0.1.3680043.8.498.11';
const SOP = '1.2.826.0.1.3680043.8.498.12';
const BASE = 'https://portal.example.com/api/dicomweb';
const DICOM_JSON = 'application/dicom+json';
const NOT_YOURS = 'Not found.';

const ATTRIBUTES = {
  type: 'object',
  description: 'A DICOM JSON data set (PS3.18 F): tag (8 hex digits) → `{vr, Value}`.',
  additionalProperties: true,
};
const dicomJson = (description: string, example: unknown): AnswerDoc => ({
  description,
  content: { [DICOM_JSON]: { schema: { type: 'array', items: ATTRIBUTES }, example } },
});
const binary = (description: string, type: string): AnswerDoc => ({
  description,
  content: { [type]: { schema: { type: 'string', format: 'binary' } } },
});

const STUDY_ATTRS = {
  '00080020': { vr: 'DA', Value: ['20261119'] },
  '00080050': { vr: 'SH', Value: ['TC-TORAX-1'] },
  '00080061': { vr: 'CS', Value: ['CT'] },
  '00081190': { vr: 'UR', Value: [`${BASE}/studies/${STUDY}`] },
  '0020000D': { vr: 'UI', Value: [STUDY] },
  '00201206': { vr: 'IS', Value: [1] },
  '00201208': { vr: 'IS', Value: [200] },
};
const SERIES_ATTRS = {
  '00080060': { vr: 'CS', Value: ['CT'] },
  '0020000E': { vr: 'UI', Value: [SERIES] },
  '00200011': { vr: 'IS', Value: [1] },
  '00201209': { vr: 'IS', Value: [200] },
};
const INSTANCE_ATTRS = {
  '00080016': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.2'] },
  '00080018': { vr: 'UI', Value: [SOP] },
  '00200013': { vr: 'IS', Value: [1] },
  '00280008': { vr: 'IS', Value: [1] },
  '00280010': { vr: 'US', Value: [512] },
  '00280011': { vr: 'US', Value: [512] },
};
const METADATA = {
  ...INSTANCE_ATTRS,
  '00020010': { vr: 'UI', Value: ['1.2.840.10008.1.2.1'] },
  '00281050': { vr: 'DS', Value: [40] },
  '00281051': { vr: 'DS', Value: [400] },
  '7FE00010': { vr: 'OB', BulkDataURI: `${BASE}/studies/${STUDY}/series/${SERIES}/instances/${SOP}/frames/1` },
};

const STORE_ANSWER = {
  '00081190': { vr: 'UR', Value: [`${BASE}/studies/${STUDY}`] },
  '00081199': {
    vr: 'SQ',
    Value: [
      {
        '00081150': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.2'] },
        '00081155': { vr: 'UI', Value: [SOP] },
        '00081190': { vr: 'UR', Value: [`${BASE}/studies/${STUDY}/series/${SERIES}/instances/${SOP}`] },
      },
    ],
  },
};
const storeAnswer = (description: string, example: unknown): AnswerDoc => ({
  description,
  content: { [DICOM_JSON]: { schema: ATTRIBUTES, example } },
});
const FAILED = {
  '00081198': {
    vr: 'SQ',
    Value: [
      {
        '00081150': { vr: 'UI' },
        '00081155': { vr: 'UI' },
        '00081197': { vr: 'US', Value: [49152] },
        '00000902': { vr: 'LO', Value: ['not a DICOM Part 10 file (no DICM prefix)'] },
      },
    ],
  },
};

const stow: OperationDoc = {
  tag: 'DICOMweb',
  security: 'apiKey',
  params: { study: STUDY },
  errors: { 415: 'Unsupported media type.' },
  requestContent: {
    'multipart/related; type="application/dicom"': { schema: { type: 'string', format: 'binary' } },
  },
  answers: {
    200: storeAnswer('Every instance stored (or already stored with the same bytes).', STORE_ANSWER),
    202: storeAnswer('Some instances stored, some refused: FailedSOPSequence names each.', {
      ...STORE_ANSWER,
      ...FAILED,
    }),
    409: storeAnswer('No instance stored: FailedSOPSequence names each refusal.', FAILED),
  },
};

const read = (summary: string, answer: AnswerDoc, extra: Partial<OperationDoc> = {}): OperationDoc => ({
  summary,
  tag: 'DICOMweb',
  security: 'bearer',
  params: { study: STUDY, series: SERIES, sop: SOP, frames: '1', frame: '1' },
  errors: { 403: 'Forbidden.', 404: NOT_YOURS },
  answers: { 200: answer },
  ...extra,
});

const MULTIPART_DICOM = binary(
  'The Part 10 files exactly as received, one part each (`Accept: application/dicom` for one instance: the bare file).',
  'multipart/related',
);
const RENDERED = binary('A JPEG (PNG with `Accept: image/png`).', 'image/jpeg');

/** Contract 9: DICOMweb. */
export const dicomOperations: OperationDocs = {
  'POST /api/dicomweb/studies': stow,
  'POST /api/dicomweb/studies/{study}': { ...stow, summary: 'Store DICOM instances of one study (STOW-RS)' },
  'GET /api/dicomweb/studies': read(
    'Search the studies of an exam (QIDO-RS)',
    dicomJson('The studies joined to the exam.', [STUDY_ATTRS]),
    { query: { examId: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a' } },
  ),
  'GET /api/dicomweb/studies/{study}/series': read(
    'Search the series of a study (QIDO-RS)',
    dicomJson('The series.', [SERIES_ATTRS]),
  ),
  'GET /api/dicomweb/studies/{study}/instances': read(
    'Search the instances of a study (QIDO-RS)',
    dicomJson('The instances.', [INSTANCE_ATTRS]),
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances': read(
    'Search the instances of a series (QIDO-RS)',
    dicomJson('The instances, in instance number order.', [INSTANCE_ATTRS]),
  ),
  'GET /api/dicomweb/studies/{study}/metadata': read(
    'Metadata of a study (WADO-RS)',
    dicomJson('Each instance as DICOM JSON, its pixel data a bulk data URI.', [METADATA]),
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/metadata': read(
    'Metadata of a series (WADO-RS)',
    dicomJson('Each instance as DICOM JSON.', [METADATA]),
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances/{sop}/metadata': read(
    'Metadata of an instance (WADO-RS)',
    dicomJson('The instance as DICOM JSON.', [METADATA]),
  ),
  'GET /api/dicomweb/studies/{study}': read('Retrieve a study (WADO-RS)', MULTIPART_DICOM, {
    answers: {
      200: {
        ...MULTIPART_DICOM,
        content: {
          'multipart/related': { schema: { type: 'string', format: 'binary' } },
          'application/zip': { schema: { type: 'string', format: 'binary' } },
        },
      },
    },
  }),
  'GET /api/dicomweb/studies/{study}/series/{series}': read('Retrieve a series (WADO-RS)', MULTIPART_DICOM),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances/{sop}': read(
    'Retrieve an instance (WADO-RS)',
    MULTIPART_DICOM,
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances/{sop}/frames/{frames}': read(
    'Retrieve frames (WADO-RS)',
    binary('One part per frame, native pixels or the compressed bitstream as stored.', 'multipart/related'),
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances/{sop}/frames/{frame}/rendered': read(
    'A frame rendered as an image (WADO-RS rendered)',
    RENDERED,
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/instances/{sop}/thumbnail': read(
    'Thumbnail of an instance (WADO-RS)',
    RENDERED,
  ),
  'GET /api/dicomweb/studies/{study}/series/{series}/thumbnail': read(
    'Thumbnail of a series: its middle instance (WADO-RS)',
    RENDERED,
  ),
  'GET /api/dicomweb/studies/{study}/thumbnail': read("The study's key image as a thumbnail (WADO-RS)", RENDERED),
};
