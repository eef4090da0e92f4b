/* The cuda op library's kernels without a GPU: the embedded CUDA C source
 * compiles with NVRTC to PTX for compute_90, and every kernel the library
 * looks up by name is an entry of that PTX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "co_kernels.h"
#include "cu.h"
#include "nvrtc_compile.h"

static void every_kernel_compiles_to_ptx_for_compute_90(void **state) {
  (void)state;
  char *ptx = NULL;
  size_t size = 0;
  C_Status status =
      cu_nvrtc_compile(co_kernel_source, co_kernel_source_size, "co_kernels.cu",
                       "compute_90", &ptx, &size);
  if (status != C_SUCCESS)
    fail_msg("%s", cu_last_error());
  assert_non_null(strstr(ptx, ".target sm_90"));
  for (int k = 0; k < CO_K_COUNT; k++) {
    char entry[96];
    snprintf(entry, sizeof entry, ".entry %s(", co_kernel_names[k]);
    if (!strstr(ptx, entry))
      fail_msg("kernel %s is not in the PTX", co_kernel_names[k]);
  }
  free(ptx);
}

/* The source is what the build embedded: both files, NUL-terminated. */
static void source_holds_the_argument_blocks_and_the_kernels(void **state) {
  (void)state;
  assert_int_equal(strlen(co_kernel_source), co_kernel_source_size);
  assert_non_null(strstr(co_kernel_source, "typedef struct co_strided_args"));
  assert_non_null(
      strstr(co_kernel_source, "extern \"C\" __global__ void co_adamw("));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_kernel_compiles_to_ptx_for_compute_90),
      cmocka_unit_test(source_holds_the_argument_blocks_and_the_kernels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
