/* PgConn: one nonblocking libpq connection in pipeline mode, driven by a uv_poll on PQsocket.
 *
 * Why not pg-native: its libpq binding is not context-aware ("Module did not self-register" in a
 * second worker thread). This class keeps all state in the PgConn struct of one env, so every
 * worker loads it.
 *
 *   JS                         C (this file)                         libpq / socket
 *   prepare/send/sendPrepared  PQsend* (buffered, no syscall)   ──▶  outBuffer
 *   sync()                     PQpipelineSync + PQflush         ──▶  send(); EAGAIN → poll WRITABLE
 *   onresults(buf, meta)   ◀── on_poll: PQconsumeInput, PQflush,
 *                              PQgetResult while !PQisBusy       ◀──  recv()
 *
 * Results of one poll wakeup are delivered in ONE JS call as one region of a Buffer: an Int32
 * layout area followed by the bytes of every value, so JS gets no per-value objects (a 16-row
 * SELECT of key+value would need 32 Buffers). Layout, per command in send order:
 *   [0 OK,      nrows, ncols, affected(-1 if none), type OID × ncols,
 *               (offset, length|-1 for NULL) × nrows·ncols]
 *   [1 ERROR,   (offset, length) × 4 for SQLSTATE, message, detail, hint]
 *   [2 ABORTED] skipped: an earlier statement in its sync group failed
 *   [3 SYNC]
 * Offsets are absolute byte offsets in the Buffer, which is a 64 KiB slab shared by consecutive
 * deliveries (see reserve()); onresults gets (buffer, Int32Array view, first int, int count). Parameters arrive the other way round, encoded
 * by core/pg-driver/params.ts into one Buffer (see decode_params).
 *
 * Lifetime: the JS object holds the struct (napi_wrap). While commands are in flight (or the
 * connection is being made) the struct holds a strong reference to the JS object and keeps the
 * poll handle ref'ed, so callbacks always find their object; when idle the reference is weak and
 * the handle unref'ed: a forgotten idle connection neither pins the process nor leaks (the
 * finalizer closes it). The struct is freed only when the JS side is gone AND every uv handle it
 * closed has reported its close callback. An async cleanup hook closes the handle before a worker
 * thread's loop is torn down (Node aborts on open handles there).
 */
#include <libpq-fe.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "addon.h"

#define kCodeConnection "POSTRESP_ERR_PG_CONNECTION"
#define kCodeArg "POSTRESP_ERR_NATIVE_ARG"
/* One Buffer per wakeup keeps Int32 offsets valid; past this much data the results of one wakeup
 * are split across several onresults calls (a single value is at most 1 GB in Postgres). */
#define kMaxDeliveryBytes ((size_t)1 << 30)
#define kSlabBytes ((size_t)64 * 1024)

enum { ST_CONNECTING, ST_READY, ST_CLOSED };
enum { K_OK = 0, K_ERROR = 1, K_ABORTED = 2, K_SYNC = 3 };

typedef struct {
  char *p;
  size_t len, cap;
} Bytes;

typedef struct PgConn {
  napi_env env;
  napi_ref self;                 /* the JS object; strong while busy */
  PGconn *pg;
  uv_poll_t *poll;               /* NULL once closed */
  int fd;
  int poll_events;
  int closing_handles;           /* uv_close()d handles whose close callback is pending */
  int state;
  int busy;
  int want_write;                /* PQflush returned 1: wait for writability */
  int js_gone;                   /* finalizer ran */
  int env_teardown;              /* async cleanup hook ran: no more JS calls */
  int64_t inflight;              /* commands sent (incl. syncs) whose result is not delivered */
  napi_async_cleanup_hook_handle cleanup;
  PGresult **res;                /* results collected in this wakeup */
  size_t *rsize;                 /* per result: layout ints, data bytes */
  size_t nres, capres;
  napi_ref slab_ref, slab_i32_ref; /* current delivery slab: a Buffer and an Int32Array view */
  char *slab;
  size_t slab_size, slab_used;
  const char **pvals;            /* PQsend* parameter arrays, reused */
  int *plens, *pfmts;
  size_t pcap;
  Bytes scratch;                 /* SQL text and connection options for one libpq call */
} PgConn;

