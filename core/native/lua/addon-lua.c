/* N-API side of the Lua engine (addon "postresp_lua"): one env_ctx per JS thread that loads it
 * (context-aware, NAPI_MODULE_INIT), one threadsafe function per env through which pool threads
 * post redis.call requests, log lines and results to that thread's `dispatch(kind, id, …)`.
 *
 *   pool thread                         JS thread (dispatch)
 *   host_call ──tsfn(kMsgCall)──────▶   host.call(argv) … promise resolves
 *     waits on run->cv   ◀──reply()───  reply(handle, bytes)
 *   host_done ──tsfn(kMsgDone)──────▶   resolves engine.run()'s promise
 *
 * Teardown of a worker thread: the cleanup hook aborts that env's runs (their redis.call
 * raises, the count hook stops them), drops queued ones, and waits until none is in flight. */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <lauxlib.h>
#include "lua-engine.h"

struct env_ctx {
  napi_threadsafe_function tsfn;
  napi_ref dispatch;
  int js_active; /* JS thread only: runs whose promise is pending (tsfn is ref'd while > 0) */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int inflight; /* under mu: runs submitted and not done */
  run_t *runs;  /* under mu */
  lua_State *scratch; /* SCRIPT LOAD compiles here (JS thread only) */
  mem_t scratch_mem;
};

typedef struct {
  msg_kind_t kind;
  run_t *r;
  int argc;
  char **argv;
  size_t *argl;
  int level;
  buf_t text;
} msg_t;

#define CHECK(call) do { if ((call) != napi_ok) goto fail; } while (0)

static void msg_free(msg_t *m) {
  if (m->kind == kMsgCall || m->kind == kMsgAcl) {
    free(m->argv);
    free(m->argl);
  }
  buf_free(&m->text);
  free(m);
}

