/* Fault sweep: a workload over the runtime's own paths (allocation, copies
 * in every direction, memset, streams, events, waits, callbacks) runs once
 * with each call of each injectable plugin function failing in turn, until
 * the function is no longer reached. Whatever fails, nothing may crash or
 * leak (run under ASan), every result that reports success must hold the
 * right bytes, and every callback accepted must run exactly once. */
#include <stdio.h>

#include "layers_fixture.h"
#include "workload.h"

enum { MAX_CALL = 64 };

static const char *const sites[] = {
    "init_device",
    "set_device",
    "get_device",
    "deinit_device",
    "create_stream",
    "destroy_stream",
    "query_stream",
    "stream_add_callback",
    "create_event",
    "record_event",
    "destroy_event",
    "query_event",
    "synchronize_device",
    "synchronize_stream",
    "synchronize_event",
    "stream_wait_event",
    "device_memory_allocate",
    "device_memory_deallocate",
    "device_memory_set",
    "host_memory_allocate",
    "host_memory_deallocate",
    "unified_memory_allocate",
    "unified_memory_deallocate",
    "memory_copy_h2d",
    "memory_copy_d2h",
    "memory_copy_d2d",
    "memory_copy_p2p",
    "async_memory_copy_h2d",
    "async_memory_copy_d2h",
    "async_memory_copy_d2d",
    "async_memory_copy_p2p",
    "device_memory_stats",
    "device_min_chunk_size",
    "device_max_chunk_size",
    "device_max_alloc_size",
    "device_extra_padding_size",
    "device_init_alloc_size",
    "device_realloc_size",
    "blas_axpby",
};

/* Runs the workload with call `call` of `site` failing; returns whether the
 * fault was reached. */
static int run_with_fault(const char *site, int call, const char *status) {
  char rule[128];
  snprintf(rule, sizeof rule, "%s:%d%s", site, call, status);
  bp_layer_options_t options = layer_options("fault", rule);
  bp_runtime_t *runtime = layered_runtime(&options);
  assert_int_equal(bp_device_count(runtime), 2);
  atomic_int ran = 0;
  outcome_t outcome = workload(runtime, &ran);
  uint64_t injected = layer_stats(runtime).faults_injected;
  bp_runtime_destroy(runtime); /* drains streams: callbacks have run */
  assert_int_equal(atomic_load(&ran), outcome.callbacks_accepted);
  (void)outcome.completed;
  return injected > 0;
}

static void test_workload_succeeds_without_faults(void **state) {
  (void)state;
  bp_layer_options_t options = layer_options("fault", "");
  bp_runtime_t *runtime = layered_runtime(&options);
  atomic_int ran = 0;
  outcome_t outcome = workload(runtime, &ran);
  assert_int_equal(layer_stats(runtime).faults_injected, 0);
  bp_runtime_destroy(runtime);
  assert_true(outcome.completed);
  assert_int_equal(atomic_load(&ran), 1);
}

static void test_sweep_every_site(void **state) {
  (void)state;
  size_t reached_sites = 0, runs = 0;
  for (size_t s = 0; s < sizeof sites / sizeof sites[0]; ++s) {
    int call = 1;
    while (call <= MAX_CALL && run_with_fault(sites[s], call, ""))
      ++call, ++runs;
    reached_sites += call > 1;
    /* The other injectable status once per reached site. */
    if (call > 1)
      run_with_fault(sites[s], 1, "=C_ERROR");
  }
  printf("fault sweep: %zu runs with a fault, %zu of %zu sites reached\n", runs,
         reached_sites, sizeof sites / sizeof sites[0]);
  /* The workload reaches every path it was written for. */
  assert_true(reached_sites >= 25);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workload_succeeds_without_faults),
      cmocka_unit_test(test_sweep_every_site),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
