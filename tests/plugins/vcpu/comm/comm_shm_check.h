/* What the collective tests check in /dev/shm: a vcpu world must leave no
 * shared-memory segment behind (plugins/vcpu/comm/segment.h), whatever
 * happened to its ranks. Not thread-safe with respect to worlds being
 * created while a check runs in the same test. */
#ifndef BACKPLANE_TESTS_COMM_SHM_CHECK_H_
#define BACKPLANE_TESTS_COMM_SHM_CHECK_H_

#include <stddef.h>
#include <sys/types.h>

#include "backplane/device_ext.h"

/* Fails the test if /dev/shm holds a segment of the world `id` names. */
void comm_test_expect_no_segment(const C_CCLRootId *id);

/* How many segments of the world `id` names /dev/shm holds. */
size_t comm_test_count_segments(const C_CCLRootId *id);

/* The same for a world over MPI of `nranks` ranks: its own segments and
 * those of the shared-memory worlds of its hosts (the hybrid transport). */
struct vcpu_comm_unique_id;
size_t comm_test_count_world_segments(const struct vcpu_comm_unique_id *id,
                                      size_t nranks);

/* Removes every segment of the world `id` names (cleanup after a test that
 * failed midway) and returns how many there were, naming them on stderr. */
size_t comm_test_remove_segments(const C_CCLRootId *id);

/* A cmocka teardown that fails the test if its worlds left a segment behind
 * (created by this process), removing them. */
int comm_test_no_segment_left(void **state);

/* Removes every vcpu segment created by process `pid` and returns how many
 * there were, naming them on stderr: for tests whose worlds are made inside
 * the plugin (init of all devices at once), whose tokens they never see. */
size_t comm_test_remove_segments_created_by(pid_t pid);

#endif /* BACKPLANE_TESTS_COMM_SHM_CHECK_H_ */
