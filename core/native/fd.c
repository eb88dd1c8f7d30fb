/* Descriptor hand-off: Node 20 cannot transfer a net.Socket to a worker thread, so the primary
 * dup()s the accepted descriptor, destroys its own handle and posts the number; the worker wraps
 * the copy with new net.Socket({ fd }). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "addon.h"

static int read_fd(napi_env env, napi_callback_info info, int *fd) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t value = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &value) != napi_ok || value < 0) {
    postresp_throw(env, "POSTRESP_ERR_NATIVE_ARG", "expected a file descriptor (non-negative integer)");
    return -1;
  }
  *fd = value;
  return 0;
}

/* dupFd(fd) -> new descriptor with FD_CLOEXEC set (a child process must not inherit clients). */
static napi_value dup_fd(napi_env env, napi_callback_info info) {
  int fd;
  if (read_fd(env, info, &fd) != 0) return NULL;
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return postresp_throw(env, "POSTRESP_ERR_DUP", strerror(errno));
  napi_value result;
  napi_create_int32(env, copy, &result);
  return result;
}

/* closeFd(fd): for a descriptor that was dup()ed but never reached a worker. */
static napi_value close_fd(napi_env env, napi_callback_info info) {
  int fd;
  if (read_fd(env, info, &fd) != 0) return NULL;
  if (close(fd) != 0) return postresp_throw(env, "POSTRESP_ERR_CLOSE", strerror(errno));
  return NULL;
}

napi_status postresp_init_fd(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"dupFd", NULL, dup_fd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"closeFd", NULL, close_fd, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
}
