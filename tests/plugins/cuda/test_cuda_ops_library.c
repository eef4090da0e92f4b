/* The cuda op library without a GPU: it opens as a Backplane-native
 * library, has every function it lists, the plugin names it (its
 * op-library extension), and bad arguments are refused before any CUDA
 * call with a message that names the op and the argument (checked on a
 * vcpu context: the arguments are checked before the device). */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/device_ext.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "support/runtime_fixture.h"

static const char *const functions[] = {
    "diopiMm",
    "diopiBmm",
    "diopiAddmm",
    "diopiMatmul",
    "diopiLinear",
    "diopiLinearBackward",
    "diopiFill",
    "diopiCopyInp",
    "diopiRelu",
    "diopiReluInp",
    "diopiThresholdBackward",
    "diopiCrossEntropyLoss",
    "diopiCrossEntropyLossBackward",
    "diopiArgmax",
    "diopiAdamW",
    "diopiConvolution2d",
    "diopiConvolution2dBackward",
    "diopiMaxPool2d",
    "diopiMaxPool2dWithIndices",
    "diopiMaxPool2dBackward",
};

typedef struct env {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
  bp_ops_library_t *library;
  void *memory; /* what the tensors point at; never computed on */
  diopiTensorHandle_t tensors[16];
  size_t tensor_count;
} env_t;

static int setup(void **state) {
  env_t *e = calloc(1, sizeof *e);
  assert_non_null(e);
  e->runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_get(e->runtime, "vcpu", 0, &e->device), BP_OK);
  assert_int_equal(bp_stream_create(e->device, &e->stream), BP_OK);
  assert_int_equal(bp_ops_context_create(e->device, e->stream, &e->ctx), BP_OK);
  assert_int_equal(bp_ops_library_open(CUDA_OPS_LIBRARY, &e->library), BP_OK);
  assert_int_equal(bp_device_malloc(e->device, 4096, &e->memory), BP_OK);
  *state = e;
  return 0;
}

static int teardown(void **state) {
  env_t *e = *state;
  for (size_t i = 0; i < e->tensor_count; i++)
    bp_ops_tensor_destroy(e->tensors[i]);
  /* Nothing was enqueued: every call below failed its checks. */
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  bp_device_free(e->device, e->memory);
  bp_ops_context_destroy(e->ctx);
  bp_stream_destroy(e->stream);
  bp_ops_library_close(e->library);
  bp_runtime_destroy(e->runtime);
  free(e);
  return 0;
}

/* A vcpu tensor of `dtype` and `shape` (at most 4096 bytes of data). */
static diopiTensorHandle_t tensor(env_t *e, diopiDtype_t dtype, size_t ndim,
                                  const int64_t *shape) {
  diopiTensorHandle_t t = NULL;
  assert_int_equal(
      bp_ops_tensor_wrap(e->device, e->memory, dtype, ndim, shape, NULL, &t),
      BP_OK);
  e->tensors[e->tensor_count++] = t;
  return t;
}

static void *find(env_t *e, const char *name) {
  void *fn = NULL;
  assert_int_equal(bp_ops_library_find(e->library, name, &fn), BP_OK);
  return fn;
}

/* The library's message for the last call contains `needle`. */
static void expect_message(env_t *e, const char *needle) {
  const char *message = bp_ops_library_last_error(e->library);
  if (!strstr(message, needle))
    fail_msg("\"%s\" does not contain \"%s\"", message, needle);
}

static void opens_as_a_native_library_with_its_vendor(void **state) {
  env_t *e = *state;
  assert_string_equal(bp_ops_library_vendor(e->library), "Backplane cuda");
  assert_int_equal(bp_ops_library_impl_style(e->library), BP_OPS_IMPL_NONE);
}

static void has_every_function_it_lists(void **state) {
  env_t *e = *state;
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    void *fn = NULL;
    if (bp_ops_library_find(e->library, functions[i], &fn) != BP_OK || !fn)
      fail_msg("%s: %s", functions[i], bp_last_error());
  }
  void *fn = NULL;
  assert_int_equal(bp_ops_library_find(e->library, "diopiAdd", &fn),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "diopiNoImplement"));
}

/* The plugin's extension chain names the library, relative to the
 * plugin's file, and that is the library built here. */
static void plugin_names_the_library(void **state) {
  (void)state;
  void *plugin = dlopen(CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(plugin);
  BP_PluginExtensionsFn chain;
  void *symbol = dlsym(plugin, BP_PLUGIN_EXTENSIONS_SYMBOL);
  assert_non_null(symbol);
  memcpy(&chain, &symbol, sizeof chain);
  const BP_OpsLibraryExtension *ops = NULL;
  for (const BP_ExtensionBase *ext = chain(); ext; ext = ext->next)
    if (ext->type == BP_EXTENSION_OPS_LIBRARY)
      ops = (const BP_OpsLibraryExtension *)ext;
  assert_non_null(ops);
  assert_true(ops->base.struct_size >= sizeof *ops);
  assert_non_null(ops->native_stream);
  char joined[PATH_MAX], named[PATH_MAX], built[PATH_MAX];
  const char *slash = strrchr(CUDA_PLUGIN_PATH, '/');
  snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - CUDA_PLUGIN_PATH),
           CUDA_PLUGIN_PATH, ops->path);
  assert_non_null(realpath(joined, named));
  assert_non_null(realpath(CUDA_OPS_LIBRARY, built));
  assert_string_equal(named, built);
  dlclose(plugin);
}

