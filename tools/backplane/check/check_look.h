/* Judging one look at work queued behind a gate (check_gate.h): did the
 * work stay queued while the gate held its stream back, did it run early,
 * or can the look not tell (the gate had given up at its deadline, so the
 * work may have run legitimately)? A look that cannot tell is never a pass:
 * checks report it as SKIP. Pure functions of what was seen; thread-safe. */
#ifndef BACKPLANE_CLI_CHECK_LOOK_H_
#define BACKPLANE_CLI_CHECK_LOOK_H_

typedef enum check_look {
  CHECK_LOOK_UNGATED = 0, /* streams are synchronous: nothing was held */
  CHECK_LOOK_HELD,        /* the gate held throughout; nothing ran early */
  CHECK_LOOK_RAN_EARLY,   /* work behind the gate ran while it held */
  CHECK_LOOK_IDLE_EARLY,  /* a stream behind it reported idle while it held */
  CHECK_LOOK_CANNOT_TELL, /* the gate no longer held when the look ended */
} check_look_t;

/* `ran`: some of the work behind the gate was seen done; `idle`: a stream
 * behind it answered bp_stream_query with BP_OK. Both are read first, then
 * `gate_held` (check_gate_holding) last, so a gate still holding at the end
 * held during the whole look. */
check_look_t check_look_judge(int ran, int idle, int gate_held);

#endif /* BACKPLANE_CLI_CHECK_LOOK_H_ */
