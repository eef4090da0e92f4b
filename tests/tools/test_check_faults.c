/* `backplane check --quick` on vcpu under a fault sweep: every function the
 * fault layer can fail fails with probability 0.05, then 0.3, for a few
 * seeds. Checks may FAIL (exit 1); the command must neither die of a signal
 * nor hang (a time limit far below the suite's), and must still end with
 * its summary line. Gate deadlines are capped (BACKPLANE_CHECK_GATE_MS) so a
 * call that waits for a held stream under a fault costs little. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layers/layer_functions.h"
#include "tool_runner.h"

enum { TIME_LIMIT_S = 20 };

/* Every function the fault layer intercepts, from the layers' own list. */
#define WRAPPED_NAME(name, need, layers, params, args)                         \
  BP_SLOT_IF_WRAPPED(layers)(#name, )
#define KERNEL_NAME(name) #name,
static const char *const functions[] = {
    BP_PLUGIN_SLOTS(WRAPPED_NAME) BP_LAYER_KERNEL_FUNCTIONS(KERNEL_NAME)};
#undef WRAPPED_NAME
#undef KERNEL_NAME

static void check_survives(const char *probability, unsigned seed) {
  char spec[4096] = "";
  size_t used = 0;
  for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
    used += (size_t)snprintf(spec + used, sizeof spec - used, "%s:p=%s,",
                             functions[i], probability);
  snprintf(spec + used, sizeof spec - used, "seed=%u", seed);
  assert_true(used < sizeof spec - 16);
  setenv("BACKPLANE_LAYERS", "fault", 1);
  setenv("BACKPLANE_FAULT", spec, 1);
  setenv("BACKPLANE_CHECK_GATE_MS", "500", 1);
  tool_run_t run;
  assert_int_equal(tool_run_within((const char *[]){"check", "--plugin", "vcpu",
                                                    "--quick", NULL},
                                   NULL, TIME_LIMIT_S, &run),
                   0);
  fprintf(stderr, "--- p=%s seed=%u: exit %d, %zu FAIL lines\n", probability,
          seed, run.exit_code, tool_count_lines(run.out, "FAIL"));
  if (run.timed_out)
    fail_msg("p=%s seed=%u: check still running after %d s:\n%s", probability,
             seed, TIME_LIMIT_S, run.out);
  if (run.exit_code > 1)
    fail_msg("p=%s seed=%u: exit code %d (a signal or a usage error):\n%s",
             probability, seed, run.exit_code, run.out);
  /* It finished: the summary line, or (runtime creation failed) why. */
  assert_true(strstr(run.out, " failed, ") || (run.err && run.err[0]));
  tool_run_release(&run);
}

static void test_rare_faults(void **state) {
  (void)state;
  for (unsigned seed = 1; seed <= 4; seed++)
    check_survives("0.05", seed);
}

static void test_frequent_faults(void **state) {
  (void)state;
  for (unsigned seed = 1; seed <= 4; seed++)
    check_survives("0.3", seed);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rare_faults),
      cmocka_unit_test(test_frequent_faults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
