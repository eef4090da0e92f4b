/* Drawing a Chrome trace-event file as an SVG timeline: one row per track
 * (the host's threads, then each device's streams, named as in the trace),
 * one box per complete event with its name (and size, for copies) as label
 * and every arg in its tooltip, counters as step lines with their last
 * value, flow arrows from start to finish, a time axis in ms since the
 * trace's first event (its first tick at the window's start), and a legend
 * of the slice names (colour, time in the window). Above 4 slices per pixel
 * of width in the window, a slice narrower than a pixel that starts within
 * a pixel of the last one drawn at its depth of its row is not drawn (nor
 * a second arrow between the same rows within 4 pixels), so the size is
 * bounded by the picture's width, however long the run. */
#ifndef BACKPLANE_CLI_TRACE_SVG_H_
#define BACKPLANE_CLI_TRACE_SVG_H_

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the picture of `root` (a {"traceEvents": [...]} object) to `out`.
 * Returns 0, or -1 with a reason in `error` when `root` has no events or
 * the write fails. */
int trace_svg_write(json_t *root, FILE *out, char *error, size_t error_size);

/* trace_svg_write over a window of the trace only: from `from_ms` to `to_ms`
 * after its first event. Slices crossing an edge are clipped to it; slices,
 * counter samples and flows wholly outside are left out. Fails like
 * trace_svg_write, and also when the window is empty or holds no slice. */
int trace_svg_write_window(json_t *root, FILE *out, double from_ms,
                           double to_ms, char *error, size_t error_size);

#endif /* BACKPLANE_CLI_TRACE_SVG_H_ */
