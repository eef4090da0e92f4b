/* vcpu plugin: copies host->device, device->host, device->device and
 * device->device across virtual devices, synchronous and on streams, at sizes
 * 0, 1, odd, 4 KiB and 64 MiB (split between two threads), contents checked;
 * async copies really are asynchronous; bad arguments are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

#define MiB ((size_t)1 << 20)

static const size_t k_sizes[] = {0, 1, 4099, 4096, 64 * MiB};

typedef enum { SYNC, ASYNC } mode;

typedef struct buffers {
  unsigned char *host_in, *host_out;
  void *dev0_a, *dev0_b, *dev1;
  size_t size;
} buffers;

static void *device_alloc(int device, size_t size) {
  void *ptr = NULL;
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(device), &ptr, size),
      C_SUCCESS);
  return ptr;
}

static void device_free(int device, void *ptr, size_t size) {
  assert_int_equal(
      vcpu.table.device_memory_deallocate(vcpu_dev(device), ptr, size),
      C_SUCCESS);
}

static buffers make_buffers(size_t size) {
  buffers b = {malloc(size + 1),      malloc(size + 1),
               device_alloc(0, size), device_alloc(0, size),
               device_alloc(1, size), size};
  assert_non_null(b.host_in);
  assert_non_null(b.host_out);
  return b;
}

static void free_buffers(buffers *b) {
  device_free(0, b->dev0_a, b->size);
  device_free(0, b->dev0_b, b->size);
  device_free(1, b->dev1, b->size);
  free(b->host_in);
  free(b->host_out);
}

/* host_in -> dev0_a -> dev0_b -> dev1 -> host_out, each hop checked. */
static void round_trip(size_t size, mode how, C_Stream stream0,
                       C_Stream stream1, uint32_t seed) {
  buffers b = make_buffers(size);
  C_Device d0 = vcpu_dev(0), d1 = vcpu_dev(1);
  vcpu_fill(b.host_in, size, seed);
  memset(b.host_out, 0, size + 1);
  if (how == SYNC) {
    assert_int_equal(vcpu.table.memory_copy_h2d(d0, b.dev0_a, b.host_in, size),
                     C_SUCCESS);
    assert_true(vcpu_matches(b.dev0_a, size, seed));
    assert_int_equal(vcpu.table.memory_copy_d2d(d0, b.dev0_b, b.dev0_a, size),
                     C_SUCCESS);
    assert_true(vcpu_matches(b.dev0_b, size, seed));
    assert_int_equal(vcpu.table.memory_copy_p2p(d1, d0, b.dev1, b.dev0_b, size),
                     C_SUCCESS);
    assert_true(vcpu_matches(b.dev1, size, seed));
    assert_int_equal(vcpu.table.memory_copy_d2h(d1, b.host_out, b.dev1, size),
                     C_SUCCESS);
  } else {
    assert_int_equal(vcpu.table.async_memory_copy_h2d(d0, stream0, b.dev0_a,
                                                      b.host_in, size),
                     C_SUCCESS);
    assert_int_equal(
        vcpu.table.async_memory_copy_d2d(d0, stream0, b.dev0_b, b.dev0_a, size),
        C_SUCCESS);
    assert_int_equal(vcpu.table.async_memory_copy_p2p(d1, d0, stream0, b.dev1,
                                                      b.dev0_b, size),
                     C_SUCCESS);
    assert_int_equal(vcpu.table.synchronize_stream(d0, stream0), C_SUCCESS);
    assert_true(vcpu_matches(b.dev0_a, size, seed));
    assert_true(vcpu_matches(b.dev0_b, size, seed));
    assert_true(vcpu_matches(b.dev1, size, seed));
    assert_int_equal(
        vcpu.table.async_memory_copy_d2h(d1, stream1, b.host_out, b.dev1, size),
        C_SUCCESS);
    assert_int_equal(vcpu.table.synchronize_stream(d1, stream1), C_SUCCESS);
  }
  assert_true(vcpu_matches(b.host_out, size, seed));
  assert_int_equal(b.host_out[size], 0); /* nothing written past the end */
  free_buffers(&b);
}

static void test_synchronous_copies_every_direction(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; ++i)
    round_trip(k_sizes[i], SYNC, NULL, NULL, (uint32_t)i + 1);
}

static void test_async_copies_every_direction(void **state) {
  (void)state;
  C_Stream s0 = NULL, s1 = NULL;
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(0), &s0), C_SUCCESS);
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(1), &s1), C_SUCCESS);
  for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; ++i)
    round_trip(k_sizes[i], ASYNC, s0, s1, (uint32_t)i + 11);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(0), s0), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(1), s1), C_SUCCESS);
}

static void test_overlapping_device_copy_moves(void **state) {
  (void)state;
  const size_t size = 10000;
  unsigned char *dev = device_alloc(0, size + 100);
  unsigned char *expected = malloc(size);
  vcpu_fill(dev, size, 77);
  memcpy(expected, dev, size);
  assert_int_equal(
      vcpu.table.memory_copy_d2d(vcpu_dev(0), dev + 100, dev, size), C_SUCCESS);
  assert_memory_equal(dev + 100, expected, size);
  free(expected);
  device_free(0, dev, size + 100);
}