/* Distinguishes our wrapped objects from any other napi_wrap in the process. */
static const napi_type_tag kPgConnTag = {0x706f737472657370ULL, 0x5067436f6e6e0001ULL};

static void on_poll(uv_poll_t *h, int status, int events);
static void release_slab(PgConn *c);

/* ------------------------------------------------------------------ small helpers */

static int bytes_reserve(Bytes *b, size_t extra) {
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

/* Message of the last libpq error without its trailing newline, copied into buf. */
static const char *conn_message(PgConn *c, char *buf, size_t size, const char *fallback) {
  const char *m = c->pg ? PQerrorMessage(c->pg) : NULL;
  if (!m || !*m) m = fallback;
  snprintf(buf, size, "%s", m);
  size_t n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
  return buf;
}

static void ignore_notice(void *arg, const char *message) {
  (void)arg;
  (void)message; /* NOTICEs would go to stderr otherwise (e.g. "relation exists, skipping") */
}

/* ------------------------------------------------------------------ lifetime */

static void free_conn(PgConn *c) {
  for (size_t i = 0; i < c->nres; i++) PQclear(c->res[i]);
  free(c->res);
  free(c->rsize);
  free((void *)c->pvals);
  free(c->plens);
  free(c->pfmts);
  free(c->scratch.p);
  free(c);
}

/* Frees the struct once nothing can reach it: JS object finalized, connection closed and every
 * closed uv handle has called back. Until the handles have called back the env must wait. */
static void maybe_release(PgConn *c) {
  if (c->state != ST_CLOSED || c->closing_handles > 0) return;
  if (c->cleanup) {
    napi_remove_async_cleanup_hook(c->cleanup);
    c->cleanup = NULL;
  }
  if (c->js_gone) free_conn(c);
}

static void on_handle_closed(uv_handle_t *h) {
  PgConn *c = h->data;
  free(h);
  if (!c) return;
  c->closing_handles--;
  maybe_release(c);
}

static void set_busy(PgConn *c, int busy) {
  if (busy == c->busy) return;
  c->busy = busy;
  if (c->self && !c->js_gone && !c->env_teardown) {
    uint32_t count;
    if (busy) napi_reference_ref(c->env, c->self, &count);
    else napi_reference_unref(c->env, c->self, &count);
  }
  if (c->poll) {
    if (busy) uv_ref((uv_handle_t *)c->poll);
    else uv_unref((uv_handle_t *)c->poll);
  }
}

static void close_poll(PgConn *c) {
  if (!c->poll) return;
  uv_poll_stop(c->poll); /* before PQfinish closes the descriptor: epoll must forget it first */
  c->poll->data = c;
  uv_close((uv_handle_t *)c->poll, on_handle_closed);
  c->closing_handles++;
  c->poll = NULL;
  c->poll_events = 0;
}

/* Closes the connection without calling JS. Safe at any point, including inside onresults. */
static void teardown(PgConn *c) {
  if (c->state == ST_CLOSED) return;
  set_busy(c, 0);
  c->state = ST_CLOSED;
  close_poll(c);
  if (c->pg) {
    PQfinish(c->pg);
    c->pg = NULL;
  }
  for (size_t i = 0; i < c->nres; i++) PQclear(c->res[i]);
  c->nres = 0;
  c->inflight = 0;
  release_slab(c);
  maybe_release(c);
}

static void on_env_cleanup(napi_async_cleanup_hook_handle handle, void *arg) {
  PgConn *c = arg;
  c->env_teardown = 1;
  c->cleanup = handle;
  teardown(c);
  maybe_release(c); /* removes the hook now if no handle is closing, else from on_handle_closed */
}

static void finalize(napi_env env, void *data, void *hint) {
  PgConn *c = data;
  c->js_gone = 1;
  if (c->self) {
    napi_delete_reference(env, c->self);
    c->self = NULL;
  }
  teardown(c);
  maybe_release(c);
}


static int poll_update(PgConn *c, int events) {
  if (!c->poll || events == c->poll_events) return 0;
  int rc = uv_poll_start(c->poll, events, on_poll);
  if (rc == 0) c->poll_events = events;
  return rc;
}

/* A fresh handle on PQsocket. While connecting this runs after every PQconnectPoll: libpq may
 * have closed its socket and opened another (next host address, SSL fallback) that can reuse the
 * same descriptor number, which epoll would silently stop reporting. */
static int poll_attach(PgConn *c) {
  int fd = PQsocket(c->pg);
  if (fd < 0) return -1;
  close_poll(c);
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(c->env, &loop) != napi_ok) return -1;
  uv_poll_t *h = calloc(1, sizeof(*h));
  if (!h) return -1;
  if (uv_poll_init(loop, h, fd) != 0) {
    free(h);
    return -1;
  }
  h->data = c;
  c->poll = h;
  c->fd = fd;
  c->poll_events = 0;
  if (!c->busy) uv_unref((uv_handle_t *)h);
  return 0;
}

