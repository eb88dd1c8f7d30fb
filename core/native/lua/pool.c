/* Process-wide part of the engine: the native thread pool that runs scripts, the script and
 * library stores, and the list of running scripts that SCRIPT KILL / FUNCTION KILL walk.
 *
 *   JS thread ──pool_submit──▶ queue ──▶ pool thread (owns an EVAL state and a FUNCTION state)
 *                                          │ redis.call → host_call (waits on run->cv)
 *   any JS thread ──pool_kill──▶ running list ──sets run->kill──▶ count hook raises
 *
 * Threads start on demand up to kMaxThreads (default 8, pool_configure): a script waiting for
 * Postgres holds its thread, so this bounds concurrent scripts per process, not CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lauxlib.h>
#include "lua-engine.h"

void state_scrub(lua_State *L);

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static run_t *g_queue_head, *g_queue_tail; /* uses run->next while queued */
static int g_threads, g_idle, g_queued, g_max_threads = 8;
static size_t g_mem_limit = 64u << 20;
static run_t g_running; /* sentinel of the running list */
static int g_running_init;

uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void pool_configure(int threads, size_t mem_limit) {
  pthread_mutex_lock(&g_mu);
  if (threads > 0) g_max_threads = threads;
  if (mem_limit > 0) g_mem_limit = mem_limit;
  pthread_mutex_unlock(&g_mu);
}

size_t pool_mem_limit(void) { return g_mem_limit; }

/* ---------------- runs ---------------- */
run_t *run_new(run_kind_t kind) {
  run_t *r = calloc(1, sizeof *r);
  r->kind = kind;
  atomic_init(&r->refs, 2);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  r->resp = 2;
  r->proto = 2;
  return r;
}

void run_release(run_t *r) {
  if (atomic_fetch_sub(&r->refs, 1) != 1) return;
  for (int i = 0; i < r->nkeys + r->nargs; i++) free(r->argv[i]);
  free(r->argv);
  free(r->argl);
  free(r->body);
  free(r->name);
  buf_free(&r->reply);
  buf_free(&r->result);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  free(r);
}

/* ---------------- script store ---------------- */
typedef struct script {
  char sha[41];
  char *body;
  size_t len;
  int flags;
  struct script *next;
} script_t;
#define kBuckets 4096
static script_t *g_scripts[kBuckets];
static uint64_t g_scripts_gen = 1;

static unsigned bucket(const char *sha) { return (unsigned)strtoul((char[]){sha[0], sha[1], sha[2], 0}, NULL, 16) % kBuckets; }

static script_t *find_script(const char *sha) {
  for (script_t *s = g_scripts[bucket(sha)]; s; s = s->next)
    if (!memcmp(s->sha, sha, 40)) return s;
  return NULL;
}

void store_put_script(const char *sha, const char *body, size_t len, int flags) {
  pthread_mutex_lock(&g_mu);
  if (!find_script(sha)) {
    script_t *s = calloc(1, sizeof *s);
    memcpy(s->sha, sha, 41);
    s->body = malloc(len + 1);
    memcpy(s->body, body, len);
    s->body[len] = 0;
    s->len = len;
    s->flags = flags;
    unsigned b = bucket(sha);
    s->next = g_scripts[b];
    g_scripts[b] = s;
  }
  pthread_mutex_unlock(&g_mu);
}

int store_script_flags(const char *sha) {
  pthread_mutex_lock(&g_mu);
  script_t *s = find_script(sha);
  int f = s ? s->flags : -1;
  pthread_mutex_unlock(&g_mu);
  return f;
}

char *store_get_script(const char *sha, size_t *len) {
  pthread_mutex_lock(&g_mu);
  script_t *s = find_script(sha);
  char *copy = NULL;
  if (s) {
    copy = malloc(s->len + 1);
    memcpy(copy, s->body, s->len + 1);
    *len = s->len;
  }
  pthread_mutex_unlock(&g_mu);
  return copy;
}

void store_flush_scripts(void) {
  pthread_mutex_lock(&g_mu);
  for (int b = 0; b < kBuckets; b++) {
    for (script_t *s = g_scripts[b], *n; s; s = n) {
      n = s->next;
      free(s->body);
      free(s);
    }
    g_scripts[b] = NULL;
  }
  g_scripts_gen++; /* every pool thread rebuilds its EVAL state before the next script */
  pthread_mutex_unlock(&g_mu);
}

