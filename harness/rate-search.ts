// The --slo search of bench:write-latency: the highest request rate a server sustains with a
// latency objective met. Steps the rate, doubling from the first rate until a step fails (or
// halving until one passes), then bisects between the highest pass and the lowest fail until
// they are within `resolution` of each other or the steps run out. Each step is a fresh
// fixed-rate run (measure), so the answer is a rate that was actually held, never interpolated.

export interface StepOutcome {
  rate: number;
  pass: boolean;
}

export interface SearchPlan {
  start: number;
  /** Rates below this are not tried (the open loop needs at least 1 request/s per connection). */
  min: number;
  maxSteps: number;
  /** Stop once (lowest fail − highest pass) / highest pass is at most this. */
  resolution: number;
}

export interface SearchResult {
  /** Highest rate that passed, or 0 if none did. */
  best: number;
  /** Lowest rate that failed, or Infinity if none did (the search ran out of steps going up). */
  firstFail: number;
  steps: number;
}

export async function searchRate(plan: SearchPlan, measure: (rate: number) => Promise<StepOutcome>): Promise<SearchResult> {
  let best = 0;
  let firstFail = Infinity;
  let rate = Math.max(Math.round(plan.start), plan.min);
  let steps = 0;
  while (steps < plan.maxSteps) {
    const outcome = await measure(rate);
    steps++;
    if (outcome.pass) best = Math.max(best, rate);
    else firstFail = Math.min(firstFail, rate);
    let next: number;
    if (firstFail === Infinity) next = best * 2;
    else if (best === 0) {
      if (rate <= plan.min) break;
      next = Math.max(Math.round(firstFail / 2), plan.min);
    } else {
      if ((firstFail - best) / best <= plan.resolution) break;
      next = Math.round((best + firstFail) / 2);
    }
    if (next === rate || next === best || next === firstFail) break;
    rate = next;
  }
  return { best, firstFail, steps };
}
