/** Query parameters and path pieces that carry secrets; they never reach the logs. */
const SECRET_QUERY_KEYS = new Set([
  'password',
  'username',
  'token',
  'tokenmfa',
  'tokenvalue',
  'accesstoken',
  'birthdate',
  'dateofbirth',
  'hint',
  'code',
  'apikey',
]);

// Integrators name secrets freely (access_token, newPassword, api_key): any key that mentions one is
// treated as a secret, so a spelling this list never heard of still stays out of the logs.
const SECRET_KEY_PARTS = ['password', 'token', 'secret', 'apikey', 'api_key'];

function isSecretKey(key: string): boolean {
  return SECRET_QUERY_KEYS.has(key) || SECRET_KEY_PARTS.some((part) => key.includes(part));
}

/** Replaces secret query values and `/landing/<token>` with `[REDACTED]`. */
export function redactUrl(url: string): string {
  const [pathPart = '', query] = url.split('?', 2);
  const safePath = pathPart.replace(/\/landing\/[^/?#]+/i, '/landing/[REDACTED]');
  if (query === undefined) return safePath;
  const safeQuery = query
    .split('&')
    .map((pair) => {
      const [key = ''] = pair.split('=', 1);
      let decoded = key;
      try {
        decoded = decodeURIComponent(key);
      } catch {
        /* keep the raw key */
      }
      return isSecretKey(decoded.toLowerCase()) ? `${key}=[REDACTED]` : pair;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

/** pino redaction paths: headers and body fields that hold secrets. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.confirmPassword',
  '*.currentPassword',
  '*.newPassword',
  '*.confirmNewPassword',
  '*.token',
  '*.tokenMFA',
  '*.tokenValue',
  '*.accessToken',
  '*.apiKey',
  '*.code',
];
