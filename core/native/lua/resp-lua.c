/* Conversions between RESP replies and Lua values, by Redis 7.0's rules (script_lua.c):
 *
 *   RESP → Lua (a redis.call reply)          Lua → RESP (the script's return value)
 *   :n        number                          number      :n truncated toward zero (x86 cast:
 *   $-1 *-1   false                                       out of range and NaN → INT64_MIN)
 *   $ bulk    string                          string      $ bulk
 *   + status  {ok=s}                          {ok=s}      +s (CR/LF → spaces)
 *   - error   {err=s, ignore_error_stats…}    {err=s}     -s (CR/LF → spaces)
 *   * array   {…} (RESP3 nulls leave holes)   table       * up to the first nil
 *   % map     {map={k=v}}                     {map=t}     RESP3 %, RESP2 flat *
 *   ~ set     {set={m=true}}                  {set=t}     RESP3 ~, RESP2 *
 *   _ null    nil                             nil         RESP3 _, RESP2 $-1
 *   # bool    boolean                         boolean     setresp(2): true :1, false null;
 *   , double  {double=n}                                  setresp(3): #t/#f (RESP2 :1/:0)
 *   ( bignum  {big_number=s}                  {double=n}  RESP3 ,%.17g; RESP2 bulk
 *   = verbat. {verbatim_string={string,format}}            (and big_number, verbatim alike)
 *   | attr    skipped
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lua-engine.h"

/* ---------------- RESP → Lua ---------------- */

/* Finds the CRLF-terminated line at p; returns its length (without CRLF) or -1. */
static long line_len(const char *p, size_t len) {
  for (size_t i = 0; i + 1 < len; i++)
    if (p[i] == '\r' && p[i + 1] == '\n') return (long)i;
  return -1;
}

static int parse_ll(const char *p, long n, long long *out) {
  if (n <= 0 || n > 20) return -1;
  char tmp[24];
  memcpy(tmp, p, (size_t)n);
  tmp[n] = 0;
  char *end;
  *out = strtoll(tmp, &end, 10);
  return *end ? -1 : 0;
}

static void set_field_str(lua_State *L, const char *field, const char *s, size_t n) {
  lua_pushstring(L, field);
  lua_pushlstring(L, s, n);
  lua_settable(L, -3);
}

