#include "core/plugin_search.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/runtime_internal.h"

static int has_so_suffix(const char *name) {
  size_t n = strlen(name);
  return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* Appends `path` unless its realpath is already listed. */
static bp_status_t add_candidate(bp_plugin_candidates_t *out,
                                 const char *path) {
  char *resolved = realpath(path, NULL);
  if (!resolved)
    resolved = strdup(path);
  if (!resolved)
    return BP_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < out->count; ++i) {
    if (strcmp(out->resolved[i], resolved) == 0) {
      free(resolved);
      return BP_OK;
    }
  }
  if (out->count == out->capacity) {
    size_t capacity = out->capacity ? out->capacity * 2 : 8;
    char **paths = realloc(out->paths, capacity * sizeof *paths);
    if (paths)
      out->paths = paths;
    char **resolveds =
        paths ? realloc(out->resolved, capacity * sizeof *paths) : NULL;
    if (!resolveds) {
      free(resolved);
      return BP_ERR_OUT_OF_MEMORY;
    }
    out->resolved = resolveds;
    out->capacity = capacity;
  }
  char *copy = strdup(path);
  if (!copy) {
    free(resolved);
    return BP_ERR_OUT_OF_MEMORY;
  }
  out->paths[out->count] = copy;
  out->resolved[out->count] = resolved;
  out->count++;
  return BP_OK;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bp_status_t add_directory(bp_plugin_candidates_t *out, const char *dir) {
  DIR *stream = opendir(dir);
  if (!stream)
    return BP_OK;
  char **names = NULL;
  size_t count = 0, capacity = 0;
  bp_status_t status = BP_OK;
  struct dirent *entry;
  while (status == BP_OK && (entry = readdir(stream)) != NULL) {
    if (!has_so_suffix(entry->d_name))
      continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      char **grown = realloc(names, capacity * sizeof *names);
      if (!grown) {
        status = BP_ERR_OUT_OF_MEMORY;
        break;
      }
      names = grown;
    }
    names[count] = strdup(entry->d_name);
    if (!names[count])
      status = BP_ERR_OUT_OF_MEMORY;
    else
      count++;
  }
  closedir(stream);
  if (status == BP_OK)
    qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; ++i) {
    if (status == BP_OK) {
      size_t n = strlen(dir) + strlen(names[i]) + 2;
      char *path = malloc(n);
      if (!path) {
        status = BP_ERR_OUT_OF_MEMORY;
      } else {
        snprintf(path, n, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
          status = add_candidate(out, path);
        free(path);
      }
    }
    free(names[i]);
  }
  free(names);
  return status;
}

/* One entry of a colon list: a directory, or a file loaded as given. */
static bp_status_t add_entry(bp_runtime_t *runtime, bp_plugin_candidates_t *out,
                             const char *entry) {
  struct stat st;
  if (stat(entry, &st) != 0) {
    if (has_so_suffix(entry))
      return bp_runtime_reject(runtime, entry, "cannot open: %s",
                               strerror(errno));
    return BP_OK; /* a directory that is not there */
  }
  return S_ISDIR(st.st_mode) ? add_directory(out, entry)
                             : add_candidate(out, entry);
}

static bp_status_t add_list(bp_runtime_t *runtime, bp_plugin_candidates_t *out,
                            const char *list) {
  if (!list)
    return BP_OK;
  char *copy = strdup(list);
  if (!copy)
    return BP_ERR_OUT_OF_MEMORY;
  bp_status_t status = BP_OK;
  char *saved = NULL;
  for (char *entry = strtok_r(copy, ":", &saved); entry && status == BP_OK;
       entry = strtok_r(NULL, ":", &saved))
    status = add_entry(runtime, out, entry);
  free(copy);
  return status;
}

/* <directory of the object holding this code>/BP_PLUGIN_SUBDIR. */
static bp_status_t add_builtin(bp_plugin_candidates_t *out) {
  Dl_info info;
  if (!dladdr((void *)add_builtin, &info) || !info.dli_fname)
    return BP_OK;
  const char *slash = strrchr(info.dli_fname, '/');
  size_t dir_length = slash ? (size_t)(slash - info.dli_fname) : 1;
  const char *dir = slash ? info.dli_fname : ".";
  size_t n = dir_length + sizeof "/" BP_PLUGIN_SUBDIR;
  char *path = malloc(n);
  if (!path)
    return BP_ERR_OUT_OF_MEMORY;
  snprintf(path, n, "%.*s/%s", (int)dir_length, dir, BP_PLUGIN_SUBDIR);
  bp_status_t status = add_directory(out, path);
  free(path);
  return status;
}

bp_status_t bp_plugin_search(bp_runtime_t *runtime,
                             const bp_runtime_options_t *options,
                             bp_plugin_candidates_t *out) {
  const char *plugin_path = options ? options->plugin_path : NULL;
  int ignore_environment = options ? options->ignore_environment : 0;
  int skip_builtin = options ? options->skip_builtin_plugins : 0;

  bp_status_t status = add_list(runtime, out, plugin_path);
  if (status == BP_OK && !ignore_environment)
    status = add_list(runtime, out, secure_getenv("BACKPLANE_PLUGIN_PATH"));
  if (status == BP_OK && !ignore_environment) {
    const char *root = secure_getenv("CUSTOM_DEVICE_ROOT");
    if (root && *root)
      status = add_directory(out, root);
  }
  if (status == BP_OK && !skip_builtin)
    status = add_builtin(out);
  return status;
}

void bp_plugin_candidates_release(bp_plugin_candidates_t *candidates) {
  for (size_t i = 0; i < candidates->count; ++i) {
    free(candidates->paths[i]);
    free(candidates->resolved[i]);
  }
  free(candidates->paths);
  free(candidates->resolved);
  *candidates = (bp_plugin_candidates_t){0};
}
