/* Growable byte buffer for RESP replies and messages. Allocation failure aborts: these buffers
 * hold at most one reply, and Lua's own allocations are capped elsewhere (sandbox.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lua-engine.h"

static void buf_grow(buf_t *b, size_t need) {
  if (b->len + need <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + need) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) abort();
  b->p = p;
  b->cap = cap;
}

void buf_put(buf_t *b, const void *p, size_t n) {
  if (!n) return;
  buf_grow(b, n);
  memcpy(b->p + b->len, p, n);
  b->len += n;
}

void buf_putc(buf_t *b, char c) { buf_put(b, &c, 1); }
void buf_puts(buf_t *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_printf(buf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  buf_grow(b, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void buf_free(buf_t *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}