/* push = 0 parses without pushing (attributes). */
static size_t parse_one(lua_State *L, const char *p, size_t len, int push, int depth) {
  if (len < 3 || depth > 1000) return 0;
  long ll = line_len(p + 1, len - 1);
  if (ll < 0) return 0;
  const char *body = p + 1;
  size_t head = 1 + (size_t)ll + 2;
  long long n = 0;
  if (push && !lua_checkstack(L, 5)) return 0;
  switch (p[0]) {
  case '+':
    if (push) { lua_newtable(L); set_field_str(L, "ok", body, (size_t)ll); }
    return head;
  case '-': {
    if (push) {
      char *tmp = malloc((size_t)ll + 2);
      tmp[0] = '-';
      memcpy(tmp + 1, body, (size_t)ll);
      api_push_error(L, tmp, (size_t)ll + 1);
      free(tmp);
      lua_pushstring(L, "ignore_error_stats_update");
      lua_pushboolean(L, 1);
      lua_settable(L, -3);
    }
    return head;
  }
  case ':':
    if (parse_ll(body, ll, &n)) return 0;
    if (push) lua_pushnumber(L, (lua_Number)n);
    return head;
  case '_':
    if (push) lua_pushnil(L);
    return head;
  case '#':
    if (push) lua_pushboolean(L, ll == 1 && body[0] == 't');
    return head;
  case ',': {
    char tmp[64];
    size_t m = (size_t)ll < sizeof tmp - 1 ? (size_t)ll : sizeof tmp - 1;
    memcpy(tmp, body, m);
    tmp[m] = 0;
    if (push) {
      lua_newtable(L);
      lua_pushstring(L, "double");
      lua_pushnumber(L, strtod(tmp, NULL));
      lua_settable(L, -3);
    }
    return head;
  }
  case '(':
    if (push) { lua_newtable(L); set_field_str(L, "big_number", body, (size_t)ll); }
    return head;
  case '$': case '=': case '!': {
    if (parse_ll(body, ll, &n)) return 0;
    if (n < 0) {
      if (push) lua_pushboolean(L, 0);
      return head;
    }
    if (head + (size_t)n + 2 > len) return 0;
    const char *s = p + head;
    if (push) {
      if (p[0] == '$') {
        lua_pushlstring(L, s, (size_t)n);
      } else if (p[0] == '!') {
        char *tmp = malloc((size_t)n + 2);
        tmp[0] = '-';
        memcpy(tmp + 1, s, (size_t)n);
        api_push_error(L, tmp, (size_t)n + 1);
        free(tmp);
      } else {
        if (n < 4) return 0;
        lua_newtable(L);
        lua_pushstring(L, "verbatim_string");
        lua_newtable(L);
        set_field_str(L, "string", s + 4, (size_t)n - 4);
        set_field_str(L, "format", s, 3);
        lua_settable(L, -3);
      }
    }
    return head + (size_t)n + 2;
  }
  case '*': case '>': case '%': case '~': case '|': {
    if (parse_ll(body, ll, &n)) return 0;
    if (n < 0) {
      if (push) lua_pushboolean(L, 0);
      return head;
    }
    size_t off = head;
    if (p[0] == '|') {
      for (long long i = 0; i < 2 * n; i++) {
        size_t c = parse_one(L, p + off, len - off, 0, depth + 1);
        if (!c) return 0;
        off += c;
      }
      size_t c = parse_one(L, p + off, len - off, push, depth + 1);
      return c ? off + c : 0;
    }
    if (push) {
      if (p[0] == '%' || p[0] == '~') {
        lua_newtable(L);
        lua_pushstring(L, p[0] == '%' ? "map" : "set");
      }
      lua_newtable(L);
    }
    for (long long i = 0; i < n; i++) {
      if (push && (p[0] == '*' || p[0] == '>')) lua_pushnumber(L, (lua_Number)(i + 1));
      size_t c = parse_one(L, p + off, len - off, push, depth + 1);
      if (!c) goto bad;
      off += c;
      if (p[0] == '%') {
        c = parse_one(L, p + off, len - off, push, depth + 1);
        if (!c) { if (push) lua_pop(L, 1); goto bad; }
        off += c;
      } else if (p[0] == '~' && push) {
        lua_pushboolean(L, 1);
      }
      if (push) lua_settable(L, -3);
    }
    if (push && (p[0] == '%' || p[0] == '~')) lua_settable(L, -3);
    return off;
  bad:
    if (push) lua_pop(L, (p[0] == '%' || p[0] == '~') ? 3 : 1 + (p[0] == '*' || p[0] == '>'));
    return 0;
  }
  default:
    return 0;
  }
}

size_t resp_to_lua(lua_State *L, const char *p, size_t len) { return parse_one(L, p, len, 1, 0); }

/* ---------------- Lua → RESP ---------------- */

static void put_clean(buf_t *out, const char *s, size_t n) {
  size_t start = out->len;
  buf_put(out, s, n);
  for (size_t i = start; i < out->len; i++)
    if (out->p[i] == '\r' || out->p[i] == '\n') out->p[i] = ' ';
}

void resp_error(buf_t *out, const char *msg, size_t len) {
  buf_putc(out, '-');
  put_clean(out, msg, len);
  buf_put(out, "\r\n", 2);
}

static void put_bulk(buf_t *out, const char *s, size_t n) {
  buf_printf(out, "$%zu\r\n", n);
  buf_put(out, s, n);
  buf_put(out, "\r\n", 2);
}

static void put_null(buf_t *out, int proto) { buf_puts(out, proto == 3 ? "_\r\n" : "$-1\r\n"); }

static long long to_ll(lua_Number d) {
  /* what (long long)d gives on x86-64 (cvttsd2si), without C's undefined behaviour */
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return (long long)d;
}

static void put_double(buf_t *out, double d, int proto) {
  if (isinf(d)) {
    const char *s = d > 0 ? "inf" : "-inf";
    if (proto == 2) put_bulk(out, s, strlen(s));
    else buf_printf(out, ",%s\r\n", s);
    return;
  }
  char tmp[64];
  int n = snprintf(tmp, sizeof tmp, "%.17g", d);
  if (proto == 2) put_bulk(out, tmp, (size_t)n);
  else buf_printf(out, ",%s\r\n", tmp);
}

/* Pushes t[field] (raw) and returns its type. */
static int raw_field(lua_State *L, const char *field) {
  lua_pushstring(L, field);
  lua_rawget(L, -2);
  return lua_type(L, -1);
}

