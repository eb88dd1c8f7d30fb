/* Shared declarations of the Lua scripting engine (binding.gyp target "postresp_lua").
 *
 * Threads: scripts run on a bounded pool of native threads (pool.c), never on a JS thread. Each
 * pool thread owns its own Lua states (one for EVAL scripts, one for FUNCTION libraries), so a
 * Lua state is only ever touched by one OS thread. redis.call() hands argv to the JS thread that
 * started the script (a napi threadsafe function) and waits on the run's condition variable for
 * the RESP reply bytes (addon-lua.c). Process-wide state (script bodies, libraries, the list of
 * running scripts for SCRIPT KILL) lives in pool.c under one mutex: every worker thread's addon
 * instance shares it, which is what makes SCRIPT KILL from another worker possible. */
#ifndef POSTRESP_LUA_ENGINE_H
#define POSTRESP_LUA_ENGINE_H
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <lua.h>

/* ---- growable byte buffer (buf.c) ---- */
typedef struct {
  char *p;
  size_t len, cap;
} buf_t;
void buf_put(buf_t *b, const void *p, size_t n);
void buf_putc(buf_t *b, char c);
void buf_puts(buf_t *b, const char *s);
void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(buf_t *b);

/* ---- sha1.c ---- */
void sha1_hex(char out[41], const void *data, size_t len);

/* ---- script flags (Redis's scripts_flags_def order) ---- */
enum {
  kFlagNoWrites = 1 << 0,
  kFlagAllowOom = 1 << 1,
  kFlagAllowStale = 1 << 2,
  kFlagNoCluster = 1 << 3,
  kFlagAllowCrossSlot = 1 << 4,
  kFlagEvalCompat = 1 << 5, /* EVAL body without a shebang: Redis's SCRIPT_FLAG_EVAL_COMPAT_MODE */
};
extern const char *const kFlagNames[5];
/* Parses an EVAL body's `#!lua flags=…` line. Returns 0 and sets *flags / *skip (bytes of the
 * shebang, newline kept so line numbers stay) or -1 with Redis's error text in err. */
int shebang_parse(const char *body, size_t len, int *flags, size_t *skip, char *err, size_t errcap);

/* ---- one script call or library load (pool.c runs it, addon-lua.c talks to JS) ---- */
typedef enum { kRunEval, kRunFcall, kRunLoadLibrary } run_kind_t;
typedef struct env_ctx env_ctx_t;

typedef struct run {
  atomic_int refs;         /* pool thread + JS handle */
  run_kind_t kind;
  uint32_t id;             /* key of the JS-side map of pending runs */
  env_ctx_t *env;          /* JS thread that started it */
  /* inputs */
  char sha[41];            /* EVAL: sha of body */
  char *body;              /* EVAL body or library code (may be NULL for EVALSHA) */
  size_t body_len;
  char *name;              /* FCALL function name */
  int replace;             /* FUNCTION LOAD REPLACE */
  int nkeys, nargs;
  char **argv;             /* keys then args */
  size_t *argl;
  int proto;               /* calling client's protocol: 2 or 3 */
  /* call handshake: the pool thread waits, JS replies */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int replied;
  buf_t reply;
  atomic_int kill;         /* SCRIPT/FUNCTION KILL asked */
  atomic_int written;      /* the host ran a write command: no longer killable */
  atomic_int aborted;      /* the JS env is going away */
  uint64_t start_ms;
  int resp;                /* redis.setresp() */
  /* result: RESP bytes for the client */
  buf_t result;
  struct run *prev, *next; /* queue, then process-wide running list (pool.c) */
  int listed;
  struct run *env_prev, *env_next; /* runs of one JS env (addon-lua.c) */
} run_t;

run_t *run_new(run_kind_t kind);
void run_release(run_t *r);

/* ---- JS side of a run (addon-lua.c) ---- */
typedef enum { kMsgDone, kMsgCall, kMsgLog, kMsgAcl } msg_kind_t;
/* Blocks the pool thread until JS answers; returns 0 with reply bytes in r->reply, or -1 when
 * the JS env is gone (the script is then aborted). */
int host_call(run_t *r, msg_kind_t kind, int argc, char **argv, size_t *argl);
void host_log(run_t *r, int level, const char *msg, size_t len);
void host_done(run_t *r);

