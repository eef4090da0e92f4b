/* The reference op library refuses bad input with an error whose message
 * names the op and the argument, where it once computed something silently:
 * index values out of range (index_select, gather, embedding and its
 * backward, max_pool2d_backward), class targets out of range or of a float
 * dtype (nll_loss, cross_entropy; ignore_index still accepted), an unknown
 * div rounding mode, label_smoothing outside [0, 1], a tensor in another
 * device's memory than the context's (its stream would read it unordered).
 * Index data is written by earlier work on the stream, so its values are
 * checked on the stream: the op returns at once and a bad value leaves a
 * sticky stream error naming the op (reported by bp_stream_synchronize until
 * bp_stream_reset), with the op's work skipped. */
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

/* A device tensor of `dtype` filled with `bytes` through the stream (so an
 * op reading it must wait for the stream). */
static diopiTensorHandle_t tensor(env_t *e, diopiDtype_t dtype, size_t ndim,
                                  const int64_t *shape, const void *bytes) {
  diopiTensorHandle_t t;
  assert_int_equal(
      bp_ops_tensor_create(e->device, e->stream, dtype, ndim, shape, &t),
      BP_OK);
  int64_t n = 0;
  void *data;
  assert_int_equal(diopiGetTensorNumel(t, &n), diopiSuccess);
  assert_int_equal(diopiGetTensorData(t, &data), diopiSuccess);
  if (bytes && n)
    assert_int_equal(bp_copy(e->device, data, NULL, bytes,
                             (size_t)n * bp_ops_dtype_size(dtype), e->stream),
                     BP_OK);
  return t;
}

static void expect_error(env_t *e, diopiError_t err, const char *text) {
  assert_int_not_equal(err, diopiSuccess);
  const char *message = bp_ops_library_last_error(e->library);
  if (!strstr(message, text))
    fail_msg("message \"%s\" lacks \"%s\"", message, text);
}

