/* Backplane's plugins (vcpu, and opencl where it is built) fill the layout of
 * Paddle's table their host asks for: InitPlugin called the way Paddle 3.3.1
 * calls it (96-byte params, 1128-byte interface, layout E) puts each function
 * at its E slot, leaves E's new slots NULL and writes nothing past 1128
 * bytes or into params' pir_default_passes; called as Paddle's first layout
 * (A, 904 bytes) it drops xccl_all_to_all; an unknown size gets nothing. The
 * reference is the same plugin's own table, asked for layout B. Slot numbers
 * are Paddle's headers'. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/device_ext.h"

#define WORDS 160
#define CANARY 0xCDCDCDCDCDCDCDCDull

typedef void (*init_plugin_fn)(CustomRuntimeParams *);

/* Storage as a host of `interface_size`/`params_size` hands it over: zeroed
 * up to the sizes, canaries past them. */
typedef struct host_call {
  uint64_t interface[WORDS];
  uint64_t params[WORDS];
} host_call_t;

static CustomRuntimeParams *call_as_host(init_plugin_fn init, host_call_t *call,
                                         size_t interface_size,
                                         size_t params_size) {
  memset(call, 0xCD, sizeof *call);
  memset(call->interface, 0, interface_size);
  memset(call->params, 0, params_size);
  CustomRuntimeParams *params = (CustomRuntimeParams *)call->params;
  params->size = params_size;
  params->interface = (C_DeviceInterface *)call->interface;
  params->interface->size = interface_size;
  init(params);
  return params;
}

static init_plugin_fn open_plugin(const char *path, void **handle) {
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle)
    fail_msg("dlopen %s: %s", path, dlerror());
  void *symbol = dlsym(*handle, "InitPlugin");
  assert_non_null(symbol);
  init_plugin_fn init;
  memcpy(&init, &symbol, sizeof init);
  return init;
}

static void assert_canaries_from(const uint64_t *words, size_t first) {
  for (size_t i = first; i < WORDS; ++i)
    if (words[i] != CANARY)
      fail_msg("word %zu past the host's size was written", i);
}

static void assert_fills_host_layouts(const char *path, const char *type) {
  void *handle;
  init_plugin_fn init = open_plugin(path, &handle);
  host_call_t *b = calloc(1, sizeof *b), *e = calloc(1, sizeof *e),
              *a = calloc(1, sizeof *a), *odd = calloc(1, sizeof *odd);
  assert_true(b && e && a && odd);

  CustomRuntimeParams *pb = call_as_host(init, b, 912, 88);
  assert_string_equal(pb->device_type, type);
  const uint64_t *bw = b->interface;
  assert_int_not_equal(bw[27], 0); /* device_memory_allocate */
  assert_int_not_equal(bw[74], 0); /* xccl_all_reduce */

  /* Paddle 3.3.1: layout E. */
  CustomRuntimeParams *pe = call_as_host(init, e, 1128, 96);
  assert_string_equal(pe->device_type, type);
  assert_string_equal(pe->sub_device_type, pb->sub_device_type);
  assert_int_equal(pe->version.major, 0);
  assert_int_equal(pe->version.minor, 1);
  assert_int_equal(pe->version.patch, 1);
  assert_int_equal(e->params[7], 0); /* pir_default_passes */
  assert_canaries_from(e->params, 96 / 8);
  const uint64_t *ew = e->interface;
  assert_int_equal(ew[0], 1128);
  for (size_t slot = 1; slot <= 58; ++slot) /* device, memory, size hints */
    assert_int_equal(ew[slot], bw[slot]);
  for (size_t slot = 59; slot <= 80; ++slot) /* device-taking info, comm name */
    assert_int_equal(ew[slot], 0);
  for (size_t slot = 81; slot <= 94; ++slot) /* collectives, shifted by 11 */
    assert_int_equal(ew[slot], bw[slot - 11]);
  for (size_t slot = 95; slot <= 102; ++slot) /* reserved_ccl_api */
    assert_int_equal(ew[slot], 0);
  for (size_t slot = 103; slot <= 108; ++slot) /* profiler */
    assert_int_equal(ew[slot], bw[slot - 11]);
  for (size_t slot = 109; slot <= 132; ++slot) /* BLAS handles, CUDA graphs */
    assert_int_equal(ew[slot], 0);
  assert_int_equal(ew[133], bw[106]); /* blas_axpby */
  assert_canaries_from(ew, 1128 / 8);

  /* Paddle's first layout: A, without xccl_all_to_all. */
  CustomRuntimeParams *pa = call_as_host(init, a, 904, 88);
  assert_string_equal(pa->device_type, type);
  const uint64_t *aw = a->interface;
  assert_int_equal(aw[82], bw[82]); /* xccl_recv */
  assert_int_equal(aw[83], 0);      /* reserved_ccl_api[0] */
  assert_int_equal(aw[91], bw[92]); /* profiler_initialize */
  assert_canaries_from(aw, 904 / 8);

  /* A size no layout has: device_type stays NULL, the table untouched. */
  CustomRuntimeParams *po = call_as_host(init, odd, 1000, 96);
  assert_null(po->device_type);
  for (size_t slot = 1; slot < 1000 / 8; ++slot)
    assert_int_equal(odd->interface[slot], 0);

  free(b);
  free(e);
  free(a);
  free(odd);
  dlclose(handle);
}

static void vcpu_fills_host_layouts(void **state) {
  (void)state;
  assert_fills_host_layouts(BP_VCPU_PLUGIN, "vcpu");
}

static void opencl_fills_host_layouts(void **state) {
  (void)state;
#ifdef BP_OPENCL_PLUGIN
  assert_fills_host_layouts(BP_OPENCL_PLUGIN, "opencl");
#else
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vcpu_fills_host_layouts),
      cmocka_unit_test(opencl_fills_host_layouts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
