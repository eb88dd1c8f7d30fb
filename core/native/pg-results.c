/* Results of one poll wakeup packed for onresults: one Buffer region per delivery, Int32 layout
 * ints then value bytes (layout at the top of pg.c). Split from pg.c: this is the part that copies
 * every value, the connection logic does not touch the bytes. */
#include "pg.h"

/* ------------------------------------------------------------------ results */

static int kind_of(const PGresult *r) {
  switch (PQresultStatus(r)) {
    case PGRES_TUPLES_OK:
    case PGRES_COMMAND_OK:
    case PGRES_EMPTY_QUERY:
      return K_OK;
    case PGRES_PIPELINE_ABORTED:
      return K_ABORTED;
    case PGRES_PIPELINE_SYNC:
      return K_SYNC;
    default:
      return K_ERROR;
  }
}

static const char *error_field(const PGresult *r, int field) {
  const char *s = PQresultErrorField(r, field);
  if (!s && field == PG_DIAG_MESSAGE_PRIMARY) {
    s = PQresultErrorMessage(r);
    if (!s || !*s) s = "unexpected result status";
  }
  return s ? s : "";
}

static const int kErrorFields[4] = {PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE_PRIMARY,
                                    PG_DIAG_MESSAGE_DETAIL, PG_DIAG_MESSAGE_HINT};

/* Layout ints and data bytes one result needs; -1 when it cannot be represented. */
static int result_size(const PGresult *r, size_t *ints, size_t *bytes) {
  switch (kind_of(r)) {
    case K_OK: {
      size_t rows = (size_t)PQntuples(r), cols = (size_t)PQnfields(r), sum = 0;
      for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) sum += (size_t)PQgetlength(r, (int)i, (int)j);
      if (cols > (size_t)INT_MAX / 4 || rows * cols > (INT_MAX - 4 - cols) / 2 || sum > kMaxDeliveryBytes)
        return -1;
      *ints = 4 + cols + 2 * rows * cols;
      *bytes = sum;
      return 0;
    }
    case K_ERROR: {
      size_t sum = 0;
      for (int f = 0; f < 4; f++) sum += strlen(error_field(r, kErrorFields[f]));
      *ints = 9;
      *bytes = sum;
      return 0;
    }
    default:
      *ints = 1;
      *bytes = 0;
      return 0;
  }
}

/* Also during env teardown (cleanup hook, finalizer): Node does not free napi references itself
 * (valgrind showed them lost per terminated worker). */
void pg_release_slab(PgConn *c) {
  if (c->slab_ref) napi_delete_reference(c->env, c->slab_ref);
  if (c->slab_i32_ref) napi_delete_reference(c->env, c->slab_i32_ref);
  c->slab_ref = c->slab_i32_ref = NULL;
  c->slab = NULL;
  c->slab_size = c->slab_used = 0;
}

/* A Buffer and an Int32Array over the same memory, of at least `bytes`. */
static int new_buffer(napi_env env, size_t bytes, char **data, napi_value *buf, napi_value *i32) {
  napi_value ab;
  size_t ab_offset;
  void *raw;
  bytes = (bytes + 3) & ~(size_t)3;
  if (napi_create_buffer(env, bytes, &raw, buf) != napi_ok ||
      napi_get_typedarray_info(env, *buf, NULL, NULL, NULL, &ab, &ab_offset) != napi_ok ||
      ab_offset % 4 != 0 ||
      napi_create_typedarray(env, napi_int32_array, bytes / 4, ab, ab_offset, i32) != napi_ok) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    return -1;
  }
  *data = raw;
  return 0;
}

/* Room for `bytes` (4-aligned start) in the connection's slab, or a dedicated Buffer for large
 * deliveries. The slab (never reused while JS may hold views into it: the next slab is a new
 * Buffer) saves the Buffer + Int32Array pair per socket read. 64 KiB, under glibc's 128 KiB mmap
 * threshold: a 256 KiB slab came from mmap and cost ~2.9 page faults per 16-row SELECT (0.1 at
 * 64 KiB); against a Buffer per read (~17 KB here) no CPU difference showed through this
 * machine's ±25% run-to-run noise. */