uint64_t store_scripts_gen(void) {
  pthread_mutex_lock(&g_mu);
  uint64_t g = g_scripts_gen;
  pthread_mutex_unlock(&g_mu);
  return g;
}

/* ---------------- library store ---------------- */
static lib_t **g_libs;
static int g_nlibs;
static uint64_t g_libs_gen = 1;

void lib_free(lib_t *lib) {
  if (!lib) return;
  for (int i = 0; i < lib->nfn; i++) {
    free(lib->fn[i].name);
    free(lib->fn[i].desc);
  }
  free(lib->fn);
  free(lib->name);
  free(lib->code);
  free(lib);
}

static int lib_index(const char *name) {
  for (int i = 0; i < g_nlibs; i++)
    if (!strcmp(g_libs[i]->name, name)) return i;
  return -1;
}

int store_library_exists(const char *name) {
  pthread_mutex_lock(&g_mu);
  int i = lib_index(name);
  pthread_mutex_unlock(&g_mu);
  return i >= 0;
}

int store_install_library(lib_t *lib, int replace, char *err, size_t errcap) {
  pthread_mutex_lock(&g_mu);
  int old = lib_index(lib->name);
  if (old >= 0 && !replace) {
    snprintf(err, errcap, "Library '%s' already exists", lib->name);
    pthread_mutex_unlock(&g_mu);
    return -1;
  }
  for (int f = 0; f < lib->nfn; f++)
    for (int i = 0; i < g_nlibs; i++) {
      if (i == old) continue;
      for (int k = 0; k < g_libs[i]->nfn; k++)
        if (!strcmp(g_libs[i]->fn[k].name, lib->fn[f].name)) {
          snprintf(err, errcap, "Function %s already exists", lib->fn[f].name);
          pthread_mutex_unlock(&g_mu);
          return -1;
        }
    }
  if (old >= 0) {
    lib_free(g_libs[old]);
    g_libs[old] = lib;
  } else {
    g_libs = realloc(g_libs, sizeof(lib_t *) * (size_t)(g_nlibs + 1));
    g_libs[g_nlibs++] = lib;
  }
  g_libs_gen++;
  pthread_mutex_unlock(&g_mu);
  return 0;
}

int store_delete_library(const char *name) {
  pthread_mutex_lock(&g_mu);
  int i = lib_index(name);
  if (i >= 0) {
    lib_free(g_libs[i]);
    memmove(g_libs + i, g_libs + i + 1, sizeof(lib_t *) * (size_t)(g_nlibs - i - 1));
    g_nlibs--;
    g_libs_gen++;
  }
  pthread_mutex_unlock(&g_mu);
  return i >= 0;
}

void store_flush_libraries(void) {
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < g_nlibs; i++) lib_free(g_libs[i]);
  g_nlibs = 0;
  g_libs_gen++;
  pthread_mutex_unlock(&g_mu);
}

int store_function_flags(const char *name) {
  int f = -1;
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < g_nlibs && f < 0; i++)
    for (int k = 0; k < g_libs[i]->nfn; k++)
      if (!strcmp(g_libs[i]->fn[k].name, name)) f = g_libs[i]->fn[k].flags;
  pthread_mutex_unlock(&g_mu);
  return f;
}

void store_each_library(void (*fn)(const lib_t *, void *), void *ud) {
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < g_nlibs; i++) fn(g_libs[i], ud);
  pthread_mutex_unlock(&g_mu);
}

uint64_t store_libs_gen(void) {
  pthread_mutex_lock(&g_mu);
  uint64_t g = g_libs_gen;
  pthread_mutex_unlock(&g_mu);
  return g;
}

/* ---------------- running list and kill ---------------- */
static void running_add(run_t *r) {
  pthread_mutex_lock(&g_mu);
  if (!g_running_init) {
    g_running.next = g_running.prev = &g_running;
    g_running_init = 1;
  }
  r->start_ms = now_ms();
  r->next = &g_running;
  r->prev = g_running.prev;
  g_running.prev->next = r;
  g_running.prev = r;
  r->listed = 1;
  pthread_mutex_unlock(&g_mu);
}

static void running_remove(run_t *r) {
  pthread_mutex_lock(&g_mu);
  if (r->listed) {
    r->prev->next = r->next;
    r->next->prev = r->prev;
    r->listed = 0;
  }
  pthread_mutex_unlock(&g_mu);
}

