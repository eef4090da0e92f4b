/* Stand-in streams for the collective tests: each is one worker thread
 * draining a FIFO, like a vcpu stream, so the vcpu collectives can be tested
 * on their own. A test_stream* is passed as the C_Stream. Thread-safe. */
#ifndef BACKPLANE_TESTS_COMM_TEST_STREAMS_H_
#define BACKPLANE_TESTS_COMM_TEST_STREAMS_H_

#include "backplane/device_ext.h"
#include "plugins/vcpu/comm/ops.h"

typedef struct test_stream test_stream;

test_stream *test_stream_create(void);
/* Drains, then joins the worker. */
void test_stream_destroy(test_stream *stream);
/* Returns once every task enqueued so far has run. */
void test_stream_synchronize(test_stream *stream);
/* The comm_enqueue_fn to install with comm_set_enqueue(). */
C_Status test_stream_enqueue(C_Stream stream, const comm_task *comm);

static inline C_Stream test_stream_handle(test_stream *stream) {
  return (C_Stream)(void *)stream;
}

#endif /* BACKPLANE_TESTS_COMM_TEST_STREAMS_H_ */
