import { describe, expect, it } from 'vitest';
import { CoordinationError, describeRedisError } from '../../lib/coordination/errors';
import { errorFromResponse, isLibraryError, MediaSpacesBaseError, MediaSpacesError } from '../../lib/index';
import {
  CronSyntaxError,
  DurationError,
  loadScheduleYaml,
  parseDuration,
  ScheduleConfigError,
} from '../../lib/public/schedule';
import { WatchError } from '../../lib/public/watch';
import { tokenizeCron } from '../../lib/schedule/cron-syntax';
import { FixtureError, parseFixture } from '../../lib/simulator/fixture';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** One error of each family, made the way the library makes it. */
const families: Array<[string, () => unknown, new (...args: never[]) => Error, string]> = [
  [
    'MediaSpacesError',
    () => errorFromResponse(503, { error_message: 'down' }, 'List workflows'),
    MediaSpacesError,
    'server_error',
  ],
  ['ScheduleConfigError', () => thrown(() => loadScheduleYaml('windows: 3')), ScheduleConfigError, 'invalid_input'],
  [
    'WatchError',
    () => new WatchError({ code: 'job_failed', message: 'job j1 failed', details: { state: 'failed' } }),
    WatchError,
    'job_failed',
  ],
  [
    'CoordinationError',
    () => describeRedisError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'redis://h:6379', 1000),
    CoordinationError,
    'unavailable',
  ],
  ['CronSyntaxError', () => thrown(() => tokenizeCron('61 * * * *')), CronSyntaxError, 'invalid_cron'],
  ['DurationError', () => thrown(() => parseDuration('soon')), DurationError, 'invalid_duration'],
  ['FixtureError', () => thrown(() => parseFixture({ spaces: 'none' })), FixtureError, 'invalid_fixture'],
];

describe('one error family', () => {
  it.each(families)('%s is a library error with a code and plain toJSON()', (name, make, family, code) => {
    const error = make();
    expect(error).toBeInstanceOf(family);
    expect(error).toBeInstanceOf(MediaSpacesBaseError);
    expect(isLibraryError(error)).toBe(true);
    const e = error as MediaSpacesBaseError;
    expect([e.name, e.code]).toEqual([name, code]);
    const json = e.toJSON();
    expect(json).toMatchObject({ name, code, message: e.message });
    expect(JSON.parse(JSON.stringify(e))).toEqual(json);
    expect(json).not.toHaveProperty('stack');
    expect(json).not.toHaveProperty('cause');
  });

  it('keeps each family its own sentence', () => {
    expect((families[4][1]() as Error).message).toBe('minute 61 out of range 0-59');
    expect((families[5][1]() as Error).message).toMatch(/^"soon" is not a duration \(use e\.g\. 90m/);
    expect((families[3][1]() as Error).message).toBe('Redis at redis://h:6379 refused the connection');
  });

  it('a watch outcome keeps its details in toJSON()', () => {
    expect((families[2][1]() as WatchError).toJSON()).toEqual({
      state: 'failed',
      name: 'WatchError',
      code: 'job_failed',
      message: 'job j1 failed',
    });
  });

  it('does not count foreign errors in', () => {
    expect(isLibraryError(new TypeError('x'))).toBe(false);
    expect(isLibraryError({ name: 'MediaSpacesError', code: 'timeout', message: 'x' })).toBe(false);
    expect(isLibraryError(undefined)).toBe(false);
  });
});