static void env_unlink(env_ctx_t *e, run_t *r) {
  pthread_mutex_lock(&e->mu);
  if (r->env_prev) r->env_prev->env_next = r->env_next;
  else if (e->runs == r) e->runs = r->env_next;
  if (r->env_next) r->env_next->env_prev = r->env_prev;
  r->env_prev = r->env_next = NULL;
  if (--e->inflight == 0) pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

static void reply_locked(run_t *r, const char *p, size_t n) {
  pthread_mutex_lock(&r->mu);
  r->reply.len = 0;
  buf_put(&r->reply, p, n);
  r->replied = 1;
  pthread_cond_signal(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
  msg_t *m = data;
  env_ctx_t *e = context;
  if (!env) { /* the env is being torn down */
    msg_free(m);
    return;
  }
  run_t *r = m->r;
  napi_value fn, undef, args[4], result;
  int argc = 0;
  napi_get_reference_value(env, e->dispatch, &fn);
  napi_get_undefined(env, &undef);
  napi_create_int32(env, (int32_t)m->kind, &args[0]);
  napi_create_uint32(env, r->id, &args[1]);
  void *copy;
  switch (m->kind) {
  case kMsgDone:
    napi_create_buffer_copy(env, r->result.len, r->result.p ? r->result.p : "", &copy, &args[2]);
    argc = 3;
    break;
  case kMsgCall:
  case kMsgAcl:
    napi_create_array_with_length(env, (size_t)m->argc, &args[2]);
    for (int i = 0; i < m->argc; i++) {
      napi_value b;
      napi_create_buffer_copy(env, m->argl[i], m->argv[i], &copy, &b);
      napi_set_element(env, args[2], (uint32_t)i, b);
    }
    napi_create_int32(env, r->resp, &args[3]);
    argc = 4;
    break;
  case kMsgLog:
    napi_create_int32(env, m->level, &args[2]);
    napi_create_buffer_copy(env, m->text.len, m->text.p ? m->text.p : "", &copy, &args[3]);
    argc = 4;
    break;
  }
  if (napi_call_function(env, undef, fn, (size_t)argc, args, &result) != napi_ok) {
    napi_value exc;
    napi_get_and_clear_last_exception(env, &exc);
    if (m->kind == kMsgCall || m->kind == kMsgAcl) {
      const char *err = "-ERR the host failed to run the command\r\n";
      reply_locked(r, err, strlen(err));
    }
  }
  if (m->kind == kMsgDone && --e->js_active == 0) napi_unref_threadsafe_function(env, e->tsfn);
  msg_free(m);
}

int host_call(run_t *r, msg_kind_t kind, int argc, char **argv, size_t *argl) {
  if (atomic_load(&r->aborted)) return -1;
  msg_t *m = calloc(1, sizeof *m);
  m->kind = kind;
  m->r = r;
  m->argc = argc;
  m->argv = malloc(sizeof(char *) * (size_t)argc);
  m->argl = malloc(sizeof(size_t) * (size_t)argc);
  memcpy(m->argv, argv, sizeof(char *) * (size_t)argc); /* the strings stay on the Lua stack */
  memcpy(m->argl, argl, sizeof(size_t) * (size_t)argc);
  pthread_mutex_lock(&r->mu);
  r->replied = 0;
  pthread_mutex_unlock(&r->mu);
  if (napi_call_threadsafe_function(r->env->tsfn, m, napi_tsfn_blocking) != napi_ok) {
    msg_free(m);
    return -1;
  }
  pthread_mutex_lock(&r->mu);
  while (!r->replied && !atomic_load(&r->aborted)) pthread_cond_wait(&r->cv, &r->mu);
  int ok = r->replied;
  pthread_mutex_unlock(&r->mu);
  return ok ? 0 : -1;
}

void host_log(run_t *r, int level, const char *msg, size_t len) {
  if (atomic_load(&r->aborted)) return;
  msg_t *m = calloc(1, sizeof *m);
  m->kind = kMsgLog;
  m->r = r;
  m->level = level;
  buf_put(&m->text, msg, len);
  if (napi_call_threadsafe_function(r->env->tsfn, m, napi_tsfn_blocking) != napi_ok) msg_free(m);
}

void host_done(run_t *r) {
  env_ctx_t *e = r->env;
  msg_t *m = calloc(1, sizeof *m);
  m->kind = kMsgDone;
  m->r = r;
  if (napi_call_threadsafe_function(e->tsfn, m, napi_tsfn_blocking) != napi_ok) msg_free(m);
  env_unlink(e, r);
}

/* ---------------- lifetime ---------------- */
static void cancel_queued(run_t *r) {
  env_unlink(r->env, r);
  run_release(r);
}

static void env_cleanup(void *arg) {
  env_ctx_t *e = arg;
  pthread_mutex_lock(&e->mu);
  for (run_t *r = e->runs; r; r = r->env_next) {
    atomic_store(&r->aborted, 1);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
  }
  pthread_mutex_unlock(&e->mu);
  pool_cancel_queued(e, cancel_queued);
  pthread_mutex_lock(&e->mu);
  while (e->inflight > 0) pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
  state_close(e->scratch);
  e->scratch = NULL;
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  env_ctx_t *e = data;
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
}

static void run_finalize(napi_env env, void *data, void *hint) { run_release(data); }

/* ---------------- helpers ---------------- */
static env_ctx_t *get_env(napi_env env) {
  env_ctx_t *e = NULL;
  napi_get_instance_data(env, (void **)&e);
  return e;
}

static napi_value throw_err(napi_env env, const char *msg) {
  napi_throw_error(env, "POSTRESP_ERR_LUA", msg);
  return NULL;
}

/* Copies a Buffer or string argument; returns malloc'd bytes (NUL-terminated) or NULL. */
static char *arg_bytes(napi_env env, napi_value v, size_t *len) {
  bool isbuf = false;
  napi_is_buffer(env, v, &isbuf);
  if (isbuf) {
    void *p;
    napi_get_buffer_info(env, v, &p, len);
    char *c = malloc(*len + 1);
    memcpy(c, p, *len);
    c[*len] = 0;
    return c;
  }
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_string) return NULL;
  napi_get_value_string_utf8(env, v, NULL, 0, len);
  char *c = malloc(*len + 1);
  napi_get_value_string_utf8(env, v, c, *len + 1, len);
  return c;
}

static run_t *get_run(napi_env env, napi_value v) {
  void *p = NULL;
  if (napi_get_value_external(env, v, &p) != napi_ok) return NULL;
  return p;
}

static napi_value make_result(napi_env env, const char *key, napi_value val) {
  napi_value o;
  napi_create_object(env, &o);
  napi_set_named_property(env, o, key, val);
  return o;
}

/* ---------------- exported functions ---------------- */
/* init(dispatch): once per JS thread */
static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (get_env(env)) return throw_err(env, "the Lua engine is already initialised on this thread");
  env_ctx_t *e = calloc(1, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  CHECK(napi_create_reference(env, argv[0], 1, &e->dispatch));
  CHECK(napi_create_string_utf8(env, "postresp-lua", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, e, tsfn_finalize, e, call_js, &e->tsfn));
  CHECK(napi_unref_threadsafe_function(env, e->tsfn));
  CHECK(napi_set_instance_data(env, e, NULL, NULL));
  CHECK(napi_add_env_cleanup_hook(env, env_cleanup, e)); /* after the tsfn's: runs before it */
  return NULL;
fail:
  return throw_err(env, "cannot initialise the Lua engine");
}

/* run(kind, id, shaOrName|null, body|null, argv[], nkeys, proto, replace) → handle */
static napi_value js_run(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value a[8], ext;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  env_ctx_t *e = get_env(env);
  if (!e || argc < 8) return throw_err(env, "run: engine not initialised or bad arguments");
  int32_t kind, nkeys, proto;
  uint32_t id, n;
  bool replace;
  napi_get_value_int32(env, a[0], &kind);
  napi_get_value_uint32(env, a[1], &id);
  napi_get_value_int32(env, a[5], &nkeys);
  napi_get_value_int32(env, a[6], &proto);
  napi_get_value_bool(env, a[7], &replace);
  run_t *r = run_new((run_kind_t)kind);
  r->id = id;
  r->env = e;
  r->proto = proto == 3 ? 3 : 2;
  r->replace = replace;
  size_t len;
  char *name = arg_bytes(env, a[2], &len);
  r->body = arg_bytes(env, a[3], &r->body_len);
  if (kind == kRunEval) {
    if (r->body) {
      sha1_hex(r->sha, r->body, r->body_len);
    } else if (name) {
      for (size_t i = 0; i < 40; i++) r->sha[i] = i < len ? (char)tolower((unsigned char)name[i]) : '-';
      r->sha[40] = 0;
    }
    free(name);
  } else {
    r->name = name ? name : strdup("");
  }
  napi_get_array_length(env, a[4], &n);
  r->argv = calloc(n ? n : 1, sizeof(char *));
  r->argl = calloc(n ? n : 1, sizeof(size_t));
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    napi_get_element(env, a[4], i, &v);
    r->argv[i] = arg_bytes(env, v, &r->argl[i]);
    if (!r->argv[i]) r->argv[i] = calloc(1, 1);
  }
  r->nkeys = nkeys < 0 ? 0 : nkeys > (int)n ? (int)n : nkeys;
  r->nargs = (int)n - r->nkeys;
  pthread_mutex_lock(&e->mu);
  r->env_next = e->runs;
  if (e->runs) e->runs->env_prev = r;
  e->runs = r;
  e->inflight++;
  pthread_mutex_unlock(&e->mu);
  if (e->js_active++ == 0) napi_ref_threadsafe_function(env, e->tsfn);
  napi_create_external(env, r, run_finalize, NULL, &ext);
  pool_submit(r);
  return ext;
}

