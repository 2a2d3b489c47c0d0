import { randomUUID } from 'node:crypto';
import { codeForStatus } from '../errors';
import type { RouteName } from './router';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

const WORKFLOW_ROUTES: ReadonlySet<RouteName | undefined> = new Set(['workflow', 'submit', 'job']);

/**
 * Chooses the description's error shape for a route and status:
 * - list: problem details for every error (its samples show them, with pointers);
 * - submit and the workflow/job extensions: `{code,message}` for 400,
 *   `{errors:{field:msg}}` for 422, `{error_message}` otherwise;
 * - live capture: `{errors:{field:msg}}` for 400/422 validation, `{error_message}` otherwise;
 * - transport-level answers (unknown route, 405, 413) and the admin API: `{error_message}`.
 */
export function errorBody(
  route: RouteName | undefined,
  status: number,
  message: string,
  fields: Record<string, string> | undefined,
  instance: string,
): unknown {
  if (route === 'list') return problem(status, message, fields, instance);
  if (route === undefined || status === 405 || status === 413) return { error_message: message };
  const validation = status === 400 || status === 422;
  if (WORKFLOW_ROUTES.has(route)) {
    if (status === 400) return { code: 400, message };
    if (status === 422) return { errors: fields ?? { request: message } };
    return { error_message: message };
  }
  return validation ? { errors: fields ?? { request: message } } : { error_message: message };
}

function problem(status: number, message: string, fields: Record<string, string> | undefined, instance: string) {
  return {
    title: TITLES[status] ?? `HTTP ${status}`,
    status,
    trace_id: randomUUID().replace(/-/g, ''),
    type: `urn:media-spaces:problem:${codeForStatus(status)}`,
    detail: message,
    instance,
    ...(fields
      ? { errors: Object.entries(fields).map(([pointer, detail]) => ({ pointer, type: 'invalid_value', detail })) }
      : {}),
  };
}
