/**
 * Reads files ahead of the one being written, in order: up to `files` reads in flight and about
 * `bytes` held, so each file's read latency (a thread-pool round trip on disk, a request on S3)
 * overlaps the writing of the files before it instead of adding up.
 */
export function readAhead<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  read: (item: T) => Promise<Buffer>,
  limits: { files: number; bytes: number } = { files: 8, bytes: 8 << 20 },
): { next(): Promise<Buffer> } {
  const pending = new Map<number, Promise<Buffer>>();
  let started = 0;
  let taken = 0;
  let held = 0;
  const fill = () => {
    while (
      started < items.length &&
      pending.size < limits.files &&
      // One file is always read, however large; more only while they fit.
      (pending.size === 0 || held + sizeOf(items[started]!) <= limits.bytes)
    ) {
      const index = started++;
      held += sizeOf(items[index]!);
      const reading = read(items[index]!);
      // A failure is reported to whoever takes this file, not as an unhandled rejection before.
      reading.catch(() => undefined);
      pending.set(index, reading);
    }
  };
  return {
    async next() {
      const index = taken++;
      if (index >= items.length) throw new Error('read past the last file');
      fill();
      const reading = pending.get(index)!;
      try {
        return await reading;
      } finally {
        pending.delete(index);
        held -= sizeOf(items[index]!);
        fill();
      }
    },
  };
}
