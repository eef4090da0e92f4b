/* The opencl plugin's memory through the framework face, on whichever path
 * BACKPLANE_OPENCL_MEMORY selects (CTest runs this file once per path):
 * pointers the caching allocator carves out of a chunk, and pointers a test
 * offsets itself, must copy, fill and compare exactly on both. The device is
 * capped by BACKPLANE_OPENCL_MEMORY_LIMIT (64M) so out-of-memory is real. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"

enum { MIB = 1 << 20 };

typedef struct opencl_fixture {
  bp_runtime_t *runtime;
  bp_device_t *device;
} opencl_fixture_t;

static int setup(void **state) {
  opencl_fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  const char *reason = fixture_rejection(f->runtime, OPENCL_PLUGIN_PATH);
  if (reason)
    fail_msg("the opencl plugin was rejected: %s", reason);
  assert_int_equal(bp_device_get(f->runtime, "opencl", 0, &f->device), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  opencl_fixture_t *f = *state;
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static int buffer_path(void) {
  const char *memory = getenv("BACKPLANE_OPENCL_MEMORY");
  return memory && strcmp(memory, "buffer") == 0;
}

/* The permissions ("rw-p", "---p") of the mapping holding `ptr`, from
 * /proc/self/maps; "" if none holds it. */
static void mapping_of(const void *ptr, char perms[5]) {
  perms[0] = '\0';
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[512];
  while (fgets(line, sizeof line, maps)) {
    uintptr_t lo, hi;
    char p[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && (uintptr_t)ptr >= lo &&
        (uintptr_t)ptr < hi) {
      memcpy(perms, p, 5);
      break;
    }
  }
  fclose(maps);
}

/* SVM pointers are host memory mapped read-write (POCL is a CPU device);
 * buffer-path pointers lie in a reserved range nobody may touch. */
static void pointers_come_from_the_selected_path(void **state) {
  opencl_fixture_t *f = *state;
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(f->device, 4096, &ptr), BP_OK);
  char perms[5];
  mapping_of(ptr, perms);
  if (buffer_path())
    assert_string_equal(perms, "---p");
  else
    assert_int_equal(perms[0], 'r');
  assert_int_equal(bp_device_free(f->device, ptr), BP_OK);
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (unsigned char)(i * 131u + seed);
}

/* h2d at an odd offset, memset in front of it, d2d to a later offset on a
 * stream, d2h of the whole allocation: every byte where it belongs. */
static void offset_pointers_copy_and_fill(void **state) {
  opencl_fixture_t *f = *state;
  const size_t size = MIB, at = 4099, length = 10000, to = 600001;
  unsigned char *base = NULL;
  assert_int_equal(bp_device_malloc(f->device, size, (void **)&base), BP_OK);
  unsigned char *pattern = malloc(length), *back = malloc(size);
  unsigned char *expected = calloc(1, size);
  assert_non_null(pattern);
  assert_non_null(back);
  assert_non_null(expected);
  fill(pattern, length, 7);

  assert_int_equal(bp_memset(f->device, base, 0, size, NULL), BP_OK);
  assert_int_equal(bp_copy(f->device, base + at, NULL, pattern, length, NULL),
                   BP_OK);
  assert_int_equal(bp_memset(f->device, base + 1, 0xab, at - 1, NULL), BP_OK);
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(f->device, &stream), BP_OK);
  assert_int_equal(
      bp_copy(f->device, base + to, f->device, base + at, length, stream),
      BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, f->device, base, size, NULL), BP_OK);

  memset(expected + 1, 0xab, at - 1);
  memcpy(expected + at, pattern, length);
  memcpy(expected + to, pattern, length);
  assert_memory_equal(back, expected, size);

  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free(f->device, base), BP_OK);
  free(pattern);
  free(back);
  free(expected);
}

/* Small allocations share a chunk of the caching allocator: each is an
 * offset pointer into one OpenCL allocation, and neighbours stay apart. */
