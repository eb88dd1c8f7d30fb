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
 * Notifications (LISTEN) parsed in the same wakeup follow, in one onnotify(array) call.
 * Offsets are absolute byte offsets in the Buffer, which is a 64 KiB slab shared by consecutive
 * deliveries (reserve() in pg-results.c); onresults gets (buffer, Int32Array view, first int, int count). Parameters arrive the other way round, encoded
 * by core/engine/pg-driver/params.ts into one Buffer (pg_decode_params in pg-params.c).
 *
 * Lifetime: the JS object holds the struct (napi_wrap). While commands are in flight (or the
 * connection is being made, or it LISTENs: setListening) the struct holds a strong reference to the JS object and keeps the
 * poll handle ref'ed, so callbacks always find their object; when idle the reference is weak and
 * the handle unref'ed: a forgotten idle connection neither pins the process nor leaks (the
 * finalizer closes it). The struct is freed only when the JS side is gone AND every uv handle it
 * closed has reported its close callback. An async cleanup hook closes the handle before a worker
 * thread's loop is torn down (Node aborts on open handles there).
 */
#include "pg.h"

/* Distinguishes our wrapped objects from any other napi_wrap in the process. */
static const napi_type_tag kPgConnTag = {0x706f737472657370ULL, 0x5067436f6e6e0001ULL};

static void on_poll(uv_poll_t *h, int status, int events);

/* ------------------------------------------------------------------ small helpers */

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

/* Busy (commands in flight) or listening: the JS object is held and the poll handle keeps the
 * loop alive. Idle otherwise: weak and unref'ed. */
static void update_ref(PgConn *c) {
  int want = c->busy || c->listening;
  if (want == c->refd) return;
  c->refd = want;
  if (c->self && !c->js_gone && !c->env_teardown) {
    uint32_t count;
    if (want) napi_reference_ref(c->env, c->self, &count);
    else napi_reference_unref(c->env, c->self, &count);
  }
  if (c->poll) {
    if (want) uv_ref((uv_handle_t *)c->poll);
    else uv_unref((uv_handle_t *)c->poll);
  }
}

void pg_set_busy(PgConn *c, int busy) {
  c->busy = busy;
  update_ref(c);
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
  c->listening = 0;
  pg_set_busy(c, 0);
  c->state = ST_CLOSED;
  close_poll(c);
  if (c->pg) {
    PQfinish(c->pg);
    c->pg = NULL;
  }
  for (size_t i = 0; i < c->nres; i++) PQclear(c->res[i]);
  c->nres = 0;
  c->inflight = 0;
  pg_release_slab(c);
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
  if (!c->refd) uv_unref((uv_handle_t *)h);
  return 0;
}

/* ------------------------------------------------------------------ calling JS */

/* Calls this[name](argv...) through napi_make_callback so promise jobs and nextTicks queued by
 * the callback run before control returns to libuv. An exception becomes 'uncaughtException'. */
