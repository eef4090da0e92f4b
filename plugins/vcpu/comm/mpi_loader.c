#include "comm/mpi.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const vcpu_comm_mpi_module_t *loaded;
static char load_error[PATH_MAX + 1024];

/* Where this plugin's .so lives. */
static void plugin_directory(char *out, size_t capacity) {
  Dl_info info;
  out[0] = '\0';
  if (dladdr((void *)vcpu_comm_mpi_module_load, &info) && info.dli_fname) {
    snprintf(out, capacity, "%s", info.dli_fname);
    char *slash = strrchr(out, '/');
    if (slash)
      *slash = '\0';
    else
      snprintf(out, capacity, ".");
  }
}

static void load(void) {
  char path[PATH_MAX];
  const char *override = getenv("BACKPLANE_VCPU_MPI_MODULE");
  if (override && *override) {
    snprintf(path, sizeof path, "%s", override);
  } else {
    char dir[PATH_MAX - sizeof VCPU_COMM_MPI_MODULE_FILE - 8];
    plugin_directory(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/../%s", dir, VCPU_COMM_MPI_MODULE_FILE);
  }
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    snprintf(load_error, sizeof load_error,
             "the MPI transport module %s cannot be loaded: %s", path,
             dlerror());
    return;
  }
  vcpu_comm_mpi_module_fn_t entry;
  void *symbol = dlsym(handle, VCPU_COMM_MPI_MODULE_SYMBOL);
  memcpy(&entry, &symbol, sizeof entry);
  if (entry == NULL || (loaded = entry()) == NULL)
    snprintf(load_error, sizeof load_error,
             "%s lacks %s: not a vcpu MPI transport module", path,
             VCPU_COMM_MPI_MODULE_SYMBOL);
}

const vcpu_comm_mpi_module_t *vcpu_comm_mpi_module_load(void) {
  pthread_once(&load_once, load);
  if (loaded == NULL)
    vcpu_comm_reject(BP_ERR_UNSUPPORTED, "xccl_comm_init_rank: %s", load_error);
  return loaded;
}

/* An Open MPI launcher variable as a count; 0 if absent or malformed. */
static size_t launcher_count(const char *name) {
  const char *text = getenv(name);
  char *end = NULL;
  unsigned long long value = text ? strtoull(text, &end, 10) : 0;
  return text && *text && *end == '\0' ? (size_t)value : 0;
}

bool vcpu_comm_mpi_wanted(const vcpu_comm_unique_id_t *id, size_t nranks) {
  const char *transport = getenv("BACKPLANE_COMM_TRANSPORT");
  if (transport && strcmp(transport, "mpi") == 0)
    return true;
  if (transport && *transport && strcmp(transport, "auto") != 0)
    return false;
  size_t job = launcher_count("OMPI_COMM_WORLD_SIZE");
  size_t here = launcher_count("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (job == nranks && here != 0 && here < job)
    return true;
  char host[sizeof id->host] = "";
  gethostname(host, sizeof host - 1);
  return strcmp(host, id->host) != 0;
}
