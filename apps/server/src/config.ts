import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { defaultHashingLimits, type HashingLimits } from './lib/passwords.js';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL (${protocols.join(' or ')})`,
  );

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (`10.0.0.0/8`, `fd00::/8`) or a named range of trusted proxies. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY (contract 9): how many proxies stand in front of the portal, or their addresses; the
 * client's address is then read from `X-Forwarded-For` that far from the right, never from its
 * leftmost entry, which the client writes itself. `true` would believe that entry: refused.
 */
const trustProxy = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    if (/^(true|yes|on)$/i.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message:
          '`true` would believe any X-Forwarded-For a client writes. Write the number of proxies in front of ' +
          'the portal (`1` behind one nginx or one cloud load balancer), or their addresses or CIDRs separated ' +
          'by commas (`127.0.0.1` for nginx on this host, `10.0.0.0/8` for a load balancer in that network)',
      });
      return;
    }
    if (/^\d+$/.test(value) || /^(false|no|off)$/i.test(value)) return;
    const wrong = value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => !isProxyAddress(v));
    if (wrong.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${wrong.map((v) => `"${v}"`).join(', ')} is not a hop count, an IP address, a CIDR or loopback/linklocal/uniquelocal`,
      });
    }
  })
  .transform((value): number | string[] | undefined => {
    if (/^\d+$/.test(value)) return Number(value) > 0 ? Number(value) : undefined;
    if (/^(false|no|off)$/i.test(value)) return undefined;
    return value.split(',').map((v) => v.trim());
  });

/** Every setting of contract section 1, read once from the environment. */
const schema = z
  .object({
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    STORAGE_URL: url(['s3:']).optional(),
    S3_ENDPOINT: url(['http:', 'https:']).optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    PUBLIC_URL: url(['http:', 'https:']).optional(),
    /** Passkeys: the relying party's domain (PUBLIC_URL's host name unless given). */
    WEBAUTHN_RP_ID: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'must be a domain name')
      .optional(),
    /** Passkeys: the origins the browser may answer from, comma-separated (PUBLIC_URL's origin unless given). */
    WEBAUTHN_ORIGINS: z
      .string()
      .refine(
        (v) =>
          v.split(',').every((o) => {
            try {
              const u = new URL(o.trim());
              return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === o.trim();
            } catch {
              return false;
            }
          }),
        'must be origins (scheme://host[:port]) separated by commas',
      )
      .optional(),
    WEBAUTHN_RP_NAME: z.string().max(64).default('Portal de Resultados'),
    SMTP_URL: url(['smtp:', 'smtps:']).optional(),
    MAIL_FROM: z.string().default('Resultados <no-reply@localhost>'),
    SMS_WEBHOOK_URL: url(['http:', 'https:']).optional(),
    ADMIN_EMAIL: z.string().email().optional(),
    ADMIN_PASSWORD: z.string().min(6).max(128).optional(),
    DEMO_DATA: boolean.default(false),
    JWT_SECRET: z.string().min(32, 'must have at least 32 characters').optional(),
    SESSION_TTL_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(60),
    INGEST_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(100 * 1024 * 1024),
    DICOM_MAX_INSTANCE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(512 * 1024 * 1024),
    DICOM_MAX_STUDY_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(8 * 1024 * 1024 * 1024),
    TRUST_PROXY: trustProxy.optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
    WEB_DIST: z.string().optional(),
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_TOKEN: z.string().min(32, 'must have at least 32 characters').optional(),
    ADMIN_DIST: z.string().optional(),
    OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
    /** How long a server process holds a message it is sending; another takes it over after that. */
    OUTBOX_LEASE_MS: z.coerce.number().int().min(5000).default(600_000),
    HL7_MLLP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    HL7_MLLP_TLS_CERT: z.string().optional(),
    HL7_MLLP_TLS_KEY: z.string().optional(),
    HL7_MLLP_TLS_CA: z.string().optional(),
    HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
    HASH_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).optional(),
    TRUST_ROOTS_DIR: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    if (c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === c.PORT) {
      ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT' });
    }
    if (!!c.HL7_MLLP_TLS_CERT !== !!c.HL7_MLLP_TLS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['HL7_MLLP_TLS_CERT'],
        message: 'HL7_MLLP_TLS_CERT and HL7_MLLP_TLS_KEY go together',
      });
    }
    if (c.HL7_MLLP_TLS_CA && !c.HL7_MLLP_TLS_CERT) {
      ctx.addIssue({
        code: 'custom',
        path: ['HL7_MLLP_TLS_CA'],
        message: 'needs HL7_MLLP_TLS_CERT and HL7_MLLP_TLS_KEY',
      });
    }
    if (c.ADMIN_EMAIL && !c.ADMIN_PASSWORD) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: 'is required with ADMIN_EMAIL' });
    }
    if (c.STORAGE_URL && (!c.S3_ACCESS_KEY_ID || !c.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_ACCESS_KEY_ID'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required with STORAGE_URL',
      });
    }
  });

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

