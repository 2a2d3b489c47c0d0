import { createTab } from './editor/tab';

// The editor half of the plugin whose runtime half is media-spaces-sidebar.js: the tab is added once the plugin loads.
RED.plugins?.registerPlugin('media-spaces-sidebar', {
  type: 'media-spaces-sidebar',
  onadd: () => createTab(),
});
