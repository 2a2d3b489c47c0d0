import type { HttpRequest, HttpResponse, NodeAPI, RequestHandler } from '../shared/node-red-types';

export const READ_PERMISSION = 'media-spaces.read';
export const WRITE_PERMISSION = 'media-spaces.write';

/**
 * Node-RED's permission check, with one difference: a signed-in user who
 * lacks the permission gets 403 rather than the 401 Node-RED sends (which
 * the editor takes as "sign in again"). Without adminAuth, everyone passes.
 */
export function requirePermission(RED: Pick<NodeAPI, 'auth'>, permission: string): RequestHandler {
  const check = RED.auth?.needsPermission(permission);
  if (!check) return (_req, _res, next) => next();
  return (req: HttpRequest, res: HttpResponse, next: () => void) => {
    const status = res.status.bind(res);
    // Node-RED answers 401 after it has identified the user only when the permission is missing
    res.status = (code: number) => status(code === 401 && req.user ? 403 : code);
    check(req, res, () => {
      res.status = status;
      next();
    });
  };
}
