/* The `redis` table scripts see (Redis 7.0's script_lua.c surface): call, pcall, log, setresp,
 * sha1hex, error_reply, status_reply, set_repl, acl_check_cmd, the LOG_ and REPL_ constants,
 * REDIS_VERSION(_NUM); EVAL scripts also get replicate_commands, breakpoint and debug (no-ops
 * without a debugger, as in Redis when LDB is off). Also the error handler that turns any
 * error into Redis's {err=…, source=…, line=…} table and the count hook behind SCRIPT KILL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include "lua-engine.h"

static void kill_hook(lua_State *L, lua_Debug *ar);

__thread run_t *t_run;
/* every 100k VM instructions, like Redis: ~1 ms between kill checks on this machine */
#define kHookInstructions 100000

void api_push_error(lua_State *L, const char *msg, size_t len) {
  const char *code = "ERR";
  size_t code_len = 3;
  const char *text = msg;
  size_t text_len = len;
  if (len && msg[0] == '-') {
    const char *sp = memchr(msg, ' ', len);
    if (!sp) {
      text = msg + 1;
      text_len = len - 1;
    } else {
      code = msg + 1;
      code_len = (size_t)(sp - msg - 1);
      text = sp + 1;
      text_len = len - (size_t)(sp + 1 - msg);
    }
  }
  /* sdstrim(msg, "\r\n"): both ends */
  while (text_len && (text[0] == '\r' || text[0] == '\n')) { text++; text_len--; }
  while (text_len && (text[text_len - 1] == '\r' || text[text_len - 1] == '\n')) text_len--;
  lua_newtable(L);
  lua_pushstring(L, "err");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addlstring(&b, code, code_len);
  luaL_addchar(&b, ' ');
  luaL_addlstring(&b, text, text_len);
  luaL_pushresult(&b);
  lua_settable(L, -3);
}

static int raise_error(lua_State *L, const char *msg) {
  api_push_error(L, msg, strlen(msg));
  return lua_error(L);
}

/* Lua arguments → argv (numbers as %.17g, Redis's luaArgsToRedisArgv). Leaves the strings on
 * the stack (they back argv) and returns argc, or -1 after pushing the error table. */
static int args_to_argv(lua_State *L, char ***argv, size_t **argl) {
  int argc = lua_gettop(L);
  if (argc == 0) {
    api_push_error(L, "Please specify at least one argument for this redis lib call", 60);
    return -1;
  }
  for (int j = 1; j <= argc; j++) {
    if (lua_type(L, j) == LUA_TNUMBER) {
      char dbuf[64];
      int n = snprintf(dbuf, sizeof dbuf, "%.17g", (double)lua_tonumber(L, j));
      lua_pushlstring(L, dbuf, (size_t)n);
      lua_replace(L, j);
    } else if (lua_type(L, j) != LUA_TSTRING) {
      const char *m = "Lua redis lib command arguments must be strings or integers";
      lua_settop(L, 0);
      api_push_error(L, m, strlen(m));
      return -1;
    }
  }
  *argv = malloc(sizeof(char *) * (unsigned)argc);
  *argl = malloc(sizeof(size_t) * (unsigned)argc);
  for (int j = 0; j < argc; j++) (*argv)[j] = (char *)lua_tolstring(L, j + 1, &(*argl)[j]);
  return argc;
}

