// typedRows against the shared test Postgres (DATABASE_URL): binary values mapped by column type
// must equal what Postgres prints in text (numeric, int8) or the JS value the map functions expect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NativePgConnection } from './native-conn';
import { typedRows } from './typed-rows';

const url = process.env.DATABASE_URL ?? '';

describe('typedRows', { skip: url ? false : 'DATABASE_URL is not set (run `npm test`)' }, () => {
  let conn: NativePgConnection;
  before(async () => {
    conn = await NativePgConnection.connect(url);
  });
  after(() => conn.close());

  test('maps each column type like the text protocol did', async () => {
    const r = await conn.query(`SELECT true, '\\x00ff'::bytea, 9007199254740993::int8, -3::int2, 70000::int4, 'héllo'::text,
      0.1::float8, 1.5::float4, NULL::int4, ARRAY[1,2]::int2[], ARRAY['\\x61'::bytea, NULL], ARRAY[]::text[],
      ARRAY[-1::int8, 2], 'x'::varchar, 7::oid`);
    assert.deepEqual(typedRows(r), [[true, Buffer.from([0, 255]), '9007199254740993', -3, 70000, 'héllo',
      0.1, 1.5, null, [1, 2], [Buffer.from('a'), null], [], ['-1', '2'], 'x', 7]]);
  });

  test('numeric prints every digit numeric_out prints', async () => {
    const cases = ['0', '1', '-1', '10000', '123456789012345678901234567890', '0.0001', '0.00000005', '-0.5',
      '3.14159265358979323846', '1e-20', '99999.99990', '12345678.1', '1.000000000000000000001', 'NaN',
      'Infinity', '-Infinity', '170141183460469231731687303715884105727'];
    const r = await conn.query('SELECT v, v::text FROM unnest($1::text[]) AS t(s), LATERAL (SELECT s::numeric AS v) n', [cases]);
    const rows = typedRows(r);
    assert.equal(rows.length, cases.length);
    for (const [binary, text] of rows) assert.equal(binary, text);
  });

  test('an unmapped type is an error, not a silent wrong value', async () => {
    const r = await conn.query("SELECT '2026-01-01'::date");
    assert.throws(() => typedRows(r), /type OID 1082/);
  });
});