/* ------------------------------------------------------------------ calling JS */

/* Calls this[name](argv...) through napi_make_callback so promise jobs and nextTicks queued by
 * the callback run before control returns to libuv. An exception becomes 'uncaughtException'. */
static void call_js(PgConn *c, napi_value self, const char *name, size_t argc, napi_value *argv) {
  napi_env env = c->env;
  napi_value fn;
  napi_valuetype t;
  if (napi_get_named_property(env, self, name, &fn) != napi_ok ||
      napi_typeof(env, fn, &t) != napi_ok || t != napi_function)
    return;
  napi_value ignored;
  if (napi_make_callback(env, NULL, self, fn, argc, argv, &ignored) == napi_pending_exception) {
    napi_value err;
    if (napi_get_and_clear_last_exception(env, &err) == napi_ok) napi_fatal_exception(env, err);
  }
}

static napi_value self_value(PgConn *c) {
  napi_value v = NULL;
  if (!c->self || c->js_gone || c->env_teardown) return NULL;
  if (napi_get_reference_value(c->env, c->self, &v) != napi_ok) return NULL;
  return v; /* NULL when the weakly held object was collected but not yet finalized */
}

static napi_value make_string(napi_env env, const char *s) {
  napi_value v;
  if (napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v) != napi_ok) napi_get_null(env, &v);
  return v;
}

