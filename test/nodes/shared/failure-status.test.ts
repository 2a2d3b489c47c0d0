import { describe, expect, it } from 'vitest';
import { CoordinationError } from '../../../lib/coordination/errors';
import { errorFromResponse, MediaSpacesError, tokenExpiredError } from '../../../lib/errors';
import { DurationError } from '../../../lib/schedule/duration';
import { asMediaSpacesError } from '../../../nodes/shared/failure';
import { failureStatus } from '../../../nodes/shared/request-status';

/** The red badge: what went wrong in a few words. */
describe('failureStatus', () => {
  const cases: Array<[MediaSpacesError, string]> = [
    [errorFromResponse(401, { error_message: 'unknown API key' }, 'Submit job'), '401: key not accepted'],
    [
      errorFromResponse(
        401,
        { error_message: 'the API key has scope workflow:access; this operation needs more' },
        'X',
      ),
      '401: key lacks scope',
    ],
    [errorFromResponse(403, { error_message: 'inactive' }, 'X'), '403: subscription inactive'],
    [errorFromResponse(404, { error_message: 'workflow x not found' }, 'X'), '404: not found'],
    [errorFromResponse(422, { errors: { 'variables.A': 'bad', 'variables.B': 'bad' } }, 'X'), '422: 2 inputs invalid'],
    [errorFromResponse(422, { errors: { 'variables.A': 'bad' } }, 'X'), '422: 1 input invalid'],
    // the simulator's answer for a workflow that is not active: a field error on workflow_id, no input wrong
    [
      errorFromResponse(
        422,
        {
          errors: {
            workflow_id: 'workflow "HDCAM ingest" is archived; jobs can be submitted only to active workflows',
          },
        },
        'Submit job',
      ),
      '422: workflow archived',
    ],
    [errorFromResponse(422, { title: 'Unprocessable', detail: 'workflow is idle' }, 'X'), '422: workflow idle'],
    [errorFromResponse(422, { errors: { workflow_id: 'not accepted' } }, 'X'), '422: workflow refused'],
    [errorFromResponse(400, { code: 400, message: 'workflow_id is not a valid GUID' }, 'X'), '400: request refused'],
    [errorFromResponse(503, undefined, 'X'), '503: service failed'],
    [new MediaSpacesError({ code: 'timeout', message: 'X timed out' }), 'timeout'],
    [new MediaSpacesError({ code: 'network_error', message: 'X failed' }), 'cannot connect'],
    [MediaSpacesError.invalidInput('msg.payload must be…', { 'msg.payload': 'must be' }), 'invalid msg.payload'],
    [tokenExpiredError('Submit job', Date.UTC(2026, 0, 1)), 'sign-in expired'],
  ];
  for (const [error, text] of cases) {
    it(`${error.code} ${error.status ?? ''} -> "${text}"`, () => expect(failureStatus(error)).toBe(text));
  }

  it('an expired sign-in says when and what to do', () => {
    const error = asMediaSpacesError(tokenExpiredError('Submit job', Date.UTC(2026, 0, 1)), 'Submit job');
    expect(error.message).toBe(
      'the sign-in token expired at 2026-01-01T00:00:00.000Z (Submit job); open the config node and Sign in again',
    );
    const fromService = errorFromResponse(
      401,
      { error_message: 'the access token has expired; sign in again' },
      'X',
      [],
      {},
    );
    expect(asMediaSpacesError(fromService, 'List workflows').message).toBe(
      'the sign-in token has expired (List workflows); open the config node and Sign in again',
    );
  });
});

/** Any thrown value as the error record a Catch node gets. */
describe('asMediaSpacesError', () => {
  it('passes a MediaSpacesError through', () => {
    const error = errorFromResponse(404, { error_message: 'no such job' }, 'Get job');
    expect(asMediaSpacesError(error, 'Follow job')).toBe(error);
  });

  it('an abort is aborted', () => {
    const error = asMediaSpacesError(new DOMException('stop', 'AbortError'), 'List workflows');
    expect([error.code, error.message]).toEqual(['aborted', 'List workflows aborted']);
  });

  it('another library family keeps its sentence, and its code where MediaSpacesError has it', () => {
    const late = asMediaSpacesError(new CoordinationError('timeout', 'Redis did not answer in time'), 'Schedule');
    expect([late.code, late.message]).toEqual(['timeout', 'Schedule failed: Redis did not answer in time']);
    const refused = asMediaSpacesError(new DurationError('"soon" is not a duration'), 'Schedule');
    expect([refused.code, refused.message]).toEqual(['invalid_input', 'Schedule failed: "soon" is not a duration']);
  });

  it('a coordination failure gets the code of what failed, not bad input', () => {
    const codes = (['unavailable', 'auth', 'closed', 'redis', 'invalid_config', 'invalid_input'] as const).map(
      (code) => [code, asMediaSpacesError(new CoordinationError(code, `Redis ${code}`), 'Follow job').code],
    );
    expect(Object.fromEntries(codes)).toEqual({
      unavailable: 'network_error',
      auth: 'unauthorized',
      closed: 'aborted',
      redis: 'server_error',
      invalid_config: 'invalid_input',
      invalid_input: 'invalid_input',
    });
    const closed = asMediaSpacesError(new CoordinationError('closed', 'Redis coordination "x" is closed'), 'Schedule');
    expect(closed.message).toBe('Schedule failed: Redis coordination "x" is closed');
  });

  it('anything else is internal, not the input', () => {
    for (const thrown of [new TypeError('x.y is not a function'), 'a string', 42, null, { code: 'timeout' }]) {
      const error = asMediaSpacesError(thrown, 'Submit job');
      expect(error.code).toBe('internal');
      expect(error.message).toMatch(/^Submit job failed: /);
    }
    expect(asMediaSpacesError(new TypeError('x.y is not a function'), 'Submit job').toJSON()).toEqual({
      name: 'MediaSpacesError',
      code: 'internal',
      message: 'Submit job failed: x.y is not a function',
      fieldErrors: {},
    });
  });
});
