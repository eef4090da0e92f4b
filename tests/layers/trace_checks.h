/* Structural checks of a Chrome trace-event file, as the trace layer
 * writes it (cmocka assertions; a failure fails the calling test). */
#ifndef BACKPLANE_TESTS_LAYERS_TRACE_CHECKS_H_
#define BACKPLANE_TESTS_LAYERS_TRACE_CHECKS_H_

#include <jansson.h>
#include <stddef.h>

/* Loads `path` and checks it: a {"traceEvents": [...]} object whose events
 * each have a known ph, a name, a pid (and a tid and ts where the format
 * needs them); complete events with dur >= 0; every B closed by an E on its
 * track; each process and track named exactly once, and every slice on a
 * named track; every flow id with exactly one start and one finish, the
 * start not after the finish, each inside a slice of its track; counters
 * with numeric series; on every track, complete events disjoint or nested
 * (within 1 ns). Returns the root (json_decref it). */
json_t *trace_check_file(const char *path);

/* The "traceEvents" array of a checked root. */
json_t *trace_events(json_t *root);

/* Events with phase `ph` named `name` (any name when NULL) whose
 * args.`arg` is the integer `value` (no condition when `arg` is NULL). */
size_t trace_count(json_t *root, const char *ph, const char *name,
                   const char *arg, json_int_t value);

/* Named tracks (thread_name) in the process named `process`. */
size_t trace_tracks_of(json_t *root, const char *process);

/* The `nth` (from 0, in file order) complete event named `name`; fails the
 * test when there are fewer. */
json_t *trace_slice(json_t *root, const char *name, size_t nth);

/* Complete events named `name` (any when NULL) lying within the complete
 * event `outer` on its track, `outer` itself excluded. */
size_t trace_inside(json_t *root, json_t *outer, const char *name);

/* Complete events named `name` lying within some complete event named
 * `outer_name` on their track. */
size_t trace_count_inside(json_t *root, const char *name,
                          const char *outer_name);

#endif /* BACKPLANE_TESTS_LAYERS_TRACE_CHECKS_H_ */
