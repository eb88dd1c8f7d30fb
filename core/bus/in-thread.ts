/**
 * A whole bus in one thread: a BusHub, its optional PgLink, and `workers` MessageBus ends joined
 * by MessageChannels, as the primary and its workers are joined by their ports. For tests and
 * benchmarks that need no real worker threads (two of them make two "instances").
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { busChannelName, MessageBus } from './bus';
import { BusHub, type HubOptions } from './hub';
import type { BusToHub, HubToBus } from './messages';
import { PgLink, type PgLinkOptions } from './pg-link';

export interface InThreadBus {
  hub: BusHub;
  link?: PgLink;
  buses: MessageBus[];
  close(): Promise<void>;
}

export async function inThreadBus(workers: number, opts: { link?: Omit<PgLinkOptions, 'log'>; hub?: Partial<HubOptions>; log?: (l: string) => void } = {}): Promise<InThreadBus> {
  const log = opts.log ?? (() => undefined);
  const link = opts.link ? new PgLink({ ...opts.link, log }) : undefined;
  const instance = link?.instance ?? `t${process.pid}-${Math.random().toString(36).slice(2)}`;
  const hub = new BusHub({ log, ...opts.hub }, link); // before start: it hears the interest loaded
  await link?.start();
  const ports: MessagePort[] = [];
  const buses: MessageBus[] = [];
  for (let w = 0; w < workers; w++) {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    port1.on('message', (m: BusToHub) => hub.onMessage(w, port1, m));
    const bus = new MessageBus(port2, w, busChannelName(instance));
    port2.on('message', (m: HubToBus) => bus.onHubMessage(m));
    buses.push(bus);
  }
  await Promise.all(buses.map((b) => b.ready));
  return {
    hub, link, buses,
    async close() {
      for (const b of buses) b.close();
      hub.close();
      await link?.close();
      for (const p of ports) p.close();
    },
  };
}
