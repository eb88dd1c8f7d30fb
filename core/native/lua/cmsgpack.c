/* cmsgpack: MessagePack for scripts, with the encoding choices of the lua-cmsgpack 0.4.0 that
 * Redis bundles, so packed bytes match redis-server's exactly (checked by the differential
 * test): integers in the smallest msgpack int type, other numbers as float32 when exact else
 * float64, strings as fixstr/str8/str16/str32, a table as an array when its keys are exactly
 * 1..n else as a map, tables nested deeper than 16 as nil, anything else as nil. unpack decodes
 * a stream of values; bin and ext types are "Bad data format in input." as in that version. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include "lua-engine.h"

#define kMaxNesting 16

static void put_be(buf_t *b, unsigned char tag, uint64_t v, int bytes) {
  buf_putc(b, (char)tag);
  for (int i = bytes - 1; i >= 0; i--) buf_putc(b, (char)((v >> (8 * i)) & 0xff));
}

static void enc_int(buf_t *b, int64_t n) {
  if (n >= 0) {
    if (n <= 127) buf_putc(b, (char)n);
    else if (n <= 0xff) put_be(b, 0xcc, (uint64_t)n, 1);
    else if (n <= 0xffff) put_be(b, 0xcd, (uint64_t)n, 2);
    else if (n <= 0xffffffffLL) put_be(b, 0xce, (uint64_t)n, 4);
    else put_be(b, 0xcf, (uint64_t)n, 8);
  } else {
    if (n >= -32) buf_putc(b, (char)(signed char)n);
    else if (n >= -128) put_be(b, 0xd0, (uint64_t)n, 1);
    else if (n >= -32768) put_be(b, 0xd1, (uint64_t)n, 2);
    else if (n >= -2147483648LL) put_be(b, 0xd2, (uint64_t)n, 4);
    else put_be(b, 0xd3, (uint64_t)n, 8);
  }
}

static void enc_number(buf_t *b, lua_Number n) {
  if (!isinf(n) && !isnan(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 && (lua_Number)(int64_t)n == n) {
    enc_int(b, (int64_t)n);
    return;
  }
  float f = (float)n;
  if ((double)f == n) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put_be(b, 0xca, u, 4);
  } else {
    uint64_t u;
    memcpy(&u, &n, 8);
    put_be(b, 0xcb, u, 8);
  }
}

static void enc_len(buf_t *b, size_t n, unsigned char fix, unsigned char t16, unsigned char t32) {
  if (n <= 15) buf_putc(b, (char)(fix | n));
  else if (n <= 0xffff) put_be(b, t16, n, 2);
  else put_be(b, t32, n, 4);
}

static int is_array(lua_State *L) {
  int count = 0, max = 0;
  int top = lua_gettop(L);
  luaL_checkstack(L, 2, "in function table_is_an_array");
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    lua_Number n;
    if (lua_type(L, -1) != LUA_TNUMBER || (n = lua_tonumber(L, -1)) <= 0 || (lua_Number)(int)n != n) {
      lua_settop(L, top);
      return 0;
    }
    if ((int)n > max) max = (int)n;
    count++;
  }
  lua_settop(L, top);
  return max == count;
}

/* Encodes the value on top of the stack and pops it. */
static void enc_value(lua_State *L, buf_t *b, int level) {
  int t = lua_type(L, -1);
  if (t == LUA_TTABLE && level == kMaxNesting) t = LUA_TNIL;
  switch (t) {
  case LUA_TSTRING: {
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (n < 32) buf_putc(b, (char)(0xa0 | n));
    else if (n <= 0xff) put_be(b, 0xd9, n, 1);
    else if (n <= 0xffff) put_be(b, 0xda, n, 2);
    else put_be(b, 0xdb, n, 4);
    buf_put(b, s, n);
    break;
  }
  case LUA_TBOOLEAN:
    buf_putc(b, lua_toboolean(L, -1) ? (char)0xc3 : (char)0xc2);
    break;
  case LUA_TNUMBER:
    enc_number(b, lua_tonumber(L, -1));
    break;
  case LUA_TTABLE:
    if (is_array(L)) {
      size_t n = lua_objlen(L, -1);
      enc_len(b, n, 0x90, 0xdc, 0xdd);
      luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
      for (size_t j = 1; j <= n; j++) {
        lua_pushnumber(L, (lua_Number)j);
        lua_gettable(L, -2);
        enc_value(L, b, level + 1);
      }
    } else {
      size_t n = 0;
      luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
      lua_pushnil(L);
      while (lua_next(L, -2)) { lua_pop(L, 1); n++; }
      enc_len(b, n, 0x80, 0xde, 0xdf);
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        enc_value(L, b, level + 1);
        enc_value(L, b, level + 1);
      }
    }
    break;
  default:
    buf_putc(b, (char)0xc0);
  }
  lua_pop(L, 1);
}

