/* The operator face as a framework uses it (backplane/ops.h): contexts,
 * tensors, scratch lifetime, DLPack both ways, an op library opened by path,
 * a missing op, bad arguments (the message names the op, the argument and
 * the shapes) and running out of device memory inside an op (an error, not
 * an abort). Expected values are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"
#include "support/runtime_fixture.h"

typedef ops_env_t env_t;

/* A device tensor holding `values` (float32). */
static diopiTensorHandle_t device_floats(env_t *e, const float *values,
                                         size_t ndim, const int64_t *shape) {
  diopiTensorHandle_t t;
  assert_int_equal(bp_ops_tensor_create(e->device, e->stream,
                                        diopi_dtype_float32, ndim, shape, &t),
                   BP_OK);
  int64_t n = 0;
  void *data;
  assert_int_equal(diopiGetTensorNumel(t, &n), diopiSuccess);
  assert_int_equal(diopiGetTensorData(t, &data), diopiSuccess);
  if (values)
    assert_int_equal(bp_copy(e->device, data, NULL, values,
                             (size_t)n * sizeof(float), e->stream),
                     BP_OK);
  return t;
}

static void read_floats(env_t *e, diopiConstTensorHandle_t t, float *out,
                        size_t n) {
  const void *data;
  assert_int_equal(diopiGetTensorDataConst(t, &data), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_int_equal(bp_copy(NULL, out, e->device, data, n * sizeof(float), NULL),
                   BP_OK);
}

static void context_binds_device_and_stream(void **state) {
  env_t *e = *state;
  assert_ptr_equal(bp_ops_context_device(e->ctx), e->device);
  assert_ptr_equal(bp_ops_context_stream(e->ctx), e->stream);
  diopiStreamHandle_t stream = NULL;
  assert_int_equal(diopiGetStream(e->ctx, &stream), diopiSuccess);
  assert_ptr_equal(stream, e->stream);
  assert_int_not_equal(bp_ops_context_create(NULL, e->stream, NULL), BP_OK);
}

static void required_tensors_live_until_clear(void **state) {
  env_t *e = *state;
  int64_t dims[2] = {3, 4};
  diopiSize_t shape = {dims, 2};
  diopiTensorHandle_t t = NULL, buffer = NULL;
  assert_int_equal(bp_ops_context_scratch_count(e->ctx), 0);
  assert_int_equal(diopiRequireTensor(e->ctx, &t, &shape, NULL,
                                      diopi_dtype_float32, diopi_device),
                   diopiSuccess);
  assert_int_equal(diopiRequireBuffer(e->ctx, &buffer, 100, diopi_device),
                   diopiSuccess);
  assert_int_equal(bp_ops_context_scratch_count(e->ctx), 2);
  diopiSize_t got, stride;
  assert_int_equal(diopiGetTensorShape(t, &got), diopiSuccess);
  assert_int_equal(got.len, 2);
  assert_int_equal(got.data[1], 4);
  assert_int_equal(diopiGetTensorStride(t, &stride), diopiSuccess);
  assert_int_equal(stride.data[0], 4); /* contiguous */
  assert_int_equal(stride.data[1], 1);
  int64_t bytes = 0;
  assert_int_equal(diopiGetTensorNumel(buffer, &bytes), diopiSuccess);
  assert_int_equal(bytes, 100);
  bp_ops_context_clear(e->ctx);
  assert_int_equal(bp_ops_context_scratch_count(e->ctx), 0);
}

/* A required tensor the caller takes leaves the context: clearing it no
 * longer frees the memory, which the caller frees in the stream's order. */
static void a_taken_tensor_outlives_the_context_clear(void **state) {
  env_t *e = *state;
  int64_t dims[1] = {4};
  diopiSize_t shape = {dims, 1};
  diopiTensorHandle_t kept = NULL, dropped = NULL, other = NULL;
  assert_int_equal(diopiRequireTensor(e->ctx, &kept, &shape, NULL,
                                      diopi_dtype_float32, diopi_device),
                   diopiSuccess);
  assert_int_equal(diopiRequireTensor(e->ctx, &dropped, &shape, NULL,
                                      diopi_dtype_float32, diopi_device),
                   diopiSuccess);
  void *storage = NULL, *data = NULL;
  assert_int_equal(bp_ops_context_take(e->ctx, kept, &storage), BP_OK);
  assert_int_equal(diopiGetTensorData(kept, &data), diopiSuccess);
  assert_ptr_equal(storage, data);
  assert_int_equal(bp_ops_context_scratch_count(e->ctx), 1);
  bp_ops_context_clear(e->ctx);
  const float values[4] = {1, 2, 3, 4};
  float back[4] = {0};
  assert_int_equal(
      bp_copy(e->device, storage, NULL, values, sizeof values, e->stream),
      BP_OK);
  read_floats(e, kept, back, 4);
  assert_memory_equal(back, values, sizeof values);
  /* Taken once: a second take, or a tensor the context never held, is an
   * error naming the function. */
  assert_int_equal(bp_ops_context_take(e->ctx, kept, &storage),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "bp_ops_context_take"));
  assert_int_equal(bp_ops_tensor_create(e->device, e->stream,
                                        diopi_dtype_float32, 1, dims, &other),
                   BP_OK);
  assert_int_equal(bp_ops_context_take(e->ctx, other, &storage),
                   BP_ERR_INVALID_ARGUMENT);
  bp_ops_tensor_destroy(other);
  assert_int_equal(diopiGetTensorData(kept, &data), diopiSuccess);
  bp_ops_tensor_destroy(kept); /* leaves the memory alone */
  assert_int_equal(bp_device_free_async(e->device, data, e->stream), BP_OK);
}

