#!/bin/sh
# Makes N "hosts" on this machine for multi-host tests: each host is a network
# namespace with its own address in a private subnet (10.77.0.0/24, which
# exists only inside these namespaces) and its own hostname, joined by a veth
# pair to a bridge that lives in a further "switch" namespace. Nothing is added
# to the machine's own network namespace and nothing can reach outside.
#
#   hosts.sh create DIR N      make hosts <prefix>h0..h<N-1>; DIR gets the
#                              hostfile ("<name> slots=K" lines written by
#                              the caller), names and the prefix
#   hosts.sh destroy DIR       kill what runs in them and remove everything,
#                              Open MPI's shared-memory files of their ranks
#                              included (a killed rank leaves its own)
#   hosts.sh enter HOST CMD..  run CMD on HOST (its namespace and hostname)
#   hosts.sh agent HOST CMD..  Open MPI's rsh agent (plm_rsh_agent): like ssh,
#                              runs the words of CMD as one shell command
#   hosts.sh link DIR I up|down        the link of host I
#   hosts.sh impair DIR I PER_MILLE RATE   host I's link drops PER_MILLE of
#                              every 1000 packets at random and sends at most
#                              RATE ("200mbit"): tc netem (with a 1 ms delay)
#                              where the kernel has it, else an XDP program
#                              on both ends (xdp_drop.c) and tc tbf
#   hosts.sh retransmitted DIR I   TCP segments host I sent again (its
#                              namespace's TcpRetransSegs): what loss costs
#
# Names are unique per run (prefix from the pid and time), so parallel test
# runs never collide. Exits 77 (CTest's skip code) when namespaces cannot be
# made here (not root, no iproute2/unshare), and impair where the kernel
# has no netem and clang cannot build the XDP program or ip cannot attach it.
set -eu
SUBNET=10.77.0

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

create() {
  dir=$1 n=$2
  [ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
  command -v ip >/dev/null || skip "no ip (iproute2)"
  command -v unshare >/dev/null || skip "no unshare (util-linux)"
  prefix="bp$(($$ % 100000))x$(date +%s%N | tail -c 6)"
  mkdir -p "$dir"
  echo "$prefix" >"$dir/prefix"
  : >"$dir/names"
  sw="${prefix}sw"
  ip netns add "$sw" 2>"$dir/netns.err" ||
    skip "cannot make network namespaces: $(cat "$dir/netns.err")"
  echo "$sw" >>"$dir/names"
  ip -n "$sw" link add br0 type bridge
  ip -n "$sw" link set br0 up
  i=0
  while [ "$i" -lt "$n" ]; do
    h="${prefix}h$i"
    ip netns add "$h"
    echo "$h" >>"$dir/names"
    ip -n "$sw" link add "p$i" type veth peer name eth0 netns "$h"
    ip -n "$sw" link set "p$i" master br0 up
    ip -n "$h" addr add "$SUBNET.$((i + 1))/24" dev eth0
    ip -n "$h" link set eth0 up
    ip -n "$h" link set lo up
    i=$((i + 1))
  done
}

destroy() {
  dir=$1
  [ -f "$dir/names" ] || return 0
  # Everything still running on the hosts was started by this run.
  for ns in $(cat "$dir/names"); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -KILL "$pid" 2>/dev/null || true
    done
  done
  for ns in $(cat "$dir/names"); do
    ip netns del "$ns" 2>/dev/null || true
  done
  # vader names its segments after the host name, which starts with the
  # run's prefix.
  rm -f /dev/shm/vader_segment."$(cat "$dir/prefix")"*
  rm -f "$dir/names"
}

host_name() { echo "$(cat "$1/prefix")h$2"; }

impair() {
  dir=$1 i=$2 per_mille=$3 rate=$4
  h=$(host_name "$dir" "$i") sw="$(cat "$dir/prefix")sw"
  loss="$((per_mille / 10)).$((per_mille % 10))%"
  ip netns exec "$h" tc qdisc replace dev eth0 root netem delay 1ms \
    loss "$loss" rate "$rate" 2>/dev/null && return 0
  obj="$dir/xdp_drop_$per_mille.o"
  if [ ! -f "$obj" ]; then
    command -v clang >/dev/null || skip "no clang to build the XDP program"
    here=$(cd "$(dirname "$0")" && pwd)
    clang -O2 -target bpf -I"/usr/include/$(gcc -print-multiarch 2>/dev/null)" \
      -DDROP_PER_MILLE="$per_mille" -c "$here/xdp_drop.c" -o "$obj" \
      2>"$dir/clang.err" || skip "cannot build xdp_drop.c: $(cat "$dir/clang.err")"
  fi
  ip -n "$h" link set dev eth0 xdp obj "$obj" sec xdp 2>"$dir/xdp.err" ||
    skip "cannot attach an XDP program: $(cat "$dir/xdp.err")"
  ip -n "$sw" link set dev "p$i" xdp obj "$obj" sec xdp
  ip netns exec "$h" tc qdisc replace dev eth0 root tbf rate "$rate" \
    burst 64kb latency 100ms
}

# (A veth counts the packets its XDP program drops as received, so the loss
# shows in TCP's retransmissions rather than in the links' counters.)
retransmitted() {
  ip netns exec "$(host_name "$1" "$2")" awk \
    '$1 == "Tcp:" { if (!n) for (c = 2; c <= NF; c++) col[$c] = c; n++ }
     $1 == "Tcp:" && n == 2 { print $col["RetransSegs"] }' /proc/net/snmp
}

case "${1:-}" in
create) create "$2" "$3" ;;
destroy) destroy "$2" ;;
enter)
  h=$2
  shift 2
  exec ip netns exec "$h" unshare --uts sh -c 'hostname "$0" && exec "$@"' \
    "$h" "$@"
  ;;
agent)
  # Open MPI calls the agent as it would call ssh: host, then command words
  # meant for a remote shell.
  h=$2
  shift 2
  exec ip netns exec "$h" unshare --uts sh -c 'hostname "$0" && eval "$1"' \
    "$h" "$*"
  ;;
link) ip -n "$(host_name "$2" "$3")" link set eth0 "$4" ;;
impair) impair "$2" "$3" "$4" "$5" ;;
retransmitted) retransmitted "$2" "$3" ;;
*)
  echo "usage: $0 create DIR N | destroy DIR | enter HOST CMD.. | agent HOST CMD.. | link DIR I up|down | impair DIR I PER_MILLE RATE | retransmitted DIR I" >&2
  exit 2
  ;;
esac
