#include "train_data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "train.h"
#include "train_error.h"
#include "train_rng.h"

/* The split's own generator state: fixed, whatever the training seed. */
#define SPLIT_SEED 0x5eedd161u

void train_data_shuffle(uint64_t *rng, uint32_t *perm, size_t n) {
  for (size_t i = 0; i < n; i++)
    perm[i] = (uint32_t)i;
  for (size_t i = n; i > 1; i--) {
    uint32_t j = train_rng_below(rng, (uint32_t)i);
    uint32_t t = perm[i - 1];
    perm[i - 1] = perm[j];
    perm[j] = t;
  }
}

/* Parses one line of 65 integers into pixels (scaled) and label. */
static int parse_line(char *line, float *x, int64_t *y) {
  char *p = line;
  for (int k = 0; k <= TRAIN_INPUTS; k++) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v > 16)
      return -1;
    if (k < TRAIN_INPUTS)
      x[k] = (float)v / 16.0f;
    else if (v > 9)
      return -1;
    else
      *y = v;
    p = end;
    if (k < TRAIN_INPUTS && *p++ != ',')
      return -1;
  }
  return *p == '\n' || *p == '\r' || *p == '\0' ? 0 : -1;
}

bp_status_t train_data_load(const char *path, train_data_t *out) {
  gzFile file = gzopen(path, "rb");
  if (!file)
    return train_fail(BP_ERR_NOT_FOUND,
                      "the digits data set %s cannot be opened: %s (install "
                      "python3-sklearn, or give --data FILE)",
                      path, strerror(errno ? errno : ENOENT));
  float *x = malloc(sizeof(float) * TRAIN_INPUTS * TRAIN_DIGITS_SAMPLES);
  int64_t *y = malloc(sizeof(int64_t) * TRAIN_DIGITS_SAMPLES);
  bp_status_t status = BP_OK;
  size_t n = 0;
  char line[1024];
  if (!x || !y)
    status = train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  while (!status && gzgets(file, line, sizeof line)) {
    if (n == TRAIN_DIGITS_SAMPLES ||
        parse_line(line, x + n * TRAIN_INPUTS, y + n) != 0)
      status = train_fail(BP_ERR_INVALID_ARGUMENT,
                          "%s: line %zu is not 64 pixels (0..16) and a label "
                          "(0..9), or the file has more than %d lines",
                          path, n + 1, TRAIN_DIGITS_SAMPLES);
    n++;
  }
  int gz_error = 0;
  const char *gz_message = gzerror(file, &gz_error);
  if (!status && gz_error != Z_OK && gz_error != Z_STREAM_END)
    status = train_fail(BP_ERR_INVALID_ARGUMENT, "%s: %s", path, gz_message);
  if (!status && n != TRAIN_DIGITS_SAMPLES)
    status = train_fail(BP_ERR_INVALID_ARGUMENT,
                        "%s: %zu samples, expected %d (truncated?)", path, n,
                        TRAIN_DIGITS_SAMPLES);
  gzclose(file);
  uint32_t *perm = malloc(sizeof(uint32_t) * TRAIN_DIGITS_SAMPLES);
  memset(out, 0, sizeof *out);
  out->test_count = TRAIN_DIGITS_TEST;
  out->train_count = TRAIN_DIGITS_SAMPLES - TRAIN_DIGITS_TEST;
  out->train_x = malloc(sizeof(float) * TRAIN_INPUTS * out->train_count);
  out->test_x = malloc(sizeof(float) * TRAIN_INPUTS * out->test_count);
  out->train_y = malloc(sizeof(int64_t) * out->train_count);
  out->test_y = malloc(sizeof(int64_t) * out->test_count);
  if (!status &&
      (!perm || !out->train_x || !out->test_x || !out->train_y || !out->test_y))
    status = train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!status) {
    uint64_t rng = SPLIT_SEED;
    train_data_shuffle(&rng, perm, TRAIN_DIGITS_SAMPLES);
    for (size_t i = 0; i < TRAIN_DIGITS_SAMPLES; i++) {
      int test = i < TRAIN_DIGITS_TEST;
      size_t at = test ? i : i - TRAIN_DIGITS_TEST;
      memcpy((test ? out->test_x : out->train_x) + at * TRAIN_INPUTS,
             x + (size_t)perm[i] * TRAIN_INPUTS, sizeof(float) * TRAIN_INPUTS);
      (test ? out->test_y : out->train_y)[at] = y[perm[i]];
    }
  }
  free(perm);
  free(x);
  free(y);
  if (status)
    train_data_release(out);
  return status;
}

void train_data_release(train_data_t *data) {
  free(data->train_x);
  free(data->test_x);
  free(data->train_y);
  free(data->test_y);
  memset(data, 0, sizeof *data);
}
