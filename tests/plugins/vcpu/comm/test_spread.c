/* Ranks kept on different CPUs (comm/spread.h), on a two-rank world built by
 * hand: after a streak of meetings where its peer ran on its CPU, the higher
 * rank moves to a CPU no rank was seen on and keeps its whole affinity mask;
 * the lower rank never moves; a meeting on separate CPUs ends a streak;
 * nothing moves when every allowed CPU is taken. Skipped with fewer than two
 * allowed CPUs. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "comm/comm.h"
#include "comm/spread.h"

enum { STREAK = VCPU_COMM_CROWDED_BEFORE_MOVING, MAX_RANKS = 3 };

typedef struct fixture {
  vcpu_comm_rank_slot_t slots[MAX_RANKS];
  vcpu_comm_world_t world;
  struct C_CCLComm_st comm;
  cpu_set_t allowed;
  int first, second; /* two allowed CPUs */
} fixture;

/* The calling thread on `cpu`, then free again on its whole mask. */
static void start_on(const fixture *f, int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  assert_int_equal(sched_setaffinity(0, sizeof f->allowed, &f->allowed), 0);
}

static int setup(void **state) {
  static fixture f;
  memset(&f, 0, sizeof f);
  if (sched_getaffinity(0, sizeof f.allowed, &f.allowed) != 0)
    return -1;
  f.first = f.second = -1;
  for (int c = 0; c < CPU_SETSIZE && f.second < 0; c++)
    if (CPU_ISSET(c, &f.allowed))
      *(f.first < 0 ? &f.first : &f.second) = c;
  f.world.nranks = 2;
  f.world.slots = f.slots;
  f.comm.world = &f.world;
  f.comm.nranks = 2;
  *state = &f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  sched_setaffinity(0, sizeof f->allowed, &f->allowed);
  return 0;
}

/* The fixture, or a skip on a machine with one allowed CPU. */
static fixture *two_cpus(void **state) {
  fixture *f = *state;
  if (f->second < 0)
    skip();
  return f;
}

static bool mask_is_whole(const fixture *f) {
  cpu_set_t now;
  return sched_getaffinity(0, sizeof now, &now) == 0 &&
         CPU_EQUAL(&now, &f->allowed);
}

/* `count` meetings of f->comm's rank on `cpu`, its peer (rank 1 - rank)
 * last seen on `peer_cpu`. */
static void meet(fixture *f, int cpu, int peer_cpu, int count) {
  for (int i = 0; i < count; i++) {
    atomic_store(&f->slots[f->comm.rank].cpu, cpu);
    atomic_store(&f->slots[1 - f->comm.rank].cpu, peer_cpu);
    vcpu_comm_spread_after_meeting(&f->comm, cpu);
  }
}

static void test_higher_rank_moves_off_a_crowded_cpu(void **state) {
  fixture *f = two_cpus(state);
  f->comm.rank = 1;
  start_on(f, f->first);
  meet(f, f->first, f->first, STREAK - 1);
  assert_int_equal(atomic_load(&f->comm.crowded_meetings), STREAK - 1);
  assert_int_equal(atomic_load(&f->slots[1].cpu), f->first);

  atomic_store(&f->slots[0].cpu, f->first);
  vcpu_comm_spread_after_meeting(&f->comm, f->first);
  int moved_to = atomic_load(&f->slots[1].cpu);
  assert_int_not_equal(moved_to, f->first);
  assert_true(CPU_ISSET(moved_to, &f->allowed));
  assert_int_equal(sched_getcpu(), moved_to);
  assert_true(mask_is_whole(f));
  assert_int_equal(atomic_load(&f->comm.crowded_meetings), 0);
}

static void test_lower_rank_stays(void **state) {
  fixture *f = two_cpus(state);
  f->comm.rank = 0;
  start_on(f, f->first);
  meet(f, f->first, f->first, 3 * STREAK);
  assert_int_equal(atomic_load(&f->slots[0].cpu), f->first);
  assert_int_equal(atomic_load(&f->comm.crowded_meetings), 3 * STREAK);
  assert_true(mask_is_whole(f));
}

static void test_meeting_apart_ends_the_streak(void **state) {
  fixture *f = two_cpus(state);
  f->comm.rank = 1;
  meet(f, f->first, f->first, STREAK - 1);
  meet(f, f->first, f->second, 1);
  assert_int_equal(atomic_load(&f->comm.crowded_meetings), 0);
  meet(f, f->first, f->first, STREAK - 1);
  assert_int_equal(atomic_load(&f->comm.crowded_meetings), STREAK - 1);
}

/* Rank 1 of three, pinned to two CPUs both taken by its peers. */
static void test_no_move_when_every_cpu_is_taken(void **state) {
  fixture *f = two_cpus(state);
  cpu_set_t two;
  CPU_ZERO(&two);
  CPU_SET(f->first, &two);
  CPU_SET(f->second, &two);
  assert_int_equal(sched_setaffinity(0, sizeof two, &two), 0);
  f->world.nranks = f->comm.nranks = 3;
  f->comm.rank = 1;
  atomic_store(&f->slots[0].cpu, f->first);
  atomic_store(&f->slots[2].cpu, f->second);
  for (int i = 0; i < STREAK; i++) {
    atomic_store(&f->slots[1].cpu, f->first);
    vcpu_comm_spread_after_meeting(&f->comm, f->first);
  }
  assert_int_equal(atomic_load(&f->slots[1].cpu), f->first);
  cpu_set_t now;
  assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
  assert_true(CPU_EQUAL(&now, &two));
  f->world.nranks = f->comm.nranks = 2;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_higher_rank_moves_off_a_crowded_cpu,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_lower_rank_stays, setup, teardown),
      cmocka_unit_test_setup_teardown(test_meeting_apart_ends_the_streak, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_no_move_when_every_cpu_is_taken,
                                      setup, teardown),
  };
  return cmocka_run_group_tests_name("vcpu comm spread", tests, NULL, NULL);
}
