/* Listing the functions an ELF64 shared object exports (its .dynsym). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static bool fits(size_t size, uint64_t offset, uint64_t length) {
  return offset <= size && length <= size - offset;
}

static bool exported_function(const Elf64_Sym *sym) {
  unsigned bind = ELF64_ST_BIND(sym->st_info);
  return ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
         sym->st_shndx != SHN_UNDEF &&
         (bind == STB_GLOBAL || bind == STB_WEAK) &&
         ELF64_ST_VISIBILITY(sym->st_other) == STV_DEFAULT;
}

static bool keep_name(const char *name) {
  return name[0] != '\0' && strcmp(name, "_init") != 0 &&
         strcmp(name, "_fini") != 0;
}

bool vk_elf_functions(const unsigned char *image, size_t size,
                      char ***out_names, size_t *out_count) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
  if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !fits(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
    return false;
  const Elf64_Shdr *sections = (const Elf64_Shdr *)(image + eh->e_shoff);
  char **names = NULL;
  size_t count = 0;
  for (size_t s = 0; s < eh->e_shnum; ++s) {
    const Elf64_Shdr *symtab = &sections[s];
    if (symtab->sh_type != SHT_DYNSYM || symtab->sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *strtab = &sections[symtab->sh_link];
    if (!fits(size, symtab->sh_offset, symtab->sh_size) ||
        !fits(size, strtab->sh_offset, strtab->sh_size) ||
        strtab->sh_size == 0 || image[strtab->sh_offset + strtab->sh_size - 1])
      continue;
    const Elf64_Sym *syms = (const Elf64_Sym *)(image + symtab->sh_offset);
    size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < n; ++i) {
      if (!exported_function(&syms[i]) || syms[i].st_name >= strtab->sh_size)
        continue;
      const char *name =
          (const char *)image + strtab->sh_offset + syms[i].st_name;
      char **grown =
          keep_name(name) ? realloc(names, (count + 1) * sizeof *names) : NULL;
      if (grown) {
        names = grown;
        names[count] = strdup(name);
        if (names[count])
          count++;
      }
    }
  }
  *out_names = names;
  *out_count = count;
  return true;
}
