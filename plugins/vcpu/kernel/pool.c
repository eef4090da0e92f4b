/* The per-device pools that run kernel blocks: as many threads as the
 * machine has CPUs, started on a device's first launch. Idle threads spin
 * briefly on the queue, then sleep on a condition variable. Shutdown joins
 * every thread; once a launch was abandoned (its thread may never return)
 * the plugin is pinned in memory and shutdown detaches them instead. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/park.h"
#include "device.h"
#include "kernels.h"

typedef struct vk_pool {
  pthread_mutex_t lock;
  pthread_cond_t work;
  vk_launch *head, *tail;  /* launches with blocks left to start */
  _Atomic unsigned queued; /* launches in the queue, for spinning idlers */
  unsigned idle;
  pthread_t *threads; /* every thread started, under lock */
  size_t thread_count, thread_capacity;
  struct vk_pool *next_kept; /* g_kept */
  bool stop;
  int device_id;
} vk_pool;

enum { MAX_POOLS = 4096 };
static pthread_mutex_t g_pools_lock = PTHREAD_MUTEX_INITIALIZER;
static vk_pool *_Atomic g_pools[MAX_POOLS];
/* Pools stopped while the plugin was pinned: their detached threads (some in
 * abandoned kernels) still use them, so they are kept for the process's
 * life. Under g_pools_lock. */
static vk_pool *g_kept;

_Thread_local vk_context *vk_current;

uint64_t vk_thread_id(void) {
  static _Thread_local uint64_t id;
  if (!id)
    id = (uint64_t)gettid();
  return id;
}

void vk_run_block(vk_launch *launch, uint32_t block) {
  vk_context context = {.block = block,
                        .blocks = launch->blocks,
                        .device_id = launch->device_id,
                        .thread = vk_thread_id()};
  vk_current = &context;
  unsigned code = launch->function->fn(launch->args);
  vk_batch_abandon();
  vk_current = NULL;
  if (code != 0) {
    uint32_t none = 0;
    if (atomic_compare_exchange_strong(&launch->first_code, &none, code))
      atomic_store(&launch->failed_block, block);
  }
  if (atomic_fetch_add_explicit(&launch->done, 1, memory_order_acq_rel) + 1 ==
      launch->blocks)
    vcpu_comm_signal_progress(&launch->signal);
  vk_launch_release(launch);
}

/* Takes the next block to run, or returns NULL when stopping. */
static vk_launch *take_block(vk_pool *pool, uint32_t *out_block) {
  vcpu_spin spin = vcpu_spin_start();
  while (!atomic_load_explicit(&pool->queued, memory_order_acquire) &&
         vcpu_spin_again(&spin))
    ;
  pthread_mutex_lock(&pool->lock);
  while (!pool->head && !pool->stop) {
    pool->idle++;
    pthread_cond_wait(&pool->work, &pool->lock);
    pool->idle--;
  }
  vk_launch *launch = pool->head;
  if (launch) {
    *out_block = launch->next_block++;
    if (launch->next_block == launch->blocks) {
      pool->head = launch->next_queued;
      if (!pool->head)
        pool->tail = NULL;
      atomic_fetch_sub_explicit(&pool->queued, 1, memory_order_relaxed);
    }
  }
  pthread_mutex_unlock(&pool->lock);
  return launch;
}

static void *pool_thread(void *arg) {
  vk_pool *pool = arg;
  uint32_t block = 0;
  vk_launch *launch;
  while ((launch = take_block(pool, &block)) != NULL)
    vk_run_block(launch, block);
  return NULL;
}

static void start_threads(vk_pool *pool, unsigned count) {
  pthread_mutex_lock(&pool->lock);
  for (unsigned i = 0; i < count; ++i) {
    if (pool->thread_count == pool->thread_capacity) {
      size_t capacity = pool->thread_capacity ? 2 * pool->thread_capacity : 8;
      pthread_t *grown = realloc(pool->threads, capacity * sizeof *grown);
      if (!grown)
        break;
      pool->threads = grown;
      pool->thread_capacity = capacity;
    }
    if (pthread_create(&pool->threads[pool->thread_count], NULL, pool_thread,
                       pool) != 0)
      break;
    pool->thread_count++;
  }
  pthread_mutex_unlock(&pool->lock);
}

static vk_pool *pool_of(int device_id) {
  vk_pool *pool =
      atomic_load_explicit(&g_pools[device_id], memory_order_acquire);
  if (pool)
    return pool;
  pthread_mutex_lock(&g_pools_lock);
  pool = atomic_load(&g_pools[device_id]);
  if (!pool && (pool = calloc(1, sizeof *pool)) != NULL) {
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work, NULL);
    pool->device_id = device_id;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    start_threads(pool, cpus > 0 ? (unsigned)cpus : 1u);
    atomic_store_explicit(&g_pools[device_id], pool, memory_order_release);
  }
  pthread_mutex_unlock(&g_pools_lock);
  return pool;
}

void vk_pool_submit(vk_launch *launch, uint32_t first_block) {
  if (first_block >= launch->blocks)
    return;
  vk_pool *pool = pool_of(launch->device_id);
  if (!pool) { /* out of memory: run here rather than lose the launch */
    for (uint32_t b = first_block; b < launch->blocks; ++b)
      vk_run_block(launch, b);
    return;
  }
  launch->next_block = first_block;
  launch->next_queued = NULL;
  pthread_mutex_lock(&pool->lock);
  if (pool->tail)
    pool->tail->next_queued = launch;
  else
    pool->head = launch;
  pool->tail = launch;
  atomic_fetch_add_explicit(&pool->queued, 1, memory_order_release);
  if (pool->idle)
    launch->blocks - first_block > 1 ? pthread_cond_broadcast(&pool->work)
                                     : pthread_cond_signal(&pool->work);
  pthread_mutex_unlock(&pool->lock);
}

static atomic_bool g_pinned;

void vk_pin_plugin(void) {
  if (atomic_exchange(&g_pinned, true))
    return;
  Dl_info info;
  if (dladdr((void *)vk_pin_plugin, &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

void vk_pool_grow(int device_id, unsigned count) {
  vk_pin_plugin();
  vk_pool *pool = pool_of(device_id);
  if (pool)
    start_threads(pool, count);
}

void vk_pools_shutdown(void) {
  bool pinned = atomic_load(&g_pinned);
  for (int id = 0; id < MAX_POOLS; ++id) {
    vk_pool *pool = atomic_exchange(&g_pools[id], NULL);
    if (!pool)
      continue;
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    /* Every stream was drained: only abandoned blocks can still run, and
     * only when the plugin is pinned. */
    for (size_t i = 0; i < pool->thread_count; ++i)
      pinned ? pthread_detach(pool->threads[i])
             : pthread_join(pool->threads[i], NULL);
    if (pinned) {
      pthread_mutex_lock(&g_pools_lock);
      pool->next_kept = g_kept;
      g_kept = pool;
      pthread_mutex_unlock(&g_pools_lock);
      continue;
    }
    free(pool->threads);
    pthread_cond_destroy(&pool->work);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
  }
}
