import { isPlainObject } from '../../lib/guards';
import type { RequestHandler } from '../shared/node-red-types';
import { READ_PERMISSION, requirePermission } from '../shared/permission';
import type { ScheduleAPI } from './types';

const PREVIEW_PATH = '/media-spaces/schedule/preview';

/**
 * GET ?yaml=... or POST {yaml} / {model}: validation issues with lines, each window in words and
 * its next starts. Any viewer may ask, with any document: the preview does bounded work (the first
 * windows, a cap on starts, issues and bytes; the rest counted in `omitted`) and gives the event
 * loop a turn every few milliseconds, so that no preview delays a schedule's starts and ends.
 */
export function registerPreviewRoute(RED: ScheduleAPI): void {
  const permit = requirePermission(RED, READ_PERMISSION);
  const handler: RequestHandler = async (req, res) => {
    try {
      const body = isPlainObject(req.body) ? req.body : {};
      const query = req.query ?? {};
      const request = {
        yaml: typeof query.yaml === 'string' ? query.yaml : body.yaml,
        model: body.model,
        total: body.total,
        timezone: query.timezone ?? body.timezone,
        count: query.count ?? body.count,
      };
      if (typeof request.yaml !== 'string' && request.model === undefined) {
        res.status(400).json({ ok: false, issues: [{ path: '', message: 'give yaml (text) or model (object)' }] });
        return;
      }
      // yaml and node-cron load with the first preview, not at Node-RED start
      const { previewScheduleAsync } = require('../../lib/schedule') as typeof import('../../lib/schedule');
      res.status(200).json(await previewScheduleAsync(request));
    } catch (err) {
      res.status(500).json({ ok: false, issues: [{ path: '', message: (err as Error).message }] });
    }
  };
  RED.httpAdmin.get(PREVIEW_PATH, permit, handler);
  RED.httpAdmin.post(PREVIEW_PATH, permit, handler);
}