static int generic_call(lua_State *L, int raise) {
  run_t *r = t_run;
  if (!r) return raise_error(L, "redis.call/pcall can only be called inside a script invocation");
  char **argv;
  size_t *argl;
  int argc = args_to_argv(L, &argv, &argl);
  if (argc < 0) return raise ? lua_error(L) : 1;
  int rc = host_call(r, kMsgCall, argc, argv, argl);
  free(argv);
  free(argl);
  lua_settop(L, 0);
  if (rc < 0) return raise_error(L, "Script killed by user with SCRIPT KILL...");
  /* a KILL came while the command was on its way: a write was refused (pool_mark_written), so
   * the script ends here, every line from now on raising (as kill_hook does) */
  if (atomic_load(&r->kill) && !atomic_load(&r->written)) {
    lua_sethook(L, kill_hook, LUA_MASKLINE, 0);
    return raise_error(L, "Script killed by user with SCRIPT KILL...");
  }
  if (!resp_to_lua(L, r->reply.p, r->reply.len)) return raise_error(L, "Unparsable reply to a command called from script");
  if (raise && r->reply.len && r->reply.p[0] == '-') return lua_error(L);
  return 1;
}

static int l_call(lua_State *L) { return generic_call(L, 1); }
static int l_pcall_cmd(lua_State *L) { return generic_call(L, 0); }

/* Global pcall: Redis 7 raises error tables; pcall hands scripts the plain message, as 6.x did. */
static int l_pcall(lua_State *L) {
  luaL_checkany(L, 1);
  int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0)) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) lua_replace(L, -2);
      else lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

static int l_acl_check_cmd(lua_State *L) {
  run_t *r = t_run;
  if (!r) return raise_error(L, "redis.acl_check_cmd can only be called inside a script invocation");
  char **argv;
  size_t *argl;
  int argc = args_to_argv(L, &argv, &argl);
  if (argc < 0) return lua_error(L);
  int rc = host_call(r, kMsgAcl, argc, argv, argl);
  free(argv);
  free(argl);
  lua_settop(L, 0);
  if (rc < 0) return raise_error(L, "Script killed by user with SCRIPT KILL...");
  if (r->reply.len && r->reply.p[0] == '-') {
    if (!resp_to_lua(L, r->reply.p, r->reply.len)) return raise_error(L, "Invalid command passed to redis.acl_check_cmd()");
    return lua_error(L);
  }
  lua_pushboolean(L, r->reply.len >= 2 && r->reply.p[0] == ':' && r->reply.p[1] == '1');
  return 1;
}

static int l_sha1hex(lua_State *L) {
  if (lua_gettop(L) != 1) return raise_error(L, "wrong number of arguments");
  size_t len = 0;
  const char *s = lua_tolstring(L, 1, &len);
  char hex[41];
  sha1_hex(hex, s ? s : "", s ? len : 0);
  lua_pushstring(L, hex);
  return 1;
}

static int l_error_reply(lua_State *L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    api_push_error(L, "wrong number or type of arguments", 33);
    return 1;
  }
  size_t n;
  const char *s = lua_tolstring(L, -1, &n);
  s = lua_tostring(L, -1);
  n = strlen(s); /* Redis works on the C string */
  if (s[0] == '-') {
    api_push_error(L, s, n);
  } else {
    char *tmp = malloc(n + 2);
    tmp[0] = '-';
    memcpy(tmp + 1, s, n);
    api_push_error(L, tmp, n + 1);
    free(tmp);
  }
  return 1;
}

