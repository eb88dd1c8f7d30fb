/* FUNCTION LOAD: the `#!lua name=<lib>` header, running a library's code with only
 * redis.register_function / redis.log visible, and collecting what it registers, with Redis
 * 7.0's error texts (function_lua.c, functions.c). Also EVAL's `#!lua flags=…` shebang. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <lauxlib.h>
#include "lua-engine.h"

const char *const kFlagNames[5] = {"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"};
#define kNameError "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
#define kFunctionsTable "postresp.functions"
#define kPendingTable "postresp.pending"

/* Splits the first line into space-separated words (Redis uses sdssplitargs; quoting is not
 * supported here). Returns the number of words, at most max. */
static int split_words(const char *p, size_t len, const char **w, size_t *wl, int max) {
  int n = 0;
  size_t i = 0;
  while (i < len && n < max) {
    while (i < len && isspace((unsigned char)p[i])) i++;
    if (i >= len) break;
    size_t s = i;
    while (i < len && !isspace((unsigned char)p[i])) i++;
    w[n] = p + s;
    wl[n++] = i - s;
  }
  return n;
}

int shebang_parse(const char *body, size_t len, int *flags, size_t *skip, char *err, size_t errcap) {
  *flags = kFlagEvalCompat;
  *skip = 0;
  if (len < 2 || body[0] != '#' || body[1] != '!') return 0;
  const char *nl = memchr(body, '\n', len);
  if (!nl) {
    snprintf(err, errcap, "Invalid script shebang");
    return -1;
  }
  size_t line = (size_t)(nl - body);
  const char *w[64];
  size_t wl[64];
  int n = split_words(body, line, w, wl, 64);
  if (n == 0 || wl[0] != 5 || memcmp(w[0], "#!lua", 5) != 0) {
    snprintf(err, errcap, "Unexpected engine in script shebang: %.*s", n ? (int)wl[0] : 0, n ? w[0] : "");
    return -1;
  }
  int f = 0;
  for (int j = 1; j < n; j++) {
    if (wl[j] < 6 || memcmp(w[j], "flags=", 6) != 0) {
      snprintf(err, errcap, "Unknown lua shebang option: %.*s", (int)wl[j], w[j]);
      return -1;
    }
    const char *p = w[j] + 6, *end = w[j] + wl[j];
    for (;;) { /* "a,b," ends with an empty flag, which Redis rejects */
      const char *c = memchr(p, ',', (size_t)(end - p));
      size_t fl = (size_t)((c ? c : end) - p);
      int bit = -1;
      for (int k = 0; k < 5; k++)
        if (strlen(kFlagNames[k]) == fl && memcmp(kFlagNames[k], p, fl) == 0) bit = k;
      if (bit < 0 && !(fl == 0 && !c && p == w[j] + 6)) {
        snprintf(err, errcap, "Unexpected flag in script shebang: %.*s", (int)fl, p);
        return -1;
      }
      if (bit >= 0) f |= 1 << bit;
      if (!c) break;
      p = c + 1;
    }
  }
  *flags = f;
  *skip = line;
  return 0;
}

static int valid_name(const char *s, size_t n) {
  if (!n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
  return 1;
}

int library_meta(const char *code, size_t len, char **name, size_t *skip, char *err, size_t errcap) {
  *name = NULL;
  if (len < 2 || code[0] != '#' || code[1] != '!') {
    snprintf(err, errcap, "Missing library metadata");
    return -1;
  }
  const char *nl = memchr(code, '\n', len);
  if (!nl) {
    snprintf(err, errcap, "Invalid library metadata");
    return -1;
  }
  size_t line = (size_t)(nl - code);
  const char *w[64];
  size_t wl[64];
  int n = split_words(code, line, w, wl, 64);
  if (n == 0) {
    snprintf(err, errcap, "Invalid library metadata");
    return -1;
  }
  const char *nm = NULL;
  size_t nml = 0;
  for (int j = 1; j < n; j++) {
    if (wl[j] >= 5 && strncasecmp(w[j], "name=", 5) == 0) {
      if (nm) {
        snprintf(err, errcap, "Invalid metadata value, name argument was given multiple times");
        return -1;
      }
      nm = w[j] + 5;
      nml = wl[j] - 5;
      /* name="foo" / name='foo': sdssplitargs drops the quotes (the 7.0 suite loads one) */
      if (nml >= 2 && (nm[0] == '"' || nm[0] == '\'') && nm[nml - 1] == nm[0]) {
        nm++;
        nml -= 2;
      }
      continue;
    }
    snprintf(err, errcap, "Invalid metadata value given: %.*s", (int)wl[j], w[j]);
    return -1;
  }
  if (!nm) {
    snprintf(err, errcap, "Library name was not given");
    return -1;
  }
  if (!(wl[0] == 5 && strncasecmp(w[0], "#!lua", 5) == 0)) {
    snprintf(err, errcap, "Engine '%.*s' not found", (int)wl[0] - 2, w[0] + 2);
    return -1;
  }
  if (!valid_name(nm, nml)) {
    snprintf(err, errcap, kNameError);
    return -1;
  }
  *name = strndup(nm, nml);
  *skip = line;
  return 0;
}

/* ---- redis.register_function ---- */
static __thread lib_t *t_loading;
static __thread uint64_t t_load_deadline;

static int reg_error(lua_State *L, const char *msg) {
  api_push_error(L, msg, strlen(msg));
  return lua_error(L);
}

static int read_flags(lua_State *L, int *flags) {
  int f = 0;
  for (int j = 1;; j++) {
    lua_pushnumber(L, j);
    lua_gettable(L, -2);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) {
      lua_pop(L, 1);
      return -1;
    }
    const char *s = lua_tostring(L, -1);
    int found = 0;
    for (int k = 0; k < 5; k++)
      if (!strcasecmp(kFlagNames[k], s)) {
        f |= 1 << k;
        found = 1;
      }
    lua_pop(L, 1);
    if (!found) return -1;
  }
  *flags = f;
  return 0;
}

