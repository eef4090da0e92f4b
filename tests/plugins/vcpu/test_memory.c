/* vcpu plugin: device memory (run with BACKPLANE_VCPU_MEMORY=64M): real
 * out-of-memory at the capacity, truthful stats, reuse of freed ranges, bad
 * frees, memset; host and unified memory; the size hints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

#define MiB ((size_t)1 << 20)
#define CAPACITY (64 * MiB)

static size_t free_bytes(int device) {
  size_t total = 0, free_memory = 0;
  assert_int_equal(
      vcpu.table.device_memory_stats(vcpu_dev(device), &total, &free_memory),
      C_SUCCESS);
  assert_int_equal(total, CAPACITY);
  return free_memory;
}

static void *allocate(int device, size_t size) {
  void *ptr = NULL;
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(device), &ptr, size),
      C_SUCCESS);
  assert_non_null(ptr);
  return ptr;
}

static void deallocate(int device, void *ptr, size_t size) {
  assert_int_equal(
      vcpu.table.device_memory_deallocate(vcpu_dev(device), ptr, size),
      C_SUCCESS);
}

static void test_out_of_memory_at_capacity_and_recovery(void **state) {
  (void)state;
  void *all = allocate(0, CAPACITY);
  assert_int_equal(free_bytes(0), 0);
  void *more = NULL;
  assert_int_equal(vcpu.table.device_memory_allocate(vcpu_dev(0), &more, 1),
                   C_FAILED);
  /* The other device has its own memory. */
  void *other = allocate(1, MiB);
  deallocate(1, other, MiB);
  deallocate(0, all, CAPACITY);
  assert_int_equal(free_bytes(0), CAPACITY);
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(0), &more, CAPACITY + 1),
      C_FAILED);
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(0), &more, SIZE_MAX),
      C_FAILED);
  void *again = allocate(0, CAPACITY);
  deallocate(0, again, CAPACITY);
}

static void test_stats_count_pages(void **state) {
  (void)state;
  void *a = allocate(0, 1);
  assert_int_equal(free_bytes(0), CAPACITY - 4096);
  void *b = allocate(0, 4097);
  assert_int_equal(free_bytes(0), CAPACITY - 3 * 4096);
  void *c = allocate(0, 3 * MiB);
  assert_int_equal(free_bytes(0), CAPACITY - 3 * 4096 - 3 * MiB);
  assert_int_equal((uintptr_t)a % 4096, 0);
  assert_int_equal((uintptr_t)b % 4096, 0);
  assert_int_equal((uintptr_t)c % 4096, 0);
  deallocate(0, b, 4097);
  deallocate(0, a, 1);
  deallocate(0, c, 3 * MiB);
  assert_int_equal(free_bytes(0), CAPACITY);
}

static void test_freed_ranges_coalesce(void **state) {
  (void)state;
  const size_t quarter = CAPACITY / 4;
  void *parts[4];
  for (int i = 0; i < 4; ++i)
    parts[i] = allocate(0, quarter);
  deallocate(0, parts[1], quarter);
  deallocate(0, parts[2], quarter);
  /* Only a merged free range can hold half the device. */
  void *half = allocate(0, 2 * quarter);
  assert_ptr_equal(half, parts[1]);
  deallocate(0, half, 2 * quarter);
  deallocate(0, parts[0], quarter);
  deallocate(0, parts[3], quarter);
  void *all = allocate(0, CAPACITY);
  deallocate(0, all, CAPACITY);
}

static void test_memory_is_usable_and_set(void **state) {
  (void)state;
  const size_t size = 3 * MiB + 5;
  unsigned char *ptr = allocate(0, size);
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(0), ptr, 0xab, size),
                   C_SUCCESS);
  for (size_t i = 0; i < size; ++i)
    if (ptr[i] != 0xab)
      fail_msg("byte %zu is %#x", i, ptr[i]);
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(0), ptr + 1, 0, 2),
                   C_SUCCESS);
  assert_int_equal(ptr[0], 0xab);
  assert_int_equal(ptr[1], 0);
  assert_int_equal(ptr[2], 0);
  assert_int_equal(ptr[3], 0xab);
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(0), ptr, 1, 0),
                   C_SUCCESS);
  unsigned char host[16];
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(0), host, 1, 16),
                   C_ERROR);
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(1), ptr, 1, 16),
                   C_ERROR);
  assert_int_equal(
      vcpu.table.device_memory_set(vcpu_dev(0), ptr, 1, CAPACITY + 1), C_ERROR);
  assert_int_equal(vcpu.table.device_memory_set(vcpu_dev(0), NULL, 1, 16),
                   C_ERROR);
  deallocate(0, ptr, size);
}

