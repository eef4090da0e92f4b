/* The op library's error reporting: a thread-local message that
 * diopiGetLastErrorString() returns, always naming the op first. */
#ifndef BACKPLANE_CUDA_OPS_ERROR_H_
#define BACKPLANE_CUDA_OPS_ERROR_H_

#include <diopi/diopirt.h>

#define CO_EXPORT __attribute__((visibility("default")))

/* "<op>: <message>"; returns diopiErrorOccurred (a bad argument, or a CUDA
 * or cuBLAS failure). */
diopiError_t co_fail(const char *op, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* The same message; returns diopiNoImplement: a well-formed call this
 * library does not cover (a dtype other than float32, a strided view where
 * it needs dense memory). */
diopiError_t co_unsupported(const char *op, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* BACKPLANE_CUDA_OPS_ERROR_H_ */