/* Closes after a failure and tells JS: onclose(message) or, while connecting, onconnect(message). */
static void fail(PgConn *c, const char *fallback) {
  char msg[512];
  conn_message(c, msg, sizeof msg, fallback);
  int connecting = c->state == ST_CONNECTING;
  napi_value self = self_value(c); /* a local handle keeps the object alive past set_busy(0) */
  teardown(c);
  if (!self) return;
  napi_value arg = make_string(c->env, msg);
  call_js(c, self, connecting ? "onconnect" : "onclose", 1, &arg);
}

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
static void release_slab(PgConn *c) {
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
    release_slab(c);
    if (new_buffer(env, kSlabBytes, &data, &b, &v) != 0 ||
        napi_create_reference(env, b, 1, &c->slab_ref) != napi_ok ||
        napi_create_reference(env, v, 1, &c->slab_i32_ref) != napi_ok) {
      release_slab(c);
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
    fail(c, "out of memory while delivering results");
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
  call_js(c, self, "onresults", 4, argv);
}

static void deliver(PgConn *c) {
  size_t n = c->nres;
  if (n == 0) return;
  c->nres = 0; /* from here the results belong to this call, not to teardown */
  c->inflight -= (int64_t)n;
  napi_value self = self_value(c); /* before set_busy may make the reference weak */
  set_busy(c, c->inflight > 0);
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

/* Collects every complete result without blocking: PQgetResult only when !PQisBusy. */
static int collect(PgConn *c) {
  while ((int64_t)c->nres < c->inflight && !PQisBusy(c->pg)) {
    PGresult *r = PQgetResult(c->pg);
    if (!r) break; /* idle (or dead): nothing more to read now */
    if (c->nres == c->capres) {
      size_t cap = c->capres ? c->capres * 2 : 16;
      PGresult **p = realloc(c->res, cap * sizeof(*p));
      if (p) c->res = p;
      size_t *z = realloc(c->rsize, 2 * cap * sizeof(*z));
      if (z) c->rsize = z;
      if (!p || !z) {
        PQclear(r);
        return -1;
      }
      c->capres = cap;
    }
    c->res[c->nres++] = r;
    if (PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
      /* Consume the NULL that ends this command's results (immediate: state is PIPELINE_IDLE),
       * so the next wakeup starts at the next command. */
      PGresult *extra;
      int guard = 0;
      while (guard++ < 16 && !PQisBusy(c->pg) && (extra = PQgetResult(c->pg)) != NULL)
        PQclear(extra);
    }
  }
  return 0;
}

static void io_step(PgConn *c, int status, int events) {
  int broken = status < 0;
  /* libuv reports POLLERR (e.g. the RST that follows a server exit with our unread statements in
   * its buffer) as UV_EBADF without reading: let libpq read anyway, for what arrived before and
   * for its own message ("Connection reset by peer" beats "bad file descriptor"). */
  if (((events & UV_READABLE) || broken) && !PQconsumeInput(c->pg)) broken = 1;
  if (!broken && c->want_write) {
    int r = PQflush(c->pg);
    if (r < 0) broken = 1;
    else c->want_write = r;
  }
  broken = broken || PQstatus(c->pg) == CONNECTION_BAD;
  /* libpq closes its socket when it sees EOF: forget the descriptor before any JS runs, or a socket
   * opened meanwhile could reuse the number while libuv still maps it to this handle. */
  if (broken) close_poll(c);
  /* Results that arrived complete are delivered first, even on a broken connection. */
  int oom = collect(c) != 0;
  deliver(c);
  if (c->state != ST_READY) return; /* closed by JS inside onresults */
  if (oom || broken) {
    /* uv reports POLLERR (a reset) as EBADF: name it as what it is */
    fail(c, oom ? "out of memory while reading results"
                : status < 0 ? "connection reset (socket error)" : "connection to the server was lost");
    return;
  }
  if (poll_update(c, UV_READABLE | (c->want_write ? UV_WRITABLE : 0)) != 0)
    fail(c, "uv_poll_start failed");
}

static void connect_step(PgConn *c) {
  PostgresPollingStatusType st = PQconnectPoll(c->pg);
  if (st == PGRES_POLLING_FAILED) {
    fail(c, "connection failed");
    return;
  }
  if (poll_attach(c) != 0) {
    fail(c, "could not watch the connection socket");
    return;
  }
  if (st == PGRES_POLLING_READING || st == PGRES_POLLING_WRITING) {
    if (poll_update(c, st == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE) != 0)
      fail(c, "uv_poll_start failed");
    return;
  }
  /* PGRES_POLLING_OK */
  if (PQsetnonblocking(c->pg, 1) != 0 || PQenterPipelineMode(c->pg) != 1) {
    fail(c, "could not enter libpq pipeline mode");
    return;
  }
  c->state = ST_READY;
  if (poll_update(c, UV_READABLE) != 0) {
    fail(c, "uv_poll_start failed");
    return;
  }
  napi_value self = self_value(c);
  set_busy(c, c->inflight > 0);
  if (!self) return;
  napi_value arg;
  napi_get_null(c->env, &arg);
  call_js(c, self, "onconnect", 1, &arg);
}

static void on_poll(uv_poll_t *h, int status, int events) {
  PgConn *c = h->data;
  if (!c || c->state == ST_CLOSED || c->env_teardown) return;
  napi_handle_scope scope;
  if (napi_open_handle_scope(c->env, &scope) != napi_ok) return;
  if (c->state == ST_CONNECTING) connect_step(c);
  else io_step(c, status, events);
  napi_close_handle_scope(c->env, scope);
}

/* ------------------------------------------------------------------ JS arguments */

static PgConn *unwrap_this(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  void *data = NULL;
  bool tagged = false;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok ||
      napi_check_object_type_tag(env, self, &kPgConnTag, &tagged) != napi_ok || !tagged ||
      napi_unwrap(env, self, &data) != napi_ok || !data) {
    postresp_throw(env, kCodeArg, "PgConn method called on an incompatible receiver");
    return NULL;
  }
  return data;
}

static PgConn *ready_this(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  PgConn *c = unwrap_this(env, info, argc, argv);
  if (c && c->state != ST_READY) {
    postresp_throw(env, kCodeConnection,
                   c->state == ST_CONNECTING ? "connection is not established yet"
                                             : "connection is closed");
    return NULL;
  }
  return c;
}

/* Appends the UTF-8 of a JS string (NUL-terminated) to scratch; returns its offset or -1. */
static int64_t put_string(napi_env env, Bytes *b, napi_value v, size_t *out_len) {
  size_t len;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return -1;
  if (bytes_reserve(b, len + 1) != 0) return -1;
  size_t off = b->len, written;
  if (napi_get_value_string_utf8(env, v, b->p + off, len + 1, &written) != napi_ok) return -1;
  b->len += written + 1;
  if (out_len) *out_len = written;
  return (int64_t)off;
}

static int32_t get_le32(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Fills c->pvals/plens/pfmts from parameters encoded by core/pg-driver/params.ts: a Buffer with
 * a 12-byte header per parameter (format, length or -1 for NULL, offset; offset -1-k means the
 * k-th Buffer of `refs`), then the data. Four N-API calls per statement instead of several per
 * parameter. Everything is bounds-checked: a malformed buffer throws, never reads outside. */
static int decode_params(napi_env env, PgConn *c, napi_value buf, napi_value count, napi_value refs,
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

static int read_stmt_id(napi_env env, napi_value v, char name[16]) {
  uint32_t id;
  if (napi_get_value_uint32(env, v, &id) != napi_ok) {
    postresp_throw(env, kCodeArg, "statement id must be a non-negative integer");
    return -1;
  }
  snprintf(name, 16, "p%u", id);
  return 0;
}

/* After a failed PQsend*: the message, with the connection code when the link is gone. */
static napi_value throw_send_error(PgConn *c, napi_env env) {
  char msg[512];
  conn_message(c, msg, sizeof msg, "could not queue the command");
  if (PQstatus(c->pg) != CONNECTION_BAD) return postresp_throw(env, "POSTRESP_ERR_PG_SEND", msg);
  /* The link is gone (libpq already closed the socket): close now; the wrapper fails every
   * pending command when it sees this code. */
  teardown(c);
  return postresp_throw(env, kCodeConnection, msg);
}

static void sent(PgConn *c) {
  c->inflight++;
  set_busy(c, 1);
}

/* ------------------------------------------------------------------ methods */

/* new PgConn(keywords: string[], values: string[]): PQconnectStartParams with expand_dbname, so
 * keywords[0] = "dbname" may carry a whole URL and later pairs override its parts. */
static napi_value js_ctor(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  if (napi_get_cb_info(env, info, &argc, argv, &self, NULL) != napi_ok) return NULL;
  uint32_t nk = 0, nv = 0;
  bool ka = false, va = false;
  if (argc < 2 || napi_is_array(env, argv[0], &ka) != napi_ok || !ka ||
      napi_is_array(env, argv[1], &va) != napi_ok || !va ||
      napi_get_array_length(env, argv[0], &nk) != napi_ok ||
      napi_get_array_length(env, argv[1], &nv) != napi_ok || nk != nv || nk > 64)
    return postresp_throw(env, kCodeArg, "new PgConn(keywords: string[], values: string[])");

  PgConn *c = calloc(1, sizeof(*c));
  if (!c) return postresp_throw(env, kCodeArg, "out of memory");
  c->env = env;
  c->fd = -1;
  c->state = ST_CONNECTING;
  /* keywords and values are encoded into scratch; offsets first, pointers once it stops moving */
  size_t offs[2][65];
  const char *kw[65], *vals[65];
  for (uint32_t i = 0; i < nk; i++) {
    napi_value k, v;
    int64_t ko, vo;
    if (napi_get_element(env, argv[0], i, &k) != napi_ok ||
        napi_get_element(env, argv[1], i, &v) != napi_ok ||
        (ko = put_string(env, &c->scratch, k, NULL)) < 0 ||
        (vo = put_string(env, &c->scratch, v, NULL)) < 0) {
      free_conn(c);
      return postresp_throw(env, kCodeArg, "connection keywords and values must be strings");
    }
    offs[0][i] = (size_t)ko;
    offs[1][i] = (size_t)vo;
  }
  for (uint32_t i = 0; i < nk; i++) {
    kw[i] = c->scratch.p + offs[0][i];
    vals[i] = c->scratch.p + offs[1][i];
  }
  kw[nk] = vals[nk] = NULL;
  c->pg = PQconnectStartParams(kw, vals, 1);
  c->scratch.len = 0;
  if (!c->pg) {
    free_conn(c);
    return postresp_throw(env, kCodeConnection, "out of memory starting a libpq connection");
  }
  if (PQstatus(c->pg) == CONNECTION_BAD) {
    char msg[512];
    conn_message(c, msg, sizeof msg, "invalid connection options");
    PQfinish(c->pg);
    free_conn(c);
    return postresp_throw(env, kCodeConnection, msg);
  }
  PQsetNoticeProcessor(c->pg, ignore_notice, NULL);
  if (napi_type_tag_object(env, self, &kPgConnTag) != napi_ok ||
      napi_wrap(env, self, c, finalize, NULL, &c->self) != napi_ok) {
    PQfinish(c->pg);
    free_conn(c);
    return postresp_throw(env, kCodeArg, "could not wrap PgConn");
  }
  /* From here the finalizer owns c: errors close it instead of freeing. */
  if (napi_add_async_cleanup_hook(env, on_env_cleanup, c, &c->cleanup) != napi_ok) {
    teardown(c);
    return postresp_throw(env, kCodeArg, "could not register the cleanup hook");
  }
  set_busy(c, 1);
  /* libpq starts as if PQconnectPoll had returned PGRES_POLLING_WRITING */
  if (poll_attach(c) != 0 || poll_update(c, UV_WRITABLE) != 0) {
    char msg[512];
    conn_message(c, msg, sizeof msg, "could not watch the connection socket");
    teardown(c);
    return postresp_throw(env, kCodeConnection, msg);
  }
  return self;
}

/* sendPrepared(id, params?: Buffer, count?, refs?: Buffer[]): Bind/Execute of statement "p<id>",
 * binary results. */
static napi_value js_send_prepared(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4] = {NULL, NULL, NULL, NULL};
  PgConn *c = ready_this(env, info, &argc, argv);
  char name[16];
  int n;
  if (!c || argc < 1 || read_stmt_id(env, argv[0], name) != 0) return NULL;
  if (decode_params(env, c, argv[1], argv[2], argv[3], &n) != 0) return NULL;
  if (!PQsendQueryPrepared(c->pg, name, n, c->pvals, c->plens, c->pfmts, 1))
    return throw_send_error(c, env);
  sent(c);
  return NULL;
}

/* send(sql, params?, count?, refs?): unnamed statement (Parse/Bind/Execute), binary results. */
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4] = {NULL, NULL, NULL, NULL};
  PgConn *c = ready_this(env, info, &argc, argv);
  int n;
  if (!c) return NULL;
  c->scratch.len = 0;
  int64_t sql = argc > 0 ? put_string(env, &c->scratch, argv[0], NULL) : -1;
  if (sql < 0) return postresp_throw(env, kCodeArg, "sql must be a string");
  if (decode_params(env, c, argv[1], argv[2], argv[3], &n) != 0) return NULL;
  if (!PQsendQueryParams(c->pg, c->scratch.p + sql, n, NULL, c->pvals, c->plens, c->pfmts, 1))
    return throw_send_error(c, env);
  sent(c);
  return NULL;
}

