/**
 * How sorted-set elements are sent: members alone, or with scores — flat [member, score, …], or
 * nested [[member, score], …] (RESP3 ranges, ZMPOP in both protocols).
 */
import { RespDouble, type Reply } from '../../reply';

/** rows [.., member, score] from column `at`; rows whose member is NULL (status rows) are skipped */
export function elements(rows: unknown[][], at: number, withScores: boolean, nested: boolean): Reply[] {
  const out: Reply[] = [];
  for (const r of rows) {
    const m = r[at] as Buffer | null;
    if (m === null) continue;
    if (!withScores) out.push(m);
    else if (nested) out.push([m, new RespDouble(r[at + 1] as number)]);
    else out.push(m, new RespDouble(r[at + 1] as number));
  }
  return out;
}
