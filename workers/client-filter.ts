/** CLIENT KILL / CLIENT LIST filters (ID, ADDR, LADDR, TYPE, USER, MAXAGE, SKIPME). */
import type { ClientFilter } from '../core/engine/session';
import type { Client } from './client';

export function matchesFilter(c: Client, f: ClientFilter | undefined): boolean {
  if (f === undefined) return true;
  if (f.skip !== undefined && c.id === f.skip) return false;
  if (f.id !== undefined && !f.id.includes(c.id)) return false;
  if (f.addr !== undefined && c.addr !== f.addr) return false;
  if (f.laddr !== undefined && c.laddr !== f.laddr) return false;
  // every client here is a normal one: no replicas, no pub/sub yet
  if (f.type !== undefined && f.type !== 'normal') return false;
  if (f.user !== undefined && f.user !== c.user.name) return false;
  if (f.maxage !== undefined && (Date.now() - c.createdAt) / 1000 < f.maxage) return false;
  return true;
}
