/**
 * The Piscina task each worker thread runs for its whole life: adopt the connections the primary
 * hands over and serve them until shutdown.
 */
import type { ServeTask } from '../core/messages';
import { buildCommandTable } from '../core/engine/commands';
import { WorkerState } from './state';

export default async function serve(task: ServeTask): Promise<void> {
  const state = new WorkerState(task, buildCommandTable(), task.port);
  // a worker that cannot reach Postgres still serves (commands get an error saying so) and its
  // lanes keep reconnecting; it does not hold up the others
  await state.store.start().catch((e: Error) => state.log(`Postgres not reachable yet: ${e.message}`));
  task.port.postMessage({ type: 'ready' });
  await state.stopped;
}
