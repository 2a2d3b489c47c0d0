/**
 * Maps a request path to one of the simulator's operations. Matching is done
 * on raw segments (literal segments never need decoding) and only parameter
 * segments are percent-decoded.
 */

export const ROUTE_NAMES = [
  'list',
  'workflow',
  'submit',
  'job',
  'create_channel',
  'channel',
  'stop_channel',
  'delete_event',
] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];
export type Area = 'workflow' | 'livecapture';

export interface RouteMatch {
  route: RouteName;
  area: Area;
  /** The method the path takes; a different one gets 405. */
  method: 'GET' | 'POST' | 'DELETE';
  /** Decoded path parameters, space_id first. */
  params: string[];
}

// The samples use /workflow/v1 and the machine-readable description ends in
// /workflow/api/v1; clients may be configured for either, so both are served.
const WORKFLOW_PREFIXES = ['/workflow/v1/', '/workflow/api/v1/'];
const LIVECAPTURE_PREFIX = '/livecapture/v1/';

export function matchRoute(path: string): RouteMatch | undefined {
  for (const prefix of WORKFLOW_PREFIXES) {
    if (path.startsWith(prefix)) return matchWorkflow(path.slice(prefix.length).split('/'));
  }
  if (path.startsWith(LIVECAPTURE_PREFIX)) return matchLiveCapture(path.slice(LIVECAPTURE_PREFIX.length).split('/'));
  return undefined;
}

function matchWorkflow(s: string[]): RouteMatch | undefined {
  if (s[1] !== 'workflows') return undefined;
  switch (s.length) {
    case 2:
      return found('list', 'workflow', 'GET', s);
    case 3:
      return found('workflow', 'workflow', 'GET', [s[0], s[2]]);
    case 4:
      return s[3] === 'jobs' ? found('submit', 'workflow', 'POST', [s[0], s[2]]) : undefined;
    case 5:
      return s[3] === 'jobs' ? found('job', 'workflow', 'GET', [s[0], s[2], s[4]]) : undefined;
    default:
      return undefined;
  }
}

function matchLiveCapture(s: string[]): RouteMatch | undefined {
  if (s[1] === 'channels') {
    if (s.length === 2) return found('create_channel', 'livecapture', 'POST', [s[0]]);
    if (s.length === 3) return found('channel', 'livecapture', 'GET', [s[0], s[2]]);
    if (s.length === 4 && s[3] === 'stop') return found('stop_channel', 'livecapture', 'POST', [s[0], s[2]]);
    return undefined;
  }
  // An empty event_id (".../events/") still reaches the operation, which answers 400.
  if (s[1] === 'events' && s.length === 3) return found('delete_event', 'livecapture', 'DELETE', [s[0], s[2]]);
  return undefined;
}

function found(route: RouteName, area: Area, method: RouteMatch['method'], raw: string[]): RouteMatch {
  return { route, area, method, params: raw.map(decodeSegment) };
}

/**
 * Bad percent-encoding is left undecoded: the '%' then fails the parameter's
 * own validation (UUID, event id), which answers 400 in the route's shape.
 */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
