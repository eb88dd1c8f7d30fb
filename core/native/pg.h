/* Shared by the PgConn sources: pg.c (connection, polling, JS methods), pg-results.c (packing
 * results for onresults), pg-params.c (decoding parameters from JS). The layouts they exchange
 * with JS are described at the top of pg.c. */
#ifndef POSTRESP_PG_H
#define POSTRESP_PG_H
#include <libpq-fe.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "addon.h"

#define kCodeConnection "POSTRESP_ERR_PG_CONNECTION"
#define kCodeArg "POSTRESP_ERR_NATIVE_ARG"
/* One Buffer per wakeup keeps Int32 offsets valid; past this much data the results of one wakeup
 * are split across several onresults calls (a single value is at most 1 GB in Postgres). */
#define kMaxDeliveryBytes ((size_t)1 << 30)
#define kSlabBytes ((size_t)64 * 1024)

enum { ST_CONNECTING, ST_READY, ST_CLOSED };
enum { K_OK = 0, K_ERROR = 1, K_ABORTED = 2, K_SYNC = 3 };

typedef struct {
  char *p;
  size_t len, cap;
} Bytes;

typedef struct PgConn {
  napi_env env;
  napi_ref self;                 /* the JS object; strong while busy */
  PGconn *pg;
  uv_poll_t *poll;               /* NULL once closed */
  int fd;
  int poll_events;
  int closing_handles;           /* uv_close()d handles whose close callback is pending */
  int state;
  int busy;
  int listening;                 /* setListening(true): held and ref'ed while idle, for onnotify */
  int refd;                      /* the JS object is held strongly and the poll handle ref'ed */
  int want_write;                /* PQflush returned 1: wait for writability */
  int js_gone;                   /* finalizer ran */
  int env_teardown;              /* async cleanup hook ran: no more JS calls */
  int64_t inflight;              /* commands sent (incl. syncs) whose result is not delivered */
  napi_async_cleanup_hook_handle cleanup;
  PGresult **res;                /* results collected in this wakeup */
  size_t *rsize;                 /* per result: layout ints, data bytes */
  size_t nres, capres;
  napi_ref slab_ref, slab_i32_ref; /* current delivery slab: a Buffer and an Int32Array view */
  char *slab;
  size_t slab_size, slab_used;
  const char **pvals;            /* PQsend* parameter arrays, reused */
  int *plens, *pfmts;
  size_t pcap;
  Bytes scratch;                 /* SQL text and connection options for one libpq call */
} PgConn;

/* pg.c */
void pg_call_js(PgConn *c, napi_value self, const char *name, size_t argc, napi_value *argv);
napi_value pg_self_value(PgConn *c);
void pg_set_busy(PgConn *c, int busy);
void pg_fail(PgConn *c, const char *fallback);

/* pg-results.c */
void pg_deliver(PgConn *c);
void pg_release_slab(PgConn *c);

/* pg-params.c */
int pg_bytes_reserve(Bytes *b, size_t extra);
int64_t pg_put_string(napi_env env, Bytes *b, napi_value v, size_t *out_len);
int pg_decode_params(napi_env env, PgConn *c, napi_value buf, napi_value count, napi_value refs, int *n_out);

#endif
