/* Helpers of the kernel tests: a runtime over vcpu (two devices) and the
 * test kernel library loaded on device 0. */
#ifndef BACKPLANE_TESTS_KERNEL_FIXTURE_H_
#define BACKPLANE_TESTS_KERNEL_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "support/runtime_fixture.h"

typedef struct kernel_fixture {
  bp_runtime_t *runtime;
  bp_device_t *dev0, *dev1;
  bp_module_t *module;
  bp_stream_t *stream;
} kernel_fixture_t;

static inline int kernel_fixture_open(void **state) {
  kernel_fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_at(f->runtime, 0, &f->dev0), BP_OK);
  assert_int_equal(bp_device_at(f->runtime, 1, &f->dev1), BP_OK);
  assert_int_equal(bp_module_load(f->dev0, BP_TEST_KERNELS, &f->module), BP_OK);
  assert_int_equal(bp_stream_create(f->dev0, &f->stream), BP_OK);
  *state = f;
  return 0;
}

static inline int kernel_fixture_close(void **state) {
  kernel_fixture_t *f = *state;
  assert_int_equal(bp_stream_destroy(f->stream), BP_OK);
  assert_int_equal(bp_module_unload(f->module), BP_OK);
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static inline bp_function_t *kernel_fixture_function(kernel_fixture_t *f,
                                                     const char *name) {
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(f->module, name, &function), BP_OK);
  return function;
}

/* Device memory of dev0 zeroed, freed with bp_device_free; vcpu device memory
 * is host-addressable. */
static inline void *kernel_fixture_zeroed(kernel_fixture_t *f, size_t bytes) {
  void *p = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, bytes, &p), BP_OK);
  memset(p, 0, bytes);
  return p;
}

#endif /* BACKPLANE_TESTS_KERNEL_FIXTURE_H_ */
