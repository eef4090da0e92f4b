/* The DIOPI-IMPL adapter through backplane/ops.h, as a framework would use
 * it: open a library that brings its own device runtime, load its adapter
 * device in process, run its ops on that device's streams. The toy libraries
 * (tests/ops/diopi_impl) keep device memory in host memory and run each
 * stream on a worker thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/ops.h"
#include "backplane/vendor_access.h"

typedef diopiError_t (*add_fn)(diopiContextHandle_t, diopiTensorHandle_t,
                               diopiConstTensorHandle_t,
                               diopiConstTensorHandle_t, const diopiScalar_t *);
typedef diopiError_t (*mm_fn)(diopiContextHandle_t, diopiTensorHandle_t,
                              diopiConstTensorHandle_t,
                              diopiConstTensorHandle_t);

static bp_runtime_t *runtime_with(const bp_in_process_plugin_t *plugin) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1,
                                  .in_process_plugins = plugin,
                                  .in_process_plugin_count = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  return runtime;
}

/* A device tensor of `n` rows x `m` columns holding `values`. */
static diopiTensorHandle_t device_tensor(bp_device_t *device,
                                         bp_stream_t *stream, int64_t n,
                                         int64_t m, const float *values) {
  const int64_t shape[2] = {n, m};
  diopiTensorHandle_t t;
  assert_int_equal(
      bp_ops_tensor_create(device, stream, diopi_dtype_float32, 2, shape, &t),
      BP_OK);
  void *data;
  assert_int_equal(diopiGetTensorData(t, &data), diopiSuccess);
  if (values)
    assert_int_equal(bp_copy(device, data, NULL, values,
                             (size_t)(n * m) * sizeof(float), stream),
                     BP_OK);
  return t;
}

static void read_back(bp_device_t *device, diopiConstTensorHandle_t t,
                      float *out, size_t count) {
  const void *data;
  assert_int_equal(diopiGetTensorDataConst(t, &data), diopiSuccess);
  assert_int_equal(bp_copy(NULL, out, device, data, count * sizeof *out, NULL),
                   BP_OK);
}

/* Both styles: the adapter device exists, contexts hand out the library's
 * own stream, and ops computed on the library's worker give the values
 * worked out by hand. */
static void run_toy(const char *path, bp_ops_impl_style_t style) {
  bp_ops_library_t *library;
  assert_int_equal(bp_ops_library_open(path, &library), BP_OK);
  assert_int_equal(bp_ops_library_impl_style(library), style);
  bp_in_process_plugin_t plugin;
  assert_int_equal(bp_ops_library_adapter(library, &plugin), BP_OK);
  bp_runtime_t *runtime = runtime_with(&plugin);

  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.device_type, BP_OPS_IMPL_DEVICE_TYPE);
  assert_non_null(strstr(info.path, path));
  assert_string_equal(info.sub_device_type, bp_ops_impl_style_name(style));

  bp_device_t *device;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
  assert_int_equal(bp_device_get(runtime, BP_OPS_IMPL_DEVICE_TYPE, 0, &device),
                   BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_ops_context_create(device, stream, &ctx), BP_OK);
  diopiStreamHandle_t handed;
  assert_int_equal(diopiGetStream(ctx, &handed), diopiSuccess);
  assert_non_null(handed);
  assert_ptr_equal(handed, (void *)bp_stream_c_handle(stream));
  assert_ptr_not_equal(handed, (void *)stream);

  /* out = a + 2 * b */
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  diopiTensorHandle_t ta = device_tensor(device, stream, 2, 2, a);
  diopiTensorHandle_t tb = device_tensor(device, stream, 2, 2, b);
  diopiTensorHandle_t sum = device_tensor(device, stream, 2, 2, NULL);
  diopiTensorHandle_t product = device_tensor(device, stream, 2, 2, NULL);
  void *fn;
  assert_int_equal(bp_ops_library_find(library, "diopiAdd", &fn), BP_OK);
  diopiScalar_t two = {.stype = diopi_dtype_float64, .fval = 2.0};
  assert_int_equal(((add_fn)fn)(ctx, sum, ta, tb, &two), diopiSuccess);
  /* product = a x b: [[1,2],[3,4]] x [[10,20],[30,40]] */
  assert_int_equal(bp_ops_library_find(library, "diopiMm", &fn), BP_OK);
  assert_int_equal(((mm_fn)fn)(ctx, product, ta, tb), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  float got[4];
  read_back(device, sum, got, 4);
  const float want_sum[4] = {21, 42, 63, 84};
  assert_memory_equal(got, want_sum, sizeof got);
  read_back(device, product, got, 4);
  const float want_product[4] = {70, 100, 150, 220};
  assert_memory_equal(got, want_product, sizeof got);

  /* An op the library leaves out. */
  assert_int_equal(bp_ops_library_find(library, "diopiRelu", &fn),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "diopiNoImplement"));

  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(sum);
  bp_ops_tensor_destroy(product);
  bp_ops_context_destroy(ctx);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
  bp_ops_library_close(library);
}

