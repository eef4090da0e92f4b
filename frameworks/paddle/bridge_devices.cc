/* The bridge's runtime, its visible devices and its op library. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"

enum { BRIDGE_MAX_DEVICES = 64 };

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static int open_result = -1;
static bp_runtime_t *runtime;
static bp_ops_library_t *ops_library;
static bp_device_t *devices[BRIDGE_MAX_DEVICES];
static size_t device_count;

/* Paddle's device ids are the runtime's ordinals: the runtime already
 * selected and ordered its devices by BACKPLANE_VISIBLE_DEVICES. */
static int resolve_devices(void) {
  size_t n = bp_device_count(runtime);
  if (n > BRIDGE_MAX_DEVICES) {
    fprintf(stderr,
            "backplane paddle bridge: %zu devices, at most %d are served "
            "(choose with BACKPLANE_VISIBLE_DEVICES)\n",
            n, BRIDGE_MAX_DEVICES);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (bp_device_at(runtime, i, &devices[device_count++]) != BP_OK)
      return -1;
  return 0;
}

static int open_ops_library(void) {
  const char *path = getenv("BACKPLANE_OPS_LIBRARY");
  char beside[4096];
  if (path == NULL || *path == '\0') {
    Dl_info info;
    if (dladdr((void *)bp_runtime_create, &info) == 0 || info.dli_fname == NULL)
      return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(beside, sizeof beside,
             "%.*s/backplane/ops/libbackplane_ops_ref.so", dir,
             slash ? info.dli_fname : ".");
    path = beside;
  }
  if (bp_ops_library_open(path, &ops_library) != BP_OK) {
    fprintf(stderr, "backplane paddle bridge: op library: %s\n",
            bp_last_error());
    return -1;
  }
  return 0;
}

static void open_runtime(void) {
  bp_runtime_options_t options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  /* Not CUSTOM_DEVICE_ROOT: the bridge lives there. */
  options.plugin_path = getenv("BACKPLANE_PLUGIN_PATH");
  options.ignore_environment = 1;
  const char *visible = getenv("BACKPLANE_VISIBLE_DEVICES");
  options.visible_devices = visible ? visible : "";
  if (bp_runtime_create(&options, &runtime) != BP_OK) {
    fprintf(stderr,
            "backplane paddle bridge (BACKPLANE_VISIBLE_DEVICES=%s): %s\n",
            visible ? visible : "", bp_last_error());
    return;
  }
  if (resolve_devices() != 0 || open_ops_library() != 0) {
    bp_runtime_destroy(runtime);
    runtime = NULL;
    device_count = 0;
    return;
  }
  open_result = 0;
}

int bridge_open(void) {
  pthread_once(&open_once, open_runtime);
  return open_result;
}

bp_runtime_t *bridge_runtime(void) {
  return runtime;
}

size_t bridge_device_count(void) {
  return device_count;
}

bp_device_t *bridge_device(size_t id) {
  return id < device_count ? devices[id] : NULL;
}

static thread_local int current_id;
/* The device this thread last made Backplane's active one; -1: none. */
static thread_local int activated_id = -1;

bp_status_t bridge_set_current(int id) {
  current_id = id;
  if (activated_id == id)
    return BP_OK;
  bp_status_t status = bp_device_set_active(devices[id]);
  activated_id = status == BP_OK ? id : -1;
  return status;
}

int bridge_current_id(void) {
  return current_id;
}

bp_device_t *bridge_current_device(void) {
  return bridge_device((size_t)current_id);
}

void *bridge_op(const char *name) {
  void *fn = NULL;
  if (ops_library == NULL ||
      bp_ops_library_find(ops_library, name, &fn) != BP_OK)
    return NULL;
  return fn;
}

const char *bridge_ops_last_error(void) {
  return ops_library ? bp_ops_library_last_error(ops_library) : "";
}

bp_status_t bridge_note(const char *call, bp_status_t status) {
  static int debug = -1;
  if (debug < 0) {
    const char *v = getenv("BACKPLANE_PADDLE_DEBUG");
    debug = v && *v && strcmp(v, "0") != 0;
  }
  if (status != BP_OK && status != BP_ERR_NOT_READY && debug)
    fprintf(stderr, "backplane paddle bridge: %s: %s: %s\n", call,
            bp_status_name(status), bp_last_error());
  return status;
}
