import type { HttpRequest, HttpResponse, NodeAPI, RequestHandler } from './node-red-types';

/** The package's two permissions under adminAuth: seeing (every read endpoint) and acting or probing the service. */
export const READ_PERMISSION = 'media-spaces.read';
export const WRITE_PERMISSION = 'media-spaces.write';
/** A scraper's: GET /media-spaces/metrics and nothing else (media-spaces.read reads the metrics too). */
export const METRICS_PERMISSION = 'media-spaces.metrics';

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

/**
 * Passes a user who has any one of `permissions`, asked of Node-RED in turn
 * (its needsPermission given a list asks for all of them). A refusal of all
 * but the last is kept from the response and the next one asked; the last
 * answers as requirePermission does (403 to a signed-in user, 401 without a
 * token: a request without one fails the first the same way, and is answered
 * there). Node-RED audits each permission a user lacks.
 */
export function requireAnyPermission(RED: Pick<NodeAPI, 'auth'>, permissions: string[]): PermissionGuard {
  const permission = permissions.join(' or ');
  const needs = RED.auth?.needsPermission;
  if (!needs) return Object.assign((_req: HttpRequest, _res: HttpResponse, next: () => void) => next(), { permission });
  const checks = permissions.map((p) => needs(p));
  const guard = (req: HttpRequest, res: HttpResponse, next: () => void) => {
    const status = res.status.bind(res);
    const attempt = (i: number) => {
      res.status = (code: number) => {
        if (code !== 401 || !req.user) return status(code);
        if (i === checks.length - 1) return status(403);
        res.status = status;
        // Node-RED answers res.status(401).end(): the end asks the next permission instead (the rest is res's)
        const deferred: HttpResponse = Object.create(res);
        return Object.assign(deferred, { end: () => attempt(i + 1) });
      };
      checks[i](req, res, () => {
        res.status = status;
        next();
      });
    };
    attempt(0);
  };
  return Object.assign(guard, { permission });
}

/** A route guard that names the permission it checks, so a route table can be read back. */
type PermissionGuard = RequestHandler & { readonly permission: string };
