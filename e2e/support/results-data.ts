/** Results data made through the real APIs (contract 5 and 6) for the results journeys. */
import { pdfOfObjects } from './files.js';
import { linkIn, type Mailbox } from './mailbox.js';

/** A one-page PDF with a line of text, with a correct cross-reference table. */
export function pdfWith(text: string): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    '',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const stream = `BT /F1 18 Tf 72 760 Td (${text}) Tj ET`;
  objects[3] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  return pdfOfObjects(objects);
}

export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export async function call<T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
}

export async function upload(baseUrl: string, apiKey: string, path: string, type: string, bytes: Buffer) {
  const response = await fetch(`${baseUrl}/api/v2/delivery/ingest/protocols/${path}`, {
    method: 'PUT',
    headers: { 'x-api-key': apiKey, 'content-type': type },
    body: new Uint8Array(bytes),
  });
  if (!response.ok) throw new Error(`upload ${path} answered ${response.status}: ${await response.text()}`);
}

export interface ExamSpec {
  key: string;
  description: string;
  type?: string;
  modality?: [string, string];
  requester?: { identifier: string; name: string; crm?: string; uf?: string };
  status?: string;
  rectificationStatus?: string;
  performedAt: string;
  report?: boolean;
  /** More readable files beside the report (spec 3): the physician's report, analyses. */
  files?: Array<{ type: 'REPORT_PHYSICIAN' | 'ANALYSIS'; id: string; text: string }>;
  signed?: boolean;
  image?: boolean;
  analytes?: Array<{
    code: string;
    name: string;
    unit?: string;
    value: number | string;
    referenceMin?: number;
    referenceMax?: number;
  }>;
}

export async function ingest(
  baseUrl: string,
  apiKey: string,
  number: string,
  protocol: {
    password: string;
    requestedAt: string;
    tag?: string;
    patient: { patientId: string; name: string; birthDate: string; gender: string; email?: string; phone?: string };
    exams: ExamSpec[];
  },
): Promise<string> {
  const result = await call<{ requestId: string }>(
    baseUrl,
    'PUT',
    `/api/v2/delivery/ingest/protocols/${number}`,
    {
      password: protocol.password,
      requestedAt: protocol.requestedAt,
      tag: protocol.tag,
      patient: protocol.patient,
      exams: protocol.exams.map((e) => ({
        examKey: e.key,
        description: e.description,
        type: e.type ?? e.description,
        modalityCode: e.modality?.[0] ?? 'LAB',
        modalityName: e.modality?.[1] ?? 'Laboratório',
        requester: e.requester,
        status: e.status ?? 'RELEASED',
        rectificationStatus: e.rectificationStatus,
        performedAt: e.performedAt,
        deliveredAt: e.performedAt,
        analytes: e.analytes,
      })),
    },
    { 'x-api-key': apiKey },
  );
  for (const e of protocol.exams) {
    const base = `${number}/exams/${e.key}/resources`;
    if (e.report)
      await upload(
        baseUrl,
        apiKey,
        `${base}/${e.key}-laudo?type=REPORT`,
        'application/pdf',
        pdfWith(`Laudo ${e.description} ${number}`),
      );
    for (const f of e.files ?? []) {
      await upload(baseUrl, apiKey, `${base}/${f.id}?type=${f.type}`, 'application/pdf', pdfWith(f.text));
    }
    if (e.signed)
      await upload(baseUrl, apiKey, `${base}/${e.key}-laudo/signed`, 'application/pdf', pdfWith(`Assinado ${number}`));
    if (e.image) await upload(baseUrl, apiKey, `${base}/${e.key}-img?type=IMAGE`, 'image/png', PNG);
  }
  return result.requestId;
}

export const daysAgo = (days: number, hour = 13) => {
  const d = new Date(Date.now() - days * 24 * 3600_000);
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};

export async function signInApi(
  baseUrl: string,
  userName: string,
  password: string,
): Promise<{ token: string; id: string }> {
  const result = await call<{ accessToken: string; user: { identifier: string } }>(
    baseUrl,
    'POST',
    '/api/v2/auth/login',
    {
      userName,
      password,
      appKey: 'login',
    },
  );
  // Pending terms would open the acceptance modal on every screen; the terms journey covers it.
  const auth = { authorization: `Bearer ${result.accessToken}` };
  const pending = await call<Array<{ id: string; newTerm: boolean }>>(
    baseUrl,
    'GET',
    '/api/v2/delivery/term/user',
    undefined,
    auth,
  );
  const ids = pending.filter((t) => t.newTerm).map((t) => t.id);
  if (ids.length > 0) await call(baseUrl, 'POST', '/api/v2/delivery/term/user', { termIds: ids }, auth);
  return { token: result.accessToken, id: result.user.identifier };
}

/** A physician invited by an institution (as an admin does) who signs up from the mailed link. */
export async function registerPhysician(
  baseUrl: string,
  mailbox: Mailbox,
  asAdmin: Record<string, string>,
  institutionId: string,
  physician: { email: string; password: string },
  crm: { name: string; crm?: string; uf?: string },
): Promise<void> {
  await call(
    baseUrl,
    'POST',
    '/api/administrationbe/physician/invite',
    { email: physician.email, name: crm.name, crm: crm.crm, uf: crm.uf, institutionId, language: 'pt-br' },
    asAdmin,
  );
  const invite = new URL(linkIn(await mailbox.waitFor(physician.email), baseUrl, '/physician/create'));
  await call(baseUrl, 'POST', '/api/v2/auth/physician/create', {
    token: invite.searchParams.get('token'),
    fullName: crm.name,
    password: physician.password,
    confirmPassword: physician.password,
    language: 'pt-br',
  });
}
