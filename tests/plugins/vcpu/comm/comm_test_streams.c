#include "comm_test_streams.h"

#include <stdlib.h>

#include "plugins/vcpu/comm/ops.h"
#include "plugins/vcpu/lifetime.h"
#include "plugins/vcpu/stream.h"

struct test_stream {
  C_Stream stream;
};

static struct C_Device_st device0 = {0};
static const vcpu_runners_t runners = {.comm_task = vcpu_comm_run_task};

test_stream *test_stream_create(void) {
  test_stream *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  if (vcpu_initialize(&runners) != C_SUCCESS) {
    free(s);
    return NULL;
  }
  if (vcpu_create_stream(&device0, &s->stream) != C_SUCCESS) {
    vcpu_finalize();
    free(s);
    return NULL;
  }
  return s;
}

void test_stream_synchronize(test_stream *s) {
  vcpu_synchronize_stream(&device0, s->stream);
}

void test_stream_destroy(test_stream *s) {
  if (s == NULL)
    return;
  vcpu_destroy_stream(&device0, s->stream);
  vcpu_finalize();
  free(s);
}

C_Stream test_stream_handle(test_stream *s) {
  return s->stream;
}
