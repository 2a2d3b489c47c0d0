import type { HttpRequest, HttpResponse, NodeAPI, RequestHandler } from './node-red-types';

/** The package's two permissions under adminAuth: seeing (every read endpoint) and acting or probing the service. */
export const READ_PERMISSION = 'media-spaces.read';
export const WRITE_PERMISSION = 'media-spaces.write';

/**
 * Node-RED's permission check, with one difference: a signed-in user who
 * lacks the permission gets 403 rather than the 401 Node-RED sends (which
 * the editor takes as "sign in again"). Without adminAuth, everyone passes.
 */
export function requirePermission(RED: Pick<NodeAPI, 'auth'>, permission: string): PermissionGuard {
  const check = RED.auth?.needsPermission(permission);
  if (!check) return Object.assign((_req: HttpRequest, _res: HttpResponse, next: () => void) => next(), { permission });
  const guard = (req: HttpRequest, res: HttpResponse, next: () => void) => {
    const status = res.status.bind(res);
    // Node-RED answers 401 after it has identified the user only when the permission is missing
    res.status = (code: number) => status(code === 401 && req.user ? 403 : code);
    check(req, res, () => {
      res.status = status;
      next();
    });
  };
  return Object.assign(guard, { permission });
}

/** A route guard that names the permission it checks, so a route table can be read back. */
type PermissionGuard = RequestHandler & { readonly permission: string };
