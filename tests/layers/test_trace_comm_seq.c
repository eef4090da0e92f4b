/* The trace layer's communicator sequence numbers: collectives numbered
 * from 1 per communicator, sends and receives per peer on their own, a
 * communicator re-created at the same address with another plugin handle
 * starting again. */
#include "layers/trace/trace_comm_seq.h"

#include "support/runtime_fixture.h"

static void test_lanes_are_numbered_on_their_own(void **state) {
  (void)state;
  bp_trace_comm_seqs_t seqs = {0};
  int a = 0, b = 0, native_a = 0, native_b = 0;
  assert_int_equal(bp_trace_comm_seq_next(&seqs, &a, &native_a, 3,
                                          BP_TRACE_LANE_COLLECTIVE, 0),
                   1);
  assert_int_equal(
      bp_trace_comm_seq_next(&seqs, &a, &native_a, 3, BP_TRACE_LANE_SEND, 2),
      1);
  assert_int_equal(
      bp_trace_comm_seq_next(&seqs, &a, &native_a, 3, BP_TRACE_LANE_SEND, 2),
      2);
  assert_int_equal(
      bp_trace_comm_seq_next(&seqs, &a, &native_a, 3, BP_TRACE_LANE_RECV, 2),
      1);
  assert_int_equal(
      bp_trace_comm_seq_next(&seqs, &a, &native_a, 3, BP_TRACE_LANE_SEND, 1),
      1);
  assert_int_equal(bp_trace_comm_seq_next(&seqs, &b, &native_b, 3,
                                          BP_TRACE_LANE_COLLECTIVE, 0),
                   1);
  assert_int_equal(bp_trace_comm_seq_next(&seqs, &a, &native_a, 3,
                                          BP_TRACE_LANE_COLLECTIVE, 0),
                   2);
  /* A peer outside the communicator has no number. */
  assert_int_equal(
      bp_trace_comm_seq_next(&seqs, &a, &native_a, 3, BP_TRACE_LANE_RECV, 3),
      0);
  /* Same address, new plugin handle: a new communicator. */
  assert_int_equal(bp_trace_comm_seq_next(&seqs, &a, &native_b, 3,
                                          BP_TRACE_LANE_COLLECTIVE, 0),
                   1);
  bp_trace_comm_seqs_release(&seqs);
}

static void test_many_communicators(void **state) {
  (void)state;
  bp_trace_comm_seqs_t seqs = {0};
  static char comms[1000];
  for (int round = 1; round <= 2; ++round)
    for (size_t i = 0; i < sizeof comms; ++i)
      assert_int_equal(bp_trace_comm_seq_next(&seqs, &comms[i], NULL, 2,
                                              BP_TRACE_LANE_COLLECTIVE, 0),
                       round);
  bp_trace_comm_seqs_release(&seqs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lanes_are_numbered_on_their_own),
      cmocka_unit_test(test_many_communicators),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
