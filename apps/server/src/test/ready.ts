import type { ChildProcess } from 'node:child_process';

/**
 * Waits until the server process `child` answers /readyz at `baseUrl`. Fails, with what the
 * server printed, when it exits first (by a signal too) or is not ready within `timeoutMs`; each
 * check gives up after 5 s. The caller stops the process on failure.
 */
export async function untilReady(
  child: ChildProcess,
  baseUrl: string,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode !== null ? `status ${child.exitCode}` : child.signalCode;
      throw new Error(`the server at ${baseUrl} exited (${how}) before it was ready:\n${output()}`);
    }
    try {
      if ((await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`the server at ${baseUrl} was not ready within ${timeoutMs / 1000} s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
