/* Descriptor hand-off: Node 20 cannot transfer a net.Socket to a worker thread, so the primary
 * dup()s the accepted descriptor, destroys its own handle and posts the number; the worker wraps
 * the copy with new net.Socket({ fd }). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* sendFd(fd, buffer) -> bytes sent (may be short), or -errno (-EAGAIN when the socket is full).
 * One nonblocking send(2) for a reply flush while nothing is queued in the net.Socket: the
 * Writable path (WriteWrap, afterWrite tick) cost ~8% of a worker's CPU for -P 16 PING. */
static napi_value send_fd(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t fd = -1;
  void *data = NULL;
  size_t len = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0 ||
      napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok) {
    return postresp_throw(env, "POSTRESP_ERR_NATIVE_ARG", "expected sendFd(fd, buffer)");
  }
  ssize_t n;
  do n = send(fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
  napi_value result;
  napi_create_int64(env, n < 0 ? -(int64_t)errno : (int64_t)n, &result);
  return result;
}

/* socketId(fd) -> the descriptor's inode number (a socket's is unique while it is open), or -errno.
 * sendFdIf(fd, id, buffer) -> sendFd's result, or -ESTALE when fd is no longer that socket.
 * Another worker thread writes a subscriber's socket itself (core/bus/socket-slots.ts): the
 * owning thread may have closed the descriptor and the number gone to a new client (a worker
 * that died closes its sockets with no chance to say so); one fstat (~0.3 us) rules that out. */
static napi_value socket_id(napi_env env, napi_callback_info info) {
  int fd;
  if (read_fd(env, info, &fd) != 0) return NULL;
  struct stat st;
  napi_value result;
  napi_create_double(env, fstat(fd, &st) != 0 ? -(double)errno : (double)st.st_ino, &result);
  return result;
}

static napi_value send_fd_if(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t fd = -1;
  double id = 0;
  void *data = NULL;
  size_t len = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0 ||
      napi_get_value_double(env, argv[1], &id) != napi_ok ||
      napi_get_buffer_info(env, argv[2], &data, &len) != napi_ok) {
    return postresp_throw(env, "POSTRESP_ERR_NATIVE_ARG", "expected sendFdIf(fd, id, buffer)");
  }
  struct stat st;
  ssize_t n;
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) || (double)st.st_ino != id) {
    n = -1;
    errno = ESTALE;
  } else {
    do n = send(fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
  }
  napi_value result;
  napi_create_int64(env, n < 0 ? -(int64_t)errno : (int64_t)n, &result);
  return result;
}

napi_status postresp_init_fd(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"dupFd", NULL, dup_fd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"closeFd", NULL, close_fd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"sendFd", NULL, send_fd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"socketId", NULL, socket_id, NULL, NULL, NULL, napi_enumerable, NULL},
    {"sendFdIf", NULL, send_fd_if, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
}
