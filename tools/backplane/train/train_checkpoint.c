#include "train_checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "train_error.h"

static const char MAGIC[8] = "BPTRAIN";
enum { VERSION = 1, MAX_PARAMS = 1 << 24 };

typedef struct header {
  char magic[8];
  uint32_t version, header_size;
  uint64_t step, rng_state, seed, batch, param_count;
} header_t;

static bp_status_t io_error(const char *what, const char *path) {
  return train_fail(BP_ERR_INVALID_ARGUMENT, "checkpoint: %s %s: %s", what,
                    path, strerror(errno));
}

static int write_all(int fd, const void *data, size_t size, uLong *crc) {
  *crc = crc32(*crc, data, (uInt)size);
  const char *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

bp_status_t train_checkpoint_write(const char *dir,
                                   const train_state_t *state) {
  char path[PATH_MAX], tmp[PATH_MAX];
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return io_error("cannot create", dir);
  snprintf(path, sizeof path, "%s/%s", dir, TRAIN_CHECKPOINT_FILE);
  /* A name of this process's own: another writer's file is never ours. */
  snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, TRAIN_CHECKPOINT_FILE,
           (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_error("cannot create", tmp);
  header_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, MAGIC, sizeof h.magic);
  h.version = VERSION;
  h.header_size = sizeof h;
  h.step = state->step;
  h.rng_state = state->rng_state;
  h.seed = state->seed;
  h.batch = state->batch;
  h.param_count = state->param_count;
  size_t bytes = state->param_count * sizeof(float);
  uLong crc = crc32(0, Z_NULL, 0);
  int failed = write_all(fd, &h, sizeof h, &crc) ||
               write_all(fd, state->params, bytes, &crc) ||
               write_all(fd, state->exp_avg, bytes, &crc) ||
               write_all(fd, state->exp_avg_sq, bytes, &crc);
  uint32_t sum = (uint32_t)crc;
  uLong ignored = 0;
  failed = failed || write_all(fd, &sum, sizeof sum, &ignored) || fsync(fd);
  if (close(fd) != 0)
    failed = 1;
  if (failed) {
    bp_status_t status = io_error("cannot write", tmp);
    unlink(tmp);
    return status;
  }
  if (rename(tmp, path) != 0) {
    bp_status_t status = io_error("cannot rename into", path);
    unlink(tmp);
    return status;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || fsync(dfd) != 0) {
    bp_status_t status = io_error("cannot sync the directory", dir);
    if (dfd >= 0)
      close(dfd);
    return status;
  }
  close(dfd);
  return BP_OK;
}

static bp_status_t refuse(const char *path, const char *why) {
  return train_fail(BP_ERR_INVALID_ARGUMENT,
                    "checkpoint %s refused: %s; nothing was loaded (delete "
                    "it to start over)",
                    path, why);
}

bp_status_t train_checkpoint_read(const char *dir, train_state_t *state) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, TRAIN_CHECKPOINT_FILE);
  FILE *file = fopen(path, "rb");
  if (!file) {
    if (errno == ENOENT)
      return train_fail(BP_ERR_NOT_FOUND, "no checkpoint at %s", path);
    return io_error("cannot open", path);
  }
  header_t h;
  float *arrays[3] = {NULL, NULL, NULL};
  bp_status_t status = BP_OK;
  uLong crc = crc32(0, Z_NULL, 0);
  if (fread(&h, sizeof h, 1, file) != 1)
    status = refuse(path, "truncated: shorter than its header");
  else if (memcmp(h.magic, MAGIC, sizeof MAGIC) != 0)
    status = refuse(path, "not a backplane train checkpoint (bad magic)");
  else if (h.version != VERSION || h.header_size != sizeof h)
    status = refuse(path, "written by another version of the trainer");
  else if (h.param_count == 0 || h.param_count > MAX_PARAMS)
    status = refuse(path, "corrupt: impossible parameter count");
  size_t bytes = status ? 0 : (size_t)h.param_count * sizeof(float);
  crc = crc32(crc, (const Bytef *)&h, sizeof h);
  for (int k = 0; k < 3 && !status; k++) {
    arrays[k] = malloc(bytes);
    if (!arrays[k])
      status = train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
    else if (fread(arrays[k], 1, bytes, file) != bytes)
      status = refuse(path, "truncated: the arrays end early");
    else
      crc = crc32(crc, (const Bytef *)arrays[k], (uInt)bytes);
  }
  uint32_t sum;
  if (!status && fread(&sum, sizeof sum, 1, file) != 1)
    status = refuse(path, "truncated: no checksum");
  else if (!status && fgetc(file) != EOF)
    status = refuse(path, "corrupt: bytes after the checksum");
  else if (!status && sum != (uint32_t)crc)
    status = refuse(path, "corrupt: the CRC-32 does not match the contents");
  fclose(file);
  if (status) {
    for (int k = 0; k < 3; k++)
      free(arrays[k]);
    return status;
  }
  state->step = h.step;
  state->rng_state = h.rng_state;
  state->seed = h.seed;
  state->batch = h.batch;
  state->param_count = (size_t)h.param_count;
  state->params = arrays[0];
  state->exp_avg = arrays[1];
  state->exp_avg_sq = arrays[2];
  return BP_OK;
}

void train_checkpoint_release(train_state_t *state) {
  free(state->params);
  free(state->exp_avg);
  free(state->exp_avg_sq);
  state->params = state->exp_avg = state->exp_avg_sq = NULL;
}
