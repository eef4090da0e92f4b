/* The table of Paddle's custom-runtime layouts (backplane/device_layouts.h):
 * its layout B column is exactly what Backplane's device_ext.h declares
 * (read from the header with offsetof), each layout's landmarks are the
 * fixed numbers of Paddle's headers, and translating a table moves each
 * function to its slot in the other layout, zeroes what that layout lacks
 * and writes nothing past the layout's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "abi/layout_columns.h"
#include "abi/layout_sizes.h"
#include "backplane/device_layouts.h"

#define WORD 8
#define MAX_WORDS 160

static void b_column_is_backplanes_header(void **state) {
  (void)state;
  long slots[LAYOUT_ROW_COUNT];
  declared_layout_t declared = {.slots = slots};
  declared_layout_of_backplane(&declared);
  assert_int_equal(declared.interface_size, 912);
  assert_int_equal(declared.params_size, 88);
  assert_int_equal(BP_DeviceLayoutInterfaceSize(BP_DEVICE_LAYOUT_B), 912);
  assert_int_equal(BP_DeviceLayoutParamsSize(BP_DEVICE_LAYOUT_B), 88);
  assert_layout_column_matches(BP_DEVICE_LAYOUT_B, slots,
                               "backplane/device_ext.h");
}

/* Where three landmarks sit: the first collective slot, the profiler's and
 * blas_axpby's (numbers from Paddle's headers of each layout). */
static void landmarks_match_paddles_headers(void **state) {
  (void)state;
  static const struct {
    int layout;
    size_t interface_size, params_size;
    long first_ccl, profiler_initialize, blas_axpby;
  } expected[] = {
      {BP_DEVICE_LAYOUT_A, 904, 88, 70, 91, 105},
      {BP_DEVICE_LAYOUT_B, 912, 88, 70, 92, 106},
      {BP_DEVICE_LAYOUT_C, 1040, 96, 80, 103, 122},
      {BP_DEVICE_LAYOUT_D, 1032, 96, 79, 102, 121},
      {BP_DEVICE_LAYOUT_E, 1128, 96, 80, 103, 133},
  };
  for (size_t i = 0; i < sizeof expected / sizeof *expected; ++i) {
    int layout = expected[i].layout;
    assert_int_equal(BP_DeviceLayoutInterfaceSize(layout),
                     expected[i].interface_size);
    assert_int_equal(BP_DeviceLayoutParamsSize(layout),
                     expected[i].params_size);
    assert_int_equal(BP_DeviceLayoutOfSize(expected[i].interface_size), layout);
    long first_ccl = layout_slot(layout, "xccl_get_comm_name");
    if (first_ccl < 0)
      first_ccl = layout_slot(layout, "xccl_get_unique_id_size");
    assert_int_equal(first_ccl, expected[i].first_ccl);
    assert_int_equal(layout_slot(layout, "profiler_initialize"),
                     expected[i].profiler_initialize);
    assert_int_equal(layout_slot(layout, "blas_axpby"), expected[i].blas_axpby);
  }
  assert_int_equal(BP_DeviceLayoutOfSize(1000), -1);
  assert_string_equal(BP_DeviceLayoutName(BP_DEVICE_LAYOUT_E), "E");
  assert_string_equal(BP_DeviceLayoutName(BP_DEVICE_LAYOUT_COUNT), "?");
}

/* Every row of a layout in range, past the size word, no two in one slot. */
static void slots_fit_and_never_collide(void **state) {
  (void)state;
  for (int layout = 0; layout < BP_DEVICE_LAYOUT_COUNT; ++layout) {
    long words = (long)(BP_DeviceLayoutInterfaceSize(layout) / WORD);
    int used[MAX_WORDS] = {0};
    for (size_t row = 0; row < LAYOUT_ROW_COUNT; ++row) {
      long slot = layout_rows[row].slots[layout];
      if (slot < 0)
        continue;
      if (slot < 1 || slot >= words || used[slot])
        fail_msg("layout %s: row %s at slot %ld (of %ld words, taken %d)",
                 BP_DeviceLayoutName(layout), layout_rows[row].row, slot, words,
                 used[slot < MAX_WORDS && slot >= 0 ? slot : 0]);
      used[slot] = 1;
    }
  }
}

/* A layout-B table whose function words are 0x1000 + slot. */
static void fill_b_table(uint64_t *words) {
  memset(words, 0, 912);
  words[0] = 912;
  for (size_t row = 0; row < LAYOUT_ROW_COUNT; ++row) {
    long slot = layout_rows[row].slots[BP_DEVICE_LAYOUT_B];
    if (slot >= 0)
      words[slot] = 0x1000 + (uint64_t)slot;
  }
}