/* The output grows in a C buffer owned by a userdata, so an error raised mid-way (a metamethod
 * in lua_gettable, a stack check) frees it through __gc instead of leaking it. */
static int wbuf_gc(lua_State *L) {
  buf_free(lua_touserdata(L, 1));
  return 0;
}

static int mp_pack(lua_State *L) {
  int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(L, nargs + 2)) return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  buf_t *b = lua_newuserdata(L, sizeof *b);
  memset(b, 0, sizeof *b);
  lua_getfield(L, LUA_REGISTRYINDEX, "postresp.mpbuf");
  lua_setmetatable(L, -2);
  for (int i = 1; i <= nargs; i++) {
    lua_pushvalue(L, i);
    enc_value(L, b, 0);
  }
  lua_pushlstring(L, b->p ? b->p : "", b->len);
  buf_free(b);
  return 1;
}

typedef struct {
  const unsigned char *p;
  size_t left;
  int err; /* 1 missing bytes, 2 bad format */
} cur_t;

#define NEED(c, n) do { if ((c)->left < (size_t)(n)) { (c)->err = 1; return; } } while (0)
#define EAT(c, n) do { (c)->p += (n); (c)->left -= (n); } while (0)

static uint64_t rd_be(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

static void dec_value(lua_State *L, cur_t *c);

static void dec_array(lua_State *L, cur_t *c, size_t n) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (size_t i = 1; i <= n; i++) {
    lua_pushnumber(L, (lua_Number)i);
    dec_value(L, c);
    if (c->err) return;
    lua_settable(L, -3);
  }
}

static void dec_map(lua_State *L, cur_t *c, size_t n) {
  lua_newtable(L);
  while (n--) {
    dec_value(L, c);
    if (c->err) return;
    dec_value(L, c);
    if (c->err) return;
    lua_settable(L, -3);
  }
}

static void dec_str(lua_State *L, cur_t *c, int hdr, size_t n) {
  NEED(c, hdr + n);
  lua_pushlstring(L, (const char *)c->p + hdr, n);
  EAT(c, hdr + n);
}