/* ---- pool.c ---- */
void pool_configure(int threads, size_t mem_limit);
void pool_submit(run_t *r);
/* Takes the env's runs that have not started out of the queue; calls fn on each. */
void pool_cancel_queued(env_ctx_t *env, void (*fn)(run_t *));
void pool_stats(int *threads, int *idle, int *queued);
void state_scrub(lua_State *L);
void api_set_version(const char *v);
size_t pool_mem_limit(void);
uint64_t now_ms(void);
/* process-wide script bodies (SCRIPT LOAD / EVAL) */
void store_put_script(const char *sha, const char *body, size_t len, int flags);
int store_script_flags(const char *sha); /* -1 when unknown */
char *store_get_script(const char *sha, size_t *len); /* malloc'd copy or NULL */
void store_flush_scripts(void);
uint64_t store_scripts_gen(void);
/* process-wide libraries (FUNCTION LOAD …) */
typedef struct {
  char *name, *desc;
  int flags;
} fn_info_t;
typedef struct {
  char *name, *code;
  size_t code_len;
  int nfn;
  fn_info_t *fn;
} lib_t;
/* Installs lib (ownership moves) unless a function name clashes; err gets Redis's text. */
int store_install_library(lib_t *lib, int replace, char *err, size_t errcap);
int store_library_exists(const char *name);
int store_delete_library(const char *name);
void store_flush_libraries(void);
int store_function_flags(const char *name); /* -1 when unknown */
void lib_free(lib_t *lib);
/* Calls fn for each library under the store lock (FUNCTION LIST, state reload). */
void store_each_library(void (*fn)(const lib_t *, void *), void *ud);
uint64_t store_libs_gen(void);
/* running scripts: SCRIPT KILL / FUNCTION KILL from any thread */
typedef enum { kKillOk = 0, kKillNotBusy = 1, kKillUnkillable = 2, kKillWrongKind = 3 } kill_result_t;
kill_result_t pool_kill(int functions);
/* 1: the call may write (marked written); 0: a KILL came first, it must not */
int pool_mark_written(run_t *r);
typedef struct {
  int kind;
  char name[64];
  uint64_t ms;
  int written;
} running_info_t;
int pool_running(running_info_t *out, int max);
/* 0, or 1 + kind of the oldest call past threshold_ms that a waiting call of env waits behind */
int pool_busy(env_ctx_t *env, uint64_t threshold_ms);

/* ---- sandbox.c: Lua states ---- */
typedef struct {
  size_t used, limit;
  int oom;
} mem_t;
/* A new state with Redis's libraries and protections; functions != 0 for the FUNCTION state. */
lua_State *state_new(mem_t *mem, int functions);
void state_close(lua_State *L);
void sandbox_set_protected_global(lua_State *L, const char *name); /* after a rawset on globals */
void sandbox_set_load_mode(lua_State *L, int on); /* FUNCTION LOAD's restricted globals */
int sandbox_readonly_error(lua_State *L);

/* ---- redis-api.c ---- */
extern __thread run_t *t_run;     /* the run this pool thread executes */
void api_register(lua_State *L, int functions);
int api_error_handler(lua_State *L);
void api_push_error(lua_State *L, const char *msg, size_t len); /* Redis's luaPushErrorBuff */
void api_hook_arm(lua_State *L);
/* Turns a failed lua_pcall's error object (top of stack) into the client's error reply. */
void api_error_reply(lua_State *L, buf_t *out, const char *funcname);

/* ---- resp-lua.c ---- */
/* Pushes the Lua value of one RESP2/RESP3 reply (Redis's redisProtocolToLuaType). Returns bytes
 * consumed, or 0 on malformed input (nothing pushed). */
size_t resp_to_lua(lua_State *L, const char *p, size_t len);
/* Appends the top of stack as a reply for a client speaking proto, pops it (luaReplyToRedisReply). */
void lua_to_resp(lua_State *L, buf_t *out, int proto, int script_resp);
void resp_error(buf_t *out, const char *msg, size_t len); /* "-" msg, newlines as spaces */

/* ---- functions.c ---- */
/* Parses `#!lua name=lib` of a library; 0 and the name (malloc'd) and code offset, or -1. */
int library_meta(const char *code, size_t len, char **name, size_t *skip, char *err, size_t errcap);
/* Runs a library's code in L collecting redis.register_function calls; 0 or -1 with err. */
int library_run(lua_State *L, const char *code, size_t len, size_t skip, lib_t *out, int timeout_ms,
                char *err, size_t errcap);
/* ---- libraries written here ---- */
int luaopen_cmsgpack_postresp(lua_State *L);
int luaopen_struct_postresp(lua_State *L);
#endif
