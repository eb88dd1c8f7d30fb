/* Shared declarations of the PostRESP native addon: each part registers its functions on the
 * exports object. The addon is context-aware (NAPI_MODULE_INIT), so every worker thread loads
 * its own instance; no part keeps process-global mutable state. */
#ifndef POSTRESP_ADDON_H
#define POSTRESP_ADDON_H
#define NAPI_VERSION 8
#include <node_api.h>

napi_status postresp_init_fd(napi_env env, napi_value exports);
/* pg.c: class PgConn (nonblocking libpq in pipeline mode) and libpqVersion. */
napi_status postresp_init_pg(napi_env env, napi_value exports);

/* Throws a JS Error with a stable code and returns NULL, for use as `return throw_code(...)`. */
napi_value postresp_throw(napi_env env, const char *code, const char *message);
#endif