/* Several scripts may run at once here (Redis runs one): KILL stops every killable one of its
 * kind, and answers UNKILLABLE / BUSY only when none of its kind could be stopped. */
kill_result_t pool_kill(int functions) {
  kill_result_t res = kKillNotBusy;
  int killed = 0, unkillable = 0, other = 0;
  pthread_mutex_lock(&g_mu);
  if (g_running_init) {
    for (run_t *r = g_running.next; r != &g_running; r = r->next) {
      if (r->kind == kRunLoadLibrary) continue;
      if ((r->kind == kRunFcall) != !!functions) { other++; continue; }
      if (atomic_load(&r->written)) { unkillable++; continue; }
      atomic_store(&r->kill, 1);
      killed++;
    }
  }
  pthread_mutex_unlock(&g_mu);
  if (killed) res = kKillOk;
  else if (unkillable) res = kKillUnkillable;
  else if (other) res = kKillWrongKind;
  return res;
}

/* A call's first write against a KILL: both under g_mu, so either the KILL saw the call written
 * (UNKILLABLE) or the call sees the kill and does not write (the KILL's +OK is true). Without it
 * a KILL landing while the write was on its way to the host answered OK and the script, killed
 * only at its next hook, had written (seen as a NOTBUSY flake in scripting-atomic). */
int pool_mark_written(run_t *r) {
  int ok;
  pthread_mutex_lock(&g_mu);
  ok = !atomic_load(&r->kill);
  if (ok) atomic_store(&r->written, 1);
  pthread_mutex_unlock(&g_mu);
  return ok;
}

/* busy-reply-threshold for a call that has to wait: 0, or 1 + the kind (1 EVAL, 2 FCALL) of the
 * longest-running call past threshold_ms among this JS thread's running calls (its script
 * connections are all held: the caller asks only then) and, when every pool thread is taken,
 * the process's. A call already told to stop (KILL) does not count: it ends within ~1 ms. The
 * running list is in start order, so the first match is the oldest. */
int pool_busy(env_ctx_t *env, uint64_t threshold_ms) {
  int kind = 0;
  uint64_t now = now_ms();
  pthread_mutex_lock(&g_mu);
  int all_taken = g_threads >= g_max_threads && g_idle == 0;
  if (g_running_init)
    for (run_t *r = g_running.next; r != &g_running; r = r->next) {
      if (r->kind == kRunLoadLibrary || atomic_load(&r->kill) || now - r->start_ms < threshold_ms) continue;
      if (r->env != env && !all_taken) continue;
      kind = r->kind == kRunFcall ? 2 : 1;
      break;
    }
  pthread_mutex_unlock(&g_mu);
  return kind;
}

int pool_running(running_info_t *out, int max) {
  int n = 0;
  uint64_t now = now_ms();
  pthread_mutex_lock(&g_mu);
  if (g_running_init)
    for (run_t *r = g_running.next; r != &g_running && n < max; r = r->next) {
      if (r->kind == kRunLoadLibrary) continue;
      out[n].kind = r->kind;
      snprintf(out[n].name, sizeof out[n].name, "%s", r->kind == kRunFcall ? r->name : r->sha);
      out[n].ms = now - r->start_ms;
      out[n].written = atomic_load(&r->written);
      n++;
    }
  pthread_mutex_unlock(&g_mu);
  return n;
}

/* ---------------- execution ---------------- */
typedef struct {
  lua_State *eval_L, *fn_L;
  mem_t eval_mem, fn_mem;
  uint64_t eval_gen, fn_gen;
} thread_states_t;

