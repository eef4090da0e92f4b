/* A lossy link for the multi-host tests where the kernel has no tc netem:
 * an XDP program, attached to each end of a host's veth by hosts.sh
 * (`impair`), that drops each received packet with probability
 * DROP_PER_MILLE / 1000 (set at compile time by hosts.sh). Built with
 * `clang -target bpf`; it declares the one kernel helper it calls by number
 * so it needs no libbpf headers. */
#include <linux/bpf.h>

#ifndef DROP_PER_MILLE
#error "hosts.sh sets DROP_PER_MILLE"
#endif

static unsigned int (*random_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

__attribute__((section("xdp"), used)) int drop_at_random(struct xdp_md *ctx) {
  (void)ctx;
  return random_u32() % 1000 < DROP_PER_MILLE ? XDP_DROP : XDP_PASS;
}

char program_license[] __attribute__((section("license"), used)) = "GPL";
