// The parts of web-portal.mjs the TypeScript benchmarks use.
export const CHROMIUM_ARGS: string[];
export const CHROMIUM_PATH: string;
export function requireBuild(): void;
export function startPortal(root?: string): Promise<{
  base: string;
  admin: { email: string; password: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON answers, read field by field
  call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>;
  mailLink: (to: string, pathPart: string) => Promise<string>;
  shutdown: () => Promise<void>;
}>;
