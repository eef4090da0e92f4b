/* Fault sweep: a workload over the runtime's own paths (allocation, copies
 * in every direction, memset, streams, events, waits, callbacks, unified
 * memory, the allocator's cache) runs once with each call of each
 * injectable plugin function failing in turn, until the function is no
 * longer reached; runtime destroy is part of each run. Whatever fails,
 * nothing may crash or leak (run under ASan), every result that reports
 * success must hold the right bytes, and every callback accepted must run
 * exactly once. Every injectable site is reached, except the few the
 * runtime never calls (listed with the reason): a site that stops being
 * reached, or starts being reached, fails the test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/runtime_fixture.h"
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

/* Injectable sites no path of the runtime calls, so the public API can
 * never reach them. */
static const struct {
  const char *site;
  const char *reason;
} unreachable[] = {
    {"get_device", "the runtime tracks each thread's device itself and only "
                   "ever calls set_device"},
    {"blas_axpby", "a kernel slot for frameworks calling the plugin directly; "
                   "the runtime has no BLAS entry point"},
};

static int is_unreachable(const char *site) {
  for (size_t i = 0; i < sizeof unreachable / sizeof unreachable[0]; ++i)
    if (strcmp(unreachable[i].site, site) == 0)
      return 1;
  return 0;
}

/* Injections the fault layer wrote to `log` (its stderr lines). */
static size_t injections_in(FILE *log) {
  rewind(log);
  char line[512];
  size_t n = 0;
  while (fgets(line, sizeof line, log))
    n += strncmp(line, "backplane fault: injected ", 26) == 0;
  return n;
}

/* Runs the workload and destroys the runtime with call `call` of `site`
 * failing; returns whether the fault was reached. The layer's stderr is
 * captured so faults injected during runtime destroy count too. */
static int run_with_fault(const char *site, int call, const char *status) {
  char rule[128];
  snprintf(rule, sizeof rule, "%s:%d%s", site, call, status);
  FILE *log = tmpfile();
  assert_non_null(log);
  fflush(stderr);
  int saved_stderr = dup(STDERR_FILENO);
  assert_true(saved_stderr >= 0);
  dup2(fileno(log), STDERR_FILENO);
  bp_layer_options_t options = fixture_layer_options("fault", rule);
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(bp_device_count(runtime), 2);
  atomic_int ran = 0;
  outcome_t outcome = workload(runtime, &ran);
  uint64_t injected_before_destroy =
      fixture_layer_stats(runtime).faults_injected;
  bp_runtime_destroy(runtime); /* drains streams: callbacks have run */
  fflush(stderr);
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  size_t injected = injections_in(log);
  fclose(log);
  assert_true(injected >= injected_before_destroy);
  assert_true(injected <= 1); /* one rule, one call */
  assert_int_equal(atomic_load(&ran), outcome.callbacks_accepted);
  return injected > 0;
}

static void test_workload_succeeds_without_faults(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options("fault", "");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  atomic_int ran = 0;
  outcome_t outcome = workload(runtime, &ran);
  assert_int_equal(fixture_layer_stats(runtime).faults_injected, 0);
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
    if ((call > 1) == is_unreachable(sites[s]))
      fail_msg("fault sweep: %s was %sreached", sites[s],
               call > 1 ? "" : "not ");
  }
  size_t site_count = sizeof sites / sizeof sites[0];
  size_t unreachable_count = sizeof unreachable / sizeof unreachable[0];
  printf("fault sweep: %zu runs with a fault, %zu of %zu sites reached "
         "(%zu never called by the runtime)\n",
         runs, reached_sites, site_count, unreachable_count);
  assert_int_equal(reached_sites, site_count - unreachable_count);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workload_succeeds_without_faults),
      cmocka_unit_test(test_sweep_every_site),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