static int reserve(PgConn *c, size_t bytes, char **at, napi_value *buf, napi_value *i32,
                   size_t *index) {
  napi_env env = c->env;
  if (bytes > kSlabBytes / 2) {
    *index = 0;
    return new_buffer(env, bytes, at, buf, i32);
  }
  size_t start = (c->slab_used + 3) & ~(size_t)3;
  if (!c->slab || start + bytes > c->slab_size) {
    char *data;
    napi_value b, v;
    pg_release_slab(c);
    if (new_buffer(env, kSlabBytes, &data, &b, &v) != 0 ||
        napi_create_reference(env, b, 1, &c->slab_ref) != napi_ok ||
        napi_create_reference(env, v, 1, &c->slab_i32_ref) != napi_ok) {
      pg_release_slab(c);
      return -1;
    }
    c->slab = data;
    c->slab_size = kSlabBytes;
    start = 0;
  }
  if (napi_get_reference_value(env, c->slab_ref, buf) != napi_ok ||
      napi_get_reference_value(env, c->slab_i32_ref, i32) != napi_ok)
    return -1;
  c->slab_used = start + bytes;
  *at = c->slab + start;
  *index = start / 4;
  return 0;
}

/* Writes results [from, to) into the slab (layout ints, then value bytes) and calls
 * onresults(buffer, int32View, layoutIndex, layoutLength). */
static void deliver_range(PgConn *c, napi_value self, size_t from, size_t to) {
  napi_env env = c->env;
  size_t nints = 0, nbytes = 0;
  for (size_t i = from; i < to; i++) {
    nints += c->rsize[2 * i];
    nbytes += c->rsize[2 * i + 1];
  }
  char *region;
  size_t index;
  napi_value buf, i32;
  if (reserve(c, nints * 4 + nbytes, &region, &buf, &i32, &index) != 0) {
    for (size_t i = from; i < to; i++) PQclear(c->res[i]), c->res[i] = NULL;
    pg_fail(c, "out of memory while delivering results");
    return;
  }
  char *base = region - index * 4; /* offsets are absolute in `buf` */
  int32_t *m = (int32_t *)region;
  char *d = region + nints * 4;
  for (size_t i = from; i < to; i++) {
    PGresult *r = c->res[i];
    int kind = r ? kind_of(r) : K_ERROR;
    *m++ = kind;
    if (kind == K_OK) {
      int rows = PQntuples(r), cols = PQnfields(r);
      const char *tuples = PQcmdTuples(r);
      *m++ = rows;
      *m++ = cols;
      *m++ = *tuples ? atoi(tuples) : -1;
      /* the workers map values by column type (int8 → string, numeric → string…) */
      for (int x = 0; x < cols; x++) *m++ = (int32_t)PQftype(r, x);
      for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
          int len = PQgetlength(r, y, x);
          *m++ = (int32_t)(d - base);
          if (PQgetisnull(r, y, x)) {
            *m++ = -1;
            continue;
          }
          *m++ = len;
          memcpy(d, PQgetvalue(r, y, x), (size_t)len);
          d += len;
        }
    } else if (kind == K_ERROR) {
      for (int f = 0; f < 4; f++) {
        const char *s = error_field(r, kErrorFields[f]);
        size_t len = strlen(s);
        *m++ = (int32_t)(d - base);
        *m++ = (int32_t)len;
        memcpy(d, s, len);
        d += len;
      }
    }
    PQclear(r);
    c->res[i] = NULL;
  }
  napi_value argv[4] = {buf, i32, NULL, NULL};
  napi_create_uint32(env, (uint32_t)index, &argv[2]);
  napi_create_uint32(env, (uint32_t)nints, &argv[3]);
  pg_call_js(c, self, "onresults", 4, argv);
}

void pg_deliver(PgConn *c) {
  size_t n = c->nres;
  if (n == 0) return;
  c->nres = 0; /* from here the results belong to this call, not to teardown */
  c->inflight -= (int64_t)n;
  napi_value self = pg_self_value(c); /* before set_busy may make the reference weak */
  pg_set_busy(c, c->inflight > 0);
  size_t from = 0, bytes = 0;
  for (size_t i = 0; i <= n && self; i++) {
    size_t a = 0, b = 0;
    if (i < n && result_size(c->res[i], &a, &b) != 0) {
      /* Too large for Int32 offsets: report it as this statement's error instead. */
      PQclear(c->res[i]);
      c->res[i] = PQmakeEmptyPGresult(NULL, PGRES_FATAL_ERROR);
      result_size(c->res[i], &a, &b); /* an error result (also when NULL: out of memory) */
    }
    if (i < n) c->rsize[2 * i] = a, c->rsize[2 * i + 1] = b;
    if (i == n || (i > from && bytes + b > kMaxDeliveryBytes)) {
      deliver_range(c, self, from, i);
      /* JS may close the connection inside onresults: later results have no receiver. */
      if (c->state != ST_READY) break;
      from = i;
      bytes = 0;
    }
    bytes += b;
  }
  for (size_t i = 0; i < n; i++)
    if (c->res[i]) PQclear(c->res[i]), c->res[i] = NULL;
}

