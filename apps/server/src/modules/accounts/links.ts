import type { AppContext } from '../../context.js';

/** An absolute link for a mail: PUBLIC_URL, the path, then the query in the order given (contract 4). */
export function mailLink(ctx: AppContext, path: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `${ctx.config.publicUrl}${path}${search ? `?${search}` : ''}`;
}
