import type { OperationOutcome, OperationOutcomeIssue } from '@medplum/fhirtypes';

export const FHIR_JSON = 'application/fhir+json';

export type IssueCode = OperationOutcomeIssue['code'];

/** One problem of a request, with the FHIRPath of the element at fault when there is one. */
export interface Issue {
  code: IssueCode;
  text: string;
  /** FHIRPath expression, e.g. `Bundle.entry[2].resource.identifier`. */
  location?: string;
  severity?: 'error' | 'warning';
}

export function operationOutcome(issues: readonly Issue[]): OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: issues.map((i) => ({
      severity: i.severity ?? 'error',
      code: i.code,
      details: { text: i.text },
      ...(i.location ? { expression: [i.location] } : {}),
    })),
  };
}

/** A refusal answered as an OperationOutcome with its HTTP status. */
export class FhirError extends Error {
  constructor(
    readonly statusCode: number,
    readonly issues: Issue[],
  ) {
    super(issues.map((i) => i.text).join('; '));
    this.name = 'FhirError';
  }
}

export const fhirNotFound = (what = 'Resource not found') => new FhirError(404, [{ code: 'not-found', text: what }]);
