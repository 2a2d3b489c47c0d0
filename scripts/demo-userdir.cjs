// Builds a Node-RED user directory for the demo and for the tests that run
// it: this package linked into node_modules, the recording-automation flow
// pointed at a running simulator, and the simulator's credentials preset.
const path = require('node:path');

const FLOW_FILE = 'recording-automation.json';

/**
 * Rewrites an example flow to use a simulator: every media-spaces-config node
 * gets the simulator's URLs and first active space; returns the credentials
 * to preset for them.
 */
function pointFlowAtSimulator(flow, info) {
  const space = info.spaces.find((s) => s.subscription === 'active') ?? info.spaces[0];
  const credentials = {};
  for (const node of flow) {
    if (node.type !== 'media-spaces-config') continue;
    node.workflowUrl = info.workflow_url;
    node.liveCaptureUrl = info.livecapture_url;
    node.spaceId = space.space_id;
    credentials[node.id] = { apiKey: space.api_keys.admin, accessToken: space.access_token };
  }
  return { flow, credentials };
}

function prepareDemoUserDir({ root, userDir, info, fs, flowFile = FLOW_FILE }) {
  fs.rmSync(userDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(userDir, 'node_modules', '@media-spaces'), { recursive: true });
  fs.symlinkSync(root, path.join(userDir, 'node_modules', '@media-spaces', 'node-red'), 'dir');
  const example = JSON.parse(fs.readFileSync(path.join(root, 'examples', flowFile), 'utf8'));
  const { flow, credentials } = pointFlowAtSimulator(example, info);
  fs.writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flow, null, 2));
  // credentialSecret false keeps flows_cred.json readable, so the demo's keys can be preset
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
  fs.writeFileSync(
    path.join(userDir, 'settings.js'),
    `module.exports = {
  uiHost: process.env.NODE_RED_HOST || '127.0.0.1',
  credentialSecret: false,
  flowFile: 'flows.json',
  contextStorage: { default: { module: 'localfilesystem' } },
  logging: { console: { level: 'info', metrics: false, audit: false } },
  editorTheme: { tours: false, palette: { catalogues: [] } },
  diagnostics: { enabled: false },
  telemetry: { enabled: false },
};
`,
  );
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'media-spaces-demo', private: true }));
}

module.exports = { prepareDemoUserDir, pointFlowAtSimulator };
