/* Lua states with Redis 7.0's sandbox, built on stock Lua 5.1.5 (Debian's liblua5.1).
 *
 * Redis patches its bundled Lua with a readonly flag on tables. Stock Lua has none, so every
 * protected table is a proxy: an empty table whose metatable sends reads to the real table and
 * writes to an error, the way Redis's own FUNCTION engine swaps its globals:
 *
 *   _G (proxy P) ──__index──▶ real globals G ──__index──▶ "Script attempted to access
 *        └──__newindex──▶ "Attempt to modify a readonly table"     nonexistent global variable"
 *   string, math, table, coroutine, cjson, cmsgpack, struct, bit, redis: proxies of the libraries
 *
 * rawset/rawget/next/pairs/getmetatable/setmetatable are wrapped to see through proxies (and to
 * refuse writes), and after each call the proxies are emptied again in case table.insert or
 * similar raw writes slipped a key into one (state_scrub), so nothing leaks between scripts.
 * Memory: each state has its own allocator with a byte cap (pool_mem_limit). */
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include <lualib.h>
#include <lua-cjson.h>
#include <lua-bitop.h>
#include "lua-engine.h"

#define kProxies "postresp.proxies"   /* weak map proxy → real table */
#define kProxyList "postresp.proxylist"
#define kGlobals "postresp.G"
#define kGlobalsMeta "postresp.Gmeta"
#define kLibraryApi "postresp.libapi"
#define kFakeMeta "postresp.fakemeta" /* what getmetatable(_G) shows */
#define kStringMeta "postresp.stringmeta"

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mem_t *m = ud;
  if (nsize == 0) {
    free(ptr);
    m->used -= osize;
    return NULL;
  }
  if (nsize > osize && m->used - osize + nsize > m->limit) {
    m->oom = 1;
    return NULL; /* Lua raises "not enough memory" */
  }
  void *p = realloc(ptr, nsize);
  if (p) m->used = m->used - osize + nsize;
  return p;
}

int sandbox_readonly_error(lua_State *L) { return luaL_error(L, "Attempt to modify a readonly table"); }

static int nonexistent_global(lua_State *L) {
  if (lua_gettop(L) != 2) return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
  if (!lua_isstring(L, -1)) return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", lua_tostring(L, -1));
}

/* Pushes the real table behind the value at idx, or nothing (returns 0) when it is no proxy. */
static int proxy_target(lua_State *L, int idx) {
  if (!lua_istable(L, idx)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, kProxies);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* Replaces the table on top of the stack with a readonly proxy of it. */
static void make_proxy(lua_State *L) {
  int real = lua_gettop(L);
  lua_newtable(L); /* proxy */
  lua_newtable(L); /* its metatable */
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, sandbox_readonly_error);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxies);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, real);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxyList);
  lua_pushvalue(L, -2);
  lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
  lua_pop(L, 1);
  lua_replace(L, real);
}

static int readonly_plain(lua_State *L) {
  /* Redis raises these from C without a position ("ERR Attempt to modify a readonly table") */
  lua_pushstring(L, "Attempt to modify a readonly table");
  return lua_error(L);
}

