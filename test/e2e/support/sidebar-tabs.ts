// Sidebar tabs and node highlights in Node-RED 4's and 5's editors (shared with scripts/pack-check.mjs's browser smoke test)
export { isNodeHighlighted, showSidebarTab, sidebarTabButton, sidebarTabName } from '../../../scripts/editor-tabs.mjs';
