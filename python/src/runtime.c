/* The process-wide runtime. Reference counted under the GIL: the module
 * holds one reference until interpreter exit, every Device, Stream, Event,
 * Tensor, Module and communicator one more. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

static bp_runtime_t *runtime;
static size_t references; /* the module's + one per live object */
static int torn_down;     /* the module's reference is gone: never recreate */

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
  BPY_NOGIL(s = bp_runtime_create(NULL, &rt));
  if (s != BP_OK) {
    bpy_raise(s, "bp_runtime_create");
    return -1;
  }
  runtime = rt;
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

bp_runtime_t *bpy_runtime_if_created(void) {
  return runtime;
}

bp_runtime_t *bpy_runtime_acquire(void) {
  bp_runtime_t *rt = bpy_runtime();
  if (rt != NULL)
    ++references;
  return rt;
}

/* Destroys the runtime with its default streams (GIL released: it waits for
 * outstanding work). */
static void destroy_runtime(void) {
  bp_runtime_t *rt = runtime;
  runtime = NULL;
  BPY_NOGIL(bp_runtime_destroy(rt));
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
