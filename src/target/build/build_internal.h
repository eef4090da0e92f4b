/* IR modules and built modules inside libbackplane. */
#ifndef BACKPLANE_TARGET_BUILD_INTERNAL_H_
#define BACKPLANE_TARGET_BUILD_INTERNAL_H_

#include <stdint.h>

#include "backplane/build.h"
#include "target/te/te_ir.h"

struct bp_ir_module {
  te_module_t *te; /* tensor-expression IR; NULL for C source */
  char *c_source;  /* C source; NULL for tensor expressions */
  char **names;    /* function names, NULL-terminated */
  size_t name_count;
  char *canonical; /* canonical JSON: the cache key's IR part */
};

/* Loading built shared objects (module_load.c), the one place generated
 * code is loaded: as a kernel module of a device (kernel.h), or into this
 * process for a direct host call. */
bp_status_t loaded_module_on_device(const char *path, bp_device_t *device,
                                    bp_module_t **out_module);
typedef struct loaded_module loaded_module_t;
bp_status_t loaded_module_open(const char *path, loaded_module_t **out);
bp_status_t loaded_module_function(loaded_module_t *module, const char *name,
                                   bp_generated_fn *out_function);
void loaded_module_close(loaded_module_t *module);

/* The disk cache (build_cache.c). Keys are 32 hex digits. */
typedef struct build_cache {
  char dir[4096]; /* <root>/codegen */
} build_cache_t;

/* Finds the cache directory (options, then $BACKPLANE_CACHE_DIR,
 * $XDG_CACHE_HOME/backplane, ~/.cache/backplane) and creates it. */
bp_status_t build_cache_open(const bp_build_options_t *options,
                             build_cache_t *out_cache);
/* If a valid entry for `key` exists, writes its path and checksum and
 * returns 1; a corrupt or stale entry is removed and 0 returned. `suffix`
 * (".so", ".cl") ends the entry's file name: loaders tell kinds by it. */
int build_cache_lookup(const build_cache_t *cache, const char *key,
                       const char *suffix, char *path, size_t capacity,
                       uint64_t *out_checksum);
/* Moves the freshly built `built_path` into the cache as `key` atomically
 * (rename, then the checksum file); writes the entry's path and checksum. */
bp_status_t build_cache_store(const build_cache_t *cache, const char *key,
                              const char *suffix, const char *built_path,
                              char *path, size_t capacity,
                              uint64_t *out_checksum);
/* The checksum of a file's bytes (FNV-1a 64); nonzero on read errors. */
int build_cache_checksum(const char *path, uint64_t *out_checksum);

#endif /* BACKPLANE_TARGET_BUILD_INTERNAL_H_ */
