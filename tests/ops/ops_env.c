#include "ops_env.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/runtime_fixture.h"

int ops_env_setup(void **state) {
  ops_env_t *e = calloc(1, sizeof *e);
  assert_non_null(e);
  e->runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_get(e->runtime, "vcpu", 0, &e->device), BP_OK);
  assert_int_equal(bp_stream_create(e->device, &e->stream), BP_OK);
  assert_int_equal(bp_ops_context_create(e->device, e->stream, &e->ctx), BP_OK);
  assert_int_equal(bp_ops_library_open(BP_OPS_REF, &e->library), BP_OK);
  *state = e;
  return 0;
}

int ops_env_teardown(void **state) {
  ops_env_t *e = *state;
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  bp_ops_context_destroy(e->ctx);
  bp_stream_destroy(e->stream);
  bp_ops_library_close(e->library);
  bp_runtime_destroy(e->runtime);
  free(e);
  return 0;
}

void *ops_env_find(ops_env_t *e, const char *name) {
  void *fn = NULL;
  assert_int_equal(bp_ops_library_find(e->library, name, &fn), BP_OK);
  assert_non_null(fn);
  return fn;
}

void ops_env_expect_error_names(ops_env_t *e, const char *const *parts, int n) {
  const char *(*last)(void) =
      (const char *(*)(void))ops_env_find(e, "diopiGetLastErrorString");
  const char *text = last();
  for (int i = 0; i < n; i++)
    if (!strstr(text, parts[i]))
      fail_msg("\"%s\" lacks \"%s\"", text, parts[i]);
}

diopiTensorHandle_t ops_env_tensor(ops_env_t *e, diopiDtype_t dtype,
                                   size_t ndim, const int64_t *shape,
                                   void **data) {
  diopiTensorHandle_t t;
  assert_int_equal(
      bp_ops_tensor_create(e->device, e->stream, dtype, ndim, shape, &t),
      BP_OK);
  assert_int_equal(diopiGetTensorData(t, data), diopiSuccess);
  return t;
}

diopiTensorHandle_t ops_made_tensor(ops_made_t *m, diopiDtype_t dtype,
                                    size_t ndim, const int64_t *shape,
                                    const void *bytes, size_t size,
                                    void **data) {
  assert_true(m->n < OPS_MADE_MAX);
  void *p;
  diopiTensorHandle_t t = ops_env_tensor(m->e, dtype, ndim, shape, &p);
  if (bytes)
    memcpy(p, bytes, size);
  if (data)
    *data = p;
  m->t[m->n++] = t;
  return t;
}

diopiTensorHandle_t ops_made_view(ops_made_t *m, void *data, diopiDtype_t dtype,
                                  size_t ndim, const int64_t *shape,
                                  const int64_t *strides) {
  assert_true(m->n < OPS_MADE_MAX);
  diopiTensorHandle_t t;
  assert_int_equal(
      bp_ops_tensor_wrap(m->e->device, data, dtype, ndim, shape, strides, &t),
      BP_OK);
  return m->t[m->n++] = t;
}

void ops_made_destroy(ops_made_t *m) {
  for (int i = 0; i < m->n; i++)
    bp_ops_tensor_destroy(m->t[i]);
  m->n = 0;
}