static void push_array(lua_State *L, char **v, size_t *l, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushlstring(L, v[i], l[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void after_call(lua_State *L, mem_t *mem) {
  state_scrub(L);
  /* a state that hit its cap, or holds more than half of it, gives memory back now */
  if (mem->oom || mem->used > mem->limit / 2) lua_gc(L, LUA_GCCOLLECT, 0);
  mem->oom = 0;
}

static void exec_eval(thread_states_t *ts, run_t *r) {
  uint64_t gen = store_scripts_gen();
  if (ts->eval_L && ts->eval_gen != gen) {
    state_close(ts->eval_L);
    ts->eval_L = NULL;
  }
  if (!ts->eval_L) {
    ts->eval_L = state_new(&ts->eval_mem, 0);
    ts->eval_gen = gen;
  }
  lua_State *L = ts->eval_L;
  if (!L) {
    buf_puts(&r->result, "-ERR Lua state could not be created (memory limit)\r\n");
    return;
  }
  char fname[43] = "f_";
  memcpy(fname + 2, r->sha, 41);
  lua_getfield(L, LUA_REGISTRYINDEX, fname);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    size_t len = r->body_len;
    char *body = r->body;
    if (!body) body = store_get_script(r->sha, &len);
    if (!body) {
      buf_puts(&r->result, "-NOSCRIPT No matching script. Please use EVAL.\r\n");
      return;
    }
    int flags;
    size_t skip;
    char err[512];
    if (shebang_parse(body, len, &flags, &skip, err, sizeof err)) {
      buf_t m = {0};
      buf_printf(&m, "ERR %s", err);
      resp_error(&r->result, m.p, m.len);
      buf_free(&m);
      if (body != r->body) free(body);
      return;
    }
    if (luaL_loadbuffer(L, body + skip, len - skip, "@user_script")) {
      buf_t m = {0};
      buf_printf(&m, "ERR Error compiling script (new function): %s", lua_tostring(L, -1));
      resp_error(&r->result, m.p, m.len);
      buf_free(&m);
      lua_pop(L, 1);
      if (body != r->body) free(body);
      return;
    }
    if (r->body) store_put_script(r->sha, body, len, flags);
    if (body != r->body) free(body);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, fname);
  }
  lua_pushcfunction(L, api_error_handler);
  lua_insert(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, "postresp.G");
  push_array(L, r->argv, r->argl, r->nkeys);
  lua_setfield(L, -2, "KEYS");
  push_array(L, r->argv + r->nkeys, r->argl + r->nkeys, r->nargs);
  lua_setfield(L, -2, "ARGV");
  lua_pop(L, 1);
  api_hook_arm(L);
  int st = lua_pcall(L, 0, 1, -2);
  lua_sethook(L, NULL, 0, 0);
  if (st) api_error_reply(L, &r->result, r->sha);
  else lua_to_resp(L, &r->result, r->proto, r->resp);
  if (st) lua_pop(L, 1);
  lua_pop(L, 1); /* error handler */
  after_call(L, &ts->eval_mem);
}

typedef struct {
  lua_State *L;
  int failed;
} reload_t;

static void reload_one(const lib_t *lib, void *ud) {
  reload_t *rl = ud;
  char *name;
  size_t skip;
  char err[512];
  if (library_meta(lib->code, lib->code_len, &name, &skip, err, sizeof err)) {
    rl->failed = 1;
    return;
  }
  free(name);
  lib_t scratch = {0};
  /* a library already passed its 500 ms load once; give a re-run on this state more room */
  if (library_run(rl->L, lib->code, lib->code_len, skip, &scratch, 5000, err, sizeof err)) rl->failed = 1;
  for (int i = 0; i < scratch.nfn; i++) {
    free(scratch.fn[i].name);
    free(scratch.fn[i].desc);
  }
  free(scratch.fn);
}

static void exec_fcall(thread_states_t *ts, run_t *r) {
  uint64_t gen = store_libs_gen();
  if (ts->fn_L && ts->fn_gen != gen) {
    state_close(ts->fn_L);
    ts->fn_L = NULL;
  }
  if (!ts->fn_L) {
    ts->fn_L = state_new(&ts->fn_mem, 1);
    ts->fn_gen = gen;
    if (ts->fn_L) {
      reload_t rl = {ts->fn_L, 0};
      store_each_library(reload_one, &rl); /* holds the store lock: libraries cannot change meanwhile */
    }
  }
  lua_State *L = ts->fn_L;
  if (!L) {
    buf_puts(&r->result, "-ERR Lua state could not be created (memory limit)\r\n");
    return;
  }
  lua_pushcfunction(L, api_error_handler);
  lua_getfield(L, LUA_REGISTRYINDEX, "postresp.functions");
  if (lua_istable(L, -1)) lua_getfield(L, -1, r->name);
  else lua_pushnil(L);
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 2);
    buf_puts(&r->result, "-ERR Function not found\r\n");
    return;
  }
  push_array(L, r->argv, r->argl, r->nkeys);
  push_array(L, r->argv + r->nkeys, r->argl + r->nkeys, r->nargs);
  api_hook_arm(L);
  int st = lua_pcall(L, 2, 1, -4);
  lua_sethook(L, NULL, 0, 0);
  if (st) api_error_reply(L, &r->result, r->name);
  else lua_to_resp(L, &r->result, r->proto, r->resp);
  if (st) lua_pop(L, 1);
  lua_pop(L, 1);
  after_call(L, &ts->fn_mem);
}

