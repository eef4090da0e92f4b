#include "comm/spread.h"

#include <sched.h>
#include <stdbool.h>

static bool cpu_seen_on_a_peer(const vcpu_comm_world_t *world, size_t self,
                               int32_t cpu) {
  for (size_t r = 0; r < world->nranks; r++)
    if (r != self &&
        atomic_load_explicit(&world->slots[r].cpu, memory_order_relaxed) == cpu)
      return true;
  return false;
}

/* Pins the calling thread to an allowed CPU that no rank was seen on, then
 * gives it its whole allowed set back. A CPU that refuses (offline) is
 * skipped; other failures (more CPUs than a cpu_set_t holds, a seccomp
 * filter) leave the thread where it is. */
static void move_to_a_free_cpu(C_CCLComm comm, int32_t cpu) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return;
  for (int32_t c = 0; c < CPU_SETSIZE; c++) {
    if (c == cpu || !CPU_ISSET(c, &allowed) ||
        cpu_seen_on_a_peer(comm->world, comm->rank, c))
      continue;
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(c, &only);
    if (sched_setaffinity(0, sizeof only, &only) != 0)
      continue;
    atomic_store_explicit(&comm->world->slots[comm->rank].cpu, c,
                          memory_order_relaxed);
    sched_setaffinity(0, sizeof allowed, &allowed);
    return;
  }
}

void vcpu_comm_spread_after_meeting(C_CCLComm comm, int32_t cpu) {
  const vcpu_comm_world_t *world = comm->world;
  bool crowded = false, lowest = true;
  for (size_t r = 0; r < world->nranks; r++) {
    if (r == comm->rank ||
        atomic_load_explicit(&world->slots[r].cpu, memory_order_relaxed) != cpu)
      continue;
    crowded = true;
    lowest = lowest && r > comm->rank;
  }
  uint32_t before =
      atomic_load_explicit(&comm->crowded_meetings, memory_order_relaxed);
  uint32_t streak = crowded ? before + 1 : 0;
  if (streak >= VCPU_COMM_CROWDED_BEFORE_MOVING && !lowest) {
    move_to_a_free_cpu(comm, cpu);
    streak = 0;
  }
  if (streak != before) /* the line stays clean while nobody is crowded */
    atomic_store_explicit(&comm->crowded_meetings, streak,
                          memory_order_relaxed);
}
