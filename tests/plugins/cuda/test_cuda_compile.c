/* What the cuda plugin does without a GPU: NVRTC compiles CUDA C to PTX for
 * a named architecture, a source that does not compile comes back with
 * NVRTC's build log, module images are told apart by their bytes, and
 * check's CUDA C conformance kernels compile with the host's layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cu.h"
#include "kernel.h"
#include "kernels/conformance_kernels.h"
#include "module_format.h"
#include "nvrtc_compile.h"

static const char add_one_source[] =
    "struct add_one_param { float *data; unsigned n; };\n"
    "extern \"C\" __global__ void add_one(add_one_param p) {\n"
    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < p.n) p.data[i] += 1.0f;\n"
    "}\n";

static void source_compiles_to_ptx_for_the_named_arch(void **state) {
  (void)state;
  char *ptx = NULL;
  size_t size = 0;
  /* Without a trailing NUL: the compiler must not read past `size`. */
  assert_int_equal(cu_nvrtc_compile(add_one_source, strlen(add_one_source),
                                    "add_one.cu", "compute_90", &ptx, &size),
                   C_SUCCESS);
  assert_non_null(ptx);
  assert_true(size > 1);
  assert_int_equal(ptx[size - 1], '\0');
  assert_non_null(strstr(ptx, ".target sm_90"));
  assert_non_null(strstr(ptx, ".entry add_one"));
  assert_int_equal(cu_module_format(ptx, size), CU_MODULE_KIND_PTX);
  free(ptx);
}

static void failed_build_returns_the_log(void **state) {
  (void)state;
  static const char broken[] =
      "extern \"C\" __global__ void broken() { not_declared_anywhere = 1; }\n";
  char *image = (char *)0x1;
  size_t size = 7;
  assert_int_equal(cu_nvrtc_compile(broken, strlen(broken), "broken.cu",
                                    "compute_80", &image, &size),
                   C_ERROR);
  assert_ptr_equal(image, (char *)0x1); /* outputs untouched on failure */
  assert_int_equal(size, 7);
  const char *message = cu_last_error();
  assert_non_null(strstr(message, "NVRTC could not compile broken.cu"));
  assert_non_null(strstr(message, "compute_80"));
  assert_non_null(strstr(message, "not_declared_anywhere"));
}

static void unknown_arch_is_refused_with_the_log(void **state) {
  (void)state;
  char *image = NULL;
  size_t size = 0;
  assert_int_not_equal(cu_nvrtc_compile(add_one_source, strlen(add_one_source),
                                        "add_one.cu", "compute_9999", &image,
                                        &size),
                       C_SUCCESS);
  assert_null(image);
  assert_non_null(strstr(cu_last_error(), "compute_9999"));
}

static void null_arguments_are_refused(void **state) {
  (void)state;
  char *image = NULL;
  size_t size = 0;
  assert_int_equal(
      cu_nvrtc_compile(NULL, 0, "x.cu", "compute_90", &image, &size), C_ERROR);
  assert_non_null(strstr(cu_last_error(), "source is NULL"));
  assert_int_equal(
      cu_nvrtc_compile(add_one_source, 4, "x.cu", NULL, &image, &size),
      C_ERROR);
  assert_non_null(strstr(cu_last_error(), "arch is NULL"));
}

static void formats_are_read_from_the_bytes(void **state) {
  (void)state;
  static const char ptx[] = "//\n// made by hand\n.version 8.0\n"
                            ".target sm_90\n.address_size 64\n";
  assert_int_equal(cu_module_format(ptx, sizeof ptx - 1), CU_MODULE_KIND_PTX);
  assert_int_equal(cu_module_format(add_one_source, sizeof add_one_source),
                   CU_MODULE_KIND_CUDA_C);
  /* A ".version" inside a comment of CUDA C is not a directive. */
  static const char c_source[] = "// .version .target\n__global__ void k(){}\n";
  assert_int_equal(cu_module_format(c_source, sizeof c_source - 1),
                   CU_MODULE_KIND_CUDA_C);

  unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  elf[18] = 190; /* EM_CUDA */
  assert_int_equal(cu_module_format(elf, sizeof elf), CU_MODULE_KIND_CUBIN);
  elf[18] = 62; /* EM_X86_64: a host shared object */
  assert_int_equal(cu_module_format(elf, sizeof elf), 0);

  unsigned char fatbin[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0};
  assert_int_equal(cu_module_format(fatbin, sizeof fatbin),
                   CU_MODULE_KIND_FATBIN);

  unsigned char binary[8] = {1, 2, 0, 3, 4, 0, 5, 6};
  assert_int_equal(cu_module_format(binary, sizeof binary), 0);
  assert_int_equal(cu_module_format(NULL, 4), 0);
  assert_int_equal(cu_module_format(ptx, 0), 0);
  assert_string_equal(cu_module_format_name(CU_MODULE_KIND_FATBIN), "fatbin");
}

/* The whole of a text file, NUL-terminated; *size without the NUL. */
static char *read_text(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  char *text = malloc(1 << 16);
  assert_non_null(text);
  *size = fread(text, 1, (1 << 16) - 1, file);
  assert_true(feof(file));
  text[*size] = '\0';
  fclose(file);
  return text;
}

/* The param block PTX declares for kernel `name`, as "name_param_0[N]". */
static void assert_param_bytes(const char *ptx, const char *name, size_t n) {
  char declared[128];
  snprintf(declared, sizeof declared, "%s_param_0[%zu]", name, n);
  if (!strstr(ptx, declared))
    fail_msg("the PTX does not declare %s", declared);
}

/* backplane check on cuda loads conformance_kernels.cu as source: it
 * compiles for the device, has every kernel check and bench launch look
 * up, and takes param blocks of the sizes the host passes. */
static void conformance_kernels_compile_with_the_host_layouts(void **state) {
  (void)state;
  size_t size = 0;
  char *source = read_text(CONFORMANCE_KERNELS_CU, &size);
  char *ptx = NULL, *cubin = NULL;
  size_t ptx_size = 0, cubin_size = 0;
  if (cu_nvrtc_compile(source, size, "conformance_kernels.cu", "compute_90",
                       &ptx, &ptx_size) != C_SUCCESS)
    fail_msg("%s", cu_last_error());
  assert_int_equal(cu_nvrtc_compile(source, size, "conformance_kernels.cu",
                                    "sm_90", &cubin, &cubin_size),
                   C_SUCCESS);
  assert_int_equal(cu_module_format(cubin, cubin_size), CU_MODULE_KIND_CUBIN);
  assert_int_equal(cu_module_format(source, size), CU_MODULE_KIND_CUDA_C);
  assert_non_null(strstr(ptx, ".entry empty_kernel()"));
  assert_param_bytes(ptx, "append_kernel", sizeof(append_param));
  assert_param_bytes(ptx, "block_kernel", sizeof(block_param));
  assert_param_bytes(ptx, "fail_kernel", sizeof(fail_param));
  assert_non_null(strstr(ptx, "fail_kernel_param_1")); /* the status word */
  assert_param_bytes(ptx, "sleep_kernel", sizeof(sleep_param));
  assert_param_bytes(ptx, "spin_kernel", sizeof(spin_param));
  free(cubin);
  free(ptx);
  free(source);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(source_compiles_to_ptx_for_the_named_arch),
      cmocka_unit_test(failed_build_returns_the_log),
      cmocka_unit_test(unknown_arch_is_refused_with_the_log),
      cmocka_unit_test(null_arguments_are_refused),
      cmocka_unit_test(formats_are_read_from_the_bytes),
      cmocka_unit_test(conformance_kernels_compile_with_the_host_layouts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