/* reply(handle, bytes): the RESP reply of the command the script is waiting for */
static napi_value js_reply(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value a[2];
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  run_t *r = get_run(env, a[0]);
  size_t len;
  char *bytes = arg_bytes(env, a[1], &len);
  if (!r || !bytes) return throw_err(env, "reply: bad arguments");
  reply_locked(r, bytes, len);
  free(bytes);
  return NULL;
}

static napi_value js_mark_written(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1];
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  run_t *r = get_run(env, a[0]);
  napi_value out;
  napi_get_boolean(env, r ? pool_mark_written(r) != 0 : false, &out);
  return out;
}

static napi_value js_kill(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1], out;
  bool functions = false;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  napi_get_value_bool(env, a[0], &functions);
  napi_create_int32(env, pool_kill(functions), &out);
  return out;
}

static napi_value js_running(napi_env env, napi_callback_info info) {
  running_info_t ri[64];
  int n = pool_running(ri, 64);
  napi_value arr, o, v;
  napi_create_array_with_length(env, (size_t)n, &arr);
  for (int i = 0; i < n; i++) {
    napi_create_object(env, &o);
    napi_create_string_utf8(env, ri[i].kind == kRunFcall ? "function" : "script", NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, o, "kind", v);
    napi_create_string_utf8(env, ri[i].name, NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, o, "name", v);
    napi_create_double(env, (double)ri[i].ms, &v);
    napi_set_named_property(env, o, "ms", v);
    napi_get_boolean(env, ri[i].written, &v);
    napi_set_named_property(env, o, "written", v);
    napi_set_element(env, arr, (uint32_t)i, o);
  }
  return arr;
}