static void exec_load(run_t *r) {
  char err[1024];
  char *name = NULL;
  size_t skip;
  buf_t m = {0};
  if (library_meta(r->body, r->body_len, &name, &skip, err, sizeof err)) goto fail;
  if (!r->replace && store_library_exists(name)) {
    snprintf(err, sizeof err, "Library '%s' already exists", name);
    goto fail;
  }
  mem_t mem;
  lua_State *L = state_new(&mem, 1);
  if (!L) {
    snprintf(err, sizeof err, "Lua state could not be created (memory limit)");
    goto fail;
  }
  lib_t *lib = calloc(1, sizeof *lib);
  int rc = library_run(L, r->body, r->body_len, skip, lib, 500, err, sizeof err);
  state_close(L);
  if (rc) {
    lib_free(lib);
    goto fail;
  }
  lib->name = name;
  lib->code = r->body;
  lib->code_len = r->body_len;
  r->body = NULL;
  name = NULL;
  const char *lib_name = lib->name;
  size_t nl = strlen(lib_name);
  buf_printf(&m, "$%zu\r\n%s\r\n", nl, lib_name); /* before install: lib then belongs to the store */
  if (store_install_library(lib, r->replace, err, sizeof err)) {
    lib_free(lib);
    buf_free(&m);
    goto fail;
  }
  buf_put(&r->result, m.p, m.len);
  buf_free(&m);
  return;
fail:
  free(name);
  buf_printf(&m, "ERR %s", err);
  resp_error(&r->result, m.p, m.len);
  buf_free(&m);
}

static void *pool_main(void *arg) {
  thread_states_t ts = {0};
  for (;;) {
    pthread_mutex_lock(&g_mu);
    g_idle++;
    while (!g_queue_head) pthread_cond_wait(&g_cv, &g_mu);
    g_idle--;
    run_t *r = g_queue_head;
    g_queue_head = r->next;
    g_queued--;
    if (!g_queue_head) g_queue_tail = NULL;
    r->next = NULL;
    pthread_mutex_unlock(&g_mu);

    running_add(r);
    t_run = r;
    if (r->kind == kRunEval) exec_eval(&ts, r);
    else if (r->kind == kRunFcall) exec_fcall(&ts, r);
    else exec_load(r);
    t_run = NULL;
    running_remove(r);
    host_done(r);
    run_release(r);
  }
  return NULL;
}

void pool_submit(run_t *r) {
  pthread_mutex_lock(&g_mu);
  r->next = NULL;
  if (g_queue_tail) g_queue_tail->next = r;
  else g_queue_head = r;
  g_queue_tail = r;
  g_queued++;
  if (g_queued > g_idle && g_threads < g_max_threads) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 8u << 20);
    pthread_t tid;
    if (pthread_create(&tid, &attr, pool_main, NULL) == 0) g_threads++;
    pthread_attr_destroy(&attr);
  }
  pthread_cond_signal(&g_cv);
  pthread_mutex_unlock(&g_mu);
}

void pool_stats(int *threads, int *idle, int *queued) {
  pthread_mutex_lock(&g_mu);
  *threads = g_threads;
  *idle = g_idle;
  int q = 0;
  for (run_t *r = g_queue_head; r; r = r->next) q++;
  *queued = q;
  pthread_mutex_unlock(&g_mu);
}

void pool_cancel_queued(env_ctx_t *env, void (*fn)(run_t *)) {
  run_t *cancelled = NULL;
  pthread_mutex_lock(&g_mu);
  run_t **pp = &g_queue_head, *last = NULL;
  while (*pp) {
    run_t *r = *pp;
    if (r->env == env) {
      *pp = r->next;
      g_queued--;
      r->next = cancelled;
      cancelled = r;
    } else {
      last = r;
      pp = &r->next;
    }
  }
  g_queue_tail = last;
  pthread_mutex_unlock(&g_mu);
  while (cancelled) {
    run_t *n = cancelled->next;
    fn(cancelled);
    cancelled = n;
  }
}
