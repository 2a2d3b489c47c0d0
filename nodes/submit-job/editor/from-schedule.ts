/** The schedule's output that sends a window's follow-up: a submit-job request with the job's inputs. */
const FOLLOW_UP_PORT = 1;

/**
 * Whether this submit job takes a schedule's follow-up: its inputs then come in the message (the
 * window's `followup`), merged over the node's own, so an input the node leaves empty is not
 * missing. The runtime still checks the merged inputs of each job.
 */
export function fedBySchedule(nodeId: string): boolean {
  return RED.nodes
    .filterLinks({ target: { id: nodeId } })
    .some((link) => link.source.type === 'media-spaces-schedule' && link.sourcePort === FOLLOW_UP_PORT);
}
