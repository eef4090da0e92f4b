/* Keeping the ranks of a host on different CPUs. Linux may place the stream
 * workers of two ranks on one CPU while another CPU idles (a wake-up puts the
 * woken thread beside its waker), and it rarely separates two threads that
 * hand one CPU back and forth every few microseconds: each meeting then costs
 * a context switch (2-3 µs instead of ~0.3 µs for a 1 KiB all_reduce). So
 * after a streak of meetings where a peer ran on this rank's CPU, the rank
 * moves to an allowed CPU none of its peers was seen on: it pins itself
 * there, which migrates it at once, and unpins itself right away, so the
 * scheduler stays free to place it afterwards. Only the higher rank of a
 * crowded pair moves; nothing moves when every allowed CPU is taken.
 * Called by the rank's own thread after each meeting. */
#ifndef BACKPLANE_VCPU_COMM_SPREAD_H_
#define BACKPLANE_VCPU_COMM_SPREAD_H_

#include <stdint.h>

#include "comm/comm.h"

/* Crowded meetings in a row before a rank moves: enough that a pair which
 * met on one CPU by chance gets sorted out by the scheduler first. */
enum { VCPU_COMM_CROWDED_BEFORE_MOVING = 16 };

/* `cpu`: where this rank arrived at the meeting that just ended. */
void vcpu_comm_spread_after_meeting(C_CCLComm comm, int32_t cpu);

#endif /* BACKPLANE_VCPU_COMM_SPREAD_H_ */
