/* Which CUDA module format a byte image is, read from the bytes. */
#ifndef BACKPLANE_CUDA_MODULE_FORMAT_H_
#define BACKPLANE_CUDA_MODULE_FORMAT_H_

#include <stddef.h>
#include <stdint.h>

/* A CU_MODULE_KIND_* (kernel.h): an ELF whose machine is EM_CUDA is a
 * cubin, an image starting with the fatbin magic a fatbin, text holding a
 * `.version` and a `.target` directive PTX, other text CUDA C. 0 for an
 * empty image, a host ELF (a shared object) or other binary bytes. */
int32_t cu_module_format(const void *data, size_t size);

/* The format's name ("CUDA C", "PTX", "cubin", "fatbin"), "unknown". */
const char *cu_module_format_name(int32_t format);

#endif /* BACKPLANE_CUDA_MODULE_FORMAT_H_ */
