/* One collective test case as one rank runs it, for the tests whose ranks are
 * processes (fork, mpirun): fills this rank's input with ref_value, calls the
 * collective through the xccl table on a test stream, waits, and checks its
 * own result against the host reference. Prints what went wrong on stderr. */
#ifndef BACKPLANE_TESTS_COMM_CASES_H_
#define BACKPLANE_TESTS_COMM_CASES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "comm_test_streams.h"

typedef enum comm_case_kind {
  CASE_ALL_REDUCE,
  CASE_REDUCE,
  CASE_BROADCAST,
  CASE_ALL_GATHER,
  CASE_REDUCE_SCATTER,
} comm_case_kind;

enum { COMM_CASE_DTYPES = 12, COMM_CASE_OPS = 5 };
extern const C_DataType comm_case_dtypes[COMM_CASE_DTYPES];
extern const C_CCLReduceOp comm_case_ops[COMM_CASE_OPS];

/* 0 if this rank's result is right, 1 otherwise. Buffers come from
 * `device`'s memory (an initialized vcpu device: the plugin's memfd arena,
 * which the ranks of its host can map), or from malloc when it is NULL. */
int comm_case_run(const C_DeviceInterface *xccl, C_CCLComm comm,
                  test_stream *stream, size_t rank, size_t nranks,
                  comm_case_kind kind, C_DataType dtype, C_CCLReduceOp op,
                  size_t count, bool in_place, size_t root,
                  struct C_Device_st *device);

/* Drains the stream; the communicator's async status, message copied. */
int32_t settle(C_CCLComm comm, test_stream *stream, char message[512]);

#endif /* BACKPLANE_TESTS_COMM_CASES_H_ */