static int l_status_reply(lua_State *L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    api_push_error(L, "wrong number or type of arguments", 33);
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

static int l_set_repl(lua_State *L) {
  if (!t_run) return raise_error(L, "redis.set_repl can only be called inside a script invocation");
  if (lua_gettop(L) != 1) return raise_error(L, "redis.set_repl() requires two arguments.");
  int flags = (int)lua_tonumber(L, -1);
  if (flags & ~3) return raise_error(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  return 0; /* every write is one Postgres transaction; there is no separate propagation */
}

static int l_replicate_commands(lua_State *L) {
  lua_pushboolean(L, 1);
  return 1;
}

static int l_breakpoint(lua_State *L) {
  lua_pushboolean(L, 0); /* no debugger attached */
  return 1;
}

static int l_debug(lua_State *L) { return 0; }

static int l_log(lua_State *L) {
  int argc = lua_gettop(L);
  if (argc < 2) return raise_error(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, -argc)) return raise_error(L, "First argument must be a number (log level).");
  int level = (int)lua_tonumber(L, -argc);
  if (level < 0 || level > 3) return raise_error(L, "Invalid debug level.");
  buf_t b = {0};
  for (int j = 1; j < argc; j++) {
    size_t n;
    const char *s = lua_tolstring(L, (-argc) + j, &n);
    if (s) {
      if (j != 1) buf_putc(&b, ' ');
      buf_put(&b, s, n);
    }
  }
  if (t_run) host_log(t_run, level, b.p ? b.p : "", b.len);
  buf_free(&b);
  return 0;
}

static int l_setresp(lua_State *L) {
  if (!t_run) return raise_error(L, "redis.setresp can only be called inside a script invocation");
  if (lua_gettop(L) != 1) return raise_error(L, "redis.setresp() requires one argument.");
  int resp = (int)lua_tonumber(L, -1);
  if (resp != 2 && resp != 3) return raise_error(L, "RESP version must be 2 or 3.");
  t_run->resp = resp;
  return 0;
}

/* math.random/randomseed over a 48-bit LCG (the drand48 recurrence Redis uses), so sequences do
 * not depend on libc; one generator per Lua state. */
static __thread uint64_t t_rand48 = 0x1234ABCD330EULL;
static int32_t lrand48_next(void) {
  t_rand48 = (t_rand48 * 0x5DEECE66DULL + 0xB) & ((1ULL << 48) - 1);
  return (int32_t)(t_rand48 >> 17);
}
static int l_random(lua_State *L) {
  lua_Number r = (lua_Number)(lrand48_next() % 2147483647) / (lua_Number)2147483647;
  switch (lua_gettop(L)) {
  case 0:
    lua_pushnumber(L, r);
    break;
  case 1: {
    int u = luaL_checkint(L, 1);
    luaL_argcheck(L, 1 <= u, 1, "interval is empty");
    lua_pushnumber(L, __builtin_floor(r * u) + 1);
    break;
  }
  case 2: {
    int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
    luaL_argcheck(L, l <= u, 2, "interval is empty");
    lua_pushnumber(L, __builtin_floor(r * (u - l + 1)) + l);
    break;
  }
  default:
    return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}
static int l_randomseed(lua_State *L) {
  t_rand48 = (((uint64_t)(uint32_t)luaL_checkint(L, 1)) << 16 | 0x330E) & ((1ULL << 48) - 1);
  return 0;
}

/* Error handler of every script and function call (Redis's __redis__err__handler, in C so the
 * debug library never needs to be loaded). */
int api_error_handler(lua_State *L) {
  lua_Debug ar;
  int have = lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar);
  if (have && strcmp(ar.what, "C") == 0) have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
  if (!lua_istable(L, 1)) {
    const char *s;
    char tmp[64];
    switch (lua_type(L, 1)) {
    case LUA_TNIL: s = "nil"; break;
    case LUA_TBOOLEAN: s = lua_toboolean(L, 1) ? "true" : "false"; break;
    case LUA_TNUMBER: case LUA_TSTRING: s = lua_tostring(L, 1); break;
    default:
      snprintf(tmp, sizeof tmp, "%s: %p", luaL_typename(L, 1), lua_topointer(L, 1));
      s = tmp;
    }
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushfstring(L, "ERR %s", s);
    lua_rawset(L, -3);
    lua_replace(L, 1);
  }
  lua_settop(L, 1);
  if (have) {
    lua_pushstring(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushstring(L, "line");
    lua_pushnumber(L, ar.currentline);
    lua_rawset(L, 1);
  }
  return 1;
}

void api_error_reply(lua_State *L, buf_t *out, const char *funcname) {
  if (!lua_istable(L, -1)) {
    const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    buf_t m = {0};
    buf_printf(&m, "ERR Error running script %s, %.100s", funcname, msg);
    resp_error(out, m.p, m.len);
    buf_free(&m);
    return;
  }
  buf_t m = {0};
  lua_getfield(L, -1, "err");
  if (lua_isstring(L, -1)) buf_puts(&m, lua_tostring(L, -1));
  else buf_puts(&m, "ERR unknown error"); /* Redis 7.0.15 crashes here (error({x=1})) */
  lua_pop(L, 1);
  lua_getfield(L, -1, "source");
  lua_getfield(L, -2, "line");
  if (lua_isstring(L, -1) && lua_isstring(L, -2))
    buf_printf(&m, " script: %s, on %s:%s.", funcname, lua_tostring(L, -2), lua_tostring(L, -1));
  lua_pop(L, 2);
  resp_error(out, m.p ? m.p : "", m.len);
  buf_free(&m);
}

static void kill_hook(lua_State *L, lua_Debug *ar) {
  run_t *r = t_run;
  if (!r || !(atomic_load(&r->kill) || atomic_load(&r->aborted))) return;
  /* every line from now on: a script cannot pcall its way past the kill */
  lua_sethook(L, kill_hook, LUA_MASKLINE, 0);
  raise_error(L, "Script killed by user with SCRIPT KILL...");
}

void api_hook_arm(lua_State *L) { lua_sethook(L, kill_hook, LUA_MASKCOUNT, kHookInstructions); }

static const char *g_version = "7.2.4";
static int g_version_num = (7 << 16) | (2 << 8) | 4;
void api_set_version(const char *v);
void api_set_version(const char *v) {
  static char keep[32];
  int a = 0, b = 0, c = 0;
  snprintf(keep, sizeof keep, "%s", v);
  sscanf(keep, "%d.%d.%d", &a, &b, &c);
  g_version = keep;
  g_version_num = (a << 16) | (b << 8) | c;
}

static void set_fn(lua_State *L, const char *name, lua_CFunction fn) {
  lua_pushcfunction(L, fn);
  lua_setfield(L, -2, name);
}
static void set_num(lua_State *L, const char *name, int v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

void api_register_log_version(lua_State *L);
void api_register_log_version(lua_State *L) {
  set_fn(L, "log", l_log);
  set_num(L, "LOG_DEBUG", 0);
  set_num(L, "LOG_VERBOSE", 1);
  set_num(L, "LOG_NOTICE", 2);
  set_num(L, "LOG_WARNING", 3);
  set_num(L, "REDIS_VERSION_NUM", g_version_num);
  lua_pushstring(L, g_version);
  lua_setfield(L, -2, "REDIS_VERSION");
}

/* Leaves the redis table on the stack; the caller protects it and stores it as a global. */
void api_register(lua_State *L, int functions) {
  lua_pushcfunction(L, l_pcall);
  lua_setglobal(L, "pcall");
  lua_getglobal(L, "math");
  set_fn(L, "random", l_random);
  set_fn(L, "randomseed", l_randomseed);
  lua_pop(L, 1);

  lua_newtable(L);
  set_fn(L, "call", l_call);
  set_fn(L, "pcall", l_pcall_cmd);
  api_register_log_version(L);
  set_fn(L, "setresp", l_setresp);
  set_fn(L, "sha1hex", l_sha1hex);
  set_fn(L, "error_reply", l_error_reply);
  set_fn(L, "status_reply", l_status_reply);
  set_fn(L, "set_repl", l_set_repl);
  set_num(L, "REPL_NONE", 0);
  set_num(L, "REPL_AOF", 1);
  set_num(L, "REPL_SLAVE", 2);
  set_num(L, "REPL_REPLICA", 2);
  set_num(L, "REPL_ALL", 3);
  set_fn(L, "acl_check_cmd", l_acl_check_cmd);
  if (!functions) {
    set_fn(L, "replicate_commands", l_replicate_commands);
    set_fn(L, "breakpoint", l_breakpoint);
    set_fn(L, "debug", l_debug);
  }
}
