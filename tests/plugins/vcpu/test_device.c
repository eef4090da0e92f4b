/* vcpu plugin: InitPlugin, lifetime reference counts, devices, argument
 * checks, attributes and version queries, teardown with live resources. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

static void test_init_plugin_fills_the_table(void **state) {
  (void)state;
  vcpu_open();
  assert_string_equal(vcpu.params.device_type, "vcpu");
  assert_non_null(vcpu.params.sub_device_type);
  assert_int_equal(vcpu.params.version.major, 0);
  assert_int_equal(vcpu.params.version.minor, 1);
  assert_int_equal(vcpu.params.version.patch, 1);
  assert_int_equal(vcpu.table.size, sizeof(C_DeviceInterface));
  const C_DeviceInterface *t = &vcpu.table;
  const void *required[] = {
      (void *)t->initialize,
      (void *)t->finalize,
      (void *)t->init_device,
      (void *)t->set_device,
      (void *)t->get_device,
      (void *)t->deinit_device,
      (void *)t->create_stream,
      (void *)t->destroy_stream,
      (void *)t->query_stream,
      (void *)t->stream_add_callback,
      (void *)t->create_event,
      (void *)t->record_event,
      (void *)t->destroy_event,
      (void *)t->query_event,
      (void *)t->synchronize_device,
      (void *)t->synchronize_stream,
      (void *)t->synchronize_event,
      (void *)t->stream_wait_event,
      (void *)t->device_memory_allocate,
      (void *)t->device_memory_deallocate,
      (void *)t->device_memory_set,
      (void *)t->host_memory_allocate,
      (void *)t->host_memory_deallocate,
      (void *)t->unified_memory_allocate,
      (void *)t->unified_memory_deallocate,
      (void *)t->memory_copy_h2d,
      (void *)t->memory_copy_d2h,
      (void *)t->memory_copy_d2d,
      (void *)t->memory_copy_p2p,
      (void *)t->async_memory_copy_h2d,
      (void *)t->async_memory_copy_d2h,
      (void *)t->async_memory_copy_d2d,
      (void *)t->async_memory_copy_p2p,
      (void *)t->get_device_count,
      (void *)t->get_device_list,
      (void *)t->device_memory_stats,
      (void *)t->device_min_chunk_size,
      (void *)t->device_max_chunk_size,
      (void *)t->device_max_alloc_size,
      (void *)t->device_extra_padding_size,
      (void *)t->device_init_alloc_size,
      (void *)t->device_realloc_size,
      (void *)t->get_compute_capability,
      (void *)t->get_runtime_version,
      (void *)t->get_driver_version,
  };
  for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i)
    assert_non_null(required[i]);
  for (size_t i = 0; i < 8; ++i) {
    assert_null(t->reserved_dev_api[i]);
    assert_null(t->reserved_mem_api[i]);
  }
  vcpu_close();
}

/* InitPlugin fills the layout the host's sizes name (Paddle's layout C
 * here: 96-byte params, 1040-byte table, collectives 11 slots later than
 * in B) and nothing for a size no layout has. */
static void test_init_plugin_fills_the_hosts_layout(void **state) {
  (void)state;
  vcpu_open();
  void (*init_plugin)(CustomRuntimeParams *) =
      (void (*)(CustomRuntimeParams *))dlsym(vcpu.handle, "InitPlugin");
  CustomRuntimeParams params;
  memset(&params, 0, sizeof params);
  void *other_table[1040 / sizeof(void *)] = {0};
  params.size = 96; /* layout C */
  params.interface = (C_DeviceInterface *)(void *)other_table;
  ((C_DeviceInterface *)(void *)other_table)->size = 1040;
  init_plugin(&params);
  assert_string_equal(params.device_type, "vcpu");
  assert_ptr_equal(other_table[27], (void *)vcpu.table.device_memory_allocate);
  assert_null(other_table[59]); /* get_compute_capability(device, ...) */
  assert_ptr_equal(other_table[85], (void *)vcpu.table.xccl_all_reduce);
  assert_ptr_equal(other_table[103], (void *)vcpu.table.profiler_initialize);

  unsigned char odd_table[1000] = {0};
  memset(&params, 0, sizeof params);
  params.size = 96;
  params.interface = (C_DeviceInterface *)(void *)odd_table;
  ((C_DeviceInterface *)(void *)odd_table)->size = sizeof odd_table;
  init_plugin(&params);
  assert_null(params.device_type);
  for (size_t i = sizeof(size_t); i < sizeof odd_table; ++i)
    assert_int_equal(odd_table[i], 0);
  vcpu_close();
}