static void dlpack_both_ways(void **state) {
  env_t *e = *state;
  float host[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3}, strides[2] = {1, 2}; /* a transposed view */
  diopiTensorHandle_t t;
  assert_int_equal(bp_ops_tensor_wrap(NULL, host, diopi_dtype_float32, 2, shape,
                                      strides, &t),
                   BP_OK);
  DLTensor dl;
  assert_int_equal(bp_ops_tensor_to_dlpack(t, &dl), BP_OK);
  assert_ptr_equal(dl.data, host);
  assert_int_equal(dl.device.device_type, kDLCPU);
  assert_int_equal(dl.dtype.code, kDLFloat);
  assert_int_equal(dl.dtype.bits, 32);
  assert_int_equal(dl.ndim, 2);
  assert_int_equal(dl.shape[1], 3);
  assert_int_equal(dl.strides[1], 2);
  diopiTensorHandle_t back;
  assert_int_equal(bp_ops_tensor_from_dlpack(e->runtime, &dl, &back), BP_OK);
  diopiSize_t s;
  diopiDtype_t dtype;
  const void *data;
  assert_int_equal(diopiGetTensorStride(back, &s), diopiSuccess);
  assert_int_equal(s.data[0], 1);
  assert_int_equal(s.data[1], 2);
  assert_int_equal(diopiGetTensorDtype(back, &dtype), diopiSuccess);
  assert_int_equal(dtype, diopi_dtype_float32);
  assert_int_equal(diopiGetTensorDataConst(back, &data), diopiSuccess);
  assert_ptr_equal(data, host);
  bp_ops_tensor_destroy(back);
  bp_ops_tensor_destroy(t);
}

static void library_runs_an_op_on_the_stream(void **state) {
  env_t *e = *state;
  float a[4] = {1, 2, 3, 4}, b[2] = {10, 20}, got[4];
  int64_t shape[2] = {2, 2}, row[1] = {2};
  diopiTensorHandle_t ta = device_floats(e, a, 2, shape);
  diopiTensorHandle_t tb = device_floats(e, b, 1, row);
  diopiTensorHandle_t out = device_floats(e, NULL, 2, shape);
  diopiScalar_t alpha = {.stype = diopi_dtype_float64, .fval = 0.5};
  typedef diopiError_t (*add_t)(
      diopiContextHandle_t, diopiTensorHandle_t, diopiConstTensorHandle_t,
      diopiConstTensorHandle_t, const diopiScalar_t *);
  add_t add = (add_t)ops_env_find(e, "diopiAdd");
  assert_int_equal(add(e->ctx, out, ta, tb, &alpha), diopiSuccess);
  read_floats(e, out, got, 4);
  assert_true(got[0] == 6.0f && got[1] == 12.0f && got[2] == 8.0f &&
              got[3] == 14.0f);
  assert_string_equal(bp_ops_library_vendor(e->library),
                      "Backplane reference (vcpu)");
  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(out);
}

static void missing_op_is_no_implement(void **state) {
  env_t *e = *state;
  void *fn = (void *)1;
  assert_int_equal(bp_ops_library_find(e->library, "diopiNoSuchOp", &fn),
                   BP_ERR_UNSUPPORTED);
  assert_ptr_equal(fn, (void *)1); /* untouched */
  assert_non_null(strstr(bp_last_error(), "diopiNoSuchOp"));
  assert_non_null(strstr(bp_last_error(), "diopiNoImplement"));
  assert_int_equal(bp_ops_status(diopiNoImplement), BP_ERR_UNSUPPORTED);
  bp_ops_library_t *none = NULL;
  assert_int_equal(bp_ops_library_open("/nonexistent/libops.so", &none),
                   BP_ERR_NOT_FOUND);
  assert_null(none);
}

