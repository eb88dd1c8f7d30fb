// Backend CPU per popped 1 KiB element, in one Postgres session (docs/BENCHMARKS.md "Pops of a hot
// list"): l_pop_run as installed, the same function from another tree (OLD_TREE, installed as
// l_pop_run_old), and the pop as one plain statement (UPDATE kv in a CTE, DELETE … RETURNING: not
// a safe pop, its snapshot predates the lock; the floor without PL/pgSQL). Results are read in binary,
// as the lanes read them. Each round, per variant: the key 'micro' refilled (l_push of 1000s), then
// NCALLS calls popping C elements from the head; CPU from /proc/<backend>/stat (10 ms ticks).
//   node scripts/bench/list-pop-micro.js '<libpq conninfo of the embedded Postgres>' ROUNDS
//   env: C (140: a -c 50 -P 16 batch), NCALLS (600), OLD_TREE (a built tree, e.g. /tmp/old-<branch>), SCHEMA (postresp)
const { NativePgConnection } = require('../../dist/core/engine/pg-driver/native-conn.js');
const fs = require('fs');
const [url, rounds = '5'] = process.argv.slice(2);
const N = +(process.env.NCALLS || 600), C = +(process.env.C || 140), s = process.env.SCHEMA || 'postresp';
const V = {
  installed: `SELECT * FROM ${s}.l_pop_run(0::int2, 'micro'::bytea, ${C}, true, 0)`,
  statement: `WITH k AS (UPDATE ${s}.kv SET card = card - ${C}, head = head + ${C}, version = txid_current()
                WHERE db = 0 AND key = 'micro'::bytea RETURNING head)
              DELETE FROM ${s}.lists l USING k WHERE l.db = 0 AND l.key = 'micro'::bytea AND l.pos BETWEEN k.head - ${C} AND k.head - 1
              RETURNING 1::int2, (l.pos - (k.head - ${C}))::float8, l.value, false`,
};
(async () => {
  const c = await NativePgConnection.connect(url);
  if (process.env.OLD_TREE) {
    const { listFunctions } = require(`${process.env.OLD_TREE}/dist/core/engine/commands/list/functions.js`);
    const f = listFunctions(s).find((x) => x.includes('.l_pop_run('));
    await c.query(f.replace(`${s}.l_pop_run(`, `${s}.l_pop_run_old(`), [], { prepare: false });
    V.old = `SELECT * FROM ${s}.l_pop_run_old(0::int2, 'micro'::bytea, ${C}, true, 0)`;
  }
  const pid = (await c.query('SELECT pg_backend_pid()')).int(0, 0);
  const cpu = () => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (+f[11] + +f[12]) / 100; };
  const res = {};
  for (let r = 0; r < +rounds; r++) for (const [name, stmt] of Object.entries(V)) {
    await c.query(`SELECT ${s}.l_pop_run(0::int2, 'micro'::bytea, 100000000, true, 0)`);
    for (let i = 0; i < Math.ceil(N * C / 1000) + 1; i++)
      await c.query(`SELECT ${s}.l_push(0::int2, 'micro'::bytea, (SELECT array_agg(decode(repeat(md5(i::text), 64), 'hex'))
        FROM generate_series(1, 1000) i), false, false, 0)`);
    const c0 = cpu(); let rows = 0;
    for (let i = 0; i < N; i++) rows += (await c.query(stmt)).rowCount;
    const us = (cpu() - c0) * 1e6 / (N * C);
    if (rows !== N * C) throw new Error(`${name}: ${rows} rows, ${N * C} expected`);
    (res[name] ??= []).push(+us.toFixed(2));
  }
  await c.query(`SELECT ${s}.l_pop_run(0::int2, 'micro'::bytea, 100000000, true, 0)`);
  if (process.env.OLD_TREE) await c.query(`DROP FUNCTION ${s}.l_pop_run_old`);
  for (const [k, v] of Object.entries(res)) console.log(`${k}: us per element ${v.join(' ')}; median ${v.slice().sort((a, b) => a - b)[v.length >> 1]}`);
  await c.close();
})().catch((e) => { console.error(e); process.exit(1); });
