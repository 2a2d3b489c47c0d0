/**
 * The recording's files a follow-up's media input can name, each as the template the follow-up
 * resolves against the finished channel (`msg.channel` of the end message). A list, so that a new
 * kind of output is one entry more: every segment of a continuous recording, once the end message
 * carries its segments, is the next.
 */
interface RecordingMedia {
  /** stable name (the editor's label key, media.<id>) */
  id: string;
  /** what the document holds */
  template: string;
  /** whether a window with these channel settings has this output */
  offered(channel: Record<string, unknown>): boolean;
}

/** true, "true" and a template (it may be true) are continuous; absent and false are not. */
const maybeContinuous = (channel: Record<string, unknown>): boolean => {
  const c = channel.continuous_recording;
  return c === true || (typeof c === 'string' && c.trim() !== 'false');
};

export const RECORDING_MEDIA: readonly RecordingMedia[] = [
  // the first output: the whole file, or a continuous recording's oldest segment still kept
  { id: 'recording', template: '{{channel.recording.outputs[0].location_url}}', offered: () => true },
  // a recording that is not continuous is its file and then its proxy; a continuous one has segments only
  {
    id: 'proxy',
    template: '{{channel.recording.outputs[1].location_url}}',
    offered: (channel) => !maybeContinuous(channel),
  },
];