static void neighbouring_allocations_stay_apart(void **state) {
  opencl_fixture_t *f = *state;
  enum { COUNT = 16, SIZE = 3000 };
  void *ptrs[COUNT];
  unsigned char data[SIZE], back[SIZE];
  for (int i = 0; i < COUNT; ++i) {
    assert_int_equal(bp_device_malloc(f->device, SIZE, &ptrs[i]), BP_OK);
    fill(data, SIZE, (unsigned)i);
    assert_int_equal(bp_copy(f->device, ptrs[i], NULL, data, SIZE, NULL),
                     BP_OK);
  }
  for (int i = 0; i < COUNT; ++i) {
    assert_int_equal(bp_copy(NULL, back, f->device, ptrs[i], SIZE, NULL),
                     BP_OK);
    fill(data, SIZE, (unsigned)i);
    assert_memory_equal(back, data, SIZE);
  }
  for (int i = 0; i < COUNT; ++i)
    assert_int_equal(bp_device_free(f->device, ptrs[i]), BP_OK);
}

/* A d2d copy between two separate device allocations (two cl_mems on the
 * buffer path), large enough to bypass the small pool. */
static void copy_between_allocations(void **state) {
  opencl_fixture_t *f = *state;
  const size_t size = 3 * MIB;
  void *a = NULL, *b = NULL;
  assert_int_equal(bp_device_malloc(f->device, size, &a), BP_OK);
  assert_int_equal(bp_device_malloc(f->device, size, &b), BP_OK);
  unsigned char *data = malloc(size), *back = malloc(size);
  assert_non_null(data);
  assert_non_null(back);
  fill(data, size, 3);
  assert_int_equal(bp_copy(f->device, a, NULL, data, size, NULL), BP_OK);
  assert_int_equal(bp_copy(f->device, (char *)b + 64, f->device,
                           (char *)a + 128, size - 128, NULL),
                   BP_OK);
  assert_int_equal(
      bp_copy(NULL, back, f->device, (char *)b + 64, size - 128, NULL), BP_OK);
  assert_memory_equal(back, data + 128, size - 128);
  assert_int_equal(bp_device_free(f->device, a), BP_OK);
  assert_int_equal(bp_device_free(f->device, b), BP_OK);
  free(data);
  free(back);
}

/* A host pointer where device memory is expected is refused, not copied. */
static void host_pointer_as_device_pointer_is_refused(void **state) {
  opencl_fixture_t *f = *state;
  unsigned char host[64] = {0}, other[64] = {0};
  assert_int_not_equal(bp_copy(f->device, host, NULL, other, sizeof host, NULL),
                       BP_OK);
  assert_error_mentions("opencl");
}

/* The cap of 64 MiB is the device's size: 96 MiB does not fit, and the
 * memory comes back after a failure. */
static void out_of_memory_is_reported(void **state) {
  opencl_fixture_t *f = *state;
  size_t total = 0, free_bytes = 0;
  assert_int_equal(bp_device_memory_info(f->device, &total, &free_bytes),
                   BP_OK);
  assert_int_equal(total, 64 * MIB);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(f->device, 96 * MIB, &ptr),
                   BP_ERR_OUT_OF_MEMORY);
  assert_error_mentions("opencl:0");
  assert_int_equal(bp_device_malloc(f->device, 8 * MIB, &ptr), BP_OK);
  assert_int_equal(bp_device_free(f->device, ptr), BP_OK);
}

/* Pinned host memory is host-writable and copies both ways. */
static void pinned_host_memory(void **state) {
  opencl_fixture_t *f = *state;
  const size_t size = 256 * 1024;
  unsigned char *pinned = NULL, *device = NULL;
  assert_int_equal(bp_host_malloc(f->device, size, (void **)&pinned), BP_OK);
  assert_int_equal(bp_device_malloc(f->device, size, (void **)&device), BP_OK);
  fill(pinned, size, 11);
  assert_int_equal(bp_copy(f->device, device, NULL, pinned, size, NULL), BP_OK);
  memset(pinned, 0, size);
  assert_int_equal(bp_copy(NULL, pinned, f->device, device, size, NULL), BP_OK);
  unsigned char *expected = malloc(size);
  assert_non_null(expected);
  fill(expected, size, 11);
  assert_memory_equal(pinned, expected, size);
  free(expected);
  assert_int_equal(bp_device_free(f->device, device), BP_OK);
  assert_int_equal(bp_host_free(f->device, pinned), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(pointers_come_from_the_selected_path,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(offset_pointers_copy_and_fill, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(neighbouring_allocations_stay_apart,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(copy_between_allocations, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(host_pointer_as_device_pointer_is_refused,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(out_of_memory_is_reported, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(pinned_host_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
