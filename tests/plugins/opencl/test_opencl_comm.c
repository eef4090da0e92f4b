/* The opencl plugin's host-staged collectives through the framework face:
 * two POCL devices (POCL_DEVICES="pthread pthread"), one communicator per
 * device, every collective and a send/receive on device memory at offsets
 * inside allocations, on whichever memory path BACKPLANE_OPENCL_MEMORY
 * selects. Expected values are written out from the inputs' formula. */
#include <stdio.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"

enum { RANKS = 2, COUNT = 1031, PAD = 16 };

typedef struct comm_fixture {
  bp_runtime_t *runtime;
  bp_device_t *devices[RANKS];
  bp_stream_t *streams[RANKS];
  bp_comm_t *comms[RANKS];
  float *send[RANKS], *recv[RANKS]; /* device, PAD elements into each block */
} comm_fixture_t;

/* Rank r's input element i. */
static float input(size_t r, size_t i) {
  return (float)(r * 1000 + i % 97);
}

static int setup(void **state) {
  comm_fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  const char *reason = fixture_rejection(f->runtime, OPENCL_PLUGIN_PATH);
  if (reason)
    fail_msg("the opencl plugin was rejected: %s", reason);
  size_t bytes = (PAD + RANKS * COUNT) * sizeof(float);
  for (size_t r = 0; r < RANKS; r++) {
    assert_int_equal(bp_device_get(f->runtime, "opencl", r, &f->devices[r]),
                     BP_OK);
    assert_int_equal(bp_stream_create(f->devices[r], &f->streams[r]), BP_OK);
    void *send, *recv;
    assert_int_equal(bp_device_malloc(f->devices[r], bytes, &send), BP_OK);
    assert_int_equal(bp_device_malloc(f->devices[r], bytes, &recv), BP_OK);
    f->send[r] = (float *)send + PAD;
    f->recv[r] = (float *)recv + PAD;
    float host[RANKS * COUNT];
    for (size_t i = 0; i < RANKS * COUNT; i++)
      host[i] = input(r, i);
    assert_int_equal(
        bp_copy(f->devices[r], f->send[r], NULL, host, sizeof host, NULL),
        BP_OK);
    assert_int_equal(bp_memset(f->devices[r], f->recv[r], 0, sizeof host, NULL),
                     BP_OK);
  }
  assert_int_equal(bp_comm_init_all(f->devices, RANKS, f->comms), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++) {
    assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
    assert_int_equal(bp_comm_destroy(f->comms[r]), BP_OK);
    assert_int_equal(bp_device_free(f->devices[r], f->send[r] - PAD), BP_OK);
    assert_int_equal(bp_device_free(f->devices[r], f->recv[r] - PAD), BP_OK);
    assert_int_equal(bp_stream_destroy(f->streams[r]), BP_OK);
  }
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

/* Waits for rank r's stream and reads `count` elements of its `buffer`
 * (its send or recv). */
static void read_back(comm_fixture_t *f, size_t r, const void *buffer,
                      float *out, size_t count) {
  assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
  assert_int_equal(bp_comm_async_error(f->comms[r]), BP_OK);
  assert_int_equal(
      bp_copy(NULL, out, f->devices[r], buffer, count * sizeof(float), NULL),
      BP_OK);
}

static void all_reduce_sums_both_ranks(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_all_reduce(f->send[r], f->recv[r], COUNT,
                                        BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                        f->comms[r], f->streams[r]),
                     BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[COUNT];
    read_back(f, r, f->recv[r], out, COUNT);
    for (size_t i = 0; i < COUNT; i++)
      assert_float_equal(out[i], 1000.0f + 2.0f * (float)(i % 97), 0.0f);
  }
}

static void all_reduce_in_place_inside_a_group(void **state) {
  comm_fixture_t *f = *state;
  assert_int_equal(bp_comm_group_start(f->runtime), BP_OK);
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_all_reduce(f->send[r], f->send[r], COUNT,
                                        BP_DTYPE_FLOAT32, BP_REDUCE_MAX,
                                        f->comms[r], f->streams[r]),
                     BP_OK);
  assert_int_equal(bp_comm_group_end(f->runtime), BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[COUNT];
    read_back(f, r, f->send[r], out, COUNT);
    for (size_t i = 0; i < COUNT; i++)
      assert_float_equal(out[i], 1000.0f + (float)(i % 97), 0.0f);
  }
}

