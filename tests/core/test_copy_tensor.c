/* bp_copy_tensor (include/backplane/memory.h): TVM's CopyDataFromTo over
 * DLTensors: byte offsets, strides on either side, one device or two, the
 * 0-size no-op and the errors. Expected values come from index arithmetic
 * in the test, element by element. */
#include <stdlib.h>

#include "support/runtime_fixture.h"

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

static const DLDataType f32 = {kDLFloat, 32, 1};
static const DLDevice host = {kDLCPU, 0};

static DLTensor tensor(void *data, DLDevice device, int ndim, int64_t *shape,
                       int64_t *strides, uint64_t byte_offset) {
  DLTensor t = {data, device, ndim, f32, shape, strides, byte_offset};
  return t;
}

/* Host -> device -> host, compact, with byte offsets on the device side. */
static void contiguous_round_trip_with_offsets(void **state) {
  fixture_t *f = *state;
  float in[24], out[24] = {0};
  for (int i = 0; i < 24; ++i)
    in[i] = (float)i * 1.5f;
  void *d;
  assert_int_equal(bp_device_malloc(f->dev0, 1024, &d), BP_OK);
  int64_t shape[3] = {2, 3, 4};
  DLTensor h_in = tensor(in, host, 3, shape, NULL, 0);
  DLTensor dev = tensor(d, bp_device_to_dl(f->dev0), 3, shape, NULL, 256);
  DLTensor h_out = tensor(out, host, 3, shape, NULL, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &h_in, &dev, NULL), BP_OK);
  assert_int_equal(bp_copy_tensor(f->runtime, &dev, &h_out, NULL), BP_OK);
  assert_memory_equal(in, out, sizeof in);
  /* The offset was honoured: the bytes at d + 256 are the tensor. */
  float raw[24];
  assert_int_equal(
      bp_copy(NULL, raw, f->dev0, (char *)d + 256, sizeof raw, NULL), BP_OK);
  assert_memory_equal(in, raw, sizeof in);
  assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
}

/* The transpose of a 2 x 3 host matrix (shape {3, 2}, strides {1, 3})
 * copied to a compact device tensor and back into another strided view. */
static void strided_host_sides(void **state) {
  fixture_t *f = *state;
  float base[6] = {0, 1, 2, 3, 4, 5}; /* 2 x 3, row-major */
  int64_t shape[2] = {3, 2}, transposed[2] = {1, 3};
  void *d;
  assert_int_equal(bp_device_malloc(f->dev1, 64, &d), BP_OK);
  DLTensor view = tensor(base, host, 2, shape, transposed, 0);
  DLTensor dev = tensor(d, bp_device_to_dl(f->dev1), 2, shape, NULL, 0);
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev1, &stream), BP_OK);
  assert_int_equal(bp_copy_tensor(f->runtime, &view, &dev, stream), BP_OK);
  float compact[6];
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_copy(NULL, compact, f->dev1, d, sizeof compact, NULL),
                   BP_OK);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      assert_true(compact[i * 2 + j] == base[j * 3 + i]);
  /* Back into a strided host tensor: every other float of 12. */
  float wide[12];
  for (int i = 0; i < 12; ++i)
    wide[i] = -1;
  int64_t every_other[2] = {4, 2};
  DLTensor out = tensor(wide, host, 2, shape, every_other, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &dev, &out, stream), BP_OK);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      assert_true(wide[i * 4 + j * 2] == base[j * 3 + i]);
      assert_true(wide[i * 4 + j * 2 + 1] == -1);
    }
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d), BP_OK);
}

/* Strided on one device, on the active stream: rows of 5 floats written
 * into rows of 8 (a padded pitch), and a column view read out. */
