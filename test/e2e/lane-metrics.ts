// Ops each worker's lanes ran so far, from a server's /metrics (--http-port): tests that must know
// which worker serves a client read a GET of a never-read key off these counts.
export async function laneOps(http: number): Promise<number[]> {
  const text = await (await fetch(`http://127.0.0.1:${http}/metrics`)).text();
  const ops = [0, 0];
  for (const m of text.matchAll(/^postresp_batch_size_sum\{worker="(\d)",lane="\d+"\} (\d+)/gm)) ops[Number(m[1])] += Number(m[2]);
  return ops;
}