/* prepare(id, sql, paramTypes?: number[]): Parse of statement "p<id>". */
static napi_value js_prepare(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3] = {NULL, NULL, NULL};
  PgConn *c = ready_this(env, info, &argc, argv);
  char name[16];
  if (!c || argc < 2 || read_stmt_id(env, argv[0], name) != 0) return NULL;
  c->scratch.len = 0;
  int64_t sql = put_string(env, &c->scratch, argv[1], NULL);
  if (sql < 0) return postresp_throw(env, kCodeArg, "sql must be a string");
  Oid types[64];
  uint32_t nt = 0;
  bool is_array = false;
  if (argc > 2 && napi_is_array(env, argv[2], &is_array) == napi_ok && is_array) {
    if (napi_get_array_length(env, argv[2], &nt) != napi_ok || nt > 64)
      return postresp_throw(env, kCodeArg, "at most 64 parameter types");
    for (uint32_t i = 0; i < nt; i++) {
      napi_value v;
      uint32_t oid;
      if (napi_get_element(env, argv[2], i, &v) != napi_ok ||
          napi_get_value_uint32(env, v, &oid) != napi_ok)
        return postresp_throw(env, kCodeArg, "parameter types must be type OIDs");
      types[i] = oid;
    }
  }
  if (!PQsendPrepare(c->pg, name, c->scratch.p + sql, (int)nt, nt ? types : NULL))
    return throw_send_error(c, env);
  sent(c);
  return NULL;
}

