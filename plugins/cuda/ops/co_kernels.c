/* The kernels' names, in co_kernel_t's order. */
#include "co_kernels.h"

const char *const co_kernel_names[CO_K_COUNT] = {
    [CO_K_STRIDED] = "co_strided",
    [CO_K_RELU] = "co_relu",
    [CO_K_THRESHOLD_BACKWARD] = "co_threshold_backward",
    [CO_K_BIAS_FILL] = "co_bias_fill",
    [CO_K_CHANNEL_SUM] = "co_channel_sum",
    [CO_K_CROSS_ENTROPY] = "co_cross_entropy",
    [CO_K_LOSS_REDUCE] = "co_loss_reduce",
    [CO_K_CROSS_ENTROPY_BACKWARD] = "co_cross_entropy_backward",
    [CO_K_ARGMAX] = "co_argmax",
    [CO_K_ADAMW] = "co_adamw",
    [CO_K_IM2COL] = "co_im2col",
    [CO_K_COL2IM] = "co_col2im",
    [CO_K_MAX_POOL] = "co_max_pool",
    [CO_K_MAX_POOL_BACKWARD] = "co_max_pool_backward",
};