/* busy(thresholdMs) → 0 | 1 (an EVAL script) | 2 (a function): what a call of this thread that
 * must wait for a script connection waits behind (pool.c pool_busy) */
static napi_value js_busy(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value a[1], out;
  double ms = 0;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  napi_get_value_double(env, a[0], &ms);
  uint64_t threshold = ms >= 1e15 || ms != ms ? UINT64_MAX : ms > 0 ? (uint64_t)ms : 0; /* Infinity: never */
  napi_create_int32(env, pool_busy(get_env(env), threshold), &out);
  return out;
}

/* scriptLoad(body) → { sha, flags } | { error } (error text without the leading '-') */
static napi_value js_script_load(napi_env env, napi_callback_info info) {
  size_t argc = 1, len;
  napi_value a[1], v, o;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  env_ctx_t *e = get_env(env);
  char *body = arg_bytes(env, a[0], &len);
  if (!e || !body) return throw_err(env, "scriptLoad: bad arguments");
  int flags;
  size_t skip;
  char err[512];
  buf_t m = {0};
  if (shebang_parse(body, len, &flags, &skip, err, sizeof err)) {
    buf_printf(&m, "ERR %s", err);
    goto error;
  }
  if (!e->scratch) {
    e->scratch_mem.limit = pool_mem_limit();
    e->scratch = luaL_newstate();
  }
  if (!e->scratch) {
    buf_puts(&m, "ERR Lua state could not be created");
    goto error;
  }
  if (luaL_loadbuffer(e->scratch, body + skip, len - skip, "@user_script")) {
    buf_printf(&m, "ERR Error compiling script (new function): %s", lua_tostring(e->scratch, -1));
    lua_settop(e->scratch, 0);
    goto error;
  }
  lua_settop(e->scratch, 0);
  lua_gc(e->scratch, LUA_GCCOLLECT, 0);
  char sha[41];
  sha1_hex(sha, body, len);
  store_put_script(sha, body, len, flags);
  free(body);
  napi_create_object(env, &o);
  napi_create_string_utf8(env, sha, 40, &v);
  napi_set_named_property(env, o, "sha", v);
  napi_create_int32(env, flags, &v);
  napi_set_named_property(env, o, "flags", v);
  return o;
error:
  free(body);
  for (size_t i = 0; i < m.len; i++)
    if (m.p[i] == '\r' || m.p[i] == '\n') m.p[i] = ' ';
  napi_create_string_utf8(env, m.p, m.len, &v);
  buf_free(&m);
  return make_result(env, "error", v);
}

