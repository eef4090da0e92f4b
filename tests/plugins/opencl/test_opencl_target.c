/* The opencl target kind: a target made from the live device carries what
 * OpenCL itself reports for that device (asked here directly, through the
 * ICD loader), and the device attributes agree with it. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
#include <stdlib.h>

#include "backplane/target.h"
#include "support/runtime_fixture.h"

/* The first POCL-or-other device as OpenCL lists it: the plugin's device 0
 * when nothing is filtered. */
static cl_device_id first_device(void) {
  cl_platform_id platform;
  cl_device_id device;
  assert_int_equal(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
  assert_int_equal(
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL),
      CL_SUCCESS);
  return device;
}

static int64_t target_int(const bp_target_t *target, const char *name) {
  int64_t value = -1;
  assert_int_equal(bp_target_get_int(target, name, &value), BP_OK);
  return value;
}

static void target_reads_the_live_device(void **state) {
  (void)state;
  cl_device_id cl = first_device();
  size_t work_group = 0;
  cl_uint units = 0, width = 0;
  cl_ulong local = 0;
  clGetDeviceInfo(cl, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof work_group,
                  &work_group, NULL);
  clGetDeviceInfo(cl, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  clGetDeviceInfo(cl, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  clGetDeviceInfo(cl, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof width,
                  &width, NULL);

  bp_runtime_t *runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_get(runtime, "opencl", 0, &device), BP_OK);
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_from_device(device, &target), BP_OK);
  assert_string_equal(bp_target_kind(target), "opencl");
  assert_int_equal(target_int(target, "max_num_threads"), work_group);
  assert_int_equal(target_int(target, "num_cores"), units);
  assert_int_equal(target_int(target, "max_shared_memory_per_block"), local);
  assert_int_equal(target_int(target, "vector_width"), width ? width : 1);

  bp_device_attr_value_t value;
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT, &value),
      BP_OK);
  assert_int_equal(value.i64, units);
  char name[256] = "";
  clGetDeviceInfo(cl, CL_DEVICE_NAME, sizeof name, name, NULL);
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_DEVICE_NAME, &value), BP_OK);
  assert_string_equal(value.str, name);

  bp_target_destroy(target);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(target_reads_the_live_device),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
