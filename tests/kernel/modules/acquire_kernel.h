/* The parameter of acquire_kernel (acquire_kernel.c). */
#ifndef BACKPLANE_TESTS_KERNEL_ACQUIRE_KERNEL_H_
#define BACKPLANE_TESTS_KERNEL_ACQUIRE_KERNEL_H_

typedef struct acquire_param {
  char name[64];
} acquire_param;

#endif /* BACKPLANE_TESTS_KERNEL_ACQUIRE_KERNEL_H_ */
