/* Entry point of the PostRESP native addon (binding.gyp target "postresp"). */
#include "addon.h"

napi_value postresp_throw(napi_env env, const char *code, const char *message) {
  napi_throw_error(env, code, message);
  return NULL;
}

NAPI_MODULE_INIT() {
  if (postresp_init_fd(env, exports) != napi_ok) return NULL;
  if (postresp_init_pg(env, exports) != napi_ok) return NULL;
  return exports;
}
