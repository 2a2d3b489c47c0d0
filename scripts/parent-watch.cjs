// Calls `onGone` once the process that started this one has exited: the process is then
// re-parented (to init or a subreaper), so its parent pid changes. A parent killed outright
// (SIGKILL, or a SIGTERM it does not pass on) sends no signal down; this is how its
// children still learn of it and stop instead of running on, holding their ports.
const CHECK_EVERY_MS = 500;

function onParentGone(onGone) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, CHECK_EVERY_MS);
  // never the reason the process stays up
  timer.unref();
}

module.exports = { onParentGone };
