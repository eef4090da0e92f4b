/* Status words: how a CUDA kernel reports a code (kernel.h). A kernel whose
 * parameters end in one more than the param block (`unsigned *status`)
 * gets a word of pinned host memory there, zero at launch; a host function
 * behind the launch reads it once the stream has passed the kernel, and a
 * non-zero code becomes the stream's sticky BP_ERR_PLUGIN naming the kernel
 * and the code, as a host kernel's return code does. Words come in pages of
 * CU_STATUS_WORDS allocated at launch (never in a stream callback) when
 * every word is in flight, are reused, and are freed at the last finalize.
 * Thread-safe. */
#ifndef BACKPLANE_CUDA_KERNEL_STATUS_H_
#define BACKPLANE_CUDA_KERNEL_STATUS_H_

#include "cu.h"

struct C_Stream_st;

enum { CU_STATUS_WORDS = 1024 };

typedef struct cu_kernel_status cu_kernel_status_t;

/* A zeroed word for a launch of kernel `label` on `stream`, or NULL (with a
 * message) when no pinned page can be had. */
cu_kernel_status_t *cu_kernel_status_take(struct C_Stream_st *stream,
                                          const char *label);

/* The word's address, for the kernel's last parameter (pinned memory: the
 * same address on the host and every device). */
unsigned *cu_kernel_status_word(cu_kernel_status_t *status);

/* Returns a word no launch will write (its launch failed). */
void cu_kernel_status_give_back(cu_kernel_status_t *status);

/* The host function behind the launch (cudaHostFn_t): a non-zero word
 * becomes the stream's sticky error, then the word is given back. Makes no
 * CUDA call. */
void cu_kernel_status_check(void *status);

/* Allocates the first page ahead of any stream work (at initialize; see
 * cu_staged_copy_reserve). Failure is not an error (pages come on
 * demand). */
void cu_kernel_status_reserve(void);

/* Frees every page; every device has been synchronized (the last
 * finalize). */
void cu_kernel_status_release(void);

#endif /* BACKPLANE_CUDA_KERNEL_STATUS_H_ */
