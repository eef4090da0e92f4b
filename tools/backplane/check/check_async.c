/* The asynchrony probe: does work enqueued on a stream really wait in the
 * stream? A gate callback blocks the stream; if bp_stream_add_callback only
 * returns after the callback ran, or the stream reports idle while the gate
 * holds it, the plugin's streams are synchronous (a stub such as Paddle's
 * custom_cpu). That is a verdict of its own, not a failure: later checks
 * skip what needs a real queue and still verify every result. */
#include "check.h"
#include "check_gate.h"
#include "check_pool.h"
#include "check_report.h"

/* Long enough that no pause of the checker reaches it, short enough that a
 * plugin waiting for its callbacks costs one pause of this length. */
enum { PROBE_DEADLINE_MS = 10000 };

static const char *const NAME = "streams.asynchrony";

/* Reads the verdict while the gate is (or should be) closed. */
static check_streams_t probe(check_ctx_t *ctx, check_gate_t *gate,
                             bp_stream_t *stream, char *why, size_t why_size) {
  check_gate_state_t state = check_gate_state(gate);
  if (state.ran_inline) {
    snprintf(why, why_size,
             "stream callbacks run inline on the calling "
             "thread; streams and events do not queue work");
    return CHECK_STREAMS_SYNCHRONOUS;
  }
  if (state.finished_first) {
    snprintf(why, why_size,
             "bp_stream_add_callback returned only after the callback ran "
             "(it waited %s)",
             state.timed_out ? "for the gate's deadline" : "for it");
    return CHECK_STREAMS_SYNCHRONOUS;
  }
  bp_status_t query = bp_stream_query(stream);
  if (query == BP_OK && check_gate_holding(gate)) {
    snprintf(why, why_size,
             "bp_stream_query reports the stream idle while a callback "
             "blocks it");
    return CHECK_STREAMS_SYNCHRONOUS;
  }
  if (query == BP_OK) {
    check_skip(ctx, NAME, "inconclusive: the checker was held up for %u ms",
               PROBE_DEADLINE_MS);
    return CHECK_STREAMS_UNKNOWN;
  }
  if (query != BP_ERR_NOT_READY) {
    check_fail_call(ctx, NAME, "bp_stream_query on a blocked stream", query);
    return CHECK_STREAMS_UNKNOWN;
  }
  snprintf(why, why_size,
           "work behind a blocked callback stays queued; the stream reports "
           "NOT_READY");
  return CHECK_STREAMS_ASYNCHRONOUS;
}

void check_asynchrony(check_ctx_t *ctx) {
  check_pool_t pool = {0};
  check_gate_t gate;
  check_gate_init(&gate, PROBE_DEADLINE_MS);
  bp_stream_t *stream;
  bp_status_t status = check_pool_stream(&pool, ctx->devices[0], &stream);
  if (status != BP_OK) {
    check_fail_call(ctx, NAME, "bp_stream_create", status);
  } else if ((status = check_gate_enqueue(&gate, stream)) ==
             BP_ERR_UNSUPPORTED) {
    check_skip(ctx, NAME,
               "cannot hold a stream back without callbacks (%s); checks "
               "that need a blocked stream are skipped",
               bp_last_error());
  } else if (status != BP_OK) {
    check_fail_call(ctx, NAME, "bp_stream_add_callback", status);
  } else {
    char why[256];
    check_streams_t streams = probe(ctx, &gate, stream, why, sizeof(why));
    check_gate_open(&gate);
    status = bp_stream_synchronize(stream);
    if (status != BP_OK)
      check_fail_call(ctx, NAME, "bp_stream_synchronize", status);
    else if (!check_gate_state(&gate).finished)
      check_fail(ctx, NAME,
                 "a host callback never ran, even after "
                 "bp_stream_synchronize returned");
    else if (streams != CHECK_STREAMS_UNKNOWN)
      check_verdict(ctx, NAME, streams, "%s", why);
  }
  check_gate_open(&gate);
  check_pool_release(&pool);
  check_gate_destroy(&gate);
}
