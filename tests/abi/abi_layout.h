/* The ABI layout as one translation unit's compiler sees it. Each of the
 * header-compile units (C11, C++17, the Paddle-path forwarder) fills one, so
 * the runtime test can check every language against the same fixed numbers. */
#ifndef BACKPLANE_TESTS_ABI_LAYOUT_H_
#define BACKPLANE_TESTS_ABI_LAYOUT_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct abi_layout {
  size_t interface_size;
  size_t params_size;
  size_t offset_initialize;
  size_t offset_device_memory_allocate;
  size_t offset_get_device_count;
  size_t offset_xccl_get_unique_id_size;
  size_t offset_profiler_initialize;
  size_t offset_blas_axpby;
  size_t offset_params_device_type;
  size_t extension_base_size;
  size_t trace_event_size;
  int data_type_bfloat16;
  int data_type_complex128;
  /* Version stamped by PADDLE_CUSTOM_RUNTIME_CHECK_VERSION when the host's
   * params size matches; all zero when it returned early. */
  size_t stamped_major, stamped_minor, stamped_patch;
  int stamped_when_both_sizes_differ;
} abi_layout_t;

void abi_layout_from_c11(abi_layout_t *out);
void abi_layout_from_cxx17(abi_layout_t *out);
void abi_layout_from_paddle_path(abi_layout_t *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TESTS_ABI_LAYOUT_H_ */
