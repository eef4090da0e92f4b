/* The one table of plugin slots (core/plugin_slots.h, read through the
 * dispatch table's names) against numbers written here by hand from
 * Paddle's layout B: every function slot of C_DeviceInterface, its slot
 * number (offset / 8) and whether the loader requires it or the core has a
 * fallback for it. The table cannot grade itself: the expected list below
 * does not come from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/dispatch.h"

typedef struct expected_slot {
  const char *name;
  size_t slot; /* offset / 8 in layout B */
  char need;   /* 'R' required, 'F' fallback, 'O' optional */
} expected_slot_t;

static const expected_slot_t expected[] = {
    {"initialize", 1, 'O'},
    {"finalize", 2, 'O'},
    {"init_device", 3, 'O'},
    {"set_device", 4, 'R'},
    {"get_device", 5, 'R'},
    {"deinit_device", 6, 'O'},
    {"create_stream", 7, 'F'},
    {"destroy_stream", 8, 'F'},
    {"query_stream", 9, 'F'},
    {"stream_add_callback", 10, 'F'},
    {"create_event", 11, 'R'},
    {"record_event", 12, 'R'},
    {"destroy_event", 13, 'R'},
    {"query_event", 14, 'F'},
    {"synchronize_device", 15, 'R'},
    {"synchronize_stream", 16, 'F'},
    {"synchronize_event", 17, 'R'},
    {"stream_wait_event", 18, 'F'},
    {"device_memory_allocate", 27, 'R'},
    {"device_memory_deallocate", 28, 'R'},
    {"device_memory_set", 29, 'F'},
    {"host_memory_allocate", 30, 'O'},
    {"host_memory_deallocate", 31, 'O'},
    {"unified_memory_allocate", 32, 'O'},
    {"unified_memory_deallocate", 33, 'O'},
    {"memory_copy_h2d", 34, 'O'},
    {"memory_copy_d2h", 35, 'O'},
    {"memory_copy_d2d", 36, 'O'},
    {"memory_copy_p2p", 37, 'F'},
    {"async_memory_copy_h2d", 38, 'F'},
    {"async_memory_copy_d2h", 39, 'F'},
    {"async_memory_copy_d2d", 40, 'F'},
    {"async_memory_copy_p2p", 41, 'F'},
    {"get_device_count", 50, 'R'},
    {"get_device_list", 51, 'R'},
    {"device_memory_stats", 52, 'O'},
    {"device_min_chunk_size", 53, 'O'},
    {"device_max_chunk_size", 54, 'O'},
    {"device_max_alloc_size", 55, 'O'},
    {"device_extra_padding_size", 56, 'O'},
    {"device_init_alloc_size", 57, 'O'},
    {"device_realloc_size", 58, 'O'},
    {"get_compute_capability", 59, 'O'},
    {"get_runtime_version", 60, 'O'},
    {"get_driver_version", 61, 'O'},
    {"xccl_get_unique_id_size", 70, 'O'},
    {"xccl_get_unique_id", 71, 'O'},
    {"xccl_comm_init_rank", 72, 'O'},
    {"xccl_destroy_comm", 73, 'O'},
    {"xccl_all_reduce", 74, 'O'},
    {"xccl_broadcast", 75, 'O'},
    {"xccl_reduce", 76, 'O'},
    {"xccl_all_gather", 77, 'O'},
    {"xccl_reduce_scatter", 78, 'O'},
    {"xccl_group_start", 79, 'O'},
    {"xccl_group_end", 80, 'O'},
    {"xccl_send", 81, 'O'},
    {"xccl_recv", 82, 'O'},
    {"xccl_all_to_all", 83, 'O'},
    {"profiler_initialize", 92, 'O'},
    {"profiler_finalize", 93, 'O'},
    {"profiler_prepare_tracing", 94, 'O'},
    {"profiler_start_tracing", 95, 'O'},
    {"profiler_stop_tracing", 96, 'O'},
    {"profiler_collect_trace_data", 97, 'O'},
    {"blas_axpby", 106, 'O'},
};
enum { EXPECTED_COUNT = sizeof expected / sizeof expected[0] };

static char need_letter(bp_slot_need_t need) {
  switch (need) {
  case BP_SLOT_NEED_REQUIRED:
    return 'R';
  case BP_SLOT_NEED_FALLBACK:
    return 'F';
  case BP_SLOT_NEED_OPTIONAL:
    return 'O';
  }
  return '?';
}

/* Names, slot numbers (the header's offsets) and needs, row by row. */
static void test_table_matches_layout_b(void **state) {
  (void)state;
  assert_int_equal(bp_interface_function_count, EXPECTED_COUNT);
  for (size_t i = 0; i < EXPECTED_COUNT; ++i) {
    const bp_interface_function_t *fn = &bp_interface_functions[i];
    if (strcmp(fn->name, expected[i].name) != 0)
      fail_msg("row %zu is %s, expected %s", i, fn->name, expected[i].name);
    if (fn->offset != expected[i].slot * 8)
      fail_msg("%s at offset %zu, expected slot %zu (offset %zu)", fn->name,
               fn->offset, expected[i].slot, expected[i].slot * 8);
    if (need_letter(fn->need) != expected[i].need)
      fail_msg("%s is '%c', expected '%c'", fn->name, need_letter(fn->need),
               expected[i].need);
  }
}

/* Every byte of C_DeviceInterface is the size, a reserved array or a slot of
 * the table: clearing those leaves nothing set. */
static void test_table_covers_every_function_slot(void **state) {
  (void)state;
  C_DeviceInterface table;
  memset(&table, 0xa5, sizeof table);
  table.size = 0;
  memset(table.reserved_dev_api, 0, sizeof table.reserved_dev_api);
  memset(table.reserved_mem_api, 0, sizeof table.reserved_mem_api);
  memset(table.reserved_info_api, 0, sizeof table.reserved_info_api);
  memset(table.reserved_ccl_api, 0, sizeof table.reserved_ccl_api);
  memset(table.reserved_profiler_api, 0, sizeof table.reserved_profiler_api);
  memset(table.reserved_other_api, 0, sizeof table.reserved_other_api);
  for (size_t i = 0; i < bp_interface_function_count; ++i)
    memset((char *)&table + bp_interface_functions[i].offset, 0,
           sizeof(void (*)(void)));
  const unsigned char *bytes = (const unsigned char *)&table;
  for (size_t b = 0; b < sizeof table; ++b)
    if (bytes[b])
      fail_msg("byte %zu (slot %zu) belongs to no row of the table", b, b / 8);
}

/* bp_interface_has reads the slot the table names. */
static void test_has_reads_the_named_slot(void **state) {
  (void)state;
  C_DeviceInterface table;
  memset(&table, 0, sizeof table);
  for (size_t i = 0; i < bp_interface_function_count; ++i)
    assert_false(bp_interface_has(&table, bp_interface_functions[i].offset));
  table.xccl_all_to_all =
      (C_Status(*)(const void **, const size_t *, const C_DataType *, void **,
                   const size_t *, const C_DataType *, size_t, size_t,
                   C_CCLComm, C_Stream))(uintptr_t)0x10;
  size_t set = 0;
  for (size_t i = 0; i < bp_interface_function_count; ++i)
    if (bp_interface_has(&table, bp_interface_functions[i].offset)) {
      assert_string_equal(bp_interface_functions[i].name, "xccl_all_to_all");
      set++;
    }
  assert_int_equal(set, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_matches_layout_b),
      cmocka_unit_test(test_table_covers_every_function_slot),
      cmocka_unit_test(test_has_reads_the_named_slot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
