/** The config node's settings as the editor holds them, for the admin endpoints (works before a deploy). */
export function serverBody(serverId: unknown): Record<string, unknown> | null {
  const cfg = typeof serverId === 'string' ? RED.nodes.node(serverId) : null;
  if (!cfg) return null;
  const body: Record<string, unknown> = {
    id: cfg.id,
    workflowUrl: cfg.workflowUrl,
    liveCaptureUrl: cfg.liveCaptureUrl,
    spaceId: cfg.spaceId,
    workflowPrefix: cfg.workflowPrefix,
    timeout: cfg.timeout,
    retries: cfg.retries,
    rejectUnauthorized: cfg.rejectUnauthorized,
  };
  // a key typed in the config dialog but not deployed yet; otherwise the runtime uses the stored one
  const apiKey = cfg.credentials?.apiKey;
  if (typeof apiKey === 'string' && apiKey !== '' && apiKey !== '__PWRD__') body.apiKey = apiKey;
  // likewise a sign-in token from the config dialog's Sign in (nodes/config/editor/sign-in.ts)
  const token = cfg.credentials?.workflowToken;
  if (typeof token === 'string' && token !== '' && token !== '__PWRD__') {
    body.workflowToken = token;
    body.workflowTokenExpiresAt = cfg.credentials?.workflowTokenExpiresAt;
  }
  return body;
}