static void test_initialize_and_finalize_are_reference_counted(void **state) {
  (void)state;
  vcpu_open();
  size_t count = 0;
  assert_int_equal(vcpu.table.get_device_count(&count), C_ERROR);
  assert_int_equal(vcpu.table.finalize(), C_ERROR);
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  void *ptr = NULL;
  assert_int_equal(vcpu.table.device_memory_allocate(vcpu_dev(0), &ptr, 4096),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  /* Still alive for the second runtime: the allocation is still there. */
  assert_int_equal(vcpu.table.get_device_count(&count), C_SUCCESS);
  assert_int_equal(count, 2);
  assert_int_equal(vcpu.table.device_memory_deallocate(vcpu_dev(0), ptr, 4096),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  assert_int_equal(vcpu.table.get_device_count(&count), C_ERROR);
  assert_int_equal(vcpu.table.finalize(), C_ERROR);
  /* A fresh start works. */
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  assert_int_equal(vcpu.table.get_device_count(&count), C_SUCCESS);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  vcpu_close();
}

static void test_device_count_and_list(void **state) {
  (void)state;
  size_t count = 0;
  assert_int_equal(vcpu.table.get_device_count(&count), C_SUCCESS);
  assert_int_equal(count, 2);
  size_t list[2] = {99, 99};
  assert_int_equal(vcpu.table.get_device_list(list), C_SUCCESS);
  assert_int_equal(list[0], 0);
  assert_int_equal(list[1], 1);
  assert_int_equal(vcpu.table.get_device_count(NULL), C_ERROR);
  assert_int_equal(vcpu.table.get_device_list(NULL), C_ERROR);
}

static void *read_current_device(void *out) {
  struct C_Device_st device = {-1};
  if (vcpu.table.get_device(&device) == C_SUCCESS)
    *(int *)out = device.id;
  return NULL;
}

static void test_set_device_is_per_thread(void **state) {
  (void)state;
  struct C_Device_st device = {-1};
  assert_int_equal(vcpu.table.get_device(&device), C_SUCCESS);
  assert_int_equal(device.id, 0);
  assert_int_equal(vcpu.table.set_device(vcpu_dev(1)), C_SUCCESS);
  assert_int_equal(vcpu.table.get_device(&device), C_SUCCESS);
  assert_int_equal(device.id, 1);
  int other = -1;
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, read_current_device, &other),
                   0);
  pthread_join(thread, NULL);
  assert_int_equal(other, 0);
  assert_int_equal(vcpu.table.set_device(vcpu_dev(2)), C_ERROR);
  assert_int_equal(vcpu.table.get_device(&device), C_SUCCESS);
  assert_int_equal(device.id, 1);
  assert_int_equal(vcpu.table.set_device(vcpu_dev(0)), C_SUCCESS);
}