/* The op was accepted, and the stream then reports its refusal. */
static void expect_stream_error(env_t *e, diopiError_t err, const char *text) {
  assert_int_equal(err, diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_ERR_INVALID_ARGUMENT);
  if (!strstr(bp_last_error(), text))
    fail_msg("message \"%s\" lacks \"%s\"", bp_last_error(), text);
  assert_int_equal(bp_stream_reset(e->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static const int64_t k2x3[2] = {2, 3}, k3[1] = {3}, k2[1] = {2};
static const float kSix[6] = {1, 2, 3, 4, 5, 6};

static void index_select_refuses_an_index_out_of_range(void **state) {
  env_t *e = *state;
  int64_t bad[2] = {1, 3};
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 2, k2x3, kSix),
                      idx = tensor(e, diopi_dtype_int64, 1, k2, bad);
  int64_t out_shape[2] = {2, 2};
  diopiTensorHandle_t out = tensor(e, diopi_dtype_float32, 2, out_shape, NULL);
  __typeof__(&diopiIndexSelect) fn = ops_env_find(e, "diopiIndexSelect");
  expect_stream_error(e, fn(e->ctx, out, in, 1, idx),
                      "diopiIndexSelect: index: value 3 at element 1 is out of "
                      "range [0, 3)");
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(idx);
  bp_ops_tensor_destroy(out);
}

static void gather_refuses_an_index_out_of_range(void **state) {
  env_t *e = *state;
  int64_t bad[6] = {0, 1, 2, 0, -1, 2};
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 2, k2x3, kSix),
                      idx = tensor(e, diopi_dtype_int64, 2, k2x3, bad),
                      out = tensor(e, diopi_dtype_float32, 2, k2x3, NULL);
  __typeof__(&diopiGather) fn = ops_env_find(e, "diopiGather");
  expect_stream_error(e, fn(e->ctx, out, in, 1, idx),
                      "diopiGather: index: value -1 at element 4");
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(idx);
  bp_ops_tensor_destroy(out);
}

static void embedding_and_backward_refuse_an_index_out_of_range(void **state) {
  env_t *e = *state;
  int32_t bad[3] = {0, 2, 1};
  int64_t rows_shape[2] = {3, 2}, weight_shape[2] = {2, 3};
  diopiTensorHandle_t weight =
                          tensor(e, diopi_dtype_float32, 2, weight_shape, kSix),
                      idx = tensor(e, diopi_dtype_int32, 1, k3, bad),
                      rows =
                          tensor(e, diopi_dtype_float32, 2, rows_shape, kSix),
                      out = tensor(e, diopi_dtype_float32, 2,
                                   (const int64_t[2]){3, 3}, NULL);
  __typeof__(&diopiEmbedding) forward = ops_env_find(e, "diopiEmbedding");
  expect_stream_error(e, forward(e->ctx, out, weight, idx, -1, false, false),
                      "diopiEmbedding: indices: value 2 at element 1 is out of "
                      "range [0, 2)");
  __typeof__(&diopiEmbeddingBackward) backward =
      ops_env_find(e, "diopiEmbeddingBackward");
  diopiTensorHandle_t grad_weight =
      tensor(e, diopi_dtype_float32, 2, (const int64_t[2]){2, 2}, NULL);
  expect_stream_error(
      e, backward(e->ctx, grad_weight, rows, idx, 2, -1, false, false),
      "diopiEmbeddingBackward: indices: value 2");
  bp_ops_tensor_destroy(weight);
  bp_ops_tensor_destroy(idx);
  bp_ops_tensor_destroy(rows);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(grad_weight);
}

static void max_pool2d_backward_refuses_an_index_out_of_range(void **state) {
  env_t *e = *state;
  int64_t in_shape[4] = {1, 1, 2, 2}, pooled[4] = {1, 1, 1, 1};
  int64_t bad[1] = {4}, k[2] = {2, 2};
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 4, in_shape, kSix),
                      go = tensor(e, diopi_dtype_float32, 4, pooled, kSix),
                      idx = tensor(e, diopi_dtype_int64, 4, pooled, bad),
                      gi = tensor(e, diopi_dtype_float32, 4, in_shape, NULL);
  __typeof__(&diopiMaxPool2dBackward) fn =
      ops_env_find(e, "diopiMaxPool2dBackward");
  diopiSize_t ks = {k, 2}, none = {NULL, 0};
  expect_stream_error(
      e, fn(e->ctx, gi, go, in, ks, ks, none, none, false, idx),
      "diopiMaxPool2dBackward: indices: value 4 at element 0 is out "
      "of range [0, 4)");
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(go);
  bp_ops_tensor_destroy(idx);
  bp_ops_tensor_destroy(gi);
}

/* input [2, 3] log-probabilities, targets of 2 samples. */
static diopiError_t nll(env_t *e, diopiDtype_t target_dtype, const void *target,
                        int64_t ignore_index) {
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 2, k2x3, kSix),
                      t = tensor(e, target_dtype, 1, k2, target),
                      out = tensor(e, diopi_dtype_float32, 0, NULL, NULL);
  __typeof__(&diopiNLLLoss) fn = ops_env_find(e, "diopiNLLLoss");
  diopiError_t err = fn(e->ctx, out, in, t, NULL, ReductionSum, ignore_index);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(t);
  bp_ops_tensor_destroy(out);
  return err;
}

