/* Module formats from their bytes. */
#include "module_format.h"

#include <stdbool.h>
#include <string.h>

#include "kernel.h"

enum {
  ELF_MACHINE_OFFSET = 18, /* e_machine, after e_ident[16] and e_type */
  EM_CUDA_MACHINE = 190,
  FATBIN_MAGIC = 0xba55ed50u, /* the fat binary wrapper's, little-endian */
};

/* true when the image has no NUL byte: text, not a binary. */
static bool is_text(const unsigned char *bytes, size_t size) {
  return memchr(bytes, '\0', size) == NULL ||
         memchr(bytes, '\0', size) == bytes + size - 1;
}

/* `directive` at the start of a line of the text. */
static bool has_directive(const char *text, size_t size,
                          const char *directive) {
  size_t n = strlen(directive);
  for (size_t i = 0; i + n <= size; ++i)
    if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, directive, n) == 0)
      return true;
  return false;
}

int32_t cu_module_format(const void *data, size_t size) {
  const unsigned char *bytes = data;
  if (!bytes || size == 0)
    return 0;
  static const unsigned char elf_magic[4] = {0x7f, 'E', 'L', 'F'};
  if (size >= ELF_MACHINE_OFFSET + 2 &&
      memcmp(bytes, elf_magic, sizeof elf_magic) == 0) {
    unsigned machine = (unsigned)bytes[ELF_MACHINE_OFFSET] |
                       (unsigned)bytes[ELF_MACHINE_OFFSET + 1] << 8;
    return machine == EM_CUDA_MACHINE ? CU_MODULE_KIND_CUBIN : 0;
  }
  if (size >= 4) {
    uint32_t magic = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 |
                     (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    if (magic == FATBIN_MAGIC)
      return CU_MODULE_KIND_FATBIN;
  }
  if (!is_text(bytes, size))
    return 0;
  const char *text = data;
  if (has_directive(text, size, ".version") &&
      has_directive(text, size, ".target"))
    return CU_MODULE_KIND_PTX;
  return CU_MODULE_KIND_CUDA_C;
}

const char *cu_module_format_name(int32_t format) {
  switch (format) {
  case CU_MODULE_KIND_CUDA_C:
    return "CUDA C";
  case CU_MODULE_KIND_PTX:
    return "PTX";
  case CU_MODULE_KIND_CUBIN:
    return "cubin";
  case CU_MODULE_KIND_FATBIN:
    return "fatbin";
  default:
    return "unknown";
  }
}
