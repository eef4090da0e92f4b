/* vcpu command ring (queue.h), reached through the static build: commands
 * come out in ticket order with their contents, across many laps of a tiny
 * ring; several producers on a ring that is almost always full lose nothing
 * and keep each producer's order; `completed` counts what was popped. An
 * idle ring lends its next ticket to a caller (vcpu_queue_claim_idle):
 * later commands wait behind it, whether the caller completes it or hands
 * it back, also with producers and claimers racing a live consumer. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "queue.h"

static vcpu_command tagged_command(uintptr_t tag) {
  return (vcpu_command){.kind = VCPU_COMMAND_CALLBACK,
                        .callback = {NULL, (void *)tag, NULL}};
}

static uintptr_t tag_of(const vcpu_command *command) {
  assert_int_equal(command->kind, VCPU_COMMAND_CALLBACK);
  return (uintptr_t)command->callback.user_data;
}

static void test_commands_come_out_in_ticket_order(void **state) {
  (void)state;
  enum { CAPACITY = 4, LAPS = 10 };
  vcpu_queue queue;
  assert_int_equal(vcpu_queue_init(&queue, CAPACITY), 0);
  uintptr_t next_in = 100, next_out = 100;
  for (int lap = 0; lap < LAPS; ++lap) {
    /* Fill the ring completely, then drain it: every cell changes hands. */
    for (int i = 0; i < CAPACITY; ++i) {
      vcpu_command command = tagged_command(next_in);
      assert_int_equal(vcpu_queue_push(&queue, &command), next_in - 100);
      ++next_in;
    }
    assert_int_equal(vcpu_queue_issued(&queue), (uint64_t)(lap + 1) * CAPACITY);
    for (int i = 0; i < CAPACITY; ++i) {
      assert_int_equal(tag_of(vcpu_queue_front(&queue)), next_out++);
      vcpu_queue_pop(&queue);
    }
    assert_int_equal(vcpu_progress_get(&queue.completed),
                     (uint64_t)(lap + 1) * CAPACITY);
  }
  /* Uneven pushes and pops keep the order too. */
  for (int i = 0; i < 3; ++i) {
    vcpu_command command = tagged_command(next_in++);
    vcpu_queue_push(&queue, &command);
  }
  for (int round = 0; round < 9; ++round) {
    assert_int_equal(tag_of(vcpu_queue_front(&queue)), next_out++);
    vcpu_queue_pop(&queue);
    vcpu_command command = tagged_command(next_in++);
    vcpu_queue_push(&queue, &command);
  }
  vcpu_queue_destroy(&queue);
}

enum { PRODUCERS = 3, PER_PRODUCER = 20000, TAG_SHIFT = 24 };

typedef struct producer {
  vcpu_queue *queue;
  uintptr_t id;
} producer;

static void *produce(void *arg) {
  producer *p = arg;
  for (uintptr_t i = 0; i < PER_PRODUCER; ++i) {
    vcpu_command command = tagged_command(p->id << TAG_SHIFT | i);
    vcpu_queue_push(p->queue, &command);
  }
  return NULL;
}

/* A 4-cell ring and three producers: producers wait for room all the time. */
static void test_full_ring_loses_nothing_and_keeps_order(void **state) {
  (void)state;
  vcpu_queue queue;
  assert_int_equal(vcpu_queue_init(&queue, 4), 0);
  producer producers[PRODUCERS];
  pthread_t threads[PRODUCERS];
  for (int i = 0; i < PRODUCERS; ++i) {
    producers[i] = (producer){&queue, (uintptr_t)i};
    assert_int_equal(pthread_create(&threads[i], NULL, produce, &producers[i]),
                     0);
  }
  uintptr_t expected[PRODUCERS] = {0};
  for (int n = 0; n < PRODUCERS * PER_PRODUCER; ++n) {
    uintptr_t tag = tag_of(vcpu_queue_front(&queue));
    uintptr_t id = tag >> TAG_SHIFT, index = tag & ((1u << TAG_SHIFT) - 1);
    assert_true(id < PRODUCERS);
    assert_int_equal(index, expected[id]);
    expected[id]++;
    vcpu_queue_pop(&queue);
  }
  for (int i = 0; i < PRODUCERS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(expected[i], PER_PRODUCER);
  }
  assert_int_equal(vcpu_queue_issued(&queue), PRODUCERS * PER_PRODUCER);
  assert_int_equal(vcpu_progress_get(&queue.completed),
                   PRODUCERS * PER_PRODUCER);
  vcpu_queue_destroy(&queue);
}

/* One thread: a claim is refused while anything is pending; commands pushed
 * during a claim come after it; a claim completed by its caller counts as
 * done, one handed back comes out first. */
