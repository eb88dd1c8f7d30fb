/* struct: pack/unpack binary records (Roberto Ierusalimschy's struct library that Redis
 * bundles), written here from its documented format:
 *   > big endian   < little endian   ![n] max alignment   x pad byte   ' ' ignored
 *   b/B h/H l/L    signed/unsigned char, short, long      i[n]/I[n] n-byte int (≤ 32)
 *   f d            float, double     s zero-terminated string
 *   c[n]           n chars (pack: n = 0 takes the whole string; unpack: c0 takes the
 *                  previous number read as the length)
 * Errors are raised as the library does: "bad argument #1 to 'pack' (invalid format option
 * 'y')", "data string too short", "string too short". */
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <lauxlib.h>
#include "lua-engine.h"

#define kMaxIntSize 32
#define kMaxAlign 8
#define isp2(x) ((x) > 0 && ((x) & ((x) - 1)) == 0)

typedef struct {
  int little;
  int align;
} hdr_t;

static int getnum(lua_State *L, const char **fmt, int df) {
  if (!isdigit((unsigned char)**fmt)) return df;
  int a = 0;
  do {
    if (a > (INT_MAX / 10) || a * 10 > (INT_MAX - (**fmt - '0'))) luaL_error(L, "integral size overflow");
    a = a * 10 + *((*fmt)++) - '0';
  } while (isdigit((unsigned char)**fmt));
  return a;
}

static size_t optsize(lua_State *L, char opt, const char **fmt) {
  switch (opt) {
  case 'B': case 'b': return 1;
  case 'H': case 'h': return sizeof(short);
  case 'L': case 'l': return sizeof(long);
  case 'T': return sizeof(size_t);
  case 'f': return sizeof(float);
  case 'd': return sizeof(double);
  case 'x': return 1;
  case 'c': return (size_t)getnum(L, fmt, 1);
  case 'i': case 'I': {
    int sz = getnum(L, fmt, sizeof(int));
    if (sz > kMaxIntSize) luaL_error(L, "integral size %d is larger than limit of %d", sz, kMaxIntSize);
    return (size_t)sz;
  }
  default: return 0; /* options without data, checked by the caller */
  }
}

static int is_data_opt(char opt) { return strchr("BbHhLlTfdxciIs", opt) != NULL; }

static int toalign(size_t len, hdr_t *h, int opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > (size_t)h->align) size = (size_t)h->align;
  return (int)((size - (len & (size - 1))) & (size - 1));
}

static void control(lua_State *L, int opt, const char **fmt, hdr_t *h) {
  switch (opt) {
  case ' ': return;
  case '>': h->little = 0; return;
  case '<': h->little = 1; return;
  case '!': {
    int a = getnum(L, fmt, kMaxAlign);
    if (!isp2(a)) luaL_error(L, "alignment %d is not a power of 2", a);
    h->align = a;
    return;
  }
  default: {
    const char *msg = lua_pushfstring(L, "invalid format option '%c'", opt);
    luaL_argerror(L, 1, msg);
  }
  }
}

static void put_int(lua_State *L, luaL_Buffer *b, int arg, int little, int size) {
  lua_Number n = luaL_checknumber(L, arg);
  /* values above LONG_MAX go through unsigned, like the original */
  unsigned long long v = n < (lua_Number)LLONG_MAX ? (unsigned long long)(long long)n : (unsigned long long)n;
  char fill = (n < 0) ? (char)0xff : 0;
  char bytes[kMaxIntSize];
  for (int i = 0; i < size; i++) bytes[i] = i < 8 ? (char)((v >> (8 * i)) & 0xff) : fill;
  for (int i = 0; i < size; i++) luaL_addchar(b, bytes[little ? i : size - 1 - i]);
}

