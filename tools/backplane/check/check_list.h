/* The conformance checks `backplane check` runs against each plugin, in
 * order. BP_CHECK(name, summary): one line per check, implemented as
 * `void check_<name>(check_ctx_t *ctx)` in the check_*.c file of its family;
 * a check reports one or more lines through check_report.h. `asynchrony`
 * must come before the checks that gate streams: it sets ctx->streams.
 * No include guard: included once per expansion. */
BP_CHECK(abi, "interface layout, ABI version, required functions")
BP_CHECK(devices, "device enumeration, handles and DLPack round trip")
BP_CHECK(attributes, "every attribute answers a value or unsupported")
BP_CHECK(asynchrony, "whether streams run work asynchronously")
BP_CHECK(copies, "h2d, d2h, d2d, p2p; sync and on a stream; all sizes")
BP_CHECK(memset, "memset, sync and on a stream, within bounds")
BP_CHECK(stream_order, "dependent work on one stream lands in order")
BP_CHECK(events, "event completion, query and timing")
BP_CHECK(callbacks, "host callbacks run in order, exactly once")
BP_CHECK(cross_stream, "waits between streams and devices hold work back")
BP_CHECK(many_streams, "16 streams of mixed work at once")
BP_CHECK(stress, "several threads allocating, copying and synchronizing")
BP_CHECK(active_device, "set_device/get_device honoured, per thread")
BP_CHECK(staged_copies, "pageable host buffers free when bp_copy returns")
BP_CHECK(tensor_copies, "DLTensor copies: offsets, pitched, transposed")
BP_CHECK(out_of_memory, "allocation beyond capacity fails, then recovers")
BP_CHECK(kernels, "kernel modules, launch order, blocks, args, errors, "
                  "timeout, notifies")
BP_CHECK(comm_init, "collectives: unique ids, a communicator per device")
BP_CHECK(comm_all_reduce, "all_reduce sum, in and out of place, vs host")
BP_CHECK(comm_broadcast, "broadcast from the last rank, vs host")
BP_CHECK(comm_all_gather, "all_gather, vs host")
BP_CHECK(comm_reduce_scatter, "reduce_scatter sum, vs host")
BP_CHECK(comm_send_recv, "send/recv around a ring inside a group, vs host")