static void test_bad_devices_and_out_pointers_are_errors(void **state) {
  (void)state;
  struct C_Device_st negative = {-1}, too_big = {2};
  C_Device bad[] = {NULL, &negative, &too_big};
  for (size_t i = 0; i < 3; ++i) {
    C_Device d = bad[i];
    C_Stream stream = NULL;
    C_Event event = NULL;
    void *ptr = NULL;
    size_t value = 0;
    char host[8];
    assert_int_equal(vcpu.table.init_device(d), C_ERROR);
    assert_int_equal(vcpu.table.set_device(d), C_ERROR);
    assert_int_equal(vcpu.table.deinit_device(d), C_ERROR);
    assert_int_equal(vcpu.table.create_stream(d, &stream), C_ERROR);
    assert_null(stream);
    assert_int_equal(vcpu.table.create_event(d, &event), C_ERROR);
    assert_null(event);
    assert_int_equal(vcpu.table.synchronize_device(d), C_ERROR);
    assert_int_equal(vcpu.table.device_memory_allocate(d, &ptr, 64), C_ERROR);
    assert_int_equal(vcpu.table.host_memory_allocate(d, &ptr, 64), C_ERROR);
    assert_int_equal(vcpu.table.unified_memory_allocate(d, &ptr, 64), C_ERROR);
    assert_null(ptr);
    assert_int_equal(vcpu.table.memory_copy_h2d(d, host, host, 8), C_ERROR);
    assert_int_equal(vcpu.table.device_memory_stats(d, &value, &value),
                     C_ERROR);
    assert_int_equal(vcpu.table.device_min_chunk_size(d, &value), C_ERROR);
  }
  assert_int_equal(vcpu.table.get_device(NULL), C_ERROR);
  C_Device d0 = vcpu_dev(0);
  assert_int_equal(vcpu.table.create_stream(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.create_event(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.device_memory_allocate(d0, NULL, 64), C_ERROR);
  assert_int_equal(vcpu.table.host_memory_allocate(d0, NULL, 64), C_ERROR);
  assert_int_equal(vcpu.table.device_memory_stats(d0, NULL, NULL), C_ERROR);
  assert_int_equal(vcpu.table.device_max_chunk_size(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.get_compute_capability(NULL), C_ERROR);
  assert_int_equal(vcpu.table.get_runtime_version(NULL), C_ERROR);
  assert_int_equal(vcpu.table.get_driver_version(NULL), C_ERROR);
  assert_int_equal(vcpu.table.destroy_stream(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.query_stream(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.synchronize_stream(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.destroy_event(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.query_event(d0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.synchronize_event(d0, NULL), C_ERROR);
}

static void test_streams_and_events_belong_to_their_device(void **state) {
  (void)state;
  C_Stream stream = NULL;
  C_Event event = NULL;
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(0), &stream), C_SUCCESS);
  assert_int_equal(vcpu.table.create_event(vcpu_dev(0), &event), C_SUCCESS);
  C_Device d1 = vcpu_dev(1);
  assert_int_equal(vcpu.table.query_stream(d1, stream), C_ERROR);
  assert_int_equal(vcpu.table.synchronize_stream(d1, stream), C_ERROR);
  assert_int_equal(vcpu.table.destroy_stream(d1, stream), C_ERROR);
  assert_int_equal(vcpu.table.query_event(d1, event), C_ERROR);
  assert_int_equal(vcpu.table.record_event(d1, stream, event), C_ERROR);
  assert_int_equal(vcpu.table.destroy_event(d1, event), C_ERROR);
  assert_int_equal(
      vcpu.table.stream_add_callback(vcpu_dev(0), stream, NULL, NULL), C_ERROR);
  /* A handle that is not a stream is refused, not dereferenced blindly. */
  assert_int_equal(vcpu.table.query_stream(vcpu_dev(0), (C_Stream)event),
                   C_ERROR);
  assert_int_equal(vcpu.table.query_event(vcpu_dev(0), (C_Event)stream),
                   C_ERROR);
  assert_int_equal(vcpu.table.destroy_event(vcpu_dev(0), event), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(0), stream), C_SUCCESS);
}

static void test_init_and_deinit_device_are_counted(void **state) {
  (void)state;
  C_Device d1 = vcpu_dev(1);
  assert_int_equal(vcpu.table.deinit_device(d1), C_ERROR);
  assert_int_equal(vcpu.table.init_device(d1), C_SUCCESS);
  assert_int_equal(vcpu.table.init_device(d1), C_SUCCESS);
  void *ptr = NULL;
  assert_int_equal(vcpu.table.device_memory_allocate(d1, &ptr, 1 << 20),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.deinit_device(d1), C_SUCCESS);
  /* One user left: the allocation lives on. */
  assert_int_equal(vcpu.table.device_memory_deallocate(d1, ptr, 1 << 20),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.deinit_device(d1), C_SUCCESS);
  assert_int_equal(vcpu.table.deinit_device(d1), C_ERROR);
}

static int g_drained_callbacks;

static void count_callback(C_Device device, C_Stream stream, void *user_data,
                           C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  (*(int *)user_data)++;
}

static void test_deinit_device_releases_live_resources(void **state) {
  (void)state;
  C_Device d1 = vcpu_dev(1);
  assert_int_equal(vcpu.table.init_device(d1), C_SUCCESS);
  C_Stream stream = NULL;
  C_Event event = NULL;
  void *ptr = NULL;
  assert_int_equal(vcpu.table.create_stream(d1, &stream), C_SUCCESS);
  assert_int_equal(vcpu.table.create_event(d1, &event), C_SUCCESS);
  assert_int_equal(vcpu.table.device_memory_allocate(d1, &ptr, 3 << 20),
                   C_SUCCESS);
  g_drained_callbacks = 0;
  for (int i = 0; i < 10; ++i)
    assert_int_equal(vcpu.table.stream_add_callback(d1, stream, count_callback,
                                                    &g_drained_callbacks),
                     C_SUCCESS);
  assert_int_equal(vcpu.table.record_event(d1, stream, event), C_SUCCESS);
  assert_int_equal(vcpu.table.deinit_device(d1), C_SUCCESS);
  assert_int_equal(g_drained_callbacks, 10); /* drained, not dropped */
  size_t total = 0, free_memory = 0;
  assert_int_equal(vcpu.table.device_memory_stats(d1, &total, &free_memory),
                   C_SUCCESS);
  assert_int_equal(free_memory, total);
}

static void test_attributes(void **state) {
  (void)state;
  BP_AttrValue value;
  memset(&value, 0, sizeof value);
  assert_int_equal(vcpu.attributes->base.struct_size,
                   sizeof(BP_DeviceAttributesExtension));
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(1), BP_ATTR_EXIST, &value),
      C_SUCCESS);
  assert_int_equal(value.kind, BP_ATTR_VALUE_INT);
  assert_int_equal(value.i64, 1);
  memset(&value, 0, sizeof value);
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(7), BP_ATTR_EXIST, &value),
      C_SUCCESS);
  assert_int_equal(value.kind, BP_ATTR_VALUE_INT);
  assert_int_equal(value.i64, 0);
  memset(&value, 0, sizeof value);
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(1), BP_ATTR_DEVICE_NAME, &value),
      C_SUCCESS);
  assert_int_equal(value.kind, BP_ATTR_VALUE_STRING);
  assert_string_equal(value.str, "vcpu virtual device 1");
  memset(&value, 0, sizeof value);
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(0), BP_ATTR_WARP_SIZE, &value),
      C_SUCCESS);
  assert_int_equal(value.i64, 1);
  memset(&value, 0, sizeof value);
  assert_int_equal(vcpu.attributes->get_attribute(
                       vcpu_dev(0), BP_ATTR_TOTAL_GLOBAL_MEMORY, &value),
                   C_SUCCESS);
  assert_int_equal(value.i64, (int64_t)1 << 30);
  void *ptr = NULL;
  assert_int_equal(vcpu.table.device_memory_allocate(vcpu_dev(0), &ptr, 8192),
                   C_SUCCESS);
  memset(&value, 0, sizeof value);
  assert_int_equal(vcpu.attributes->get_attribute(
                       vcpu_dev(0), BP_ATTR_AVAILABLE_GLOBAL_MEMORY, &value),
                   C_SUCCESS);
  assert_int_equal(value.i64, ((int64_t)1 << 30) - 8192);
  assert_int_equal(vcpu.table.device_memory_deallocate(vcpu_dev(0), ptr, 8192),
                   C_SUCCESS);
  memset(&value, 0, sizeof value);
  assert_int_equal(vcpu.attributes->get_attribute(
                       vcpu_dev(0), BP_ATTR_MULTI_PROCESSOR_COUNT, &value),
                   C_SUCCESS);
  assert_true(value.i64 >= 1);
  /* Unsupported: success with the value left zeroed. */
  memset(&value, 0, sizeof value);
  assert_int_equal(vcpu.attributes->get_attribute(
                       vcpu_dev(0), BP_ATTR_MAX_CLOCK_RATE, &value),
                   C_SUCCESS);
  assert_int_equal(value.kind, BP_ATTR_VALUE_UNSUPPORTED);
  assert_int_equal(value.i64, 0);
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(7), BP_ATTR_WARP_SIZE, &value),
      C_ERROR);
  assert_int_equal(
      vcpu.attributes->get_attribute(vcpu_dev(0), BP_ATTR_WARP_SIZE, NULL),
      C_ERROR);
}

