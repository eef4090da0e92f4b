/* The handwritten-digits data set (1797 8x8 images, pixels 0..16, classes
 * 0..9) as Debian's python3-sklearn ships it: a gzip'd CSV, one image per
 * line, 64 pixels then the label. Loaded with zlib, pixels scaled to [0, 1],
 * split once into fixed train and test sets (the split does not depend on
 * the training seed). */
#ifndef BACKPLANE_TRAIN_DATA_H_
#define BACKPLANE_TRAIN_DATA_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/backplane.h"

enum { TRAIN_DIGITS_SAMPLES = 1797, TRAIN_DIGITS_TEST = 360 };

typedef struct train_data {
  size_t train_count, test_count;
  float *train_x, *test_x;   /* [count][64] */
  int64_t *train_y, *test_y; /* [count] */
} train_data_t;

/* Reads and splits the file. BP_ERR_NOT_FOUND if it cannot be opened,
 * BP_ERR_INVALID_ARGUMENT (naming the line) if it is not the data set;
 * the message is in train_last_error(). */
bp_status_t train_data_load(const char *path, train_data_t *out);
void train_data_release(train_data_t *data);

/* perm[0..n) = a permutation of 0..n-1 drawn from *rng (Fisher-Yates). */
void train_data_shuffle(uint64_t *rng, uint32_t *perm, size_t n);

#endif /* BACKPLANE_TRAIN_DATA_H_ */
