/* A module's functions by name (internal).
 *
 * An open-addressing hash table over the op and function names of a
 * module's listed functions, built once at load and read-only afterwards,
 * so lookups take no lock. A name that several functions carry finds the
 * first of them in list order, checking each function's op before its
 * function name (what a scan of the list would find). */
#ifndef BACKPLANE_KERNEL_FUNCTION_INDEX_H_
#define BACKPLANE_KERNEL_FUNCTION_INDEX_H_

#include <stddef.h>

#include "backplane/status.h"
#include "kernel/kernel_internal.h"

/* Indexes functions[0, count) (which must outlive the index). On
 * BP_ERR_OUT_OF_MEMORY the index is empty and the caller sets the error. */
bp_status_t bp_function_index_build(bp_function_index_t *index,
                                    bp_function_t *functions, size_t count);

/* The function whose op or function name is `name`, or NULL. */
bp_function_t *bp_function_index_find(const bp_function_index_t *index,
                                      const char *name);

/* Zeroed or built; leaves it zeroed. */
void bp_function_index_free(bp_function_index_t *index);

/* Writes into `out` up to `limit` names of functions[0, count) nearest to
 * `name`, quoted and comma-separated ("\"MatMul\", \"MatMulV2\""): by edit
 * distance, then by the longer common prefix, then in list order. Each
 * function counts once, by whichever of its op and function name is
 * nearer. Empty when count is 0. */
void bp_function_index_nearest(const bp_function_t *functions, size_t count,
                               const char *name, size_t limit, char *out,
                               size_t capacity);

#endif /* BACKPLANE_KERNEL_FUNCTION_INDEX_H_ */
