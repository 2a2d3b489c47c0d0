import { isPlainObject } from '../../lib/guards';
import { READ_PERMISSION, requirePermission } from '../shared/permission';
import type { ScheduleAPI } from './types';

const PATTERN_PATH = '/media-spaces/schedule/pattern';
/** Longer than any title pattern a window needs; compiling is linear in it anyway. */
const MAX_PATTERN = 4096;

/**
 * POST {pattern}: the window form's title pattern checked by the engine that runs it (RE2, through
 * compileRegex), so that the editor never compiles a user's pattern on the browser's backtracking
 * engine. Answers {problem}: the sentence a deploy would give, or null.
 */
export function registerPatternRoute(RED: ScheduleAPI): void {
  RED.httpAdmin.post(PATTERN_PATH, requirePermission(RED, READ_PERMISSION), (req, res) => {
    const pattern = isPlainObject(req.body) ? req.body.pattern : undefined;
    if (typeof pattern !== 'string' || pattern.length > MAX_PATTERN) {
      res.status(400).json({ error: { message: `pattern must be text of at most ${MAX_PATTERN} characters` } });
      return;
    }
    // re2js loads with the first pattern, not at Node-RED start
    const { compileRegex } =
      require('../../lib/schedule/sources/match') as typeof import('../../lib/schedule/sources/match');
    const compiled = pattern === '' ? null : compileRegex(pattern, 'title');
    res.status(200).json({ problem: typeof compiled === 'string' ? compiled : null });
  });
}
