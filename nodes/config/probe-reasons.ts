import { MediaSpacesError } from '../../lib/errors';

/**
 * How the probe reads a failed call: the service's own reason (whichever of
 * the description's error shapes it came in) and what a 404 was about. The
 * service and the simulator answer an unknown route with 404 too, so a 404
 * only counts as "the credential was accepted" when its reason names the
 * thing that was looked up; any other 404 means the address is not the
 * service's.
 */

export function asProbeError(error: unknown): MediaSpacesError {
  if (error instanceof MediaSpacesError) return error;
  return new MediaSpacesError({
    code: 'network_error',
    message: error instanceof Error ? error.message : String(error),
  });
}

/** The reason the service gave in its error body, or undefined when the body carries none. */
export function serviceReason(e: MediaSpacesError): string | undefined {
  const body = e.body;
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 200);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['error_message', 'detail', 'message', 'title']) {
    const value = b[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  if (b.errors !== null && typeof b.errors === 'object') {
    return Object.entries(b.errors as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join('; ');
  }
  return undefined;
}

type NotFoundKind = 'space' | 'item' | 'route';

/**
 * What a 404 was about: the space (the service looked it up and has none), the item
 * looked up (`itemId`: a workflow or event the probe knows does not exist; the
 * credential and space passed), or anything else, which is taken for an unknown route.
 */
export function notFoundKind(e: MediaSpacesError, spaceId: string, itemId: string): NotFoundKind {
  const reason = (serviceReason(e) ?? '').toLowerCase();
  if (!/not found/.test(reason)) return 'route';
  if (reason.includes(itemId.toLowerCase())) return 'item';
  if (/\bspace\b/.test(reason) && reason.includes(spaceId.toLowerCase())) return 'space';
  return 'route';
}

/** The low-level error code (ECONNREFUSED, ENOTFOUND, ...) under a network error, if any. */
function socketCode(e: MediaSpacesError): string | undefined {
  const cause = e.cause as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = cause?.code ?? cause?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Sentences for failures that do not depend on the area: cannot connect, timeout, TLS, service errors. */
export function transportSentence(e: MediaSpacesError, what: string, origin: string): string | undefined {
  if (e.code === 'timeout') {
    return `Timeout: ${origin} did not answer in time. Check the ${what} (host and port) and that the service is running; a firewall may be dropping the connection.`;
  }
  if (e.code === 'tls_error') {
    return `TLS failure with ${origin}: ${tlsDetail(e.message)} Check the ${what}: use http:// for a plain HTTP service, or trust its certificate (untick certificate verification only for a test server).`;
  }
  if (e.code === 'network_error') {
    const code = socketCode(e);
    if (code === 'ECONNREFUSED') {
      return `Connection refused by ${origin}: nothing listens there. Check the port in the ${what} and that the service is running.`;
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return `Unknown host in the ${what}: ${origin} does not resolve. Check the host name.`;
    }
    return `Cannot reach ${origin} (${code ?? 'network error'}). Check the ${what} and the network between Node-RED and the service.`;
  }
  if (e.code === 'invalid_response') {
    return `${origin} answered, but not like the Media Spaces service (the response is not what the service sends). Check the ${what}.`;
  }
  if (e.status !== undefined && e.status >= 500) {
    const reason = serviceReason(e);
    return `The service failed (HTTP ${e.status}${reason ? `: ${reason}` : ''}). Try again later.`;
  }
  return undefined;
}

/** The TLS failure in words: the code Node gives (first word in the transport's parentheses), explained. */
function tlsDetail(message: string): string {
  const code = /\(([A-Z0-9_]+)/.exec(message)?.[1];
  if (code === undefined) return 'the TLS connection could not be set up.';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|EPROTO/.test(code)) {
    return `the server does not speak TLS on that port (${code}); it is probably a plain http:// service.`;
  }
  if (/CERT|SIGNATURE|ALTNAME|ISSUER/.test(code)) return `its certificate is not trusted (${code}).`;
  return `the TLS handshake failed (${code}).`;
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