int register_function(lua_State *L);
int register_function(lua_State *L) {
  lib_t *lib = t_loading;
  if (!lib) return reg_error(L, "redis.register_function can only be called on FUNCTION LOAD command");
  int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return reg_error(L, "wrong number of arguments to redis.register_function");
  const char *name = NULL, *desc = NULL;
  size_t name_len = 0;
  int flags = 0, have_cb = 0;
  if (argc == 1) {
    if (!lua_istable(L, 1))
      return reg_error(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      if (!lua_isstring(L, -2)) return reg_error(L, "named argument key given to redis.register_function is not a string");
      const char *key = lua_tostring(L, -2);
      if (!strcasecmp(key, "function_name")) {
        if (!lua_isstring(L, -1)) return reg_error(L, "function_name argument given to redis.register_function must be a string");
        name = lua_tolstring(L, -1, &name_len);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "postresp.regname"); /* keep it alive */
      } else if (!strcasecmp(key, "description")) {
        if (!lua_isstring(L, -1)) return reg_error(L, "description argument given to redis.register_function must be a string");
        desc = lua_tostring(L, -1);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "postresp.regdesc");
      } else if (!strcasecmp(key, "callback")) {
        if (!lua_isfunction(L, -1)) return reg_error(L, "callback argument given to redis.register_function must be a function");
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "postresp.regcb");
        have_cb = 1;
      } else if (!strcasecmp(key, "flags")) {
        if (!lua_istable(L, -1)) return reg_error(L, "flags argument to redis.register_function must be a table representing function flags");
        if (read_flags(L, &flags)) return reg_error(L, "unknown flag given");
      } else {
        return reg_error(L, "unknown argument given to redis.register_function");
      }
      lua_pop(L, 1);
    }
    if (!name) return reg_error(L, "redis.register_function must get a function name argument");
    if (!have_cb) return reg_error(L, "redis.register_function must get a callback argument");
  } else {
    if (!lua_isstring(L, 1)) return reg_error(L, "first argument to redis.register_function must be a string");
    if (!lua_isfunction(L, 2)) return reg_error(L, "second argument to redis.register_function must be a function");
    name = lua_tolstring(L, 1, &name_len);
    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, "postresp.regcb");
  }
  if (!valid_name(name, name_len)) return reg_error(L, kNameError);
  for (int i = 0; i < lib->nfn; i++)
    if (!strcmp(lib->fn[i].name, name)) return reg_error(L, "Function already exists in the library");
  lib->fn = realloc(lib->fn, sizeof(fn_info_t) * (size_t)(lib->nfn + 1));
  lib->fn[lib->nfn].name = strdup(name);
  lib->fn[lib->nfn].desc = desc ? strdup(desc) : NULL;
  lib->fn[lib->nfn].flags = flags;
  lib->nfn++;
  lua_getfield(L, LUA_REGISTRYINDEX, kPendingTable);
  lua_getfield(L, LUA_REGISTRYINDEX, "postresp.regcb");
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  return 0;
}

static void load_hook(lua_State *L, lua_Debug *ar) {
  if (now_ms() <= t_load_deadline) return;
  lua_sethook(L, load_hook, LUA_MASKLINE, 0);
  reg_error(L, "FUNCTION LOAD timeout");
}

int library_run(lua_State *L, const char *code, size_t len, size_t skip, lib_t *out, int timeout_ms, char *err, size_t errcap) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kPendingTable);
  sandbox_set_load_mode(L, 1);
  int rc = -1;
  if (luaL_loadbuffer(L, code + skip, len - skip, "@user_function")) {
    snprintf(err, errcap, "Error compiling function: %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    goto done;
  }
  t_loading = out;
  t_load_deadline = now_ms() + (uint64_t)timeout_ms;
  lua_sethook(L, load_hook, LUA_MASKCOUNT, 100000);
  int st = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, NULL, 0, 0);
  t_loading = NULL;
  if (st) {
    const char *msg = NULL;
    char tmp[512];
    if (lua_isstring(L, -1)) {
      snprintf(tmp, sizeof tmp, "ERR %s", lua_tostring(L, -1));
      msg = tmp;
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      snprintf(tmp, sizeof tmp, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "ERR unknown error");
      lua_pop(L, 1);
      msg = tmp;
    }
    snprintf(err, errcap, "Error registering functions: %s", msg ? msg : "ERR unknown error");
    lua_pop(L, 1);
    goto done;
  }
  if (out->nfn == 0) {
    snprintf(err, errcap, "No functions registered");
    goto done;
  }
  /* registered callbacks join the state's function table */
  lua_getfield(L, LUA_REGISTRYINDEX, kFunctionsTable);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, kFunctionsTable);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kPendingTable);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 2);
  rc = 0;
done:
  sandbox_set_load_mode(L, 0);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kPendingTable);
  return rc;
}
