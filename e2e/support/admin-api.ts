/** Sets up what a journey needs through the real administration API (contract 6), as the first admin. */
export class AdminApi {
  private token = '';

  constructor(
    private readonly baseUrl: string,
    private readonly admin: { email: string; password: string },
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
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
  }) {
    return this.call<{ id: string; code: string; token: string; apiKey: string }>(
      'POST',
      '/api/administrationbe/institution',
      body,
    );
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
}
