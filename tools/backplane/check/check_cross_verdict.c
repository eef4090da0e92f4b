/* The cross-stream checks' verdict. */
#include "check_cross_verdict.h"

#include <stdint.h>
#include <stdio.h>

bp_check_outcome_t cross_stream_verdict(const cross_stream_seen_t *seen,
                                        char *why, size_t why_size) {
  if (seen->blocked_call) {
    snprintf(why, why_size,
             "%s on stream B did not return until held stream A was let go "
             "at its deadline: it must enqueue, not wait",
             seen->blocked_call);
    return BP_CHECK_FAIL;
  }
  if (seen->look == CHECK_LOOK_RAN_EARLY || seen->overtook) {
    snprintf(why, why_size,
             "stream B ran work while the stream it waits for was still "
             "held back");
    return BP_CHECK_FAIL;
  }
  if (seen->look == CHECK_LOOK_IDLE_EARLY) {
    snprintf(why, why_size,
             "stream B reported idle while waiting on a held stream");
    return BP_CHECK_FAIL;
  }
  if (seen->mismatch != SIZE_MAX) {
    snprintf(why, why_size, "stream B did not see stream A's data: byte %zu",
             seen->mismatch);
    return BP_CHECK_FAIL;
  }
  if (seen->callback_runs != 1) {
    snprintf(why, why_size, "stream B's callback ran %d times",
             seen->callback_runs);
    return BP_CHECK_FAIL;
  }
  if (seen->look == CHECK_LOOK_CANNOT_TELL) {
    snprintf(why, why_size,
             "inconclusive: held stream A was let go at its deadline before "
             "stream B's work could be looked at");
    return BP_CHECK_SKIP;
  }
  snprintf(why, why_size, "stream B waited for stream A%s and saw its data",
           seen->look == CHECK_LOOK_HELD ? " (held back, then released)" : "");
  return BP_CHECK_PASS;
}
