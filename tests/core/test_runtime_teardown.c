/* bp_runtime_destroy takes back every free still pending on a peer
 * device's stream before any device goes: the event of such a free lives
 * on the peer, so it must complete (every device drained first) and go
 * home before either device is
 * torn down; otherwise vcpu reports a live event at deinit_device (as it
 * did for a Python tensor copied to vcpu:1 and alive at exit). Runs in
 * a child process so that the plugin's report can be read from its stderr.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

enum { BIG = 64 << 20 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;

/* Holds the peer stream until device 0's stream runs `release`, which
 * happens only while bp_runtime_destroy drains device 0. */
static void hold(void *unused) {
  (void)unused;
  pthread_mutex_lock(&mu);
  while (!released)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

static void release(void *unused) {
  (void)unused;
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}

/* A block of device 0 read on device 1's stream, freed, and the runtime
 * destroyed while that stream still has work (a held callback, then a
 * 64 MiB copy to device 1) ahead of the frees' events. */
static int child(void) {
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *dev0, *dev1;
  bp_stream_t *s0, *s1;
  void *block = NULL, *src = NULL, *dst = NULL;
  if (bp_device_get(runtime, "vcpu", 0, &dev0) != BP_OK ||
      bp_device_get(runtime, "vcpu", 1, &dev1) != BP_OK ||
      bp_stream_get_default(dev0, &s0) != BP_OK ||
      bp_stream_get_default(dev1, &s1) != BP_OK ||
      bp_device_malloc_async(dev0, 4096, s0, &block) != BP_OK ||
      bp_device_malloc_async(dev0, BIG, s0, &src) != BP_OK ||
      bp_device_malloc_async(dev1, BIG, s1, &dst) != BP_OK ||
      bp_stream_synchronize(s0) != BP_OK ||
      bp_stream_add_callback(s1, hold, NULL) != BP_OK ||
      bp_copy(dev1, dst, dev0, src, BIG, s1) != BP_OK ||
      bp_device_record_stream(dev0, block, s1) != BP_OK ||
      bp_device_record_stream(dev0, src, s1) != BP_OK ||
      bp_device_free_async(dev0, block, s0) != BP_OK ||
      bp_device_free_async(dev0, src, s0) != BP_OK ||
      bp_device_free_async(dev1, dst, s1) != BP_OK ||
      bp_stream_add_callback(s0, release, NULL) != BP_OK) {
    fprintf(stderr, "setup failed: %s\n", bp_last_error());
    return 3;
  }
  bp_runtime_destroy(runtime);
  return 0;
}

static void destroy_takes_back_frees_pending_on_a_peer_stream(void **state) {
  (void)state;
  char path[] = "/tmp/bp_teardown_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fd, STDERR_FILENO);
    _exit(child());
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  close(fd);
  char text[4096] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  unlink(path);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) != 0)
    fail_msg("the child failed: %s", text);
  if (strstr(text, "live event"))
    fail_msg("a peer's event outlived the teardown: %s", text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(destroy_takes_back_frees_pending_on_a_peer_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