static void test_claimed_ticket_keeps_its_place(void **state) {
  (void)state;
  vcpu_queue queue;
  assert_int_equal(vcpu_queue_init(&queue, 4), 0);
  uint64_t ticket = 99;
  assert_true(vcpu_queue_claim_idle(&queue, &ticket));
  assert_int_equal(ticket, 0);
  assert_false(vcpu_queue_claim_idle(&queue, &ticket)); /* one at a time */
  vcpu_command later = tagged_command(1);
  assert_int_equal(vcpu_queue_push(&queue, &later), 1);
  assert_int_equal(vcpu_progress_get(&queue.completed), 0);
  vcpu_queue_complete_claimed(&queue, 0);
  assert_int_equal(vcpu_progress_get(&queue.completed), 1);
  assert_false(vcpu_queue_claim_idle(&queue, &ticket)); /* 1 is pending */
  assert_int_equal(tag_of(vcpu_queue_front(&queue)), 1);
  vcpu_queue_pop(&queue);
  assert_true(vcpu_queue_claim_idle(&queue, &ticket));
  assert_int_equal(ticket, 2);
  vcpu_command after = tagged_command(3);
  vcpu_queue_push(&queue, &after);
  vcpu_command handed_back = tagged_command(2);
  vcpu_queue_publish_claimed(&queue, 2, &handed_back);
  for (uintptr_t tag = 2; tag <= 3; ++tag) {
    assert_int_equal(tag_of(vcpu_queue_front(&queue)), tag);
    vcpu_queue_pop(&queue);
  }
  assert_int_equal(vcpu_progress_get(&queue.completed), 4);
  assert_int_equal(vcpu_queue_issued(&queue), 4);
  vcpu_queue_destroy(&queue);
}

/* Threads that push, claim and complete, or claim and hand back, racing a
 * consumer on a 4-cell ring: every piece of work runs once, one at a time,
 * each thread's in its order, and a consumer that parked at a claimed
 * ticket wakes for the commands pushed behind it. */
enum { CLAIMERS = 2, PER_CLAIMER = 1000, DONE_TAG = UINTPTR_MAX };

typedef struct claimer {
  vcpu_queue *queue;
  uintptr_t id;
  _Atomic uintptr_t *ran; /* per claimer: the next index to run */
  atomic_int *running;    /* pieces of work running now */
} claimer;

/* Runs a piece of work: it must be the thread's next, and alone. */
static void run_work(const claimer *c, uintptr_t tag) {
  uintptr_t id = tag >> TAG_SHIFT, index = tag & ((1u << TAG_SHIFT) - 1);
  assert_int_equal(atomic_fetch_add(c->running, 1), 0);
  assert_int_equal(atomic_load(&c->ran[id]), index);
  atomic_store(&c->ran[id], index + 1);
  atomic_fetch_sub(c->running, 1);
}

/* Until the ring has drained (the other thread may fill it again before a
 * claim). */
static void wait_for_idle(vcpu_queue *queue) {
  while (vcpu_progress_get(&queue->completed) < vcpu_queue_issued(queue))
    sched_yield();
}

/* Mostly pushes; every eighth piece of work, once the ring drained, is
 * claimed and done here, and the next claimed and handed back. */
static void *claim_or_push(void *arg) {
  const claimer *c = arg;
  for (uintptr_t i = 0; i < PER_CLAIMER; ++i) {
    vcpu_command command = tagged_command(c->id << TAG_SHIFT | i);
    uint64_t ticket;
    bool claims = i % 8 == 1 || i % 8 == 2;
    if (claims)
      wait_for_idle(c->queue);
    if (!claims || !vcpu_queue_claim_idle(c->queue, &ticket)) {
      vcpu_queue_push(c->queue, &command);
    } else if (i % 8 == 1) {
      run_work(c, c->id << TAG_SHIFT | i);
      vcpu_queue_complete_claimed(c->queue, ticket);
    } else {
      vcpu_queue_publish_claimed(c->queue, ticket, &command);
    }
  }
  vcpu_command done = tagged_command(DONE_TAG);
  vcpu_queue_push(c->queue, &done);
  return NULL;
}

static void test_claims_race_producers_and_consumer(void **state) {
  (void)state;
  vcpu_queue queue;
  assert_int_equal(vcpu_queue_init(&queue, 4), 0);
  _Atomic uintptr_t ran[CLAIMERS] = {0};
  atomic_int running = 0;
  claimer claimers[CLAIMERS];
  pthread_t threads[CLAIMERS];
  for (int i = 0; i < CLAIMERS; ++i) {
    claimers[i] = (claimer){&queue, (uintptr_t)i, ran, &running};
    assert_int_equal(
        pthread_create(&threads[i], NULL, claim_or_push, &claimers[i]), 0);
  }
  for (int done = 0; done < CLAIMERS;) {
    uintptr_t tag = tag_of(vcpu_queue_front(&queue));
    if (tag == DONE_TAG)
      done++;
    else
      run_work(&claimers[0], tag);
    vcpu_queue_pop(&queue);
  }
  for (int i = 0; i < CLAIMERS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(atomic_load(&ran[i]), PER_CLAIMER);
  }
  assert_int_equal(vcpu_progress_get(&queue.completed),
                   vcpu_queue_issued(&queue));
  vcpu_queue_destroy(&queue);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commands_come_out_in_ticket_order),
      cmocka_unit_test(test_full_ring_loses_nothing_and_keeps_order),
      cmocka_unit_test(test_claimed_ticket_keeps_its_place),
      cmocka_unit_test(test_claims_race_producers_and_consumer),
  };
  return cmocka_run_group_tests_name("vcpu queue", tests, NULL, NULL);
}