static int w_rawset(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (proxy_target(L, 1)) return readonly_plain(L);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

static int w_rawget(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  if (proxy_target(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  lua_rawget(L, 1);
  return 1;
}

static int w_next(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (proxy_target(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

static int w_pairs(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int proxy = proxy_target(L, 1);
  if (proxy) lua_pop(L, 1);
  lua_pushvalue(L, proxy ? lua_upvalueindex(2) : lua_upvalueindex(1)); /* original next / ours */
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

static int w_setmetatable(lua_State *L) {
  if (proxy_target(L, 1)) return readonly_plain(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static int w_getmetatable(lua_State *L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TSTRING) {
    lua_getfield(L, LUA_REGISTRYINDEX, kStringMeta);
    return 1;
  }
  if (proxy_target(L, 1)) {
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, kFakeMeta);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    return 1; /* nil for libraries, like Redis's plain tables */
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  return 1;
}

/* loadstring/load refuse precompiled chunks, as Redis 7.0.15 does (bytecode can crash the VM). */
static int w_loadstring(lua_State *L) {
  size_t l;
  const char *s = luaL_checklstring(L, 1, &l);
  const char *name = luaL_optstring(L, 2, s);
  if (l && s[0] == LUA_SIGNATURE[0]) {
    lua_pushnil(L);
    lua_pushstring(L, "loading of precompiled chunks is not allowed");
    return 2;
  }
  if (luaL_loadbuffer(L, s, l, name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

typedef struct {
  lua_State *L;
  int first, bad;
} reader_t;
static const char *load_reader(lua_State *L, void *ud, size_t *size) {
  reader_t *r = ud;
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    *size = 0;
    return NULL;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, 3);
  const char *s = lua_tolstring(L, 3, size);
  if (r->first && *size) {
    r->first = 0;
    if (s[0] == LUA_SIGNATURE[0]) {
      r->bad = 1;
      *size = 0;
      return NULL;
    }
  }
  return s;
}
static int w_load(lua_State *L) {
  const char *name = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 3);
  reader_t r = {L, 1, 0};
  int status = lua_load(L, load_reader, &r, name);
  if (r.bad) {
    lua_pushnil(L);
    lua_pushstring(L, "loading of precompiled chunks is not allowed");
    return 2;
  }
  if (status == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

static void open_lib(lua_State *L, const char *name, lua_CFunction fn) {
  lua_pushcfunction(L, fn);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  if (*name && lua_istable(L, -1)) lua_setglobal(L, name);
  else lua_pop(L, 1);
}

static void protect_global(lua_State *L, const char *name) {
  lua_getglobal(L, name);
  make_proxy(L);
  lua_setglobal(L, name);
}

void sandbox_set_protected_global(lua_State *L, const char *name) { protect_global(L, name); }

lua_State *state_new(mem_t *mem, int functions) {
  mem->used = 0;
  mem->oom = 0;
  mem->limit = pool_mem_limit();
  lua_State *L = lua_newstate(capped_alloc, mem);
  if (!L) return NULL;
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxies);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxyList);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kFakeMeta);

  open_lib(L, "", luaopen_base);
  open_lib(L, LUA_TABLIBNAME, luaopen_table);
  open_lib(L, LUA_STRLIBNAME, luaopen_string);
  open_lib(L, LUA_MATHLIBNAME, luaopen_math);
  open_lib(L, "cjson", luaopen_cjson);
  open_lib(L, "struct", luaopen_struct_postresp);
  open_lib(L, "cmsgpack", luaopen_cmsgpack_postresp);
  open_lib(L, "bit", luaopen_bit);
  static const char *const removed[] = {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy", "module", "require", NULL};
  for (const char *const *n = removed; *n; n++) {
    lua_pushnil(L);
    lua_setglobal(L, *n);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (lua_istable(L, -1)) { /* luaL_register's bookkeeping would be another way to reach the libraries */
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "_LOADED");
  }
  lua_pop(L, 1);

  lua_pushcfunction(L, w_rawset);
  lua_setglobal(L, "rawset");
  lua_pushcfunction(L, w_rawget);
  lua_setglobal(L, "rawget");
  lua_getglobal(L, "next");
  lua_pushcfunction(L, w_next);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "next");
  lua_pushcclosure(L, w_pairs, 2); /* upvalues: original next, proxy-aware next */
  lua_setglobal(L, "pairs");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, w_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
  lua_pushcfunction(L, w_getmetatable);
  lua_setglobal(L, "getmetatable");
  lua_pushcfunction(L, w_loadstring);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, w_load);
  lua_setglobal(L, "load");

  api_register(L, functions);
  lua_setglobal(L, "redis");
  if (!functions) {
    lua_pushcfunction(L, api_error_handler);
    lua_setglobal(L, "__redis__err__handler");
  }

  static const char *const libs[] = {"string", "math", "table", "coroutine", "cjson", "cmsgpack", "struct", "bit", "redis", NULL};
  for (const char *const *n = libs; *n; n++) protect_global(L, *n);

  /* strings index the protected string library; getmetatable('') shows a readonly copy */
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getglobal(L, "string");
  lua_setfield(L, -2, "__index");
  make_proxy(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kStringMeta);
  lua_pop(L, 1);

  /* G: the real globals; P: the proxy scripts see as _G */
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobals);
  lua_newtable(L);
  lua_pushcfunction(L, nonexistent_global);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  make_proxy(L); /* stack: P */
  lua_getmetatable(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobalsMeta);
  lua_getfield(L, LUA_REGISTRYINDEX, kGlobals);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "_G");
  lua_pop(L, 1);
  /* getmetatable(_G): a readonly table holding the error handler, as in Redis */
  lua_getfield(L, LUA_REGISTRYINDEX, kFakeMeta);
  lua_pushvalue(L, -2);
  lua_newtable(L);
  lua_pushcfunction(L, nonexistent_global);
  lua_setfield(L, -2, "__index");
  make_proxy(L);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_replace(L, LUA_GLOBALSINDEX);

  if (functions) {
    /* FUNCTION LOAD sees only redis.register_function, redis.log and the version */
    lua_newtable(L);
    lua_newtable(L);
    void api_register_log_version(lua_State *);
    api_register_log_version(L);
    int register_function(lua_State *);
    lua_pushcfunction(L, register_function);
    lua_setfield(L, -2, "register_function");
    lua_newtable(L);
    lua_pushcfunction(L, nonexistent_global);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    make_proxy(L);
    lua_setfield(L, -2, "redis");
    lua_newtable(L);
    lua_pushcfunction(L, nonexistent_global);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, kLibraryApi);
  }
  lua_gc(L, LUA_GCCOLLECT, 0);
  return L;
}

void sandbox_set_load_mode(lua_State *L, int on) {
  lua_getfield(L, LUA_REGISTRYINDEX, kGlobalsMeta);
  lua_getfield(L, LUA_REGISTRYINDEX, on ? kLibraryApi : kGlobals);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* Empties every proxy again (raw writes by table.insert & co. land in the proxy itself). */
void state_scrub(lua_State *L);
void state_scrub(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kProxyList);
  int n = (int)lua_objlen(L, -1);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, -4);
      lua_pop(L, 1);
      lua_pushnil(L);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

void state_close(lua_State *L) {
  if (L) lua_close(L);
}
