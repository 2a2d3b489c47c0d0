// The soak's schedule: `windows` slots in batches of `every`, `lanes` slots
// starting each second (one window per lane, all recording at once), a quiet
// gap after each batch so that every slot of the batch has finished when it is
// measured. Each window is a 6-field cron that lists its start seconds within
// one UTC minute, so the schedule fires exactly the slots planned and no more.

/** Slot start instants (epoch ms, whole seconds) with their lane, in order, and the batch ends. */
export function planSlots({ windows, lanes, every, gapS, firstAt }) {
  const slots = [];
  const batchEnds = [];
  let second = firstAt;
  while (slots.length < windows) {
    const batch = Math.min(every, windows - slots.length);
    for (let i = 0; i < batch; i++) {
      slots.push({ at: second, lane: i % lanes });
      if (i % lanes === lanes - 1 || i === batch - 1) second += 1000;
    }
    batchEnds.push(slots.length);
    second += gapS * 1000;
  }
  return { slots, batchEnds };
}

/** One window per lane and UTC minute: `s1,s2,… M H D Mo *`. */
export function scheduleYaml({ slots, durationS, followupWorkflow }) {
  const windows = new Map();
  for (const s of slots) {
    const d = new Date(s.at);
    const minute = `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
    const id = `lane${s.lane}-${d.toISOString().slice(11, 16).replace(':', '')}`;
    const w = windows.get(id) ?? { id, minute, seconds: [] };
    w.seconds.push(d.getUTCSeconds());
    windows.set(id, w);
  }
  const lines = ['timezone: UTC', 'windows:'];
  for (const w of windows.values()) {
    lines.push(
      `  - id: ${w.id}`,
      `    name: Soak ${w.id}`,
      `    cron: "${w.seconds.join(',')} ${w.minute}"`,
      `    duration: ${durationS}s`,
      '    channel:',
      '      name: "Soak {{window.id}} {{slot.epoch}}"',
      '      continuous_recording: false',
      '      recording_duration: 1',
      '    followup:',
      `      workflow_id: ${followupWorkflow}`,
      '      job_name: "Proxy of {{channel.name}}"',
      '      media_nicknames:',
      '        recording: "{{channel.recording.outputs[0].location_url}}"',
    );
  }
  return { yaml: `${lines.join('\n')}\n`, windowCount: windows.size };
}
