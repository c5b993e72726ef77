// Backpressure for the package's TransformStreams: what they wait on before a chunk's answer
// is done, and before an error, so that the reader has what came before it.

/**
 * Resolves once the reader has taken all but `most` queued items: an error empties the
 * queue, so the matches before it must be read first; and a long queue costs Node's streams
 * time per item. Waits on the reader — a microtask at a time while it keeps up, then a
 * macrotask at a time, so a reader that awaits I/O is never starved — not on a clock.
 * @param {TransformStreamDefaultController<object>} controller
 * @param {number} most
 */
export async function drained(controller, most) {
  for (let spins = 0; (controller.desiredSize ?? 0) < -most; spins++) {
    if (spins < 1 << 16) await null;
    else await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
