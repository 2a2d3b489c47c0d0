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
  return body;
}