static void swap_if(char *p, int size, int little) {
  if (little) return; /* x86-64 is little-endian */
  for (int i = 0, j = size - 1; i < j; i++, j--) {
    char t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

static int s_pack(lua_State *L) {
  luaL_Buffer b;
  const char *fmt = luaL_checkstring(L, 1);
  hdr_t h = {1, 1};
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L); /* keeps arguments apart from the buffer's stack use */
  luaL_buffinit(L, &b);
  while (*fmt) {
    int opt = *fmt++;
    size_t size = optsize(L, (char)opt, &fmt);
    int pad = toalign(total, &h, opt, size);
    total += (size_t)pad;
    while (pad-- > 0) luaL_addchar(&b, 0);
    switch (opt) {
    case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
      put_int(L, &b, arg++, h.little, (int)size);
      break;
    case 'x':
      luaL_addchar(&b, 0);
      break;
    case 'f': {
      float f = (float)luaL_checknumber(L, arg++);
      swap_if((char *)&f, 4, h.little);
      luaL_addlstring(&b, (char *)&f, 4);
      break;
    }
    case 'd': {
      double d = luaL_checknumber(L, arg++);
      swap_if((char *)&d, 8, h.little);
      luaL_addlstring(&b, (char *)&d, 8);
      break;
    }
    case 'c': case 's': {
      size_t l;
      const char *s = luaL_checklstring(L, arg++, &l);
      if (size == 0) size = l;
      luaL_argcheck(L, l >= size, arg, "string too short");
      luaL_addlstring(&b, s, size);
      if (opt == 's') {
        luaL_addchar(&b, 0);
        size++;
      }
      break;
    }
    default:
      control(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

static lua_Number get_int(const char *p, int little, int issigned, int size) {
  unsigned long long l = 0;
  int n = size > 8 ? 8 : size;
  for (int i = 0; i < n; i++) {
    unsigned char c = (unsigned char)(little ? p[i] : p[size - 1 - i]);
    l |= (unsigned long long)c << (8 * i);
  }
  if (!issigned) return (lua_Number)l;
  if (size < 8) {
    unsigned long long mask = ~0ULL << (size * 8 - 1);
    if (l & mask) l |= mask;
  }
  return (lua_Number)(long long)l;
}

static int s_unpack(lua_State *L) {
  hdr_t h = {1, 1};
  const char *fmt = luaL_checkstring(L, 1);
  size_t ld;
  const char *data = luaL_checklstring(L, 2, &ld);
  size_t pos = (size_t)luaL_optinteger(L, 3, 1) - 1;
  luaL_argcheck(L, pos <= ld, 3, "offset must be 1 or greater");
  lua_settop(L, 2);
  while (*fmt) {
    int opt = *fmt++;
    size_t size = optsize(L, (char)opt, &fmt);
    pos += (size_t)toalign(pos, &h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
    case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
      lua_pushnumber(L, get_int(data + pos, h.little, islower(opt), (int)size));
      break;
    case 'x':
      break;
    case 'f': {
      float f;
      memcpy(&f, data + pos, 4);
      swap_if((char *)&f, 4, h.little);
      lua_pushnumber(L, f);
      break;
    }
    case 'd': {
      double d;
      memcpy(&d, data + pos, 8);
      swap_if((char *)&d, 8, h.little);
      lua_pushnumber(L, d);
      break;
    }
    case 'c':
      if (size == 0) {
        if (lua_gettop(L) == 2 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
        size = (size_t)lua_tonumber(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
      }
      lua_pushlstring(L, data + pos, size);
      break;
    case 's': {
      const char *e = memchr(data + pos, '\0', ld - pos);
      if (!e) luaL_error(L, "unfinished string in data");
      size = (size_t)(e - (data + pos)) + 1;
      lua_pushlstring(L, data + pos, size - 1);
      break;
    }
    default:
      control(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, (lua_Integer)pos + 1);
  return lua_gettop(L) - 2;
}

static int s_size(lua_State *L) {
  hdr_t h = {1, 1};
  const char *fmt = luaL_checkstring(L, 1);
  size_t pos = 0;
  while (*fmt) {
    int opt = *fmt++;
    size_t size = optsize(L, (char)opt, &fmt);
    pos += (size_t)toalign(pos, &h, opt, size);
    if (opt == 's') luaL_argerror(L, 1, "options 'c0' - 's' have undefined sizes");
    else if (opt == 'c' && size == 0) luaL_argerror(L, 1, "options 'c0' - 's' have undefined sizes");
    if (!is_data_opt((char)opt)) control(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, (lua_Integer)pos);
  return 1;
}

int luaopen_struct_postresp(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, s_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, s_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, s_size);
  lua_setfield(L, -2, "size");
  return 1;
}
