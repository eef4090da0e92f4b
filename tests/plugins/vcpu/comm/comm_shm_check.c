#include "comm_shm_check.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/hybrid.h"

#include "plugins/vcpu/comm/id.h"
#include "plugins/vcpu/comm/segment.h"

typedef bool (*segment_filter)(const char *entry, const void *argument);

static void world_prefix(const C_CCLRootId *id, char *prefix, size_t size) {
  const vcpu_comm_unique_id_t *u = id->data;
  snprintf(prefix, size, "bpvcpu-%016" PRIx64 "-", u->world_token);
}

static bool has_prefix(const char *entry, const void *prefix) {
  return strncmp(entry, prefix, strlen(prefix)) == 0;
}

/* Whether the segment's header names `*pid` as its creator. */
static bool created_by(const char *entry, const void *pid) {
  if (strncmp(entry, "bpvcpu-", 7) != 0)
    return false;
  char name[300];
  snprintf(name, sizeof name, "/%s", entry);
  int fd = shm_open(name, O_RDONLY, 0);
  if (fd < 0)
    return false;
  struct stat st;
  bool match = false;
  if (fstat(fd, &st) == 0 &&
      (size_t)st.st_size >= sizeof(vcpu_comm_world_header_t)) {
    void *base = mmap(NULL, sizeof(vcpu_comm_world_header_t), PROT_READ,
                      MAP_SHARED, fd, 0);
    if (base != MAP_FAILED) {
      match = ((const vcpu_comm_world_header_t *)base)->creator_pid ==
              *(pid_t *)pid;
      munmap(base, sizeof(vcpu_comm_world_header_t));
    }
  }
  close(fd);
  return match;
}

/* Removes (when `remove`) and counts the segments the filter selects,
 * naming them on stderr when removing or when `quiet` is false. */
static size_t sweep(segment_filter filter, const void *argument, bool remove,
                    bool quiet) {
  DIR *dir = opendir("/dev/shm");
  assert_non_null(dir);
  size_t found = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (!filter(entry->d_name, argument))
      continue;
    found++;
    if (!quiet || remove)
      fprintf(stderr, "/dev/shm/%s was left behind\n", entry->d_name);
    if (remove) {
      char name[300];
      snprintf(name, sizeof name, "/%s", entry->d_name);
      shm_unlink(name);
    }
  }
  closedir(dir);
  return found;
}

void comm_test_expect_no_segment(const C_CCLRootId *id) {
  char prefix[40];
  world_prefix(id, prefix, sizeof prefix);
  size_t left = sweep(has_prefix, prefix, false, false);
  if (left != 0)
    fail_msg("%zu segment(s) %s* left in /dev/shm", left, prefix);
}

size_t comm_test_count_segments(const C_CCLRootId *id) {
  char prefix[40];
  world_prefix(id, prefix, sizeof prefix);
  return sweep(has_prefix, prefix, false, true);
}

size_t comm_test_remove_segments(const C_CCLRootId *id) {
  char prefix[40];
  world_prefix(id, prefix, sizeof prefix);
  return sweep(has_prefix, prefix, true, false);
}

size_t comm_test_remove_segments_created_by(pid_t pid) {
  return sweep(created_by, &pid, true, false);
}

size_t comm_test_count_world_segments(const struct vcpu_comm_unique_id *id,
                                      size_t nranks) {
  vcpu_comm_unique_id_t copy = *id;
  C_CCLRootId root = {sizeof copy, &copy};
  size_t found = comm_test_count_segments(&root);
  for (size_t host = 0; host < nranks; host++) {
    vcpu_comm_hybrid_host_id(id, host, &copy);
    found += comm_test_count_segments(&root);
  }
  return found;
}

int comm_test_no_segment_left(void **state) {
  (void)state;
  return comm_test_remove_segments_created_by(getpid()) == 0 ? 0 : -1;
}
