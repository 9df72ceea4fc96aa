import { describe, expect, it } from 'vitest';
import { ITEM_PROTOCOL_COLUMNS, listedRow } from './delivery.repository.js';

describe('list page rows', () => {
  it('take each value from the position its column is selected at', () => {
    const names = [...ITEM_PROTOCOL_COLUMNS, 'exams'];
    const row = listedRow(names);
    expect(Object.keys(row).sort()).toEqual([...names].sort());
    for (const [key, value] of Object.entries(row)) expect(value, key).toBe(key);
  });
});