static void test_bad_deallocations_change_nothing(void **state) {
  (void)state;
  char *ptr = allocate(0, 10000);
  size_t before = free_bytes(0);
  C_Device d0 = vcpu_dev(0);
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, ptr, 9999), C_ERROR);
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, ptr, 12288),
                   C_ERROR);
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, ptr + 4096, 4096),
                   C_ERROR);
  assert_int_equal(vcpu.table.device_memory_deallocate(vcpu_dev(1), ptr, 10000),
                   C_ERROR);
  char host[64];
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, host, 64), C_ERROR);
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, NULL, 64), C_ERROR);
  assert_int_equal(free_bytes(0), before);
  deallocate(0, ptr, 10000);
  assert_int_equal(vcpu.table.device_memory_deallocate(d0, ptr, 10000),
                   C_ERROR); /* double free */
  assert_int_equal(free_bytes(0), CAPACITY);
}

static void test_zero_sized_allocation(void **state) {
  (void)state;
  void *ptr = (void *)1;
  assert_int_equal(vcpu.table.device_memory_allocate(vcpu_dev(0), &ptr, 0),
                   C_SUCCESS);
  assert_null(ptr);
  assert_int_equal(vcpu.table.device_memory_deallocate(vcpu_dev(0), NULL, 0),
                   C_SUCCESS);
  assert_int_equal(free_bytes(0), CAPACITY);
}

static void test_many_small_allocations(void **state) {
  (void)state;
  enum { COUNT = 2000 };
  static void *ptrs[COUNT];
  for (int i = 0; i < COUNT; ++i)
    ptrs[i] = allocate(1, (size_t)(i % 7) * 1000 + 1);
  for (int i = 0; i < COUNT; i += 2)
    deallocate(1, ptrs[i], (size_t)(i % 7) * 1000 + 1);
  for (int i = 1; i < COUNT; i += 2)
    deallocate(1, ptrs[i], (size_t)(i % 7) * 1000 + 1);
  assert_int_equal(free_bytes(1), CAPACITY);
  void *all = allocate(1, CAPACITY);
  deallocate(1, all, CAPACITY);
}

static void test_host_and_unified_memory(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  void *host = NULL, *unified = NULL;
  assert_int_equal(vcpu.table.host_memory_allocate(d0, &host, 5000), C_SUCCESS);
  assert_int_equal(vcpu.table.unified_memory_allocate(d0, &unified, 300),
                   C_SUCCESS);
  assert_int_equal((uintptr_t)host % 4096, 0);
  assert_int_equal((uintptr_t)unified % 4096, 0);
  memset(host, 1, 5000);
  memset(unified, 2, 300);
  /* Host memory is not device memory. */
  assert_int_equal(free_bytes(0), CAPACITY);
  assert_int_equal(vcpu.table.host_memory_deallocate(d0, host, 4999), C_ERROR);
  assert_int_equal(vcpu.table.host_memory_deallocate(d0, unified, 300),
                   C_ERROR);
  assert_int_equal(vcpu.table.unified_memory_deallocate(d0, host, 5000),
                   C_ERROR);
  assert_int_equal(vcpu.table.host_memory_deallocate(d0, host, 5000),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.host_memory_deallocate(d0, host, 5000), C_ERROR);
  assert_int_equal(vcpu.table.unified_memory_deallocate(d0, unified, 300),
                   C_SUCCESS);
  void *none = (void *)1;
  assert_int_equal(vcpu.table.host_memory_allocate(d0, &none, 0), C_SUCCESS);
  assert_null(none);
  assert_int_equal(vcpu.table.host_memory_deallocate(d0, NULL, 0), C_SUCCESS);
}

static size_t hint(C_Status (*query)(const C_Device, size_t *)) {
  size_t value = 12345;
  assert_int_equal(query(vcpu_dev(0), &value), C_SUCCESS);
  return value;
}

static void test_size_hints(void **state) {
  (void)state;
  assert_int_equal(hint(vcpu.table.device_min_chunk_size), 512);
  assert_int_equal(hint(vcpu.table.device_extra_padding_size), 0);
  assert_int_equal(hint(vcpu.table.device_max_chunk_size), 8 * MiB);
  assert_int_equal(hint(vcpu.table.device_max_alloc_size), CAPACITY);
  assert_int_equal(hint(vcpu.table.device_init_alloc_size), 8 * MiB);
  assert_int_equal(hint(vcpu.table.device_realloc_size), 4 * MiB);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_out_of_memory_at_capacity_and_recovery),
      cmocka_unit_test(test_stats_count_pages),
      cmocka_unit_test(test_freed_ranges_coalesce),
      cmocka_unit_test(test_memory_is_usable_and_set),
      cmocka_unit_test(test_bad_deallocations_change_nothing),
      cmocka_unit_test(test_zero_sized_allocation),
      cmocka_unit_test(test_many_small_allocations),
      cmocka_unit_test(test_host_and_unified_memory),
      cmocka_unit_test(test_size_hints),
  };
  return cmocka_run_group_tests_name("vcpu memory", tests, vcpu_setup,
                                     vcpu_teardown);
}