/* An async copy queued behind a blocked stream has not happened before the
 * stream is released, and has after synchronize. */
static void test_async_copy_waits_for_the_stream(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = NULL;
  assert_int_equal(vcpu.table.create_stream(d0, &stream), C_SUCCESS);
  const size_t size = 64 * 1024;
  unsigned char *host = malloc(size);
  unsigned char *dev = device_alloc(0, size);
  vcpu_fill(host, size, 5);
  memset(dev, 0, size);
  vcpu_gate gate = {0};
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, stream, vcpu_gate_callback, &gate),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.async_memory_copy_h2d(d0, stream, dev, host, size), C_SUCCESS);
  vcpu_gate_wait_reached(&gate);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_FAILED);
  for (size_t i = 0; i < size; ++i)
    if (dev[i] != 0)
      fail_msg("byte %zu copied before the stream got there", i);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_SUCCESS);
  assert_true(vcpu_matches(dev, size, 5));
  /* And d2h the same way: the host buffer is untouched until then. */
  vcpu_gate second = {0};
  unsigned char *back = calloc(1, size);
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, stream, vcpu_gate_callback, &second),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.async_memory_copy_d2h(d0, stream, back, dev, size), C_SUCCESS);
  vcpu_gate_wait_reached(&second);
  for (size_t i = 0; i < size; ++i)
    if (back[i] != 0)
      fail_msg("byte %zu copied before the stream got there", i);
  vcpu_gate_open(&second);
  assert_int_equal(vcpu.table.synchronize_device(d0), C_SUCCESS);
  assert_true(vcpu_matches(back, size, 5));
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
  device_free(0, dev, size);
  free(host);
  free(back);
}

static void test_bad_copy_arguments(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0), d1 = vcpu_dev(1);
  C_Stream s0 = NULL, s1 = NULL;
  assert_int_equal(vcpu.table.create_stream(d0, &s0), C_SUCCESS);
  assert_int_equal(vcpu.table.create_stream(d1, &s1), C_SUCCESS);
  unsigned char host[4096];
  unsigned char *dev0 = device_alloc(0, 4096);
  unsigned char *dev1 = device_alloc(1, 4096);
  /* Wrong side: host where device memory is required, other device. */
  assert_int_equal(vcpu.table.memory_copy_h2d(d0, host, host, 16), C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_h2d(d0, dev1, host, 16), C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_d2h(d0, host, host, 16), C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_d2d(d0, dev0, dev1, 16), C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_p2p(d1, d0, dev0, dev1, 16), C_ERROR);
  /* NULL with a size, and a range running off the device's memory. */
  assert_int_equal(vcpu.table.memory_copy_h2d(d0, dev0, NULL, 16), C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_d2h(d0, NULL, dev0, 16), C_ERROR);
  assert_int_equal(
      vcpu.table.memory_copy_d2h(d0, host, dev0, ((size_t)1 << 30) + 1),
      C_ERROR);
  assert_int_equal(vcpu.table.memory_copy_h2d(NULL, dev0, host, 16), C_ERROR);
  /* Streams: NULL, or one of another device. */
  assert_int_equal(vcpu.table.async_memory_copy_h2d(d0, NULL, dev0, host, 16),
                   C_ERROR);
  assert_int_equal(vcpu.table.async_memory_copy_h2d(d0, s1, dev0, host, 16),
                   C_ERROR);
  assert_int_equal(vcpu.table.async_memory_copy_d2h(d0, s0, host, host, 16),
                   C_ERROR);
  /* Size 0 is a no-op, even with NULL pointers. */
  assert_int_equal(vcpu.table.memory_copy_h2d(d0, NULL, NULL, 0), C_SUCCESS);
  assert_int_equal(vcpu.table.async_memory_copy_d2d(d0, s0, NULL, NULL, 0),
                   C_SUCCESS);
  /* p2p on a stream of either device is fine. */
  vcpu_fill(dev0, 4096, 9);
  assert_int_equal(
      vcpu.table.async_memory_copy_p2p(d1, d0, s1, dev1, dev0, 4096),
      C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_stream(d1, s1), C_SUCCESS);
  assert_true(vcpu_matches(dev1, 4096, 9));
  assert_int_equal(vcpu.table.destroy_stream(d0, s0), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d1, s1), C_SUCCESS);
  device_free(0, dev0, 4096);
  device_free(1, dev1, 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_synchronous_copies_every_direction),
      cmocka_unit_test(test_async_copies_every_direction),
      cmocka_unit_test(test_overlapping_device_copy_moves),
      cmocka_unit_test(test_async_copy_waits_for_the_stream),
      cmocka_unit_test(test_bad_copy_arguments),
  };
  return cmocka_run_group_tests_name("vcpu copies", tests, vcpu_setup,
                                     vcpu_teardown);
}
