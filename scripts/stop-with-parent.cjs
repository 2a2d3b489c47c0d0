// Preloaded (`node -r`) into the demo's Node-RED: when the demo process is gone, Node-RED
// stops as on Ctrl-C (its own SIGINT handler closes the flows and exits).
require('./parent-watch.cjs').onParentGone(() => process.kill(process.pid, 'SIGINT'));
