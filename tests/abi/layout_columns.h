/* The layout table's rows as data, for the ABI tests, and the comparison of
 * one column with what a header declares (layout_sizes.h). Include after
 * <cmocka.h>. */
#ifndef BACKPLANE_TESTS_ABI_LAYOUT_COLUMNS_H_
#define BACKPLANE_TESTS_ABI_LAYOUT_COLUMNS_H_

#include <string.h>

#include "backplane/device_layout_table.h"

typedef struct layout_row {
  const char *row, *field;
  long slots[BP_DEVICE_LAYOUT_COUNT];
} layout_row_t;

static const layout_row_t layout_rows[] = {
#define LAYOUT_ROW(row, field, a, b, c, d, e) {#row, #field, {a, b, c, d, e}},
    BP_DEVICE_LAYOUT_SLOTS(LAYOUT_ROW)
#undef LAYOUT_ROW
};
#define LAYOUT_ROW_COUNT (sizeof layout_rows / sizeof *layout_rows)

/* The table's slot of `row` in `layout`, -1 when absent; fails the test for
 * a row the table does not have. */
static inline long layout_slot(int layout, const char *row) {
  for (size_t i = 0; i < LAYOUT_ROW_COUNT; ++i)
    if (!strcmp(layout_rows[i].row, row))
      return layout_rows[i].slots[layout];
  fail_msg("no row %s in the layout table", row);
  return -1;
}

/* `declared` (one slot per row, -1 where the header has no such field)
 * agrees with the table's column for `layout`: each row present sits where
 * the table says, and a row the table calls absent is absent from the
 * header, or its field is another row's (a slot whose signature changed). */
static inline void assert_layout_column_matches(int layout,
                                                const long *declared,
                                                const char *header) {
  for (size_t i = 0; i < LAYOUT_ROW_COUNT; ++i) {
    long want = layout_rows[i].slots[layout];
    if (declared[i] == want)
      continue;
    int other_row_has_it = 0;
    for (size_t j = 0; want < 0 && j < LAYOUT_ROW_COUNT; ++j)
      other_row_has_it |= j != i &&
                          !strcmp(layout_rows[j].field, layout_rows[i].field) &&
                          layout_rows[j].slots[layout] == declared[i];
    if (!other_row_has_it)
      fail_msg("%s declares %s at slot %ld; the table's layout %c says %ld",
               header, layout_rows[i].field, declared[i], 'A' + layout, want);
  }
}

#endif /* BACKPLANE_TESTS_ABI_LAYOUT_COLUMNS_H_ */