static napi_value js_script_flags(napi_env env, napi_callback_info info) {
  size_t argc = 1, len;
  napi_value a[1], out;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  char *sha = arg_bytes(env, a[0], &len);
  int f = -1;
  if (sha && len == 40) {
    for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)sha[i]);
    f = store_script_flags(sha);
  }
  free(sha);
  napi_create_int32(env, f, &out);
  return out;
}

static napi_value js_script_flush(napi_env env, napi_callback_info info) {
  store_flush_scripts();
  return NULL;
}

static napi_value js_sha1hex(napi_env env, napi_callback_info info) {
  size_t argc = 1, len;
  napi_value a[1], out;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  char *b = arg_bytes(env, a[0], &len);
  if (!b) return throw_err(env, "sha1hex: expects a Buffer or string");
  char hex[41];
  sha1_hex(hex, b, len);
  free(b);
  napi_create_string_utf8(env, hex, 40, &out);
  return out;
}

static napi_value js_function_flags(napi_env env, napi_callback_info info) {
  size_t argc = 1, len;
  napi_value a[1], out;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  char *name = arg_bytes(env, a[0], &len);
  int f = name ? store_function_flags(name) : -1;
  free(name);
  napi_create_int32(env, f, &out);
  return out;
}

static napi_value js_function_delete(napi_env env, napi_callback_info info) {
  size_t argc = 1, len;
  napi_value a[1], out;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  char *name = arg_bytes(env, a[0], &len);
  int ok = name ? store_delete_library(name) : 0;
  free(name);
  napi_get_boolean(env, ok, &out);
  return out;
}

static napi_value js_function_flush(napi_env env, napi_callback_info info) {
  store_flush_libraries();
  return NULL;
}

typedef struct {
  napi_env env;
  napi_value arr;
  uint32_t n;
} list_ctx_t;

static void list_one(const lib_t *lib, void *ud) {
  list_ctx_t *c = ud;
  napi_env env = c->env;
  napi_value o, v, fns, f;
  void *copy;
  napi_create_object(env, &o);
  napi_create_string_utf8(env, lib->name, NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, o, "name", v);
  napi_create_buffer_copy(env, lib->code_len, lib->code, &copy, &v);
  napi_set_named_property(env, o, "code", v);
  napi_create_array_with_length(env, (size_t)lib->nfn, &fns);
  for (int i = 0; i < lib->nfn; i++) {
    napi_create_object(env, &f);
    napi_create_string_utf8(env, lib->fn[i].name, NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, f, "name", v);
    if (lib->fn[i].desc) napi_create_string_utf8(env, lib->fn[i].desc, NAPI_AUTO_LENGTH, &v);
    else napi_get_null(env, &v);
    napi_set_named_property(env, f, "description", v);
    napi_create_int32(env, lib->fn[i].flags, &v);
    napi_set_named_property(env, f, "flags", v);
    napi_set_element(env, fns, (uint32_t)i, f);
  }
  napi_set_named_property(env, o, "functions", fns);
  napi_set_element(env, c->arr, c->n++, o);
}

static napi_value js_function_list(napi_env env, napi_callback_info info) {
  list_ctx_t c = {env, NULL, 0};
  napi_create_array(env, &c.arr);
  store_each_library(list_one, &c);
  return c.arr;
}

/* configure(threads, memoryLimitBytes, redisVersion) */
static napi_value js_configure(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value a[3];
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  int32_t threads = 0;
  double mem = 0;
  napi_get_value_int32(env, a[0], &threads);
  napi_get_value_double(env, a[1], &mem);
  size_t len;
  char *v = argc > 2 ? arg_bytes(env, a[2], &len) : NULL;
  if (v) api_set_version(v);
  free(v);
  pool_configure(threads, mem > 0 ? (size_t)mem : 0);
  return NULL;
}

