import type { CapabilityStatement } from '@medplum/fhirtypes';

const searchParams = (...names: Array<[string, 'reference' | 'date' | 'token' | 'number', string]>) =>
  names.map(([name, type, documentation]) => ({ name, type, documentation }));

const COMMON = searchParams(
  ['_lastUpdated', 'date', 'When the resource last changed'],
  ['_count', 'number', 'Page size (default 20, at most 100)'],
);

/** `GET /api/fhir/R4/metadata`: what this server does, for integrators and patient apps. */
export function capabilityStatement(base: string, date: string): CapabilityStatement {
  const read = (
    type: 'Patient' | 'ServiceRequest' | 'DiagnosticReport' | 'Observation' | 'DocumentReference' | 'Binary',
    params: ReturnType<typeof searchParams>,
    documentation: string,
  ) => ({
    type,
    documentation,
    interaction: [{ code: 'read' as const }, ...(type === 'Binary' ? [] : [{ code: 'search-type' as const }])],
    ...(type === 'Binary' ? {} : { searchParam: [...params, ...COMMON] }),
  });
  const clinical = searchParams(
    ['patient', 'reference', 'The signed-in patient (Patient/{id}); others have no Patient resource'],
    ['date', 'date', 'Date of the exam (prefixes eq, ne, gt, ge, lt, le)'],
    ['code', 'token', 'Exam type or analyte code (system|code or code)'],
    ['category', 'token', 'Modality (HL7 v2 table 0074 or DICOM) or observation category'],
  );
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date,
    kind: 'instance',
    publisher: 'Results portal',
    software: { name: 'Results portal', version: '1' },
    implementation: { description: 'Exam results delivered to patients, physicians and partners', url: base },
    fhirVersion: '4.0.1',
    format: ['application/fhir+json'],
    rest: [
      {
        mode: 'server',
        documentation:
          'Reads take the portal session of the signed-in user (Authorization: Bearer, from POST /api/v2/auth/login) and answer only what that user may see in the portal. Results are delivered by institutions with POST of a transaction or batch Bundle and their X-Api-Key.',
        security: {
          cors: false,
          service: [
            {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'Basic' }],
              text: 'Bearer session token of the portal (reads); X-Api-Key of the institution (transaction/batch)',
            },
          ],
        },
        resource: [
          read(
            'Patient',
            searchParams(['_id', 'token', 'The id of the signed-in patient']),
            'The signed-in patient only',
          ),
          read('ServiceRequest', clinical, 'A protocol: the visit or order whose exams the portal delivers'),
          read('DiagnosticReport', clinical, 'An exam with its status and report files (presentedForm → Binary)'),
          read('Observation', clinical, "An analyte of a lab exam (the patient's results history)"),
          read('DocumentReference', clinical, 'A report or image file of an exam'),
          read('Binary', [], 'The bytes of a report or image'),
        ],
        interaction: [{ code: 'transaction' }, { code: 'batch' }],
      },
    ],
  };
}
