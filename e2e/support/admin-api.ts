/** Sets up what a journey needs through the real administration API (contract 6), as the first admin. */
export class AdminApi {
  private token = '';

  constructor(
    private readonly baseUrl: string,
    private readonly admin: { email: string; password: string },
  ) {}

  private async call<T>(method: string, path: string, body?: unknown, apiKey?: string): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(apiKey ? { 'x-api-key': apiKey } : this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  }

  /** The first admin, signed in. */
  static async signedIn(baseUrl: string, admin: { email: string; password: string }): Promise<AdminApi> {
    const api = new AdminApi(baseUrl, admin);
    await api.signIn();
    return api;
  }

  /** The admin's session token, for calls made as the admin by other means. */
  get accessToken(): string {
    return this.token;
  }

  /** The admin's session as request headers, for the journeys' own calls. */
  headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  async signIn(): Promise<void> {
    const result = await this.call<{ accessToken: string }>('POST', '/api/v2/auth/login', {
      userName: this.admin.email,
      password: this.admin.password,
      appKey: 'admin',
    });
    this.token = result.accessToken;
  }

  createInstitution(body: {
    code: string;
    name: string;
    viewType?: number;
    logoPath?: string;
    supportEmail?: string;
    supportPhoneNumber?: string;
    supportWhatsAppNumber?: string;
    settings?: Record<string, unknown>;
  }) {
    return this.call<{ id: string; code: string; token: string; apiKey: string }>(
      'POST',
      '/api/administrationbe/institution',
      body,
    );
  }

  /** Contract 6: PUT changes only what the body carries; settings keys not sent keep their values. */
  updateInstitution(id: string, body: { name?: string; settings?: Record<string, unknown> }) {
    return this.call<{ id: string; settings: Record<string, unknown> }>(
      'PUT',
      `/api/administrationbe/institution/${id}`,
      body,
    );
  }

  /** Issue 22: an institution's release-hold rules per exam type. */
  holdRules(institutionId: string) {
    return this.call<{
      rules: Array<{ examTypeCode: string; rule: string; hours: number | null; message: string | null }>;
    }>('GET', `/api/administrationbe/institution/${institutionId}/hold-rules`);
  }

  /** Replaces an institution's release-hold rules. */
  setHoldRules(
    institutionId: string,
    rules: Array<{ examTypeCode: string; rule: string; hours?: number | null; message?: string | null }>,
  ) {
    return this.call<unknown>('PUT', `/api/administrationbe/institution/${institutionId}/hold-rules`, { rules });
  }

  invitePhysician(body: {
    email: string;
    name: string;
    crm: string;
    uf: string;
    institutionId: string;
    language: string;
  }) {
    return this.call<unknown>('POST', '/api/administrationbe/physician/invite', body);
  }

  inviteCompany(body: { email: string; institutionId: string; language: string }) {
    return this.call<unknown>('POST', '/api/administrationbe/company/invite', body);
  }

  /** An institution confirming a registered physician, so his license opens its protocols. */
  addInstitutionPhysician(institutionId: string, email: string) {
    return this.call<unknown>('POST', `/api/administrationbe/institution/${institutionId}/physicians`, { email });
  }

  createTag(institutionId: string, tag: string) {
    return this.call<{ id: string; tag: string }>('POST', `/api/administrationbe/institution/${institutionId}/tags`, {
      tag,
    });
  }

  deleteTag(institutionId: string, tagId: string) {
    return this.call<boolean>('DELETE', `/api/administrationbe/institution/${institutionId}/tags/${tagId}`);
  }

  addTagUser(institutionId: string, tagId: string, body: { email: string; name: string; language: string }) {
    return this.call<unknown>('POST', `/api/administrationbe/institution/${institutionId}/tags/${tagId}/users`, body);
  }

  /** Contract 5: an institution's system delivering a protocol with its API key. */
  ingestProtocol(apiKey: string, number: string, body: unknown) {
    return this.call<{ requestId: string }>('PUT', `/api/v2/delivery/ingest/protocols/${number}`, body, apiKey);
  }

  invitePatient(apiKey: string, number: string, language: string) {
    return this.call<unknown>('POST', `/api/v2/delivery/ingest/protocols/${number}/invite`, { language }, apiKey);
  }

  /** The console's People list, searched. */
  accounts(search: string) {
    return this.call<{ items: Array<{ id: string; state: string; awaitingInstitution?: boolean }> }>(
      'GET',
      `/api/administrationbe/accounts?search=${encodeURIComponent(search)}`,
    );
  }

  setAccountDisabled(id: string, disabled: boolean) {
    return this.call<unknown>('PUT', `/api/administrationbe/accounts/${id}/disabled`, { disabled });
  }

  /** An institution as the console's edit screen reads it. */
  institution(id: string) {
    return this.call<{
      id: string;
      name: string;
      supportPhoneNumber: string | null;
      hl7SendingFacilities: string[];
      settings: Record<string, unknown>;
    }>('GET', `/api/administrationbe/institution/${id}`);
  }

  /** Admins invite admins: the invitee chooses a password from the mail. */
  inviteAdmin(body: { email: string; name: string; language: string }) {
    return this.call<unknown>('POST', '/api/administrationbe/admin/invite', body);
  }
}
