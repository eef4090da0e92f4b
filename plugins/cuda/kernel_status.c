/* Status words of kernels that report a code. */
#include "kernel_status.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backplane/status.h"
#include "stream.h"

struct cu_kernel_status {
  volatile unsigned *word;
  struct C_Stream_st *stream;
  char label[128];
  cu_kernel_status_t *next; /* idle list */
};

typedef struct status_page {
  unsigned *words; /* CU_STATUS_WORDS of pinned memory */
  cu_kernel_status_t slots[CU_STATUS_WORDS];
  struct status_page *next;
} status_page_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cu_kernel_status_t *g_idle;
static status_page_t *g_pages;

/* One more page of idle words; C_SUCCESS or a message. */
static C_Status add_page(void) {
  status_page_t *page = calloc(1, sizeof *page);
  if (!page)
    return cu_fail(C_FAILED, "out of host memory");
  void *words = NULL;
  cudaError_t error =
      cudaHostAlloc(&words, CU_STATUS_WORDS * sizeof(unsigned),
                    cudaHostAllocPortable | cudaHostAllocMapped);
  if (error != cudaSuccess) {
    free(page);
    return cu_fail_cuda(error, "cudaHostAlloc (kernel status words)");
  }
  page->words = words;
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < CU_STATUS_WORDS; ++i) {
    page->slots[i].word = &page->words[i];
    page->slots[i].next = g_idle;
    g_idle = &page->slots[i];
  }
  page->next = g_pages;
  g_pages = page;
  pthread_mutex_unlock(&g_lock);
  return C_SUCCESS;
}

cu_kernel_status_t *cu_kernel_status_take(struct C_Stream_st *stream,
                                          const char *label) {
  cu_kernel_status_t *status = NULL;
  for (;;) {
    pthread_mutex_lock(&g_lock);
    status = g_idle;
    if (status)
      g_idle = status->next;
    pthread_mutex_unlock(&g_lock);
    if (status || add_page() != C_SUCCESS)
      break;
  }
  if (status) {
    *status->word = 0;
    status->stream = stream;
    snprintf(status->label, sizeof status->label, "%s", label);
  }
  return status;
}

unsigned *cu_kernel_status_word(cu_kernel_status_t *status) {
  return (unsigned *)status->word;
}

void cu_kernel_status_give_back(cu_kernel_status_t *status) {
  pthread_mutex_lock(&g_lock);
  status->next = g_idle;
  g_idle = status;
  pthread_mutex_unlock(&g_lock);
}

void CUDART_CB cu_kernel_status_check(void *arg) {
  cu_kernel_status_t *status = arg;
  unsigned code = *status->word;
  if (code != 0)
    cu_stream_fail(status->stream, BP_ERR_PLUGIN,
                   "cuda: kernel %s on device %d returned %u", status->label,
                   status->stream->dev->id, code);
  cu_kernel_status_give_back(status);
}

void cu_kernel_status_reserve(void) {
  pthread_mutex_lock(&g_lock);
  bool none = g_pages == NULL;
  pthread_mutex_unlock(&g_lock);
  if (none)
    (void)add_page();
}

void cu_kernel_status_release(void) {
  pthread_mutex_lock(&g_lock);
  status_page_t *pages = g_pages;
  g_pages = NULL;
  g_idle = NULL;
  pthread_mutex_unlock(&g_lock);
  while (pages) {
    status_page_t *next = pages->next;
    cudaFreeHost(pages->words);
    free(pages);
    pages = next;
  }
}