static napi_value js_stats(napi_env env, napi_callback_info info) {
  int threads, idle, queued;
  pool_stats(&threads, &idle, &queued);
  napi_value o, v;
  napi_create_object(env, &o);
  napi_create_int32(env, threads, &v);
  napi_set_named_property(env, o, "threads", v);
  napi_create_int32(env, idle, &v);
  napi_set_named_property(env, o, "idle", v);
  napi_create_int32(env, queued, &v);
  napi_set_named_property(env, o, "queued", v);
  napi_create_double(env, (double)pool_mem_limit(), &v);
  napi_set_named_property(env, o, "memoryLimit", v);
  return o;
}

/* The Postgres function_version the process's library store holds (-1: unknown), and a flag that
 * one worker thread at a time brings the store to a version: library loads are several steps,
 * and two threads applying different snapshots interleaved would leave a mix under either's
 * number (core/engine/commands/scripting/libraries.ts). */
static pthread_mutex_t g_lib_mu = PTHREAD_MUTEX_INITIALIZER;
static double g_lib_version = -1;
static int g_lib_syncing = 0;

/* libraryVersion() → number */
static napi_value js_library_version(napi_env env, napi_callback_info info) {
  napi_value out;
  pthread_mutex_lock(&g_lib_mu);
  double v = g_lib_version;
  pthread_mutex_unlock(&g_lib_mu);
  napi_create_double(env, v, &out);
  return out;
}

/* librarySync(begin: true) → whether this thread may now change the store; librarySync(false,
 * version) ends it, recording the version the store now holds. */
static napi_value js_library_sync(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value a[2], out;
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  bool begin = false;
  double version = -1;
  napi_get_value_bool(env, a[0], &begin);
  if (argc > 1) napi_get_value_double(env, a[1], &version);
  int ok = 1;
  pthread_mutex_lock(&g_lib_mu);
  if (begin) {
    ok = !g_lib_syncing;
    if (ok) g_lib_syncing = 1;
  } else {
    g_lib_syncing = 0;
    g_lib_version = version;
  }
  pthread_mutex_unlock(&g_lib_mu);
  napi_get_boolean(env, ok, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor d[] = {
      {"init", 0, js_init, 0, 0, 0, napi_default, 0},
      {"run", 0, js_run, 0, 0, 0, napi_default, 0},
      {"reply", 0, js_reply, 0, 0, 0, napi_default, 0},
      {"markWritten", 0, js_mark_written, 0, 0, 0, napi_default, 0},
      {"kill", 0, js_kill, 0, 0, 0, napi_default, 0},
      {"running", 0, js_running, 0, 0, 0, napi_default, 0},
      {"busy", 0, js_busy, 0, 0, 0, napi_default, 0},
      {"scriptLoad", 0, js_script_load, 0, 0, 0, napi_default, 0},
      {"scriptFlags", 0, js_script_flags, 0, 0, 0, napi_default, 0},
      {"scriptFlush", 0, js_script_flush, 0, 0, 0, napi_default, 0},
      {"sha1hex", 0, js_sha1hex, 0, 0, 0, napi_default, 0},
      {"functionFlags", 0, js_function_flags, 0, 0, 0, napi_default, 0},
      {"functionDelete", 0, js_function_delete, 0, 0, 0, napi_default, 0},
      {"functionFlush", 0, js_function_flush, 0, 0, 0, napi_default, 0},
      {"functionList", 0, js_function_list, 0, 0, 0, napi_default, 0},
      {"configure", 0, js_configure, 0, 0, 0, napi_default, 0},
      {"stats", 0, js_stats, 0, 0, 0, napi_default, 0},
      {"libraryVersion", 0, js_library_version, 0, 0, 0, napi_default, 0},
      {"librarySync", 0, js_library_sync, 0, 0, 0, napi_default, 0},
  };
  napi_define_properties(env, exports, sizeof d / sizeof d[0], d);
  return exports;
}
