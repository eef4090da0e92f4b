/* libnccl.so.2, opened at run time. */
#include "nccl_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "cu.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cu_nccl_t g_nccl;
static const cu_nccl_t *g_loaded;
static char g_reason[256];

#define NCCL_RESOLVE(field, name)                                              \
  (*(void **)&g_nccl.field = dlsym(library, name)) != NULL

static void load(void) {
  void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(g_reason, sizeof g_reason,
             "NCCL (libnccl.so.2) cannot be opened: %s", dlerror());
    return;
  }
  if (!(NCCL_RESOLVE(get_unique_id, "ncclGetUniqueId") &&
        NCCL_RESOLVE(comm_init_rank, "ncclCommInitRank") &&
        NCCL_RESOLVE(comm_destroy, "ncclCommDestroy") &&
        NCCL_RESOLVE(comm_abort, "ncclCommAbort") &&
        NCCL_RESOLVE(comm_get_async_error, "ncclCommGetAsyncError") &&
        NCCL_RESOLVE(all_reduce, "ncclAllReduce") &&
        NCCL_RESOLVE(broadcast, "ncclBroadcast") &&
        NCCL_RESOLVE(reduce, "ncclReduce") &&
        NCCL_RESOLVE(all_gather, "ncclAllGather") &&
        NCCL_RESOLVE(reduce_scatter, "ncclReduceScatter") &&
        NCCL_RESOLVE(send, "ncclSend") && NCCL_RESOLVE(recv, "ncclRecv") &&
        NCCL_RESOLVE(group_start, "ncclGroupStart") &&
        NCCL_RESOLVE(group_end, "ncclGroupEnd") &&
        NCCL_RESOLVE(get_error_string, "ncclGetErrorString"))) {
    snprintf(g_reason, sizeof g_reason,
             "NCCL (libnccl.so.2) lacks a function this plugin calls");
    return;
  }
  g_loaded = &g_nccl;
}

const cu_nccl_t *cu_nccl(void) {
  pthread_once(&g_once, load);
  if (!g_loaded)
    cu_fail(C_FAILED, "%s", g_reason);
  return g_loaded;
}

C_Status cu_fail_nccl(const cu_nccl_t *nccl, ncclResult_t result,
                      const char *what) {
  C_Status status = result == ncclInvalidArgument || result == ncclInvalidUsage
                        ? C_ERROR
                        : C_INTERNAL_ERROR;
  return cu_fail(status, "%s: %s (ncclResult %d)", what,
                 nccl->get_error_string(result), (int)result);
}