static void dec_value(lua_State *L, cur_t *c) {
  NEED(c, 1);
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  unsigned char t = c->p[0];
  switch (t) {
  case 0xcc: NEED(c, 2); lua_pushnumber(L, c->p[1]); EAT(c, 2); return;
  case 0xd0: NEED(c, 2); lua_pushnumber(L, (signed char)c->p[1]); EAT(c, 2); return;
  case 0xcd: NEED(c, 3); lua_pushnumber(L, (lua_Number)rd_be(c->p + 1, 2)); EAT(c, 3); return;
  case 0xd1: NEED(c, 3); lua_pushnumber(L, (int16_t)rd_be(c->p + 1, 2)); EAT(c, 3); return;
  case 0xce: NEED(c, 5); lua_pushnumber(L, (lua_Number)rd_be(c->p + 1, 4)); EAT(c, 5); return;
  case 0xd2: NEED(c, 5); lua_pushnumber(L, (int32_t)rd_be(c->p + 1, 4)); EAT(c, 5); return;
  case 0xcf: NEED(c, 9); lua_pushnumber(L, (lua_Number)rd_be(c->p + 1, 8)); EAT(c, 9); return;
  case 0xd3: NEED(c, 9); lua_pushnumber(L, (lua_Number)(int64_t)rd_be(c->p + 1, 8)); EAT(c, 9); return;
  case 0xc0: lua_pushnil(L); EAT(c, 1); return;
  case 0xc3: lua_pushboolean(L, 1); EAT(c, 1); return;
  case 0xc2: lua_pushboolean(L, 0); EAT(c, 1); return;
  case 0xca: {
    NEED(c, 5);
    uint32_t u = (uint32_t)rd_be(c->p + 1, 4);
    float f;
    memcpy(&f, &u, 4);
    lua_pushnumber(L, f);
    EAT(c, 5);
    return;
  }
  case 0xcb: {
    NEED(c, 9);
    uint64_t u = rd_be(c->p + 1, 8);
    double d;
    memcpy(&d, &u, 8);
    lua_pushnumber(L, d);
    EAT(c, 9);
    return;
  }
  case 0xd9: NEED(c, 2); dec_str(L, c, 2, c->p[1]); return;
  case 0xda: NEED(c, 3); dec_str(L, c, 3, (size_t)rd_be(c->p + 1, 2)); return;
  case 0xdb: NEED(c, 5); dec_str(L, c, 5, (size_t)rd_be(c->p + 1, 4)); return;
  case 0xdc: { NEED(c, 3); size_t n = (size_t)rd_be(c->p + 1, 2); EAT(c, 3); dec_array(L, c, n); return; }
  case 0xdd: { NEED(c, 5); size_t n = (size_t)rd_be(c->p + 1, 4); EAT(c, 5); dec_array(L, c, n); return; }
  case 0xde: { NEED(c, 3); size_t n = (size_t)rd_be(c->p + 1, 2); EAT(c, 3); dec_map(L, c, n); return; }
  case 0xdf: { NEED(c, 5); size_t n = (size_t)rd_be(c->p + 1, 4); EAT(c, 5); dec_map(L, c, n); return; }
  }
  if ((t & 0x80) == 0) { lua_pushnumber(L, t); EAT(c, 1); }
  else if ((t & 0xe0) == 0xe0) { lua_pushnumber(L, (signed char)t); EAT(c, 1); }
  else if ((t & 0xe0) == 0xa0) dec_str(L, c, 1, t & 0x1f);
  else if ((t & 0xf0) == 0x90) { EAT(c, 1); dec_array(L, c, t & 0xf); }
  else if ((t & 0xf0) == 0x80) { EAT(c, 1); dec_map(L, c, t & 0xf); }
  else c->err = 2;
}

static int unpack_full(lua_State *L, lua_Integer limit, lua_Integer offset) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  int all = !limit && !offset;
  if (offset < 0 || limit < 0)
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", (int)offset, (int)len);
  if ((size_t)offset > len) return luaL_error(L, "Start offset %d greater than input length %d.", (int)offset, (int)len);
  if (all) limit = INT_MAX;
  cur_t c = {(const unsigned char *)s + offset, len - (size_t)offset, 0};
  int cnt;
  for (cnt = 0; c.left > 0 && cnt < limit; cnt++) {
    dec_value(L, &c);
    if (c.err == 1) return luaL_error(L, "Missing bytes in input.");
    if (c.err == 2) return luaL_error(L, "Bad data format in input.");
  }
  if (!all) {
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
    lua_insert(L, 2);
    cnt++;
  }
  return cnt;
}

static int mp_unpack(lua_State *L) { return unpack_full(L, 0, 0); }

static int mp_unpack_one(lua_State *L) {
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_pop(L, lua_gettop(L) - 1);
  return unpack_full(L, 1, offset);
}

static int mp_unpack_limit(lua_State *L) {
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_pop(L, lua_gettop(L) - 1);
  return unpack_full(L, limit, offset);
}

int luaopen_cmsgpack_postresp(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, wbuf_gc);
  lua_setfield(L, -2, "__gc");
  lua_setfield(L, LUA_REGISTRYINDEX, "postresp.mpbuf");
  lua_newtable(L);
  lua_pushcfunction(L, mp_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, mp_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, mp_unpack_one);
  lua_setfield(L, -2, "unpack_one");
  lua_pushcfunction(L, mp_unpack_limit);
  lua_setfield(L, -2, "unpack_limit");
  lua_pushliteral(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  return 1;
}
