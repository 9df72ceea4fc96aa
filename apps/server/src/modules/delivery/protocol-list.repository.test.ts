import { describe, expect, it } from 'vitest';
import type { SqlReader } from '../../db/database.js';
import type { Viewer } from './delivery.policy.js';
import { listProtocols, type ListFilter } from './protocol-list.repository.js';

/** A reader that answers full pages and a given total, and records how each page was planned. */
function recordingReader(total: number) {
  const pagePlans: boolean[] = [];
  const reader: SqlReader = {
    dialect: 'sqlite',
    listParam: '(?)',
    list: (values) => values,
    joined: (value) => value,
    all: async <T>() => [{ n: total }] as T[],
    arrays: async (_text, params, options) => {
      pagePlans.push(options?.planWithValues === true);
      const limit = params[params.length - 2] as number;
      return Array.from({ length: limit }, (_, i) => [`p${i}`]);
    },
  };
  return { reader, pagePlans };
}

const filter: ListFilter = { from: '2026-01-01T03:00:00.000Z', orderBy: 'date', offset: 0, limit: 10 };
const patient = (userId: string) =>
  ({ role: 'PATIENT', userId, tagIds: new Set<string>(), license: null }) as unknown as Viewer;

describe('how list pages are planned', () => {
  it('keeps one plan for a plain page until the user shows many protocols, then plans for the values', async () => {
    const heavy = recordingReader(5000);
    const viewer = patient('heavy-patient');
    await listProtocols(heavy.reader, viewer, filter);
    await listProtocols(heavy.reader, viewer, filter);
    expect(heavy.pagePlans).toEqual([false, true]);

    const light = recordingReader(40);
    const other = patient('light-patient');
    await listProtocols(light.reader, other, filter);
    await listProtocols(light.reader, other, filter);
    expect(light.pagePlans).toEqual([false, false]);
  });

  it('plans pages with a search or a read filter for their values, and a guest page once', async () => {
    const { reader, pagePlans } = recordingReader(3);
    await listProtocols(reader, patient('searching-patient'), { ...filter, search: 'torax' });
    await listProtocols(reader, patient('searching-patient'), { ...filter, read: 'unread' });
    const guest = { role: 'GUEST', sessionId: 's1', tagIds: new Set<string>(), license: null } as unknown as Viewer;
    await listProtocols(reader, guest, filter);
    expect(pagePlans).toEqual([true, true, false]);
  });
});
