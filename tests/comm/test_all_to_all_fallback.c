/* bp_comm_all_to_all on a plugin without xccl_all_to_all: Paddle's fallback
 * over xccl_send/xccl_recv (and a copy of the own chunk) must move the same
 * data. The vcpu plugin's slot is cleared in the runtime's dispatch table. */
#include <stdlib.h>

#include "core/runtime_internal.h"
#include "support/runtime_fixture.h"

enum { N = 3, CHUNK = 7 };

static void test_fallback_moves_the_data(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(runtime->plugin_count, 1);
  runtime->plugins[0]->dispatch.xccl_all_to_all = NULL;

  bp_device_t *devices[N];
  bp_stream_t *streams[N];
  bp_comm_t *comms[N];
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_device_get(runtime, "vcpu", r, &devices[r]), BP_OK);
    assert_int_equal(bp_stream_create(devices[r], &streams[r]), BP_OK);
  }
  assert_int_equal(bp_comm_init_all(devices, N, comms), BP_OK);
  float host[N][N * CHUNK], got[N * CHUNK];
  float *send[N], *recv[N];
  for (size_t r = 0; r < N; r++) {
    for (size_t i = 0; i < N * CHUNK; i++)
      host[r][i] = (float)(r * 1000 + i);
    assert_int_equal(
        bp_device_malloc(devices[r], sizeof host[r], (void **)&send[r]), BP_OK);
    assert_int_equal(
        bp_device_malloc(devices[r], sizeof host[r], (void **)&recv[r]), BP_OK);
    assert_int_equal(
        bp_copy(devices[r], send[r], NULL, host[r], sizeof host[r], NULL),
        BP_OK);
  }
  const void *sends[N][N];
  void *recvs[N][N];
  size_t counts[N] = {CHUNK, CHUNK, CHUNK};
  for (size_t r = 0; r < N; r++)
    for (size_t p = 0; p < N; p++) {
      sends[r][p] = send[r] + p * CHUNK;
      recvs[r][p] = recv[r] + p * CHUNK;
    }
  assert_int_equal(bp_comm_group_start(runtime), BP_OK);
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_all_to_all(sends[r], counts, recvs[r], counts,
                                        BP_DTYPE_FLOAT32, comms[r], streams[r]),
                     BP_OK);
  assert_int_equal(bp_comm_group_end(runtime), BP_OK);
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_stream_synchronize(streams[r]), BP_OK);
    assert_int_equal(bp_comm_async_error(comms[r]), BP_OK);
    assert_int_equal(bp_copy(NULL, got, devices[r], recv[r], sizeof got, NULL),
                     BP_OK);
    for (size_t p = 0; p < N; p++) /* chunk r of rank p */
      for (size_t i = 0; i < CHUNK; i++)
        assert_true(got[p * CHUNK + i] == host[p][r * CHUNK + i]);
  }
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_device_free(devices[r], send[r]), BP_OK);
    assert_int_equal(bp_device_free(devices[r], recv[r]), BP_OK);
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
    assert_int_equal(bp_stream_destroy(streams[r]), BP_OK);
  }
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fallback_moves_the_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
