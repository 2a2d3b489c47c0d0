/**
 * "All request bodies and response bodies are JSON (Content-Type: application/json)": a
 * body is read only when its Content-Type says JSON. Accepted: `application/json` and the
 * RFC 6839 structured-syntax suffix `application/<subtype>+json` (same syntax), with any
 * parameters, provided a `charset` parameter, if present, is UTF-8 (RFC 8259 section 8.1:
 * JSON exchanged between systems is UTF-8). Returns why the type is refused, or null.
 */
export function refuseContentType(header: string | undefined): string | null {
  const expect = 'send the body with "Content-Type: application/json"';
  if (header === undefined || header.trim() === '') return `the request has a body but no Content-Type; ${expect}`;
  const [type, ...params] = header.split(';').map((p) => p.trim());
  const essence = type.toLowerCase();
  if (essence !== 'application/json' && !/^application\/[a-z0-9!#$&^_.-]+\+json$/.test(essence)) {
    return `Content-Type ${JSON.stringify(type.slice(0, 100))} is not JSON; ${expect}`;
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') {
      return `charset ${JSON.stringify(value.slice(0, 40))} is not UTF-8; JSON bodies must be UTF-8`;
    }
  }
  return null;
}
