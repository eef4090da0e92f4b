/* vcpu plugin: the environment (device count, memory per device), read at
 * the first initialize, with defaults for invalid values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

#define GiB ((size_t)1 << 30)
#define MiB ((size_t)1 << 20)

typedef struct observed {
  size_t devices;
  size_t memory;
} observed;

/* Starts the plugin under the given environment and reports what it made of
 * it (NULL leaves a variable unset). */
static observed start_with(const char *devices, const char *memory) {
  if (devices)
    setenv("BACKPLANE_VCPU_DEVICES", devices, 1);
  else
    unsetenv("BACKPLANE_VCPU_DEVICES");
  if (memory)
    setenv("BACKPLANE_VCPU_MEMORY", memory, 1);
  else
    unsetenv("BACKPLANE_VCPU_MEMORY");
  vcpu_open();
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  observed seen = {0, 0};
  assert_int_equal(vcpu.table.get_device_count(&seen.devices), C_SUCCESS);
  size_t free_memory = 0;
  C_Device last = vcpu_dev((int)seen.devices - 1);
  assert_int_equal(
      vcpu.table.device_memory_stats(last, &seen.memory, &free_memory),
      C_SUCCESS);
  assert_int_equal(free_memory, seen.memory);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  vcpu_close();
  return seen;
}

static void test_defaults(void **state) {
  (void)state;
  observed seen = start_with(NULL, NULL);
  assert_int_equal(seen.devices, 2);
  assert_int_equal(seen.memory, GiB);
}

static void test_device_count_and_memory_from_environment(void **state) {
  (void)state;
  observed seen = start_with("5", "16M");
  assert_int_equal(seen.devices, 5);
  assert_int_equal(seen.memory, 16 * MiB);
  seen = start_with("64", "2048K");
  assert_int_equal(seen.devices, 64);
  assert_int_equal(seen.memory, 2 * MiB);
  seen = start_with("1", "3g");
  assert_int_equal(seen.devices, 1);
  assert_int_equal(seen.memory, 3 * GiB);
  seen = start_with("3", "5000000"); /* bytes, rounded up to a page */
  assert_int_equal(seen.devices, 3);
  assert_int_equal(seen.memory, 5001216);
}

static void test_invalid_values_fall_back_to_defaults(void **state) {
  (void)state;
  const char *bad_devices[] = {
      "0", "65", "-1", "two", "", "2x", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad_devices / sizeof bad_devices[0]; ++i)
    assert_int_equal(start_with(bad_devices[i], NULL).devices, 2);
  const char *bad_memory[] = {
      "12Q", "1024", "M", "-5M", "1.5G", "2000G", "18446744073709551615K"};
  for (size_t i = 0; i < sizeof bad_memory / sizeof bad_memory[0]; ++i)
    assert_int_equal(start_with(NULL, bad_memory[i]).memory, GiB);
}

static void test_environment_is_read_only_at_first_initialize(void **state) {
  (void)state;
  setenv("BACKPLANE_VCPU_DEVICES", "3", 1);
  vcpu_open();
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  setenv("BACKPLANE_VCPU_DEVICES", "7", 1);
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  size_t count = 0;
  assert_int_equal(vcpu.table.get_device_count(&count), C_SUCCESS);
  assert_int_equal(count, 3);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  assert_int_equal(vcpu.table.get_device_count(&count), C_SUCCESS);
  assert_int_equal(count, 7);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  vcpu_close();
  unsetenv("BACKPLANE_VCPU_DEVICES");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_device_count_and_memory_from_environment),
      cmocka_unit_test(test_invalid_values_fall_back_to_defaults),
      cmocka_unit_test(test_environment_is_read_only_at_first_initialize),
  };
  return cmocka_run_group_tests_name("vcpu config", tests, NULL, NULL);
}
