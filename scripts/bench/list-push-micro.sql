-- Backend CPU per pushed 1 KiB element, in one Postgres session, so other load on the machine
-- changes little (docs/BENCHMARKS.md "The default list's single-key writes: where a push's time goes").
-- l_push as installed, and the same function into two copies of the lists table: one without any
-- index, one whose primary key is not DEFERRABLE. Each run: TRUNCATE (a fresh table, as after
-- FLUSHALL), then 600 calls of 170 elements (a redis-benchmark -c 50 -P 16 batch), each committed.
-- CPU from /proc/self/stat (the backend's own utime+stime; 10 ms ticks, ±0.1 µs per element here).
-- Superuser only (pg_read_file of /proc). Leaves the two copies behind (DROP them after).
--   psql -h 127.0.0.1 -p <embedded port> -U postgres -f scripts/bench/list-push-micro.sql
SET search_path = postresp;
CREATE OR REPLACE FUNCTION pg_temp.cpu() RETURNS float8 LANGUAGE sql AS $$
  SELECT (split_part(split_part(s, ') ', 2), ' ', 12)::float8 + split_part(split_part(s, ') ', 2), ' ', 13)::float8) / 100
  FROM pg_read_file('/proc/self/stat') s $$;
CREATE UNLOGGED TABLE IF NOT EXISTS postresp.lists_nopk (db smallint NOT NULL, key bytea NOT NULL, pos bigint NOT NULL,
  value bytea NOT NULL);
CREATE UNLOGGED TABLE IF NOT EXISTS postresp.lists_plainpk (db smallint NOT NULL, key bytea NOT NULL, pos bigint NOT NULL,
  value bytea NOT NULL, PRIMARY KEY (db, key, pos));
DO $d$ DECLARE def text := pg_get_functiondef('postresp.l_push'::regproc); v text;
BEGIN
  FOREACH v IN ARRAY ARRAY['nopk', 'plainpk'] LOOP
    -- the body names the schema quoted ("postresp".lists)
    EXECUTE regexp_replace(replace(def, 'postresp.l_push(', 'postresp.l_push_' || v || '('),
      'INSERT INTO ("?postresp"?)\.lists ', 'INSERT INTO \1.lists_' || v || ' ', 'g');
  END LOOP;
END $d$;
CREATE TEMP TABLE res (fn text, side text, round int, cpu float8);
CREATE OR REPLACE PROCEDURE pg_temp.run(fn text, p_left bool, rnd int) LANGUAGE plpgsql AS $p$
DECLARE a bytea[]; c0 float8; k bytea := convert_to('micro:' || fn, 'utf8');
BEGIN
  TRUNCATE postresp.kv, postresp.lists_nopk, postresp.lists_plainpk;
  COMMIT;
  SELECT array_agg(decode(repeat(md5(i::text), 64), 'hex')) INTO a FROM generate_series(1, 170) i;
  c0 := pg_temp.cpu();
  FOR j IN 1..600 LOOP
    EXECUTE format('SELECT * FROM postresp.%I(0::int2, $1, $2, $3, false, 0)', fn) USING k, a, p_left;
    COMMIT;
  END LOOP;
  INSERT INTO res VALUES (fn, CASE WHEN p_left THEN 'LPUSH' ELSE 'RPUSH' END, rnd, (pg_temp.cpu() - c0) * 1e6 / (600 * 170));
  COMMIT;
END $p$;
CALL pg_temp.run('l_push', true, 1); CALL pg_temp.run('l_push', false, 1);
CALL pg_temp.run('l_push_nopk', true, 1); CALL pg_temp.run('l_push_nopk', false, 1);
CALL pg_temp.run('l_push_plainpk', true, 1); CALL pg_temp.run('l_push_plainpk', false, 1);
CALL pg_temp.run('l_push_plainpk', false, 2); CALL pg_temp.run('l_push_plainpk', true, 2);
CALL pg_temp.run('l_push_nopk', false, 2); CALL pg_temp.run('l_push_nopk', true, 2);
CALL pg_temp.run('l_push', false, 2); CALL pg_temp.run('l_push', true, 2);
SELECT fn, side, round(avg(cpu)::numeric, 2) AS us_per_element, array_agg(round(cpu::numeric, 2) ORDER BY round) AS runs
FROM res GROUP BY 1, 2 ORDER BY 2, 1;