static void
nll_loss_refuses_targets_out_of_range_but_ignores_ignore_index(void **state) {
  env_t *e = *state;
  int64_t bad[2] = {1, 3}, ignored[2] = {1, -100};
  expect_stream_error(e, nll(e, diopi_dtype_int64, bad, -100),
                      "diopiNLLLoss: target: value 3 at element 1 is out of "
                      "range [0, 3)");
  assert_int_equal(nll(e, diopi_dtype_int64, ignored, -100), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static void nll_loss_refuses_a_float_target(void **state) {
  env_t *e = *state;
  float target[2] = {1.7f, 0.2f};
  expect_error(e, nll(e, diopi_dtype_float32, target, -100),
               "diopiNLLLoss: target: dtype 9, expected class indices");
}

static void cross_entropy_refuses_label_smoothing_outside_0_1(void **state) {
  env_t *e = *state;
  int64_t target[2] = {0, 2};
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 2, k2x3, kSix),
                      t = tensor(e, diopi_dtype_int64, 1, k2, target),
                      out = tensor(e, diopi_dtype_float32, 0, NULL, NULL);
  __typeof__(&diopiCrossEntropyLoss) fn =
      ops_env_find(e, "diopiCrossEntropyLoss");
  expect_error(e, fn(e->ctx, out, in, t, NULL, ReductionMean, -100, 1.5),
               "diopiCrossEntropyLoss: label_smoothing: 1.5, expected a value "
               "in [0, 1]");
  expect_error(e, fn(e->ctx, out, in, t, NULL, ReductionMean, -100, -0.1),
               "label_smoothing: -0.1");
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(t);
  bp_ops_tensor_destroy(out);
}

static void cross_entropy_refuses_a_target_out_of_range(void **state) {
  env_t *e = *state;
  int64_t target[2] = {0, 5};
  diopiTensorHandle_t in = tensor(e, diopi_dtype_float32, 2, k2x3, kSix),
                      t = tensor(e, diopi_dtype_int64, 1, k2, target),
                      out = tensor(e, diopi_dtype_float32, 0, NULL, NULL);
  __typeof__(&diopiCrossEntropyLoss) fn =
      ops_env_find(e, "diopiCrossEntropyLoss");
  expect_stream_error(
      e, fn(e->ctx, out, in, t, NULL, ReductionMean, -100, 0.0),
      "diopiCrossEntropyLoss: target: value 5 at element 1 is out of "
      "range [0, 3)");
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(t);
  bp_ops_tensor_destroy(out);
}

static void div_refuses_an_unknown_rounding_mode(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t a = tensor(e, diopi_dtype_float32, 1, k3, kSix),
                      b = tensor(e, diopi_dtype_float32, 1, k3, kSix + 3),
                      out = tensor(e, diopi_dtype_float32, 1, k3, NULL);
  __typeof__(&diopiDiv) fn = ops_env_find(e, "diopiDiv");
  expect_error(e, fn(e->ctx, out, a, b, (diopiRoundMode_t)7),
               "diopiDiv: rounding_mode: 7 is not a diopiRoundMode_t");
  bp_ops_tensor_destroy(a);
  bp_ops_tensor_destroy(b);
  bp_ops_tensor_destroy(out);
}

static void ops_refuse_a_tensor_of_another_device(void **state) {
  env_t *e = *state;
  bp_device_t *other;
  bp_stream_t *other_stream;
  assert_int_equal(bp_device_get(e->runtime, "vcpu", 1, &other), BP_OK);
  assert_int_equal(bp_stream_create(other, &other_stream), BP_OK);
  diopiTensorHandle_t here = tensor(e, diopi_dtype_float32, 1, k3, kSix),
                      out = tensor(e, diopi_dtype_float32, 1, k3, NULL), there;
  assert_int_equal(bp_ops_tensor_create(other, other_stream,
                                        diopi_dtype_float32, 1, k3, &there),
                   BP_OK);
  __typeof__(&diopiAdd) add = ops_env_find(e, "diopiAdd");
  expect_error(e, add(e->ctx, out, here, there, NULL),
               "diopiAdd: other: on vcpu:1, but the context's device is "
               "vcpu:0 (expected all tensors on the same device)");
  __typeof__(&diopiRelu) relu = ops_env_find(e, "diopiRelu");
  expect_error(e, relu(e->ctx, there, here), "diopiRelu: out: on vcpu:1");
  bp_ops_tensor_destroy(here);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(there);
  assert_int_equal(bp_stream_destroy(other_stream), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          index_select_refuses_an_index_out_of_range, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(gather_refuses_an_index_out_of_range,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          embedding_and_backward_refuse_an_index_out_of_range, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          max_pool2d_backward_refuses_an_index_out_of_range, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          nll_loss_refuses_targets_out_of_range_but_ignores_ignore_index,
          ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(nll_loss_refuses_a_float_target,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          cross_entropy_refuses_label_smoothing_outside_0_1, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          cross_entropy_refuses_a_target_out_of_range, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(div_refuses_an_unknown_rounding_mode,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(ops_refuse_a_tensor_of_another_device,
                                      ops_env_setup, ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