static void old_style_runs_on_its_adapter_device(void **state) {
  (void)state;
  run_toy(TOY_OLD, BP_OPS_IMPL_OLD);
}

static void new_style_runs_on_its_adapter_device(void **state) {
  (void)state;
  run_toy(TOY_NEW, BP_OPS_IMPL_NEW);
}

static void one_impl_library_at_a_time(void **state) {
  (void)state;
  bp_ops_library_t *first, *second;
  assert_int_equal(bp_ops_library_open(TOY_OLD, &first), BP_OK);
  second = NULL;
  assert_int_equal(bp_ops_library_open(TOY_NEW, &second), BP_ERR_UNSUPPORTED);
  assert_null(second);
  assert_non_null(strstr(bp_last_error(), TOY_OLD));
  bp_ops_library_close(first);
  assert_int_equal(bp_ops_library_open(TOY_NEW, &second), BP_OK);
  bp_ops_library_close(second);
}

static void incomplete_runtimes_are_refused(void **state) {
  (void)state;
  bp_ops_library_t *library = NULL;
  assert_int_equal(bp_ops_library_open(TOY_OLD_EMPTY, &library), BP_ERR_PLUGIN);
  assert_null(library);
  assert_non_null(strstr(bp_last_error(), "diopiRegisterDevMemFreeFunc"));
  assert_int_equal(bp_ops_library_open(TOY_NEW_NO_MALLOC, &library),
                   BP_ERR_PLUGIN);
  assert_null(library);
  assert_non_null(strstr(bp_last_error(), "device_malloc"));
  /* A refused library does not hold the adapter. */
  assert_int_equal(bp_ops_library_open(TOY_NEW, &library), BP_OK);
  bp_ops_library_close(library);
}

static void native_library_has_no_adapter(void **state) {
  (void)state;
  bp_ops_library_t *library;
  assert_int_equal(bp_ops_library_open(BP_OPS_REF, &library), BP_OK);
  assert_int_equal(bp_ops_library_impl_style(library), BP_OPS_IMPL_NONE);
  bp_in_process_plugin_t plugin;
  assert_int_equal(bp_ops_library_adapter(library, &plugin),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "Backplane-native"));
  bp_ops_library_close(library);
}

/* An adapter entry kept past its library's close is refused by the loader,
 * not run on nothing. */
static void stale_adapter_is_rejected(void **state) {
  (void)state;
  bp_ops_library_t *library;
  assert_int_equal(bp_ops_library_open(TOY_NEW, &library), BP_OK);
  bp_in_process_plugin_t plugin;
  assert_int_equal(bp_ops_library_adapter(library, &plugin), BP_OK);
  bp_ops_library_close(library);
  plugin.name = "stale adapter";
  bp_runtime_t *runtime = runtime_with(&plugin);
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  assert_int_equal(bp_runtime_rejected_count(runtime), 1);
  const char *path, *reason;
  assert_int_equal(bp_runtime_rejected_info(runtime, 0, &path, &reason), BP_OK);
  assert_string_equal(path, "stale adapter");
  assert_non_null(strstr(reason, "device_type"));
  bp_runtime_destroy(runtime);
}

static void in_process_count_without_table_is_invalid(void **state) {
  (void)state;
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1,
                                  .in_process_plugin_count = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(runtime);
  assert_non_null(strstr(bp_last_error(), "in_process_plugins"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(old_style_runs_on_its_adapter_device),
      cmocka_unit_test(new_style_runs_on_its_adapter_device),
      cmocka_unit_test(one_impl_library_at_a_time),
      cmocka_unit_test(incomplete_runtimes_are_refused),
      cmocka_unit_test(native_library_has_no_adapter),
      cmocka_unit_test(stale_adapter_is_rejected),
      cmocka_unit_test(in_process_count_without_table_is_invalid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