/* sync(): ends a sync group (implicit transaction) and flushes; EAGAIN → wait for writability. */
static napi_value js_sync(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  PgConn *c = ready_this(env, info, &argc, NULL);
  if (!c) return NULL;
  if (!PQpipelineSync(c->pg)) return throw_send_error(c, env);
  sent(c);
  int r = PQflush(c->pg);
  if (r < 0) {
    /* only a read error (connection dropped) makes a nonblocking flush fail */
    char msg[512];
    conn_message(c, msg, sizeof msg, "could not send to the server");
    teardown(c);
    return postresp_throw(env, kCodeConnection, msg);
  }
  if (r == 1 && !c->want_write) {
    c->want_write = 1;
    if (poll_update(c, UV_READABLE | UV_WRITABLE) != 0)
      return postresp_throw(env, kCodeConnection, "uv_poll_start failed");
  }
  return NULL;
}

/* close(): immediate; pending commands are failed by the JS wrapper, not reported from here. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  PgConn *c = unwrap_this(env, info, &argc, NULL);
  if (c) teardown(c);
  return NULL;
}

static napi_value js_backend_pid(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  PgConn *c = unwrap_this(env, info, &argc, NULL);
  napi_value v;
  if (!c) return NULL;
  napi_create_int32(env, c->pg && c->state == ST_READY ? PQbackendPID(c->pg) : 0, &v);
  return v;
}

static napi_value js_server_version(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  PgConn *c = unwrap_this(env, info, &argc, NULL);
  napi_value v;
  if (!c) return NULL;
  napi_create_int32(env, c->pg && c->state == ST_READY ? PQserverVersion(c->pg) : 0, &v);
  return v;
}

napi_status postresp_init_pg(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
    {"sendPrepared", NULL, js_send_prepared, NULL, NULL, NULL, napi_default, NULL},
    {"send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL},
    {"prepare", NULL, js_prepare, NULL, NULL, NULL, napi_default, NULL},
    {"sync", NULL, js_sync, NULL, NULL, NULL, napi_default, NULL},
    {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
    {"backendPid", NULL, js_backend_pid, NULL, NULL, NULL, napi_default, NULL},
    {"serverVersion", NULL, js_server_version, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls, version;
  napi_status s = napi_define_class(env, "PgConn", NAPI_AUTO_LENGTH, js_ctor, NULL,
                                    sizeof(methods) / sizeof(methods[0]), methods, &cls);
  if (s != napi_ok) return s;
  if ((s = napi_set_named_property(env, exports, "PgConn", cls)) != napi_ok) return s;
  if ((s = napi_create_int32(env, PQlibVersion(), &version)) != napi_ok) return s;
  return napi_set_named_property(env, exports, "libpqVersion", version);
}