static void b_to_e_moves_each_function_to_its_e_slot(void **state) {
  (void)state;
  uint64_t b[MAX_WORDS], e[MAX_WORDS];
  fill_b_table(b);
  memset(e, 0xCD, sizeof e);
  e[0] = 1128;
  assert_int_equal(
      BP_DeviceLayoutTranslate(e, BP_DEVICE_LAYOUT_E, b, BP_DEVICE_LAYOUT_B),
      0);
  assert_int_equal(e[0], 1128);         /* size word left alone */
  assert_int_equal(e[27], 0x1000 + 27); /* device_memory_allocate */
  assert_int_equal(e[58], 0x1000 + 58); /* device_realloc_size */
  assert_int_equal(e[59], 0); /* get_compute_capability(device, ...) */
  assert_int_equal(e[62], 0); /* get_driver_version(device, ...) */
  assert_int_equal(e[80], 0); /* xccl_get_comm_name */
  assert_int_equal(e[81], 0x1000 + 70);     /* xccl_get_unique_id_size */
  assert_int_equal(e[85], 0x1000 + 74);     /* xccl_all_reduce */
  assert_int_equal(e[94], 0x1000 + 83);     /* xccl_all_to_all */
  assert_int_equal(e[103], 0x1000 + 92);    /* profiler_initialize */
  assert_int_equal(e[108], 0x1000 + 97);    /* profiler_collect_... */
  assert_int_equal(e[122], 0);              /* cuda_stream_begin_capture */
  assert_int_equal(e[133], 0x1000 + 106);   /* blas_axpby */
  for (size_t slot = 72; slot < 80; ++slot) /* reserved_info_api */
    assert_int_equal(e[slot], 0);
  for (size_t slot = 134; slot < 141; ++slot) /* reserved_other_api */
    assert_int_equal(e[slot], 0);
  for (size_t slot = 141; slot < MAX_WORDS; ++slot) /* past 1128 bytes */
    assert_int_equal(e[slot], 0xCDCDCDCDCDCDCDCDull);
}

static void e_to_b_keeps_what_b_has(void **state) {
  (void)state;
  uint64_t b[MAX_WORDS], e[MAX_WORDS], back[MAX_WORDS];
  fill_b_table(b);
  memset(e, 0, sizeof e);
  e[0] = 1128;
  BP_DeviceLayoutTranslate(e, BP_DEVICE_LAYOUT_E, b, BP_DEVICE_LAYOUT_B);
  e[59] = 0xE059;  /* a plugin's get_compute_capability(device, ...) */
  e[117] = 0xE117; /* init_blas_handle */
  memset(back, 0xCD, sizeof back);
  back[0] = 912;
  BP_DeviceLayoutTranslate(back, BP_DEVICE_LAYOUT_B, e, BP_DEVICE_LAYOUT_E);
  for (size_t slot = 0; slot < 912 / WORD; ++slot) {
    /* The host-wide queries of A/B have no counterpart in E. */
    uint64_t want = slot >= 59 && slot <= 61 ? 0 : b[slot];
    if (back[slot] != want)
      fail_msg("slot %zu: 0x%llx, expected 0x%llx", slot,
               (unsigned long long)back[slot], (unsigned long long)want);
  }
  assert_int_equal(back[912 / WORD], 0xCDCDCDCDCDCDCDCDull);
}

static void b_to_a_drops_all_to_all(void **state) {
  (void)state;
  uint64_t b[MAX_WORDS], a[MAX_WORDS];
  fill_b_table(b);
  memset(a, 0xCD, sizeof a);
  a[0] = 904;
  BP_DeviceLayoutTranslate(a, BP_DEVICE_LAYOUT_A, b, BP_DEVICE_LAYOUT_B);
  assert_int_equal(a[82], 0x1000 + 82);   /* xccl_recv */
  assert_int_equal(a[83], 0);             /* reserved_ccl_api[0] in A */
  assert_int_equal(a[91], 0x1000 + 92);   /* profiler_initialize */
  assert_int_equal(a[105], 0x1000 + 106); /* blas_axpby */
  assert_int_equal(a[112], 0);            /* the last reserved word */
  assert_int_equal(a[113], 0xCDCDCDCDCDCDCDCDull); /* past 904 bytes */
}

static void unknown_layout_writes_nothing(void **state) {
  (void)state;
  uint64_t b[MAX_WORDS], dst[MAX_WORDS];
  fill_b_table(b);
  memset(dst, 0xCD, sizeof dst);
  assert_int_equal(BP_DeviceLayoutTranslate(dst, BP_DEVICE_LAYOUT_COUNT, b,
                                            BP_DEVICE_LAYOUT_B),
                   -1);
  assert_int_equal(BP_DeviceLayoutTranslate(dst, BP_DEVICE_LAYOUT_E, b, -1),
                   -1);
  for (size_t slot = 0; slot < MAX_WORDS; ++slot)
    assert_int_equal(dst[slot], 0xCDCDCDCDCDCDCDCDull);

  /* A host whose interface size names no layout gets nothing. */
  uint64_t host[MAX_WORDS];
  memset(host, 0, sizeof host);
  host[0] = 1000;
  CustomRuntimeParams params = {.size = 96};
  params.interface = (C_DeviceInterface *)host;
  assert_int_equal(
      BP_CustomRuntimeExport(&params, (const C_DeviceInterface *)b, "t", "v"),
      0);
  assert_null(params.device_type);
  assert_int_equal(params.version.minor, 0);
  assert_int_equal(host[27], 0);
  assert_int_equal(BP_CustomRuntimeExport(NULL, NULL, "t", "v"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(b_column_is_backplanes_header),
      cmocka_unit_test(landmarks_match_paddles_headers),
      cmocka_unit_test(slots_fit_and_never_collide),
      cmocka_unit_test(b_to_e_moves_each_function_to_its_e_slot),
      cmocka_unit_test(e_to_b_keeps_what_b_has),
      cmocka_unit_test(b_to_a_drops_all_to_all),
      cmocka_unit_test(unknown_layout_writes_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
