import { describe, expect, it } from 'vitest';
import { readAhead } from './read-ahead.js';

/** Reads that finish only when the test says so, recording which were started. */
function controlledReads() {
  const started: number[] = [];
  const finish = new Map<number, (value: Buffer | Error) => void>();
  const read = (item: { n: number }) => {
    started.push(item.n);
    return new Promise<Buffer>((resolve, reject) =>
      finish.set(item.n, (value) => (value instanceof Error ? reject(value) : resolve(value))),
    );
  };
  return { started, finish, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('readAhead', () => {
  it('hands files over in their order while later ones are already being read', async () => {
    const items = [0, 1, 2, 3, 4].map((n) => ({ n, size: 10 }));
    const { started, finish, read } = controlledReads();
    const files = readAhead(items, (i) => i.size, read, { files: 3, bytes: 1000 });
    const first = files.next();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    // The third finishes before the first: the order handed over is still the files' order.
    finish.get(2)!(Buffer.from('two'));
    finish.get(0)!(Buffer.from('zero'));
    expect((await first).toString()).toBe('zero');
    expect(started).toEqual([0, 1, 2, 3]);
    finish.get(1)!(Buffer.from('one'));
    expect((await files.next()).toString()).toBe('one');
    expect((await files.next()).toString()).toBe('two');
    finish.get(3)!(Buffer.from('three'));
    finish.get(4)!(Buffer.from('four'));
    expect((await files.next()).toString()).toBe('three');
    expect((await files.next()).toString()).toBe('four');
    await expect(files.next()).rejects.toThrow('read past the last file');
  });

  it('holds no more bytes ahead than allowed, but always reads a file larger than the limit', async () => {
    const items = [
      { n: 0, size: 600 },
      { n: 1, size: 600 },
      { n: 2, size: 100 },
    ];
    const { started, finish, read } = controlledReads();
    const files = readAhead(items, (i) => i.size, read, { files: 8, bytes: 1000 });
    const first = files.next();
    await tick();
    expect(started).toEqual([0]);
    finish.get(0)!(Buffer.alloc(600));
    await first;
    expect(started).toEqual([0, 1, 2]);
  });

  it('reports a failed read to the one who takes that file, and only then', async () => {
    const items = [0, 1].map((n) => ({ n, size: 1 }));
    const { finish, read } = controlledReads();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const files = readAhead(items, (i) => i.size, read);
      const first = files.next();
      await tick();
      finish.get(1)!(new Error('disk gone'));
      finish.get(0)!(Buffer.from('ok'));
      expect((await first).toString()).toBe('ok');
      await tick();
      expect(unhandled).toEqual([]);
      await expect(files.next()).rejects.toThrow('disk gone');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