static void test_versions(void **state) {
  (void)state;
  size_t value = 0;
  assert_int_equal(vcpu.table.get_compute_capability(&value), C_SUCCESS);
  assert_int_equal(value, 10);
  assert_int_equal(vcpu.table.get_runtime_version(&value), C_SUCCESS);
  assert_int_equal(value, 100);
  assert_int_equal(vcpu.table.get_driver_version(&value), C_SUCCESS);
  assert_int_equal(value, 100);
}

static void test_finalize_with_live_resources_cleans_up(void **state) {
  (void)state;
  vcpu_open();
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  C_Stream stream = NULL;
  C_Event event = NULL;
  void *device_ptr = NULL, *host_ptr = NULL, *unified_ptr = NULL;
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(0), &stream), C_SUCCESS);
  assert_int_equal(vcpu.table.create_event(vcpu_dev(1), &event), C_SUCCESS);
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(1), &device_ptr, 100),
      C_SUCCESS);
  assert_int_equal(vcpu.table.host_memory_allocate(vcpu_dev(0), &host_ptr, 10),
                   C_SUCCESS);
  assert_int_equal(
      vcpu.table.unified_memory_allocate(vcpu_dev(0), &unified_ptr, 10),
      C_SUCCESS);
  int counted = 0;
  assert_int_equal(vcpu.table.stream_add_callback(vcpu_dev(0), stream,
                                                  count_callback, &counted),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  assert_int_equal(counted, 1);
  /* Everything is gone: a new life starts empty (ASan checks the leaks). */
  assert_int_equal(vcpu.table.initialize(), C_SUCCESS);
  size_t total = 0, free_memory = 0;
  assert_int_equal(
      vcpu.table.device_memory_stats(vcpu_dev(1), &total, &free_memory),
      C_SUCCESS);
  assert_int_equal(total, free_memory);
  assert_int_equal(vcpu.table.finalize(), C_SUCCESS);
  vcpu_close();
}

int main(void) {
  const struct CMUnitTest standalone[] = {
      cmocka_unit_test(test_init_plugin_fills_the_table),
      cmocka_unit_test(test_init_plugin_fills_the_hosts_layout),
      cmocka_unit_test(test_initialize_and_finalize_are_reference_counted),
      cmocka_unit_test(test_finalize_with_live_resources_cleans_up),
  };
  const struct CMUnitTest initialised[] = {
      cmocka_unit_test(test_device_count_and_list),
      cmocka_unit_test(test_set_device_is_per_thread),
      cmocka_unit_test(test_bad_devices_and_out_pointers_are_errors),
      cmocka_unit_test(test_streams_and_events_belong_to_their_device),
      cmocka_unit_test(test_init_and_deinit_device_are_counted),
      cmocka_unit_test(test_deinit_device_releases_live_resources),
      cmocka_unit_test(test_attributes),
      cmocka_unit_test(test_versions),
  };
  int failures =
      cmocka_run_group_tests_name("vcpu plugin", standalone, NULL, NULL);
  failures += cmocka_run_group_tests_name("vcpu devices", initialised,
                                          vcpu_setup, vcpu_teardown);
  return failures;
}
