import { createRequire } from 'node:module';
import type { NodeModule } from 'node-red-node-test-helper';
import { nodeModule } from '../../support/node-modules';
import { NODES } from '../../support/node-red-runtime';

/** Every node module of the package, compiled (`npm run build` first), for the reliability suites. */
const require = createRequire(import.meta.url);

export const SCHEDULE_NODE = nodeModule('media-spaces-schedule');
export const POLLING_NODES: NodeModule[] = [
  nodeModule('media-spaces-follow-job'),
  nodeModule('media-spaces-wait-workflow'),
  nodeModule('media-spaces-watch-workflows'),
];
export const EVERY_NODE: NodeModule[] = [...Object.values(NODES), SCHEDULE_NODE, ...POLLING_NODES];

/** Flow nodes need x and y, or the runtime takes them for config nodes. */
export const onTab = (z: string) => ({ z, x: 100, y: 100 });

/** The runtime's hooks (the very module instance Node-RED uses), for taps that survive deploys. */
export const RUNTIME_HOOKS = (require('@node-red/util') as { hooks: RuntimeHooks }).hooks;

export interface RuntimeHooks {
  add(id: string, callback: (event: never) => void): void;
  remove(id: string): void;
}
