import { describe, expect, it } from 'vitest';
import { cronError } from '../../../lib/schedule/cron';
import { cronToForm, formToCron } from '../../../nodes/schedule/editor/cron-form';
import { hasComments } from '../../../nodes/schedule/editor/yaml-comments';

describe('schedule window form: cron <-> days and start time', () => {
  it('reads the expressions it can represent', () => {
    expect(cronToForm('0 18 * * mon-fri')).toEqual({ days: [1, 2, 3, 4, 5], time: '18:00' });
    expect(cronToForm('30 6 * * *')).toEqual({ days: [0, 1, 2, 3, 4, 5, 6], time: '06:30' });
    expect(cronToForm('0 15 7 * * sat,sun')).toEqual({ days: [0, 6], time: '07:15' });
    expect(cronToForm('5 9 * * 1,3,7')).toEqual({ days: [0, 1, 3], time: '09:05' });
  });

  it('says null ("custom cron") for anything else', () => {
    for (const cron of [
      '0 */2 * * *',
      '0 18 1 * *',
      '0 18 * 1 *',
      '0,30 18 * * *',
      '0 18 * * fri-mon',
      '10 0 18 * * *',
      '@daily',
      'nonsense',
    ]) {
      expect(cronToForm(cron), cron).toBeNull();
    }
  });

  it('writes valid expressions with compact day names, and reads them back', () => {
    const cases: Array<[number[], string, string]> = [
      [[1, 2, 3, 4, 5], '18:00', '0 18 * * mon-fri'],
      [[0, 1, 2, 3, 4, 5, 6], '06:30', '30 6 * * *'],
      [[1, 3, 5], '07:05', '5 7 * * mon,wed,fri'],
      [[0, 1, 2, 3, 4], '23:59', '59 23 * * mon-thu,sun'],
      [[6, 0], '00:00', '0 0 * * sat,sun'],
    ];
    for (const [days, time, cron] of cases) {
      expect(formToCron({ days, time })).toBe(cron);
      expect(cronError(cron), cron).toBeUndefined();
      expect(cronToForm(cron)).toEqual({ days: [...days].sort((a, b) => a - b), time });
    }
  });
});

describe('YAML comment detection', () => {
  it('finds comments, not # inside quotes or values', () => {
    expect(hasComments('# top\nwindows: []')).toBe(true);
    expect(hasComments('windows: [] # trailing')).toBe(true);
    expect(hasComments('name: "News #1"\ntag: \'a # b\'')).toBe(false);
    expect(hasComments('url: http://x/#anchor')).toBe(false);
  });
});