void pg_call_js(PgConn *c, napi_value self, const char *name, size_t argc, napi_value *argv) {
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

napi_value pg_self_value(PgConn *c) {
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
void pg_fail(PgConn *c, const char *fallback) {
  char msg[512];
  conn_message(c, msg, sizeof msg, fallback);
  int connecting = c->state == ST_CONNECTING;
  napi_value self = pg_self_value(c); /* a local handle keeps the object alive past pg_set_busy(0) */
  teardown(c);
  if (!self) return;
  napi_value arg = make_string(c->env, msg);
  pg_call_js(c, self, connecting ? "onconnect" : "onclose", 1, &arg);
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

/* Every notification libpq parsed (LISTEN, core/bus/pg-link.ts), in arrival order, in one call:
 * onnotify([pid, channel, payload, pid, channel, payload, …]). Freed even without a listener. */
static void deliver_notifies(PgConn *c) {
  PGnotify *n = PQnotifies(c->pg);
  if (!n) return;
  napi_env env = c->env;
  napi_value self = pg_self_value(c), arr = NULL;
  if (self && napi_create_array(env, &arr) != napi_ok) arr = NULL;
  uint32_t i = 0;
  for (; n; n = PQnotifies(c->pg)) {
    if (arr) {
      napi_value pid, channel, payload;
      napi_create_int32(env, n->be_pid, &pid);
      napi_create_string_utf8(env, n->relname, NAPI_AUTO_LENGTH, &channel);
      napi_create_string_utf8(env, n->extra ? n->extra : "", NAPI_AUTO_LENGTH, &payload);
      napi_set_element(env, arr, i++, pid);
      napi_set_element(env, arr, i++, channel);
      napi_set_element(env, arr, i++, payload);
    }
    PQfreemem(n);
  }
  if (arr) pg_call_js(c, self, "onnotify", 1, &arr);
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
  pg_deliver(c);
  if (c->state != ST_READY) return; /* closed by JS inside onresults */
  deliver_notifies(c);
  if (c->state != ST_READY) return; /* closed by JS inside onnotify */
  if (oom || broken) {
    /* uv reports POLLERR (a reset) as EBADF: name it as what it is */
    pg_fail(c, oom ? "out of memory while reading results"
                : status < 0 ? "connection reset (socket error)" : "connection to the server was lost");
    return;
  }
  if (poll_update(c, UV_READABLE | (c->want_write ? UV_WRITABLE : 0)) != 0)
    pg_fail(c, "uv_poll_start failed");
}

static void connect_step(PgConn *c) {
  PostgresPollingStatusType st = PQconnectPoll(c->pg);
  if (st == PGRES_POLLING_FAILED) {
    pg_fail(c, "connection failed");
    return;
  }
  if (poll_attach(c) != 0) {
    pg_fail(c, "could not watch the connection socket");
    return;
  }
  if (st == PGRES_POLLING_READING || st == PGRES_POLLING_WRITING) {
    if (poll_update(c, st == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE) != 0)
      pg_fail(c, "uv_poll_start failed");
    return;
  }
  /* PGRES_POLLING_OK */
  if (PQsetnonblocking(c->pg, 1) != 0 || PQenterPipelineMode(c->pg) != 1) {
    pg_fail(c, "could not enter libpq pipeline mode");
    return;
  }
  c->state = ST_READY;
  if (poll_update(c, UV_READABLE) != 0) {
    pg_fail(c, "uv_poll_start failed");
    return;
  }
  napi_value self = pg_self_value(c);
  pg_set_busy(c, c->inflight > 0);
  if (!self) return;
  napi_value arg;
  napi_get_null(c->env, &arg);
  pg_call_js(c, self, "onconnect", 1, &arg);
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
  pg_set_busy(c, 1);
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
        (ko = pg_put_string(env, &c->scratch, k, NULL)) < 0 ||
        (vo = pg_put_string(env, &c->scratch, v, NULL)) < 0) {
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
  pg_set_busy(c, 1);
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
  if (pg_decode_params(env, c, argv[1], argv[2], argv[3], &n) != 0) return NULL;
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
  int64_t sql = argc > 0 ? pg_put_string(env, &c->scratch, argv[0], NULL) : -1;
  if (sql < 0) return postresp_throw(env, kCodeArg, "sql must be a string");
  if (pg_decode_params(env, c, argv[1], argv[2], argv[3], &n) != 0) return NULL;
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
  int64_t sql = pg_put_string(env, &c->scratch, argv[1], NULL);
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

/* setListening(on): while on, an idle connection keeps its object and the event loop alive, so a
 * LISTENing connection is not collected and its notifications arrive. */
static napi_value js_set_listening(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  PgConn *c = unwrap_this(env, info, &argc, argv);
  bool on = false;
  if (!c) return NULL;
  if (argc < 1 || napi_get_value_bool(env, argv[0], &on) != napi_ok)
    return postresp_throw(env, kCodeArg, "setListening(on: boolean)");
  if (c->state == ST_CLOSED) return NULL;
  c->listening = on;
  update_ref(c);
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
    {"setListening", NULL, js_set_listening, NULL, NULL, NULL, napi_default, NULL},
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
