/* Which plugin slots each layer intercepts, now read from the core's slot
 * table (core/plugin_slots.h): the trace layer every C_Device-taking slot,
 * the validation layer its subset, the fault layer's rule names the same
 * list as the trace layer. Expected lists are written here by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layers/layer_functions.h"
#include "layers/trace/trace_internal.h"
#include "layers/validation/validation_internal.h"

#define DEVICE_SLOTS "init_device", "set_device", "get_device", "deinit_device"
#define CHECKED_SLOTS                                                          \
  "create_stream", "destroy_stream", "query_stream", "stream_add_callback",    \
      "create_event", "record_event", "destroy_event", "query_event",          \
      "synchronize_device", "synchronize_stream", "synchronize_event",         \
      "stream_wait_event", "device_memory_allocate",                           \
      "device_memory_deallocate", "device_memory_set", "host_memory_allocate", \
      "host_memory_deallocate", "unified_memory_allocate",                     \
      "unified_memory_deallocate", "memory_copy_h2d", "memory_copy_d2h",       \
      "memory_copy_d2d", "memory_copy_p2p", "async_memory_copy_h2d",           \
      "async_memory_copy_d2h", "async_memory_copy_d2d",                        \
      "async_memory_copy_p2p"
#define SIZE_SLOTS                                                             \
  "device_memory_stats", "device_min_chunk_size", "device_max_chunk_size",     \
      "device_max_alloc_size", "device_extra_padding_size",                    \
      "device_init_alloc_size", "device_realloc_size"

/* In layout order. */
static const char *const wrapped[] = {DEVICE_SLOTS, CHECKED_SLOTS, SIZE_SLOTS,
                                      "blas_axpby", NULL};
static const char *const checked[] = {CHECKED_SLOTS, "blas_axpby", NULL};

/* Every slot holds a distinct non-NULL stand-in. */
static void fill(C_DeviceInterface *table) {
  memset(table, 0, sizeof *table);
  for (size_t i = 0; i < bp_interface_function_count; ++i) {
    uintptr_t stand_in = 0x1000 + 16 * i;
    memcpy((char *)table + bp_interface_functions[i].offset, &stand_in,
           sizeof stand_in);
  }
}

static int listed(const char *const *names, const char *name) {
  for (size_t i = 0; names[i]; ++i)
    if (!strcmp(names[i], name))
      return 1;
  return 0;
}

/* The slots `after` changed from `before` are exactly `expected`. */
static void assert_changed(const C_DeviceInterface *before,
                           const C_DeviceInterface *after,
                           const char *const *expected) {
  size_t changed = 0;
  for (size_t i = 0; i < bp_interface_function_count; ++i) {
    const bp_interface_function_t *fn = &bp_interface_functions[i];
    int differs =
        memcmp((const char *)before + fn->offset,
               (const char *)after + fn->offset, sizeof(void (*)(void))) != 0;
    if (differs != listed(expected, fn->name))
      fail_msg("%s is %s", fn->name,
               differs ? "intercepted but should not be"
                       : "not intercepted but should be");
    changed += (size_t)differs;
  }
  size_t count = 0;
  while (expected[count])
    count++;
  assert_int_equal(changed, count);
}

/* The slots, then the kernels extension's calls. */
static void test_layer_function_names(void **state) {
  (void)state;
  size_t count = sizeof wrapped / sizeof wrapped[0] - 1;
  assert_int_equal(BP_LAYER_FN_COUNT, count + 2);
  for (size_t i = 0; i < count; ++i)
    assert_string_equal(bp_layer_function_names[i], wrapped[i]);
  assert_string_equal(bp_layer_function_names[count], "module_load");
  assert_string_equal(bp_layer_function_names[count + 1], "launch");
  assert_int_equal(bp_layer_function_find("launch", strlen("launch")),
                   BP_LAYER_FN_launch);
  assert_int_equal(bp_layer_function_find("blas_axpby", strlen("blas_axpby")),
                   BP_LAYER_FN_blas_axpby);
  assert_int_equal(bp_layer_function_find("xccl_send", strlen("xccl_send")),
                   -1);
}

static void test_trace_intercepts_every_device_slot(void **state) {
  (void)state;
  C_DeviceInterface before, table;
  fill(&before);
  table = before;
  bp_trace_layer_t *layer = calloc(1, sizeof *layer);
  assert_non_null(layer);
  bp_trace_layer_install(layer, &table);
  assert_changed(&before, &table, wrapped);
  assert_memory_equal(&layer->next, &before, sizeof before);
  free(layer);
}

static void test_validation_intercepts_its_subset(void **state) {
  (void)state;
  C_DeviceInterface before, table;
  fill(&before);
  table = before;
  bp_validation_layer_t *layer = calloc(1, sizeof *layer);
  assert_non_null(layer);
  bp_validation_layer_install(layer, &table);
  assert_changed(&before, &table, checked);
  assert_memory_equal(&layer->next, &before, sizeof before);
  free(layer);
}

/* A slot the plugin left empty stays empty under every layer. */
static void test_empty_slots_stay_empty(void **state) {
  (void)state;
  C_DeviceInterface empty, table;
  memset(&empty, 0, sizeof empty);
  table = empty;
  bp_trace_layer_t *trace = calloc(1, sizeof *trace);
  bp_validation_layer_t *validation = calloc(1, sizeof *validation);
  assert_non_null(trace);
  assert_non_null(validation);
  bp_trace_layer_install(trace, &table);
  bp_validation_layer_install(validation, &table);
  assert_memory_equal(&table, &empty, sizeof empty);
  free(trace);
  free(validation);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layer_function_names),
      cmocka_unit_test(test_trace_intercepts_every_device_slot),
      cmocka_unit_test(test_validation_intercepts_its_subset),
      cmocka_unit_test(test_empty_slots_stay_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
