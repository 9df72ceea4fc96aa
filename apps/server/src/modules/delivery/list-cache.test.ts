import { describe, expect, it } from 'vitest';
import { JsonAnswer } from '../../lib/json-answer.js';
import { ListAnswers } from './list-cache.js';

const AT = { listRevision: 7, settingsRevision: 3 };

describe('kept list answers', () => {
  it('serve an answer again only at the revisions it was built at', () => {
    const answers = new ListAnswers();
    answers.set('k', AT, new JsonAnswer('{"a":1}'), null);
    expect(answers.get('k', AT, undefined)?.body).toBe('{"a":1}');
    expect(answers.get('other', AT, undefined)).toBeUndefined();
    expect(answers.get('k', { ...AT, listRevision: 8 }, undefined)).toBeUndefined();
    // A changed revision drops the answer: going back to the old number finds nothing.
    expect(answers.get('k', AT, undefined)).toBeUndefined();
    answers.set('k', AT, new JsonAnswer('{"a":2}'), null);
    expect(answers.get('k', { ...AT, settingsRevision: 4 }, undefined)).toBeUndefined();
  });

  it('serve a default range while its start has not passed the first protocol of the reach', () => {
    const answers = new ListAnswers();
    const start = { from: '2026-05-20T12:00:00.000Z', until: '2026-05-21T08:00:00.000Z' };
    answers.set('k', AT, new JsonAnswer('body'), start);
    expect(answers.get('k', AT, '2026-05-20T12:00:00.000Z')?.body).toBe('body');
    expect(answers.get('k', AT, '2026-05-21T08:00:00.000Z')?.body).toBe('body');
    // A start before the one it was built from could take in older protocols.
    expect(answers.get('k', AT, '2026-05-20T11:59:59.999Z')).toBeUndefined();
    answers.set('k', AT, new JsonAnswer('body'), start);
    expect(answers.get('k', AT, '2026-05-21T08:00:00.001Z')).toBeUndefined();
    answers.set('k', AT, new JsonAnswer('body'), { from: start.from, until: null });
    expect(answers.get('k', AT, '2027-01-01T00:00:00.000Z')?.body).toBe('body');
  });

  it('drop the least recently used answers beyond their size limit', () => {
    const answers = new ListAnswers(10);
    answers.set('a', AT, new JsonAnswer('aaaa'), null);
    answers.set('b', AT, new JsonAnswer('bbbb'), null);
    expect(answers.get('a', AT, undefined)?.body).toBe('aaaa');
    answers.set('c', AT, new JsonAnswer('cccc'), null);
    expect(answers.get('b', AT, undefined)).toBeUndefined();
    expect(answers.get('a', AT, undefined)?.body).toBe('aaaa');
    expect(answers.get('c', AT, undefined)?.body).toBe('cccc');
    answers.set('big', AT, new JsonAnswer('x'.repeat(11)), null);
    expect(answers.get('big', AT, undefined)).toBeUndefined();
    expect(answers.get('c', AT, undefined)?.body).toBe('cccc');
  });
});
