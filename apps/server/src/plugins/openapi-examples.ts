/**
 * Example values for the OpenAPI document, built from a JSON schema and the names of its fields,
 * where an operation's description gives none of its own. The values look like the portal's real
 * data (a CPF with valid check digits, dates in the forms the contract asks for), so that an
 * integrator can send them as they are; the OpenAPI test sends every input example to the server.
 */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  minItems?: number;
  nullable?: boolean;
  pattern?: string;
  additionalProperties?: boolean | Schema;
};

/** Dates a person types (contract 2): DD/MM/YYYY. */
const TYPED_DATES: Record<string, string> = {
  initialdate: '01/11/2026',
  finaldate: '30/11/2026',
  dateofbirth: '15/03/1985',
  birthdate: '15/03/1985',
  birth: '15/03/1985',
};

/** A value for a string field, guessed from its name; `input` tells a request from an answer. */
function stringFor(name: string, schema: Schema, input: boolean): string {
  const key = name.toLowerCase();
  if (schema.format === 'date-time') return '2026-11-20T09:30:00.000-03:00';
  if (schema.format === 'date') return '1985-03-15';
  if (schema.format === 'email' || key.includes('email')) return 'maria.souza@example.com';
  if (schema.format === 'uuid') return '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a';
  if (schema.format === 'uri' || key.endsWith('url')) return 'https://resultados.example.com/';
  if (input && key in TYPED_DATES) return TYPED_DATES[key] ?? '';
  if (key === 'birthdate' || key === 'birthday') return '1985-03-15';
  if (/(^|[a-z])(at|date)$/.test(key) || key.endsWith('time')) return '2026-11-20T09:30:00.000-03:00';
  if (key.includes('cpf') || key === 'document') return '52998224725';
  if (key.includes('phone') || key.includes('whatsapp') || key === 'to') return '5511987654321';
  if (key.includes('password') || key === 'zpw') return 'Resultado-2026';
  if (key === 'language' || key === 'lang') return 'pt-br';
  if (key === 'uf' || key === 'state') return 'SP';
  if (key === 'crm') return '123456';
  if (key.includes('token')) return 'q3Vt0hX9cF2mJ8rLkP4sWz7aYb1NdE6g';
  if (key === 'mothername') return 'Ana Souza';
  if (key.includes('name') || key === 'fullname') return 'Maria Souza';
  if (key === 'code' || key.endsWith('code')) return 'LAB01';
  if (key === 'number' || key.startsWith('protocol')) return '2026110001';
  if (key === 'examkey') return 'HEM-1';
  if (key === 'description' || key === 'examtype') return 'Hemograma completo';
  if (key.includes('gender') || key === 'sex') return 'F';
  if (key === 'id' || key.endsWith('id') || key.endsWith('ids') || key === 'identifier' || key === 'requestid') {
    return '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a';
  }
  if (key === 'unit') return 'g/dL';
  if (key === 'value') return '13.5';
  if (key === 'message' || key === 'text') return 'Texto';
  if (key === 'tag') return 'Oncologia';
  return 'texto';
}

/** Values tried, in order, when a field's guess does not match its schema's pattern. */
const PATTERN_CANDIDATES = [
  '2026-11-20',
  '20/11/2026',
  '123456',
  '2026110001',
  '52998224725',
  '529.982.247-25',
  '5511987654321',
  'SP',
  'LAB01',
  'HEM-1',
  '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a',
  '2026-11-20T09:30:00.000-03:00',
];

function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}

function fit(value: string, schema: Schema): string {
  let out = value;
  if (schema.pattern && !matches(schema.pattern, out)) {
    out = PATTERN_CANDIDATES.find((candidate) => matches(schema.pattern ?? '', candidate)) ?? out;
  }
  if (schema.maxLength !== undefined && out.length > schema.maxLength) out = out.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && out.length < schema.minLength) out = out.padEnd(schema.minLength, 'x');
  return out;
}

function numberFor(name: string, schema: Schema): number {
  const key = name.toLowerCase();
  let value = key === 'size' ? 20 : key === 'page' ? 1 : key === 'total' ? 1 : key.includes('days') ? 7 : 1;
  if (typeof schema.minimum === 'number' && value < schema.minimum) value = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    value = schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === 'number' && value > schema.maximum) value = schema.maximum;
  return value;
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/**
 * An example for `schema`. `name` is the field's name (its values are guessed from it); `input`
 * is true for what a client sends (dates typed by a person are DD/MM/YYYY there).
 */
export function exampleFor(schema: Schema | undefined, name = '', input = false, depth = 0): unknown {
  if (!schema || depth > 12) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined && schema.default !== null) return schema.default;
  if (schema.enum && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) {
    const choice = choices.find((c) => c.type !== 'null' && !(c.enum?.length === 1 && c.enum[0] === null));
    return exampleFor(choice ?? choices[0], name, input, depth + 1);
  }
  if (schema.allOf) {
    return Object.assign({}, ...schema.allOf.map((part) => exampleFor(part, name, input, depth + 1) ?? {}));
  }
  switch (typeOf(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        const value = exampleFor(child, key, input, depth + 1);
        // A required field of any type (zod's unknown) shows as null.
        if (value !== undefined) out[key] = value;
        else if (required.has(key)) out[key] = null;
      }
      return out;
    }
    case 'array': {
      const item = exampleFor(schema.items, name.replace(/s$/, ''), input, depth + 1);
      return item === undefined ? [] : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'string':
      return fit(stringFor(name, schema, input), schema);
    case 'integer':
    case 'number':
      return numberFor(name, schema);
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}
