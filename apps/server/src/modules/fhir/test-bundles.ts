import type { Bundle, BundleEntry, Resource } from '@medplum/fhirtypes';
import { SYSTEMS } from './fhir-mapping.js';

/**
 * Result Bundles in the shape of the FHIR specification's own lab report examples (a transaction
 * with Patient, ServiceRequest, DiagnosticReport with presentedForm and Observations with
 * referenceRange and interpretation), filled with Brazilian identifiers as RNDS names them.
 */
export interface LabBundleOptions {
  number?: string;
  password?: string;
  patientId?: string;
  cpf?: string;
  patientName?: string;
  birthDate?: string;
  examKey?: string;
  status?: string;
  glucose?: number;
  /** base64 PDF for presentedForm. */
  pdf: string;
  /** base64 PDF delivered as a DocumentReference + Binary (the physician's report). */
  physicianPdf?: string;
  /** Conditional PUT instead of POST + ifNoneExist. */
  conditionalPut?: boolean;
  type?: 'transaction' | 'batch';
}

const ORG = 'https://lab.exemplo.com.br/fhir';

export function labBundle(o: LabBundleOptions): Bundle {
  const number = o.number ?? '2026112500123';
  const examKey = o.examKey ?? `${number}-GLI`;
  const id = (s: string) => `urn:uuid:${s}`;
  const request = (type: string, system: string, value: string) =>
    o.conditionalPut
      ? { method: 'PUT' as const, url: `${type}?identifier=${encodeURIComponent(`${system}|${value}`)}` }
      : { method: 'POST' as const, url: type, ifNoneExist: `identifier=${encodeURIComponent(`${system}|${value}`)}` };
  const entry = (fullUrl: string, resource: Resource, req?: BundleEntry['request']): BundleEntry => ({
    fullUrl,
    resource,
    request: req ?? { method: 'POST', url: resource.resourceType },
  });
  const patientId = o.patientId ?? 'PAC-884422';
  const entries: BundleEntry[] = [
    entry(
      id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001'),
      {
        resourceType: 'Patient',
        identifier: [
          {
            use: 'usual',
            type: { coding: [{ system: SYSTEMS.v2IdentifierType, code: 'MR' }] },
            system: `${ORG}/NamingSystem/prontuario`,
            value: patientId,
          },
          { use: 'official', system: SYSTEMS.cpf, value: o.cpf ?? '52998224725' },
          { system: SYSTEMS.cns, value: '898001160660004' },
        ],
        name: [{ use: 'official', text: o.patientName ?? 'João Conceição da Silva' }],
        telecom: [
          { system: 'phone', value: '+55 11 98765-4321', use: 'mobile' },
          { system: 'email', value: 'joao.conceicao@example.com' },
        ],
        gender: 'male',
        birthDate: o.birthDate ?? '1971-03-14',
      },
      request('Patient', `${ORG}/NamingSystem/prontuario`, patientId),
    ),
    entry(id('5d1c9a4e-0c8a-4b0e-9d5c-000000000002'), {
      resourceType: 'Practitioner',
      identifier: [{ system: SYSTEMS.crm, value: '123456-SP' }],
      name: [{ text: 'Dra. Ana Beatriz Souza' }],
    }),
    entry(
      id('5d1c9a4e-0c8a-4b0e-9d5c-000000000003'),
      {
        resourceType: 'ServiceRequest',
        extension: [{ url: SYSTEMS.protocolPassword, valueString: o.password ?? 'senha-123' }],
        identifier: [
          {
            type: { coding: [{ system: SYSTEMS.v2IdentifierType, code: 'PLAC' }] },
            system: `${ORG}/NamingSystem/protocolo`,
            value: number,
          },
        ],
        status: 'active',
        intent: 'order',
        code: { text: 'Exames laboratoriais' },
        subject: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001') },
        authoredOn: '2026-11-24T07:40:00-03:00',
        requester: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000002') },
      },
      request('ServiceRequest', `${ORG}/NamingSystem/protocolo`, number),
    ),
    entry(
      id('5d1c9a4e-0c8a-4b0e-9d5c-000000000004'),
      {
        resourceType: 'DiagnosticReport',
        identifier: [{ system: `${ORG}/NamingSystem/exame`, value: examKey }],
        basedOn: [{ reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000003') }],
        status: (o.status ?? 'final') as 'final',
        category: [{ coding: [{ system: SYSTEMS.v2DiagnosticService, code: 'LAB', display: 'Laboratory' }] }],
        code: {
          coding: [{ system: SYSTEMS.loinc, code: '24331-1', display: 'Lipid 1996 panel - Serum or Plasma' }],
          text: 'Glicemia e colesterol',
        },
        subject: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001') },
        effectiveDateTime: '2026-11-24T07:55:00-03:00',
        issued: '2026-11-24T15:10:00-03:00',
        performer: [{ display: 'Laboratório Exemplo' }],
        result: [
          { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000005') },
          { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000006') },
        ],
        presentedForm: [{ contentType: 'application/pdf', title: 'Laudo', data: o.pdf }],
      },
      request('DiagnosticReport', `${ORG}/NamingSystem/exame`, examKey),
    ),
    entry(id('5d1c9a4e-0c8a-4b0e-9d5c-000000000005'), {
      resourceType: 'Observation',
      status: 'final',
      category: [
        {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }],
        },
      ],
      code: {
        coding: [{ system: SYSTEMS.loinc, code: '2345-7', display: 'Glucose [Mass/volume] in Serum or Plasma' }],
        text: 'Glicose',
      },
      subject: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001') },
      effectiveDateTime: '2026-11-24T07:55:00-03:00',
      valueQuantity: { value: o.glucose ?? 104, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' },
      interpretation: [{ coding: [{ system: SYSTEMS.interpretation, code: 'H', display: 'High' }] }],
      referenceRange: [{ low: { value: 70, unit: 'mg/dL' }, high: { value: 99, unit: 'mg/dL' } }],
    }),
    entry(id('5d1c9a4e-0c8a-4b0e-9d5c-000000000006'), {
      resourceType: 'Observation',
      status: 'final',
      code: { coding: [{ system: `${ORG}/CodeSystem/analitos`, code: 'COLT', display: 'Colesterol total' }] },
      subject: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001') },
      valueQuantity: { value: 182, unit: 'mg/dL' },
      interpretation: [{ coding: [{ system: SYSTEMS.interpretation, code: 'N', display: 'Normal' }] }],
      referenceRange: [{ high: { value: 190, unit: 'mg/dL' }, text: 'Desejável: inferior a 190 mg/dL' }],
    }),
  ];
  if (o.physicianPdf) {
    entries.push(
      entry(id('5d1c9a4e-0c8a-4b0e-9d5c-000000000007'), {
        resourceType: 'DocumentReference',
        identifier: [{ system: `${ORG}/NamingSystem/documento`, value: `${examKey}-MED` }],
        status: 'current',
        type: {
          coding: [{ system: 'urn:results-portal:resource-type', code: 'REPORT_PHYSICIAN' }],
          text: 'Laudo médico',
        },
        subject: { reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000001') },
        content: [{ attachment: { contentType: 'application/pdf', url: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000008') } }],
        context: { related: [{ reference: id('5d1c9a4e-0c8a-4b0e-9d5c-000000000004') }] },
      }),
      entry(id('5d1c9a4e-0c8a-4b0e-9d5c-000000000008'), {
        resourceType: 'Binary',
        contentType: 'application/pdf',
        data: o.physicianPdf,
      }),
    );
  }
  return { resourceType: 'Bundle', type: o.type ?? 'transaction', entry: entries };
}
