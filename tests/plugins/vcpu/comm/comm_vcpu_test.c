/* The vcpu collectives through the real plugin: loaded like any host loads it
 * (dlopen + InitPlugin), one rank per virtual device, device memory from the
 * plugin, tasks on the plugin's own stream workers. One thread drives every
 * rank; nothing blocks it but destroy, which waits for the enqueued calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vcpu_fixture.h"

enum { MAX_RANKS = 4 };

typedef struct ranks {
  size_t n;
  C_CCLComm comms[MAX_RANKS];
  C_Stream streams[MAX_RANKS];
} ranks;

static void ranks_open(ranks *w, size_t n) {
  w->n = n;
  char bytes[128];
  C_CCLRootId id = {sizeof bytes, bytes};
  assert_int_equal(vcpu.table.xccl_get_unique_id(&id), C_SUCCESS);
  for (size_t r = 0; r < n; r++) {
    assert_int_equal(vcpu.table.init_device(vcpu_dev((int)r)), C_SUCCESS);
    assert_int_equal(vcpu.table.create_stream(vcpu_dev((int)r), &w->streams[r]),
                     C_SUCCESS);
    assert_int_equal(vcpu.table.xccl_comm_init_rank(n, &id, r, &w->comms[r]),
                     C_SUCCESS);
  }
}

static void ranks_sync(ranks *w) {
  for (size_t r = 0; r < w->n; r++)
    assert_int_equal(
        vcpu.table.synchronize_stream(vcpu_dev((int)r), w->streams[r]),
        C_SUCCESS);
}

static void ranks_close_streams(ranks *w) {
  for (size_t r = 0; r < w->n; r++) {
    assert_int_equal(vcpu.table.destroy_stream(vcpu_dev((int)r), w->streams[r]),
                     C_SUCCESS);
    assert_int_equal(vcpu.table.deinit_device(vcpu_dev((int)r)), C_SUCCESS);
  }
}

static void ranks_close(ranks *w) {
  for (size_t r = 0; r < w->n; r++)
    assert_int_equal(vcpu.table.xccl_destroy_comm(w->comms[r]), C_SUCCESS);
  ranks_close_streams(w);
}

static void *device_alloc(size_t r, size_t bytes) {
  void *ptr = NULL;
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev((int)r), &ptr, bytes),
      C_SUCCESS);
  return ptr;
}

static void device_free(size_t r, void *ptr, size_t bytes) {
  assert_int_equal(
      vcpu.table.device_memory_deallocate(vcpu_dev((int)r), ptr, bytes),
      C_SUCCESS);
}

static void test_all_reduce_on_device_memory(void **state) {
  (void)state;
  static const size_t counts[] = {1, 1001, 1 << 20};
  for (size_t n = 2; n <= MAX_RANKS; n++) {
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
      size_t count = counts[c], bytes = count * sizeof(float);
      ranks w;
      ranks_open(&w, n);
      float *host = malloc(bytes);
      void *buf[MAX_RANKS];
      for (size_t r = 0; r < n; r++) {
        buf[r] = device_alloc(r, bytes);
        for (size_t i = 0; i < count; i++)
          host[i] = (float)(r + 1) * (float)(i % 100);
        assert_int_equal(
            vcpu.table.memory_copy_h2d(vcpu_dev((int)r), buf[r], host, bytes),
            C_SUCCESS);
      }
      for (size_t r = 0; r < n; r++)
        assert_int_equal(vcpu.table.xccl_all_reduce(buf[r], buf[r], count,
                                                    FLOAT32, SUM, w.comms[r],
                                                    w.streams[r]),
                         C_SUCCESS);
      ranks_sync(&w);
      float ranks_sum = (float)(n * (n + 1) / 2);
      for (size_t r = 0; r < n; r++) {
        assert_int_equal(
            vcpu.table.memory_copy_d2h(vcpu_dev((int)r), host, buf[r], bytes),
            C_SUCCESS);
        for (size_t i = 0; i < count; i++)
          if (host[i] != ranks_sum * (float)(i % 100))
            fail_msg("n=%zu count=%zu rank %zu element %zu: %g", n, count, r, i,
                     host[i]);
        device_free(r, buf[r], bytes);
      }
      free(host);
      ranks_close(&w);
    }
  }
}

static void test_all_gather_and_ring_on_device_memory(void **state) {
  (void)state;
  size_t n = MAX_RANKS, count = 4099;
  ranks w;
  ranks_open(&w, n);
  int32_t *host = malloc(n * count * sizeof *host);
  void *send[MAX_RANKS], *recv[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    send[r] = device_alloc(r, count * sizeof(int32_t));
    recv[r] = device_alloc(r, n * count * sizeof(int32_t));
    for (size_t i = 0; i < count; i++)
      host[i] = (int32_t)(r * 100000 + i);
    assert_int_equal(vcpu.table.memory_copy_h2d(vcpu_dev((int)r), send[r], host,
                                                count * sizeof(int32_t)),
                     C_SUCCESS);
  }
  for (size_t r = 0; r < n; r++)
    assert_int_equal(vcpu.table.xccl_all_gather(send[r], recv[r], count, INT32,
                                                w.comms[r], w.streams[r]),
                     C_SUCCESS);
  /* Then each rank passes its input to the next one, all in one group. */
  assert_int_equal(vcpu.table.xccl_group_start(), C_SUCCESS);
  for (size_t r = 0; r < n; r++) {
    assert_int_equal(vcpu.table.xccl_send(send[r], count, INT32, (r + 1) % n,
                                          w.comms[r], w.streams[r]),
                     C_SUCCESS);
    assert_int_equal(vcpu.table.xccl_recv(recv[r], count, INT32,
                                          (r + n - 1) % n, w.comms[r],
                                          w.streams[r]),
                     C_SUCCESS);
  }
  assert_int_equal(vcpu.table.xccl_group_end(), C_SUCCESS);
  ranks_sync(&w);
  for (size_t r = 0; r < n; r++) {
    assert_int_equal(vcpu.table.memory_copy_d2h(vcpu_dev((int)r), host, recv[r],
                                                n * count * sizeof(int32_t)),
                     C_SUCCESS);
    size_t previous = (r + n - 1) % n;
    for (size_t i = 0; i < count; i++) /* slot 0 got the ring message */
      assert_int_equal(host[i], previous * 100000 + i);
    for (size_t from = 1; from < n; from++)
      for (size_t i = 0; i < count; i++)
        assert_int_equal(host[from * count + i], from * 100000 + i);
    device_free(r, send[r], count * sizeof(int32_t));
    device_free(r, recv[r], n * count * sizeof(int32_t));
  }
  free(host);
  ranks_close(&w);
}

