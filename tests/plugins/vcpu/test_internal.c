/* vcpu plugin internals other in-plugin components rely on, reached through
 * the static build of the plugin: host functions on a stream, locating device
 * memory in its shareable memfd (another mapping sees the same bytes), large
 * frees giving pages back, and the address map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena.h"
#include "base/ptrmap.h"
#include "comm/ops.h"
#include "device.h"
#include "lifetime.h"
#include "memory.h"
#include "stream.h"

static struct C_Device_st g_device0 = {0}, g_device1 = {1};

static int setup(void **state) {
  (void)state;
  static const vcpu_runners_t runners = {.comm_task = vcpu_comm_run_task};
  return vcpu_initialize(&runners) == C_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return vcpu_finalize() == C_SUCCESS ? 0 : -1;
}

typedef struct step_log {
  int steps[64];
  int count;
} step_log;

typedef struct step {
  step_log *log;
  int value;
} step;

static void callback(C_Device device, C_Stream stream, void *arg,
                     C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  step *s = arg;
  s->log->steps[s->log->count++] = s->value;
}

static void test_callbacks_run_in_order(void **state) {
  (void)state;
  C_Stream stream = NULL;
  assert_int_equal(vcpu_create_stream(&g_device1, &stream), C_SUCCESS);
  step_log log = {{0}, 0};
  step steps[40];
  for (int i = 0; i < 40; ++i) {
    steps[i] = (step){&log, i};
    assert_int_equal(
        vcpu_stream_add_callback(&g_device1, stream, callback, &steps[i]),
        C_SUCCESS);
  }
  assert_int_equal(vcpu_synchronize_stream(&g_device1, stream), C_SUCCESS);
  assert_int_equal(log.count, 40);
  for (int i = 0; i < 40; ++i)
    assert_int_equal(log.steps[i], i);
  vcpu_comm_task_t task = {0};
  assert_int_equal(vcpu_stream_enqueue_comm(stream, NULL), C_ERROR);
  assert_int_equal(vcpu_stream_enqueue_comm(NULL, &task), C_ERROR);
  assert_ptr_equal(vcpu_stream_device(stream), vcpu_device_at(1));
  assert_int_equal(vcpu_destroy_stream(&g_device1, stream), C_SUCCESS);
}

static void test_device_memory_is_shareable_through_its_memfd(void **state) {
  (void)state;
  const size_t size = 3 * 4096 + 11;
  unsigned char *ptr = NULL;
  assert_int_equal(vcpu_device_memory_allocate(&g_device1, (void **)&ptr, size),
                   C_SUCCESS);
  memset(ptr, 0x5a, size);
  int device = -1, memfd = -1;
  size_t offset = SIZE_MAX;
  assert_true(vcpu_memory_locate(ptr + 5, &device, &memfd, &offset));
  assert_int_equal(device, 1);
  assert_true(memfd >= 0);
  assert_int_equal(offset % 4096, 5);
  /* A second mapping of the fd (what a peer process does) sees the bytes. */
  size_t page_offset = offset - 5;
  unsigned char *peer = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                             memfd, (off_t)page_offset);
  assert_true(peer != MAP_FAILED);
  for (size_t i = 0; i < size; ++i)
    assert_int_equal(peer[i], 0x5a);
  peer[7] = 0x11;
  assert_int_equal(ptr[7], 0x11);
  munmap(peer, size);
  unsigned char host[8];
  assert_false(vcpu_memory_locate(host, &device, &memfd, &offset));
  assert_int_equal(vcpu_device_memory_deallocate(&g_device1, ptr, size),
                   C_SUCCESS);
}

static void test_large_frees_give_pages_back(void **state) {
  (void)state;
  vcpu_device *device = vcpu_device_at(0);
  const size_t size = 8 * VCPU_ARENA_PUNCH_MIN;
  void *ptr = NULL;
  assert_int_equal(vcpu_device_memory_allocate(&g_device0, &ptr, size),
                   C_SUCCESS);
  struct stat before, touched, after;
  assert_int_equal(fstat(device->arena.memfd, &before), 0);
  memset(ptr, 1, size);
  assert_int_equal(fstat(device->arena.memfd, &touched), 0);
  assert_true((size_t)(touched.st_blocks - before.st_blocks) * 512 >= size);
  assert_int_equal(vcpu_device_memory_deallocate(&g_device0, ptr, size),
                   C_SUCCESS);
  assert_int_equal(fstat(device->arena.memfd, &after), 0);
  assert_true(after.st_blocks <= before.st_blocks);
}

static void test_ptrmap_insert_find_remove(void **state) {
  (void)state;
  enum { COUNT = 5000 };
  vcpu_ptrmap map = {0};
  uintptr_t *keys = malloc(COUNT * sizeof *keys);
  for (size_t i = 0; i < COUNT; ++i) {
    keys[i] = (i + 1) * 4096; /* page-aligned keys, as the arena uses */
    assert_true(vcpu_ptrmap_insert(&map, keys[i], i));
  }
  assert_int_equal(map.count, COUNT);
  assert_int_equal(map.total_size, (size_t)COUNT * (COUNT - 1) / 2);
  for (size_t i = 0; i < COUNT; i += 3)
    vcpu_ptrmap_remove(&map, vcpu_ptrmap_find(&map, keys[i]));
  for (size_t i = 0; i < COUNT; ++i) {
    vcpu_ptrmap_entry *entry = vcpu_ptrmap_find(&map, keys[i]);
    if (i % 3 == 0) {
      assert_null(entry);
    } else {
      assert_non_null(entry);
      assert_int_equal(entry->size, i);
    }
  }
  assert_null(vcpu_ptrmap_find(&map, 12345));
  assert_null(vcpu_ptrmap_find(&map, 0));
  vcpu_ptrmap_clear(&map);
  assert_int_equal(map.count, 0);
  free(keys);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callbacks_run_in_order),
      cmocka_unit_test(test_device_memory_is_shareable_through_its_memfd),
      cmocka_unit_test(test_large_frees_give_pages_back),
      cmocka_unit_test(test_ptrmap_insert_find_remove),
  };
  return cmocka_run_group_tests_name("vcpu internals", tests, setup, teardown);
}