/** Parses the environment; a wrong value throws a ConfigError naming every faulty variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.DATA_DIR);
  return {
    host: c.HOST,
    port: c.PORT,
    dataDir,
    database: c.DATABASE_URL
      ? ({ dialect: 'postgres', url: c.DATABASE_URL } as const)
      : ({ dialect: 'sqlite', file: path.join(dataDir, 'portal.db') } as const),
    storage: c.STORAGE_URL
      ? ({
          kind: 's3',
          url: c.STORAGE_URL,
          endpoint: c.S3_ENDPOINT,
          region: c.S3_REGION,
          accessKeyId: c.S3_ACCESS_KEY_ID ?? '',
          secretAccessKey: c.S3_SECRET_ACCESS_KEY ?? '',
        } as const)
      : ({ kind: 'disk', dir: path.join(dataDir, 'files') } as const),
    publicUrl: (c.PUBLIC_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, ''),
    webauthn: webauthnConfig(
      c.PUBLIC_URL ?? `http://${c.HOST}:${c.PORT}`,
      c.WEBAUTHN_RP_ID,
      c.WEBAUTHN_ORIGINS,
      c.WEBAUTHN_RP_NAME,
    ),
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM,
    smsWebhookUrl: c.SMS_WEBHOOK_URL,
    admin: c.ADMIN_EMAIL ? { email: c.ADMIN_EMAIL.toLowerCase(), password: c.ADMIN_PASSWORD ?? '' } : undefined,
    demoData: c.DEMO_DATA,
    jwtSecret: c.JWT_SECRET,
    sessionTtlMs: c.SESSION_TTL_MINUTES * 60_000,
    ingestMaxBytes: c.INGEST_MAX_BYTES,
    /** STOW-RS: one instance is held in memory while it is parsed, so it has a limit of its own. */
    dicomMaxInstanceBytes: c.DICOM_MAX_INSTANCE_BYTES,
    dicomMaxStudyBytes: c.DICOM_MAX_STUDY_BYTES,
    trustProxy: c.TRUST_PROXY,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    webDist: c.WEB_DIST,
    adminDist: c.ADMIN_DIST,
    outboxPollMs: c.OUTBOX_POLL_MS,
    outboxLeaseMs: c.OUTBOX_LEASE_MS,
    /** Prometheus metrics: off unless a port of their own or a token is given. */
    metrics: {
      enabled: c.METRICS_PORT !== undefined || c.METRICS_TOKEN !== undefined,
      port: c.METRICS_PORT,
      token: c.METRICS_TOKEN,
    },
    /** Contract 9: the MLLP listener on HOST, with TLS when a certificate is given. */
    hl7Mllp:
      c.HL7_MLLP_PORT === undefined
        ? undefined
        : {
            port: c.HL7_MLLP_PORT,
            tls: c.HL7_MLLP_TLS_CERT
              ? { certFile: c.HL7_MLLP_TLS_CERT, keyFile: c.HL7_MLLP_TLS_KEY ?? '', caFile: c.HL7_MLLP_TLS_CA }
              : undefined,
          },
    hashing: hashingLimits(c.HASH_CONCURRENCY, c.HASH_QUEUE_MAX),
    /**
     * Issue 22.3: the roots (and intermediates, and CRLs) signed reports are checked against. The
     * demo, unless told otherwise, trusts the root it makes for its own reports.
     */
    trustRootsDir: c.TRUST_ROOTS_DIR
      ? path.resolve(c.TRUST_ROOTS_DIR)
      : c.DEMO_DATA
        ? path.join(dataDir, 'demo-trust-roots')
        : undefined,
  };
}

/** Passkeys' relying party: by default the public URL's host name and origin. */
function webauthnConfig(publicUrl: string, rpId: string | undefined, origins: string | undefined, rpName: string) {
  const url = new URL(publicUrl);
  return {
    rpId: (rpId ?? url.hostname).toLowerCase(),
    rpName,
    origins: origins ? origins.split(',').map((o) => o.trim()) : [url.origin],
  };
}

/** Password hashes run at once and waiting: by default one per core but one, 32 waiting per runner. */
function hashingLimits(concurrency: number | undefined, maxQueued: number | undefined): HashingLimits {
  const defaults = defaultHashingLimits();
  const running = concurrency ?? defaults.concurrency;
  return { concurrency: running, maxQueued: maxQueued ?? 32 * running };
}
