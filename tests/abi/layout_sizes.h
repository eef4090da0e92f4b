/* A layout as one header declares it, read by a C++ unit that includes that
 * header (layout_slots_of.h), for the C tests to compare with the table. */
#ifndef BACKPLANE_TESTS_ABI_LAYOUT_SIZES_H_
#define BACKPLANE_TESTS_ABI_LAYOUT_SIZES_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct declared_layout {
  size_t interface_size;
  size_t params_size;
  size_t params_version; /* offsetof(CustomRuntimeParams, ...) */
  size_t params_device_type;
  size_t params_sub_device_type;
  long *slots; /* one per table row, -1 where the header has no such field */
} declared_layout_t;

/* Backplane's device_ext.h (layout B). */
void declared_layout_of_backplane(declared_layout_t *out);
/* Paddle's own device_ext.h, from the installed wheel (tests that have it). */
void declared_layout_of_paddle(declared_layout_t *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TESTS_ABI_LAYOUT_SIZES_H_ */
