/* vcpu command ring (queue.h), reached through the static build: commands
 * come out in ticket order with their contents, across many laps of a tiny
 * ring; several producers on a ring that is almost always full lose nothing
 * and keep each producer's order; `completed` counts what was popped. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commands_come_out_in_ticket_order),
      cmocka_unit_test(test_full_ring_loses_nothing_and_keeps_order),
  };
  return cmocka_run_group_tests_name("vcpu queue", tests, NULL, NULL);
}
