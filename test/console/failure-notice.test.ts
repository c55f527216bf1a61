import { describe, expect, it } from 'vitest';
import { FAILURE_LABELS, failureNotice, INTERNAL_FAILURES } from '../../console/src/jobs/labels.js';
import { FAILURE_CODES } from '../../src/model/types.js';

const JOB = '0b0e7a8c-3c1f-4c0e-9d7e-5b1d2f0a6c11';

describe('what the console says of a failed job', () => {
  it('shows invalid_response as an internal error to report with the job id, not as a registry problem', () => {
    const notice = failureNotice('invalid_response', { kind: 'job', id: JOB });
    expect(notice.title).toBe('Internal error: please report it');
    expect(notice.detail).toContain('a defect of the service');
    expect(notice.detail).toContain(`Please report it with the job id ${JOB}.`);
    expect(notice.detail).not.toMatch(/registry answered/i);
    expect(failureNotice('invalid_response', { kind: 'request', id: 'req-1' }).detail).toContain('with the request id req-1.');
  });

  it('keeps the caller-side failures as they were: the label, no report asked for', () => {
    for (const code of FAILURE_CODES.filter((c) => !INTERNAL_FAILURES.has(c))) {
      expect(failureNotice(code, { kind: 'job', id: JOB })).toEqual({ title: 'The job failed', detail: FAILURE_LABELS[code] });
    }
    expect(failureNotice(null, { kind: 'job', id: JOB })).toEqual({ title: 'The job failed', detail: 'The analysis failed.' });
    expect(failureNotice('something_new', { kind: 'job', id: JOB }).detail).toBe('The analysis failed.');
  });
});
