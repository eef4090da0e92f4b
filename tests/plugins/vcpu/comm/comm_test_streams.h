/* Streams for the collective tests: real vcpu streams on device 0, so the
 * collectives run as they do in the plugin. Each test stream holds one
 * reference on the plugin's lifetime (lifetime.h), taken with the
 * collectives' runner. Thread-safe. */
#ifndef BACKPLANE_TESTS_COMM_TEST_STREAMS_H_
#define BACKPLANE_TESTS_COMM_TEST_STREAMS_H_

#include "backplane/device_ext.h"

typedef struct test_stream test_stream;

/* NULL if vcpu cannot be initialised or the stream not created. */
test_stream *test_stream_create(void);
/* Drains, destroys the stream and drops its lifetime reference. */
void test_stream_destroy(test_stream *stream);
/* Returns once every task enqueued so far has run. */
void test_stream_synchronize(test_stream *stream);
/* The C_Stream to pass to the xccl_* calls. */
C_Stream test_stream_handle(test_stream *stream);

#endif /* BACKPLANE_TESTS_COMM_TEST_STREAMS_H_ */