static void strided_on_one_device(void **state) {
  fixture_t *f = *state;
  enum { ROWS = 4, COLS = 5, PITCH = 8 };
  float in[ROWS * COLS], padded[ROWS * PITCH];
  for (int i = 0; i < ROWS * COLS; ++i)
    in[i] = (float)(i + 1);
  for (int i = 0; i < ROWS * PITCH; ++i)
    padded[i] = -7;
  void *src, *dst;
  assert_int_equal(bp_device_malloc(f->dev0, sizeof in, &src), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, sizeof padded, &dst), BP_OK);
  assert_int_equal(bp_copy(f->dev0, src, NULL, in, sizeof in, NULL), BP_OK);
  assert_int_equal(bp_copy(f->dev0, dst, NULL, padded, sizeof padded, NULL),
                   BP_OK);
  int64_t shape[2] = {ROWS, COLS}, pitched[2] = {PITCH, 1};
  DLDevice dl = bp_device_to_dl(f->dev0);
  DLTensor a = tensor(src, dl, 2, shape, NULL, 0);
  DLTensor b = tensor(dst, dl, 2, shape, pitched, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, BP_STREAM_ACTIVE), BP_OK);
  bp_stream_t *active;
  assert_int_equal(bp_stream_get_active(f->dev0, &active), BP_OK);
  assert_int_equal(bp_stream_synchronize(active), BP_OK);
  assert_int_equal(bp_copy(NULL, padded, f->dev0, dst, sizeof padded, NULL),
                   BP_OK);
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < PITCH; ++c)
      assert_true(padded[r * PITCH + c] ==
                  (c < COLS ? in[r * COLS + c] : -7.0f));
  /* Column 2 of the padded tensor, a 1-d view with stride PITCH. */
  int64_t column_shape[1] = {ROWS}, column_stride[1] = {PITCH};
  DLTensor column =
      tensor(dst, dl, 1, column_shape, column_stride, 2 * sizeof(float));
  float got[ROWS];
  DLTensor out = tensor(got, host, 1, column_shape, NULL, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &column, &out, NULL), BP_OK);
  for (int r = 0; r < ROWS; ++r)
    assert_true(got[r] == in[r * COLS + 2]);
  assert_int_equal(bp_device_free(f->dev0, src), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, dst), BP_OK);
}

/* Between two devices, and host to host. */
static void across_devices_and_host_to_host(void **state) {
  fixture_t *f = *state;
  float in[10], out[10] = {0}, copy[10] = {0};
  for (int i = 0; i < 10; ++i)
    in[i] = (float)(i * i);
  void *d0, *d1;
  assert_int_equal(bp_device_malloc(f->dev0, sizeof in, &d0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, sizeof in, &d1), BP_OK);
  int64_t shape[1] = {10};
  DLTensor h = tensor(in, host, 1, shape, NULL, 0);
  DLTensor a = tensor(d0, bp_device_to_dl(f->dev0), 1, shape, NULL, 0);
  DLTensor b = tensor(d1, bp_device_to_dl(f->dev1), 1, shape, NULL, 0);
  DLTensor o = tensor(out, host, 1, shape, NULL, 0);
  DLTensor c = tensor(copy, host, 1, shape, NULL, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &h, &a, NULL), BP_OK);
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL), BP_OK);
  assert_int_equal(bp_copy_tensor(f->runtime, &b, &o, NULL), BP_OK);
  assert_memory_equal(in, out, sizeof in);
  assert_int_equal(bp_copy_tensor(f->runtime, &o, &c, NULL), BP_OK);
  assert_memory_equal(in, copy, sizeof in);
  assert_int_equal(bp_device_free(f->dev0, d0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
}

static void empty_tensor_is_a_no_op(void **state) {
  fixture_t *f = *state;
  int64_t shape[2] = {0, 5};
  DLTensor a = tensor(NULL, host, 2, shape, NULL, 0);
  DLTensor b = tensor(NULL, bp_device_to_dl(f->dev0), 2, shape, NULL, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL), BP_OK);
}

static void bad_input_is_named(void **state) {
  fixture_t *f = *state;
  float x[6] = {0}, y[6] = {0};
  int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, negative[2] = {-3, 1};
  DLTensor a = tensor(x, host, 2, s23, NULL, 0);
  DLTensor b = tensor(y, host, 2, s32, NULL, 0);
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("shapes differ: from [2, 3], to [3, 2]");
  b.shape = s23;
  b.dtype.code = kDLInt;
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("dtypes differ: from (code 2, 32 bits, 1 lanes), to "
                        "(code 0, 32 bits, 1 lanes)");
  b.dtype = f32;
  a.strides = negative;
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("negative strides");
  a.strides = NULL;
  a.data = NULL;
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("from data is NULL");
  a.data = x;
  b.device = (DLDevice){kDLExtDev, 9};
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL), BP_ERR_NOT_FOUND);
  assert_error_mentions("to is on {kDLExtDev, 9}: no such device");
  b.device = (DLDevice){kDLCUDA, 0};
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("neither kDLCPU nor kDLExtDev");
  b.device = host;
  int64_t zero[2] = {0, 1};
  b.strides = zero;
  assert_int_equal(bp_copy_tensor(f->runtime, &a, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("overlap");
  assert_int_equal(bp_copy_tensor(f->runtime, NULL, &b, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_copy_tensor(NULL, &a, &b, NULL), BP_ERR_INVALID_ARGUMENT);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(contiguous_round_trip_with_offsets),
      T(strided_host_sides),
      T(strided_on_one_device),
      T(across_devices_and_host_to_host),
      T(empty_tensor_is_a_no_op),
      T(bad_input_is_named),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
