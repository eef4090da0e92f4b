/* The verdict of the cross-stream checks (check_cross_stream.c), apart from
 * the runtime calls that produce its evidence, so that its rules are tested
 * on their own: work on stream B ordered after held stream A must not run
 * early, must see A's data, and a look that cannot tell never passes. Pure;
 * thread-safe. */
#ifndef BACKPLANE_CLI_CHECK_CROSS_VERDICT_H_
#define BACKPLANE_CLI_CHECK_CROSS_VERDICT_H_

#include <stddef.h>

#include "backplane/check.h"
#include "check_look.h"

/* What a cross-stream check saw once every call had succeeded. */
typedef struct cross_stream_seen {
  const char *blocked_call; /* a call on B that returned only after A's gate
                               gave up at its deadline; NULL if none did */
  check_look_t look;        /* B's work, looked at while A was held */
  int overtook;             /* B's callback ran while A's gate held */
  size_t mismatch;          /* first byte of B's copy that differs from A's
                               data; SIZE_MAX if none */
  int callback_runs;        /* how often B's callback ran in all */
} cross_stream_seen_t;

/* BP_CHECK_PASS only when B's work stayed queued while A was held (or the
 * streams are synchronous), B saw A's data and B's callback ran once;
 * BP_CHECK_SKIP when the look cannot tell; else BP_CHECK_FAIL. Writes the
 * reason (or, for a pass, what was shown) into `why`. */
bp_check_outcome_t cross_stream_verdict(const cross_stream_seen_t *seen,
                                        char *why, size_t why_size);

#endif /* BACKPLANE_CLI_CHECK_CROSS_VERDICT_H_ */
