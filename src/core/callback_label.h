/* The label of the host callback a thread ran last (core/callbacks.c), so
 * that the plugin's trace event for it, reported on the same thread right
 * after, can carry the name the enqueuer gave it
 * (bp_stream_add_labeled_callback). NULL: the last one had no label. */
#ifndef BACKPLANE_CORE_CALLBACK_LABEL_H_
#define BACKPLANE_CORE_CALLBACK_LABEL_H_

const char *bp_callback_last_label(void);

#endif /* BACKPLANE_CORE_CALLBACK_LABEL_H_ */