static void shape_errors_name_the_op_and_argument(void **state) {
  env_t *e = *state;
  const int64_t a[2] = {2, 3}, b[2] = {4, 5}, c[2] = {2, 5};
  diopiError_t (*mm)(diopiContextHandle_t, diopiTensorHandle_t,
                     diopiConstTensorHandle_t, diopiConstTensorHandle_t) =
      (__typeof__(mm))find(e, "diopiMm");
  assert_int_equal(mm(e->ctx, tensor(e, diopi_dtype_float32, 2, c),
                      tensor(e, diopi_dtype_float32, 2, a),
                      tensor(e, diopi_dtype_float32, 2, b)),
                   diopiErrorOccurred);
  expect_message(e, "diopiMm: mat2: expected shape [3, 5], got [4, 5]");

  const int64_t in[2] = {4, 8}, weight[2] = {3, 8}, out[2] = {4, 2};
  diopiError_t (*linear)(diopiContextHandle_t, diopiTensorHandle_t,
                         diopiConstTensorHandle_t, diopiConstTensorHandle_t,
                         diopiConstTensorHandle_t) =
      (__typeof__(linear))find(e, "diopiLinear");
  assert_int_equal(linear(e->ctx, tensor(e, diopi_dtype_float32, 2, out),
                          tensor(e, diopi_dtype_float32, 2, in),
                          tensor(e, diopi_dtype_float32, 2, weight), NULL),
                   diopiErrorOccurred);
  expect_message(e, "diopiLinear: out: expected shape [4, 3], got [4, 2]");
}

static void window_and_value_errors_name_the_op(void **state) {
  env_t *e = *state;
  const int64_t in[4] = {1, 4, 6, 6}, weight[4] = {2, 3, 3, 3},
                out[4] = {1, 2, 4, 4}, one[2] = {1, 1}, zero[2] = {0, 0};
  diopiError_t (*conv)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t, diopiConstTensorHandle_t,
                       diopiConstTensorHandle_t, diopiSize_t, diopiSize_t,
                       diopiSize_t, int64_t) =
      (__typeof__(conv))find(e, "diopiConvolution2d");
  assert_int_equal(conv(e->ctx, tensor(e, diopi_dtype_float32, 4, out),
                        tensor(e, diopi_dtype_float32, 4, in),
                        tensor(e, diopi_dtype_float32, 4, weight), NULL,
                        (diopiSize_t){one, 2}, (diopiSize_t){zero, 2},
                        (diopiSize_t){one, 2}, 1),
                   diopiErrorOccurred);
  expect_message(e, "diopiConvolution2d: groups: 1 does not split input's 4 "
                    "channels");

  const int64_t params[1] = {8};
  diopiError_t (*adamw)(diopiContextHandle_t, diopiTensorHandle_t,
                        diopiConstTensorHandle_t, diopiTensorHandle_t,
                        diopiTensorHandle_t, diopiTensorHandle_t, float, float,
                        float, float, float, int64_t, bool) =
      (__typeof__(adamw))find(e, "diopiAdamW");
  diopiTensorHandle_t p = tensor(e, diopi_dtype_float32, 1, params);
  assert_int_equal(adamw(e->ctx, p, p, p, p, NULL, 1e-3f, 0.9f, 0.999f, 1e-8f,
                         0.01f, 0, false),
                   diopiErrorOccurred);
  expect_message(e, "diopiAdamW: step: expected >= 1, got 0");
}

/* float64 is a well-formed call the library does not cover. */
static void other_dtypes_are_not_implemented(void **state) {
  env_t *e = *state;
  const int64_t shape[1] = {4};
  diopiError_t (*relu_inp)(diopiContextHandle_t, diopiTensorHandle_t) =
      (__typeof__(relu_inp))find(e, "diopiReluInp");
  assert_int_equal(relu_inp(e->ctx, tensor(e, diopi_dtype_float64, 1, shape)),
                   diopiNoImplement);
  expect_message(e, "diopiReluInp: input: expected dtype float32, got "
                    "float64");
}

/* Arguments that are right reach the device check: vcpu is not served. */
static void a_device_other_than_cuda_is_refused(void **state) {
  env_t *e = *state;
  const int64_t shape[2] = {2, 2};
  diopiError_t (*mm)(diopiContextHandle_t, diopiTensorHandle_t,
                     diopiConstTensorHandle_t, diopiConstTensorHandle_t) =
      (__typeof__(mm))find(e, "diopiMm");
  diopiTensorHandle_t t = tensor(e, diopi_dtype_float32, 2, shape);
  assert_int_equal(mm(e->ctx, t, t, t), diopiErrorOccurred);
  expect_message(e, "diopiMm: ctx: device vcpu:0 is not a cuda device");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(opens_as_a_native_library_with_its_vendor),
      cmocka_unit_test(has_every_function_it_lists),
      cmocka_unit_test(plugin_names_the_library),
      cmocka_unit_test(shape_errors_name_the_op_and_argument),
      cmocka_unit_test(window_and_value_errors_name_the_op),
      cmocka_unit_test(other_dtypes_are_not_implemented),
      cmocka_unit_test(a_device_other_than_cuda_is_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