static void broadcast_from_rank_one(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_broadcast(f->send[r], COUNT, BP_DTYPE_FLOAT32, 1,
                                       f->comms[r], f->streams[r]),
                     BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[COUNT];
    read_back(f, r, f->send[r], out, COUNT);
    for (size_t i = 0; i < COUNT; i++)
      assert_float_equal(out[i], input(1, i), 0.0f);
  }
}

static void all_gather_concatenates_in_rank_order(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_all_gather(f->send[r], f->recv[r], COUNT,
                                        BP_DTYPE_FLOAT32, f->comms[r],
                                        f->streams[r]),
                     BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[RANKS * COUNT];
    read_back(f, r, f->recv[r], out, RANKS * COUNT);
    for (size_t from = 0; from < RANKS; from++)
      for (size_t i = 0; i < COUNT; i++)
        assert_float_equal(out[from * COUNT + i], input(from, i), 0.0f);
  }
}

static void reduce_scatter_gives_each_rank_its_block(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_reduce_scatter(f->send[r], f->recv[r], COUNT,
                                            BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                            f->comms[r], f->streams[r]),
                     BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[COUNT];
    read_back(f, r, f->recv[r], out, COUNT);
    for (size_t i = 0; i < COUNT; i++)
      assert_float_equal(
          out[i], input(0, r * COUNT + i) + input(1, r * COUNT + i), 0.0f);
  }
}

static void reduce_lands_on_the_root_only(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < RANKS; r++)
    assert_int_equal(bp_comm_reduce(f->send[r], r == 0 ? f->recv[r] : NULL,
                                    COUNT, BP_DTYPE_FLOAT32, BP_REDUCE_MIN, 0,
                                    f->comms[r], f->streams[r]),
                     BP_OK);
  float out[COUNT];
  read_back(f, 0, f->recv[0], out, COUNT);
  for (size_t i = 0; i < COUNT; i++)
    assert_float_equal(out[i], input(0, i), 0.0f);
  read_back(f, 1, f->recv[1], out, COUNT);
  for (size_t i = 0; i < COUNT; i++)
    assert_float_equal(out[i], 0.0f, 0.0f); /* untouched */
}

static void send_and_recv_in_a_group(void **state) {
  comm_fixture_t *f = *state;
  assert_int_equal(bp_comm_group_start(f->runtime), BP_OK);
  assert_int_equal(bp_comm_send(f->send[0], COUNT, BP_DTYPE_FLOAT32, 1,
                                f->comms[0], f->streams[0]),
                   BP_OK);
  assert_int_equal(bp_comm_recv(f->recv[1], COUNT, BP_DTYPE_FLOAT32, 0,
                                f->comms[1], f->streams[1]),
                   BP_OK);
  assert_int_equal(bp_comm_send(f->send[1], COUNT, BP_DTYPE_FLOAT32, 0,
                                f->comms[1], f->streams[1]),
                   BP_OK);
  assert_int_equal(bp_comm_recv(f->recv[0], COUNT, BP_DTYPE_FLOAT32, 1,
                                f->comms[0], f->streams[0]),
                   BP_OK);
  assert_int_equal(bp_comm_group_end(f->runtime), BP_OK);
  for (size_t r = 0; r < RANKS; r++) {
    float out[COUNT];
    read_back(f, r, f->recv[r], out, COUNT);
    for (size_t i = 0; i < COUNT; i++)
      assert_float_equal(out[i], input(1 - r, i), 0.0f);
  }
}

/* Refused before anything is enqueued; the communicator keeps working. */
static void refusals_name_the_problem_and_leave_the_comm_usable(void **state) {
  comm_fixture_t *f = *state;
  assert_int_equal(bp_comm_broadcast(f->send[0], COUNT, BP_DTYPE_FLOAT32, 5,
                                     f->comms[0], f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "root 5 out of range"));
  void *far = (char *)(f->send[0] - PAD) + 64 * 1024 * 1024;
  assert_int_not_equal(bp_comm_all_reduce(far, f->recv[0], COUNT,
                                          BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                          f->comms[0], f->streams[0]),
                       BP_OK);
  assert_non_null(strstr(bp_last_error(), "staging the input"));
  all_reduce_sums_both_ranks(state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(all_reduce_sums_both_ranks, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(all_reduce_in_place_inside_a_group, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(broadcast_from_rank_one, setup, teardown),
      cmocka_unit_test_setup_teardown(all_gather_concatenates_in_rank_order,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(reduce_scatter_gives_each_rank_its_block,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(reduce_lands_on_the_root_only, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(send_and_recv_in_a_group, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          refusals_name_the_problem_and_leave_the_comm_usable, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
