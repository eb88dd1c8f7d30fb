/** One statement's rows, as a view over the Buffer that carried every result of one socket read.
 *
 * No per-value objects are made unless asked for: `value()` is a zero-copy subarray, and
 * `offset()`/`length()` let a caller copy bytes straight into its own reply buffer. Views keep the
 * whole delivery Buffer alive: copy a value (`Buffer.from(v)`) to keep it for long. */
export class PgResult {
  /** Layout index of the first (offset, length) pair; the column type OIDs come before it. */
  private readonly at: number;

  constructor(
    /** Every result of one delivery; values of this statement live at offset(row, col). */
    readonly buffer: Buffer,
    private readonly layout: Int32Array,
    /** Layout index of this statement's column type OIDs (ncols of them), then its values. */
    private readonly types: number,
    readonly rowCount: number,
    readonly columnCount: number,
    /** Rows reported by the command tag (INSERT/UPDATE/DELETE/SELECT…), -1 if none. */
    readonly affected: number,
  ) {
    this.at = types + columnCount;
  }

  /** Type OID of a column (PQftype): 17 bytea, 20 int8, 23 int4, 1700 numeric… */
  type(col: number): number {
    if (col >>> 0 >= this.columnCount) throw new RangeError(`no column ${col}`);
    return this.layout[this.types + col];
  }

  private slot(row: number, col: number): number {
    if (row >>> 0 >= this.rowCount || col >>> 0 >= this.columnCount) throw new RangeError(`no value at row ${row}, column ${col}`);
    return this.at + 2 * (row * this.columnCount + col);
  }

  /** Byte offset of the value in `buffer`. */
  offset(row: number, col: number): number {
    return this.layout[this.slot(row, col)];
  }

  /** Byte length of the value, -1 for NULL. */
  length(row: number, col: number): number {
    return this.layout[this.slot(row, col) + 1];
  }

  isNull(row: number, col: number): boolean {
    return this.layout[this.slot(row, col) + 1] < 0;
  }

  /** Raw binary value (bytea: the bytes themselves), a view into `buffer`; null for NULL. */
  value(row: number, col: number): Buffer | null {
    const i = this.slot(row, col);
    const len = this.layout[i + 1];
    if (len < 0) return null;
    const off = this.layout[i];
    return this.buffer.subarray(off, off + len);
  }

  /** text/varchar/name value decoded as UTF-8. */
  text(row: number, col: number): string | null {
    const i = this.slot(row, col);
    const len = this.layout[i + 1];
    if (len < 0) return null;
    const off = this.layout[i];
    return this.buffer.toString('utf8', off, off + len);
  }

  /** int2/int4/int8 (binary) as a number; int8 beyond 2^53 loses precision (use bigint()). */
  int(row: number, col: number): number | null {
    const i = this.slot(row, col);
    const len = this.layout[i + 1];
    const off = this.layout[i];
    switch (len) {
      case -1:
        return null;
      case 2:
        return this.buffer.readInt16BE(off);
      case 4:
        return this.buffer.readInt32BE(off);
      case 8:
        return this.buffer.readInt32BE(off) * 4294967296 + this.buffer.readUInt32BE(off + 4);
      default:
        throw new TypeError(`value at row ${row}, column ${col} is not a binary integer (${len} bytes)`);
    }
  }

  /** int8 (binary) as a bigint. */
  bigint(row: number, col: number): bigint | null {
    const i = this.slot(row, col);
    if (this.layout[i + 1] < 0) return null;
    return this.buffer.readBigInt64BE(this.layout[i]);
  }

  /** bool (binary). */
  bool(row: number, col: number): boolean | null {
    const i = this.slot(row, col);
    return this.layout[i + 1] < 0 ? null : this.buffer[this.layout[i]] !== 0;
  }

  /** Every row as an array of values (views); allocates one Buffer per value. */
  rows(): (Buffer | null)[][] {
    const out = new Array<(Buffer | null)[]>(this.rowCount);
    for (let r = 0; r < this.rowCount; r++) {
      const row = new Array<Buffer | null>(this.columnCount);
      for (let c = 0; c < this.columnCount; c++) row[c] = this.value(r, c);
      out[r] = row;
    }
    return out;
  }
}
