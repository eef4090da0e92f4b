/* The build cache: <root>/codegen/<key><suffix> (a shared object, *.so, or
 * source a device compiles, *.cl) and <key>.sum ("<size>
 * <checksum>\n"). A builder writes the object under a temporary name in the
 * same directory and renames it into place, then writes the checksum file
 * the same way, so a reader sees either no entry or a whole one; an entry
 * whose bytes do not match its checksum (corrupt, or replaced by a racing
 * writer) is removed and rebuilt, never loaded. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/status.h"
#include "target/build/build_internal.h"
#include "target/target_internal.h"

/* mkdir -p. */
static int make_dirs(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    int failed = mkdir(path, 0700) && errno != EEXIST;
    *p = '/';
    if (failed)
      return -1;
  }
  return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

bp_status_t build_cache_open(const bp_build_options_t *options,
                             build_cache_t *out_cache) {
  const char *root = options && options->cache_dir
                         ? options->cache_dir
                         : getenv("BACKPLANE_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int length;
  if (root && *root)
    length =
        snprintf(out_cache->dir, sizeof(out_cache->dir), "%s/codegen", root);
  else if (xdg && *xdg)
    length = snprintf(out_cache->dir, sizeof(out_cache->dir),
                      "%s/backplane/codegen", xdg);
  else if (home && *home)
    length = snprintf(out_cache->dir, sizeof(out_cache->dir),
                      "%s/.cache/backplane/codegen", home);
  else
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_build: no cache directory (set BACKPLANE_CACHE_DIR, "
                    "XDG_CACHE_HOME or HOME)");
  if (length < 0 || (size_t)length >= sizeof(out_cache->dir) - 64)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_build: cache directory path too long");
  if (make_dirs(out_cache->dir))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_build: cannot create cache directory %s: %s",
                    out_cache->dir, strerror(errno));
  return BP_OK;
}

int build_cache_checksum(const char *path, uint64_t *out_checksum) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  uint64_t hash = TARGET_FNV_SEED;
  unsigned char buffer[16384];
  size_t length;
  while ((length = fread(buffer, 1, sizeof(buffer), file)) > 0)
    hash = target_fnv1a(buffer, length, hash);
  int failed = ferror(file);
  fclose(file);
  *out_checksum = hash;
  return failed ? -1 : 0;
}

static void entry_paths(const build_cache_t *cache, const char *key,
                        const char *suffix, char *object, char *sum,
                        size_t capacity) {
  snprintf(object, capacity, "%s/%s%s", cache->dir, key, suffix);
  snprintf(sum, capacity, "%s/%s.sum", cache->dir, key);
}

int build_cache_lookup(const build_cache_t *cache, const char *key,
                       const char *suffix, char *path, size_t capacity,
                       uint64_t *out_checksum) {
  char sum_path[4200];
  entry_paths(cache, key, suffix, path, sum_path, capacity);
  FILE *file = fopen(sum_path, "r");
  if (!file)
    return 0; /* no entry (or not finished yet) */
  unsigned long long size = 0;
  uint64_t recorded = 0, actual = 0;
  int parsed = fscanf(file, "%llu %" SCNx64, &size, &recorded) == 2;
  fclose(file);
  struct stat info;
  if (parsed && stat(path, &info) == 0 && (uint64_t)info.st_size == size &&
      build_cache_checksum(path, &actual) == 0 && actual == recorded) {
    *out_checksum = actual;
    return 1;
  }
  /* Corrupt or stale: drop it (another process may already have). */
  unlink(sum_path);
  unlink(path);
  return 0;
}

/* Writes `text` to `final_path` through a temporary file and a rename. */
static int write_atomically(const char *final_path, const char *text) {
  char temporary[4300];
  snprintf(temporary, sizeof(temporary), "%s.%ld.tmp", final_path,
           (long)getpid());
  FILE *file = fopen(temporary, "w");
  if (!file)
    return -1;
  int failed = fputs(text, file) < 0;
  failed |= fclose(file) != 0;
  if (failed || rename(temporary, final_path)) {
    unlink(temporary);
    return -1;
  }
  return 0;
}

bp_status_t build_cache_store(const build_cache_t *cache, const char *key,
                              const char *suffix, const char *built_path,
                              char *path, size_t capacity,
                              uint64_t *out_checksum) {
  char sum_path[4200], sum_text[64];
  entry_paths(cache, key, suffix, path, sum_path, capacity);
  struct stat info;
  uint64_t checksum;
  if (stat(built_path, &info) || build_cache_checksum(built_path, &checksum))
    return bp_error(BP_ERR_PLUGIN, "bp_build: cannot read the built %s: %s",
                    built_path, strerror(errno));
  if (rename(built_path, path))
    return bp_error(BP_ERR_PLUGIN,
                    "bp_build: cannot move %s into the cache "
                    "(%s): %s",
                    built_path, path, strerror(errno));
  snprintf(sum_text, sizeof(sum_text), "%llu %016" PRIx64 "\n",
           (unsigned long long)info.st_size, checksum);
  if (write_atomically(sum_path, sum_text))
    return bp_error(BP_ERR_PLUGIN, "bp_build: cannot write %s: %s", sum_path,
                    strerror(errno));
  *out_checksum = checksum;
  return BP_OK;
}
