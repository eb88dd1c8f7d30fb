/* Statement parameters from JS (encoded by core/engine/pg-driver/params.ts) into libpq's arrays, and the
 * growable byte scratch for SQL text and connection options. */
#include "pg.h"

int pg_bytes_reserve(Bytes *b, size_t extra) {
  if (b->cap - b->len >= extra) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < extra) {
    if (cap > SIZE_MAX / 2) return -1;
    cap *= 2;
  }
  char *p = realloc(b->p, cap);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  return 0;
}

static int params_reserve(PgConn *c, size_t n) {
  if (n <= c->pcap) return 0;
  size_t cap = c->pcap ? c->pcap : 8;
  while (cap < n) cap *= 2;
  const char **v = realloc((void *)c->pvals, cap * sizeof(*v));
  if (v) c->pvals = v;
  int *l = realloc(c->plens, cap * sizeof(*l));
  if (l) c->plens = l;
  int *f = realloc(c->pfmts, cap * sizeof(*f));
  if (f) c->pfmts = f;
  if (!v || !l || !f) return -1; /* arrays that did grow stay valid; pcap unchanged */
  c->pcap = cap;
  return 0;
}

/* Appends the UTF-8 of a JS string (NUL-terminated) to scratch; returns its offset or -1. */
int64_t pg_put_string(napi_env env, Bytes *b, napi_value v, size_t *out_len) {
  size_t len;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return -1;
  if (pg_bytes_reserve(b, len + 1) != 0) return -1;
  size_t off = b->len, written;
  if (napi_get_value_string_utf8(env, v, b->p + off, len + 1, &written) != napi_ok) return -1;
  b->len += written + 1;
  if (out_len) *out_len = written;
  return (int64_t)off;
}

static int32_t get_le32(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Fills c->pvals/plens/pfmts from parameters encoded by core/engine/pg-driver/params.ts: a Buffer with
 * a 12-byte header per parameter (format, length or -1 for NULL, offset; offset -1-k means the
 * k-th Buffer of `refs`), then the data. Four N-API calls per statement instead of several per
 * parameter. Everything is bounds-checked: a malformed buffer throws, never reads outside. */
int pg_decode_params(napi_env env, PgConn *c, napi_value buf, napi_value count, napi_value refs,
                         int *n_out) {
  uint32_t n = 0;
  napi_valuetype t;
  *n_out = 0;
  if (!count || napi_typeof(env, count, &t) != napi_ok || t == napi_undefined) return 0;
  if (napi_get_value_uint32(env, count, &n) != napi_ok || n > 65535) goto bad;
  if (n == 0) return 0;
  unsigned char *base;
  size_t size;
  bool is_buf = false;
  if (napi_is_buffer(env, buf, &is_buf) != napi_ok || !is_buf ||
      napi_get_buffer_info(env, buf, (void **)&base, &size) != napi_ok || size / 12 < n)
    goto bad;
  if (params_reserve(c, n) != 0) {
    postresp_throw(env, kCodeArg, "out of memory encoding parameters");
    return -1;
  }
  uint32_t nrefs = 0;
  bool is_array = false;
  if (refs && napi_is_array(env, refs, &is_array) == napi_ok && is_array &&
      napi_get_array_length(env, refs, &nrefs) != napi_ok)
    goto bad;
  for (uint32_t i = 0; i < n; i++) {
    int32_t fmt = get_le32(base + 12 * i), len = get_le32(base + 12 * i + 4),
            off = get_le32(base + 12 * i + 8);
    c->pfmts[i] = fmt ? 1 : 0;
    c->plens[i] = len < 0 ? 0 : len;
    if (len < 0) {
      c->pvals[i] = NULL;
    } else if (off >= 0) {
      /* text must be NUL-terminated inside the buffer: libpq reads it with strlen */
      if ((size_t)off + (size_t)len + (fmt ? 0 : 1) > size || (!fmt && base[off + len] != 0)) goto bad;
      c->pvals[i] = (const char *)base + off;
    } else {
      uint32_t k = (uint32_t)(-(int64_t)off - 1);
      napi_value ref;
      void *data;
      size_t ref_len;
      if (k >= nrefs || napi_get_element(env, refs, k, &ref) != napi_ok ||
          napi_is_buffer(env, ref, &is_buf) != napi_ok || !is_buf ||
          napi_get_buffer_info(env, ref, &data, &ref_len) != napi_ok || ref_len != (size_t)len || !fmt)
        goto bad;
      c->pvals[i] = len ? data : "";
    }
  }
  *n_out = (int)n;
  return 0;
bad:
  postresp_throw(env, kCodeArg, "malformed parameter buffer (encode parameters with ParamEncoder)");
  return -1;
}

