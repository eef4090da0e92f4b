/* The process-wide runtime and each device's default stream. Reference
 * counted under the GIL: the module holds one reference until interpreter
 * exit, every Device, Stream, Event, Tensor and communicator one more. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

static bp_runtime_t *runtime;
static size_t references; /* the module's + one per live object */
static int torn_down;     /* the module's reference is gone: never recreate */
static bp_stream_t **default_streams; /* by ordinal */
static size_t device_count;

/* Python opens extensions RTLD_LOCAL, so libbackplane came in local too;
 * plugins find the host's hooks (profiler_add_*_trace_event) with
 * dlsym(RTLD_DEFAULT), as under Paddle, so make it global. */
static void make_library_global(void) {
  Dl_info info;
  if (dladdr((void *)bp_runtime_create, &info) != 0 && info.dli_fname != NULL)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

static int create_runtime(void) {
  make_library_global();
  bp_runtime_t *rt = NULL;
  bp_status_t s;
  PyThreadState *ts = PyEval_SaveThread();
  s = bp_runtime_create(NULL, &rt);
  PyEval_RestoreThread(ts);
  if (s != BP_OK) {
    bpy_raise(s, "bp_runtime_create");
    return -1;
  }
  size_t n = bp_device_count(rt);
  default_streams = calloc(n ? n : 1, sizeof *default_streams);
  if (default_streams == NULL) {
    bp_runtime_destroy(rt);
    PyErr_NoMemory();
    return -1;
  }
  runtime = rt;
  device_count = n;
  references = 1; /* the module's */
  return 0;
}

bp_runtime_t *bpy_runtime(void) {
  if (runtime != NULL)
    return runtime;
  if (torn_down) {
    PyErr_SetString(PyExc_RuntimeError,
                    "backplane: the runtime was released at exit");
    return NULL;
  }
  return create_runtime() == 0 ? runtime : NULL;
}

bp_runtime_t *bpy_runtime_acquire(void) {
  bp_runtime_t *rt = bpy_runtime();
  if (rt != NULL)
    ++references;
  return rt;
}

/* Destroys the default streams, then the runtime (GIL released: both wait
 * for outstanding work). */
static void destroy_runtime(void) {
  bp_runtime_t *rt = runtime;
  bp_stream_t **streams = default_streams;
  size_t n = device_count;
  runtime = NULL;
  default_streams = NULL;
  device_count = 0;
  PyThreadState *ts = PyEval_SaveThread();
  for (size_t i = 0; i < n; ++i)
    bp_stream_destroy(streams[i]);
  bp_runtime_destroy(rt);
  PyEval_RestoreThread(ts);
  free(streams);
}

void bpy_runtime_release(void) {
  if (runtime != NULL && --references == 0)
    destroy_runtime();
}

void bpy_runtime_release_module(void) {
  if (torn_down)
    return;
  torn_down = 1;
  bpy_runtime_release();
}

bp_stream_t *bpy_default_stream(bp_device_t *device) {
  size_t ordinal = bp_device_ordinal(device);
  if (runtime == NULL || ordinal >= device_count) {
    PyErr_SetString(PyExc_RuntimeError, "backplane: no runtime");
    return NULL;
  }
  if (default_streams[ordinal] == NULL) {
    bp_stream_t *stream = NULL;
    bp_status_t s;
    PyThreadState *ts = PyEval_SaveThread();
    s = bp_stream_create(device, &stream);
    PyEval_RestoreThread(ts);
    if (s != BP_OK) {
      bpy_raise(s, NULL);
      return NULL;
    }
    /* Another thread may have raced us while the GIL was released. */
    if (default_streams[ordinal] != NULL) {
      ts = PyEval_SaveThread();
      bp_stream_destroy(stream);
      PyEval_RestoreThread(ts);
    } else {
      default_streams[ordinal] = stream;
    }
  }
  return default_streams[ordinal];
}

const char *bpy_library_dir(void) {
  static char dir[PATH_MAX];
  if (dir[0] == '\0') {
    Dl_info info;
    if (dladdr((void *)bp_runtime_create, &info) == 0 || info.dli_fname == NULL)
      return NULL;
    char *real = realpath(info.dli_fname, NULL);
    if (real == NULL)
      return NULL;
    char *slash = strrchr(real, '/');
    if (slash != NULL)
      *slash = '\0';
    snprintf(dir, sizeof dir, "%s", real);
    free(real);
  }
  return dir;
}