static void table_to_resp(lua_State *L, buf_t *out, int proto, int script_resp) {
  if (raw_field(L, "err") == LUA_TSTRING) {
    lua_pop(L, 1);
    lua_getfield(L, -1, "err");
    const char *msg = lua_tostring(L, -1);
    resp_error(out, msg ? msg : "", msg ? strlen(msg) : 0); /* Redis copies up to the first NUL */
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (raw_field(L, "ok") == LUA_TSTRING) {
    const char *s = lua_tostring(L, -1);
    buf_putc(out, '+');
    put_clean(out, s, strlen(s));
    buf_put(out, "\r\n", 2);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (raw_field(L, "double") == LUA_TNUMBER) {
    put_double(out, lua_tonumber(L, -1), proto);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (raw_field(L, "big_number") == LUA_TSTRING) {
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (proto == 2) {
      buf_printf(out, "$%zu\r\n", n);
      put_clean(out, s, n);
      buf_put(out, "\r\n", 2);
    } else {
      buf_putc(out, '(');
      put_clean(out, s, n);
      buf_put(out, "\r\n", 2);
    }
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (raw_field(L, "verbatim_string") == LUA_TTABLE) {
    if (raw_field(L, "format") == LUA_TSTRING) {
      size_t fl;
      const char *fmt = lua_tolstring(L, -1, &fl);
      lua_pushstring(L, "string");
      lua_rawget(L, -3);
      if (lua_type(L, -1) == LUA_TSTRING) {
        size_t n;
        const char *s = lua_tolstring(L, -1, &n);
        if (proto == 2) {
          put_bulk(out, s, n);
        } else {
          char f3[3] = {0, 0, 0};
          memcpy(f3, fmt, fl < 3 ? fl : 3);
          buf_printf(out, "=%zu\r\n", n + 4);
          buf_put(out, f3, 3);
          buf_putc(out, ':');
          buf_put(out, s, n);
          buf_put(out, "\r\n", 2);
        }
        lua_pop(L, 3);
        return;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  int is_map = raw_field(L, "map") == LUA_TTABLE;
  if (!is_map) {
    lua_pop(L, 1);
    if (raw_field(L, "set") != LUA_TTABLE) {
      lua_pop(L, 1);
      goto array;
    }
  }
  {
    long n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) { n++; lua_pop(L, 1); }
    if (is_map) buf_printf(out, proto == 3 ? "%%%ld\r\n" : "*%ld\r\n", proto == 3 ? n : 2 * n);
    else buf_printf(out, proto == 3 ? "~%ld\r\n" : "*%ld\r\n", n);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (is_map) {
        lua_pushvalue(L, -2);
        lua_to_resp(L, out, proto, script_resp); /* key */
        lua_to_resp(L, out, proto, script_resp); /* value */
      } else {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_to_resp(L, out, proto, script_resp);
      }
    }
    lua_pop(L, 1);
    return;
  }
array:;
  long n = 0;
  for (;;) {
    lua_rawgeti(L, -1, (int)(n + 1));
    int nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) break;
    n++;
  }
  buf_printf(out, "*%ld\r\n", n);
  for (long j = 1; j <= n; j++) {
    lua_rawgeti(L, -1, (int)j);
    lua_to_resp(L, out, proto, script_resp);
  }
}

void lua_to_resp(lua_State *L, buf_t *out, int proto, int script_resp) {
  if (!lua_checkstack(L, 4)) {
    buf_puts(out, "-ERR reached lua stack limit\r\n");
    lua_pop(L, 1);
    return;
  }
  switch (lua_type(L, -1)) {
  case LUA_TSTRING: {
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    put_bulk(out, s, n);
    break;
  }
  case LUA_TBOOLEAN: {
    int b = lua_toboolean(L, -1);
    if (script_resp == 2) {
      if (b) buf_puts(out, ":1\r\n");
      else put_null(out, proto);
    } else if (proto == 3) {
      buf_puts(out, b ? "#t\r\n" : "#f\r\n");
    } else {
      buf_puts(out, b ? ":1\r\n" : ":0\r\n");
    }
    break;
  }
  case LUA_TNUMBER:
    buf_printf(out, ":%lld\r\n", to_ll(lua_tonumber(L, -1)));
    break;
  case LUA_TTABLE:
    table_to_resp(L, out, proto, script_resp);
    break;
  default:
    put_null(out, proto);
  }
  lua_pop(L, 1);
}