static void bad_arguments_name_op_argument_and_shapes(void **state) {
  env_t *e = *state;
  int64_t s23[2] = {2, 3}, s24[2] = {2, 4}, s33[2] = {3, 3};
  diopiTensorHandle_t a = device_floats(e, NULL, 2, s23);
  diopiTensorHandle_t b = device_floats(e, NULL, 2, s24);
  diopiTensorHandle_t out = device_floats(e, NULL, 2, s23);
  diopiTensorHandle_t square = device_floats(e, NULL, 2, s33);
  typedef diopiError_t (*mul_t)(diopiContextHandle_t, diopiTensorHandle_t,
                                diopiConstTensorHandle_t,
                                diopiConstTensorHandle_t);
  const char *(*last)(void) =
      (const char *(*)(void))ops_env_find(e, "diopiGetLastErrorString");

  mul_t mul = (mul_t)ops_env_find(e, "diopiMul");
  assert_int_equal(mul(e->ctx, out, a, b), diopiErrorOccurred);
  assert_string_equal(last(),
                      "diopiMul: other: shape [2, 4] does not broadcast to "
                      "[2, 3]");
  assert_int_equal(mul(e->ctx, out, a, NULL), diopiErrorOccurred);
  assert_string_equal(last(), "diopiMul: other: tensor is NULL");

  mul_t mm = (mul_t)ops_env_find(e, "diopiMm");
  assert_int_equal(mm(e->ctx, square, a, square), diopiErrorOccurred);
  assert_string_equal(last(), "diopiMm: out: expected shape [2, 3], got [3, "
                              "3]");

  typedef diopiError_t (*softmax_t)(diopiContextHandle_t, diopiTensorHandle_t,
                                    diopiConstTensorHandle_t, int64_t);
  softmax_t softmax = (softmax_t)ops_env_find(e, "diopiSoftmax");
  assert_int_equal(softmax(e->ctx, out, a, 2), diopiErrorOccurred);
  assert_string_equal(last(), "diopiSoftmax: dim: dim 2 out of range for 2 "
                              "dims");
  /* Nothing was enqueued: the stream is idle and out untouched. */
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  bp_ops_tensor_destroy(a);
  bp_ops_tensor_destroy(b);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(square);
}

/* GEMM on float16 needs float32 scratch: with the device's memory used up
 * the op fails with a message, it does not abort the stream's worker. */
static void out_of_device_memory_is_an_error(void **state) {
  env_t *e = *state;
  int64_t shape[2] = {64, 64};
  diopiTensorHandle_t t[3];
  for (int i = 0; i < 3; i++)
    assert_int_equal(bp_ops_tensor_create(e->device, e->stream,
                                          diopi_dtype_float16, 2, shape, &t[i]),
                     BP_OK);
  /* Use the memory up through the context itself (the op's own path). */
  size_t count = 0;
  diopiTensorHandle_t held;
  for (int64_t chunk = 1 << 20; chunk >= 1024; chunk /= 4)
    while (count < 100000 && diopiRequireBuffer(e->ctx, &held, chunk,
                                                diopi_device) == diopiSuccess)
      count++;
  assert_true(count > 0 && count < 100000);
  typedef diopiError_t (*mm_t)(diopiContextHandle_t, diopiTensorHandle_t,
                               diopiConstTensorHandle_t,
                               diopiConstTensorHandle_t);
  const char *(*last)(void) =
      (const char *(*)(void))ops_env_find(e, "diopiGetLastErrorString");
  mm_t mm = (mm_t)ops_env_find(e, "diopiMm");
  assert_int_equal(mm(e->ctx, t[0], t[1], t[2]), diopiErrorOccurred);
  assert_non_null(strstr(last(), "diopiMm: out of device memory"));
  bp_ops_context_clear(e->ctx);
  assert_int_equal(mm(e->ctx, t[0], t[1], t[2]), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  bp_ops_context_clear(e->ctx);
  for (int i = 0; i < 3; i++)
    bp_ops_tensor_destroy(t[i]);
}

/* diopi_headers_compile_as_cxx17.cc: its five pointers as intended. */
int diopi_headers_cxx17_signatures(void);

int diopi_const_handles_match_upstream(void);

/* diopiCat's tensor list and diopiAdamW's grad are const handles, as in
 * DIOPI's functions.h (diopi_const_handles.c stops the build otherwise). */
static void cat_and_adamw_take_const_handles_as_upstream(void **state) {
  (void)state;
  assert_int_equal(diopi_const_handles_match_upstream(), 2);
}

static void headers_compile_as_cxx17(void **state) {
  (void)state;
  assert_int_equal(diopi_headers_cxx17_signatures(), 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(context_binds_device_and_stream),
      cmocka_unit_test(required_tensors_live_until_clear),
      cmocka_unit_test(a_taken_tensor_outlives_the_context_clear),
      cmocka_unit_test(dlpack_both_ways),
      cmocka_unit_test(library_runs_an_op_on_the_stream),
      cmocka_unit_test(missing_op_is_no_implement),
      cmocka_unit_test(bad_arguments_name_op_argument_and_shapes),
      cmocka_unit_test(out_of_device_memory_is_an_error),
      cmocka_unit_test(headers_compile_as_cxx17),
      cmocka_unit_test(cat_and_adamw_take_const_handles_as_upstream),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