/* Destroying a communicator right after enqueuing (lone calls and a group)
 * waits for those calls: the results are there when destroy returns,
 * without a stream synchronize, and nothing touches the freed communicator
 * (ASan would say). */
static void test_destroy_waits_for_enqueued_calls(void **state) {
  (void)state;
  enum { COUNT = 1 << 22, LONE_CALLS = 3 };
  size_t n = 2, bytes = COUNT * sizeof(float);
  ranks w;
  ranks_open(&w, n);
  float *host = malloc(bytes);
  void *buf[2];
  for (size_t r = 0; r < n; r++) {
    buf[r] = device_alloc(r, bytes);
    for (size_t i = 0; i < COUNT; i++)
      host[i] = (float)(r + 1);
    assert_int_equal(
        vcpu.table.memory_copy_h2d(vcpu_dev((int)r), buf[r], host, bytes),
        C_SUCCESS);
  }
  for (int k = 0; k < LONE_CALLS; k++)
    for (size_t r = 0; r < n; r++)
      assert_int_equal(vcpu.table.xccl_all_reduce(buf[r], buf[r], COUNT,
                                                  FLOAT32, SUM, w.comms[r],
                                                  w.streams[r]),
                       C_SUCCESS);
  assert_int_equal(vcpu.table.xccl_group_start(), C_SUCCESS);
  for (size_t r = 0; r < n; r++)
    assert_int_equal(vcpu.table.xccl_all_reduce(buf[r], buf[r], COUNT, FLOAT32,
                                                SUM, w.comms[r], w.streams[r]),
                     C_SUCCESS);
  assert_int_equal(vcpu.table.xccl_group_end(), C_SUCCESS);
  for (size_t r = 0; r < n; r++)
    assert_int_equal(vcpu.table.xccl_destroy_comm(w.comms[r]), C_SUCCESS);
  /* 1 and 2, summed 4 times in place: 3, 6, 12, 24. */
  for (size_t r = 0; r < n; r++) {
    assert_int_equal(
        vcpu.table.memory_copy_d2h(vcpu_dev((int)r), host, buf[r], bytes),
        C_SUCCESS);
    for (size_t i = 0; i < COUNT; i += 4099)
      if (host[i] != 24.0f)
        fail_msg("rank %zu element %zu: %g right after destroy", r, i, host[i]);
    device_free(r, buf[r], bytes);
  }
  free(host);
  ranks_close_streams(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_reduce_on_device_memory),
      cmocka_unit_test(test_all_gather_and_ring_on_device_memory),
      cmocka_unit_test(test_destroy_waits_for_enqueued_calls),
  };
  return cmocka_run_group_tests(tests, vcpu_setup, vcpu_teardown);
}
