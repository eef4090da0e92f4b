/* Checkpoint files of the trainer: DIR/checkpoint.bin holds a train_state_t
 * (train.h): a header (magic, version, step, generator state, seed, batch,
 * parameter count), the parameters and both AdamW moments as float32, and a
 * CRC-32 of everything before it. Written atomically: a temporary file in
 * DIR named after the writing process, fsync, rename over the old one, fsync
 * of DIR; so a crash at any moment leaves the previous checkpoint or the new
 * one, never a mix. One process writes (world rank 0, train_run.h): the
 * ranks hold the same state after every step.
 * Numbers are in the host's byte order (checkpoints move between runs on
 * one machine, not between architectures). */
#ifndef BACKPLANE_TRAIN_CHECKPOINT_H_
#define BACKPLANE_TRAIN_CHECKPOINT_H_

#include "train.h"

#define TRAIN_CHECKPOINT_FILE "checkpoint.bin"

/* Creates DIR if needed and writes `state`. Errors name the path and
 * errno's text. */
bp_status_t train_checkpoint_write(const char *dir, const train_state_t *state);

/* Reads DIR's checkpoint into *state, allocating its three arrays (release
 * with train_checkpoint_release). BP_ERR_NOT_FOUND when there is none; a
 * truncated file, a foreign one or a checksum mismatch is
 * BP_ERR_INVALID_ARGUMENT with a message saying which, and *state is left
 * untouched. */
bp_status_t train_checkpoint_read(const char *dir, train_state_t *state);
void train_checkpoint_release(train_state_t *state);

#endif /* BACKPLANE_TRAIN_CHECKPOINT_H_ */
