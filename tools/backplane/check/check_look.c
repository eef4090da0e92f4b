/* One look at work behind a gate, judged. */
#include "check_look.h"

check_look_t check_look_judge(int ran, int idle, int gate_held) {
  if (!gate_held)
    return CHECK_LOOK_CANNOT_TELL;
  if (ran)
    return CHECK_LOOK_RAN_EARLY;
  return idle ? CHECK_LOOK_IDLE_EARLY : CHECK_LOOK_HELD;
}
