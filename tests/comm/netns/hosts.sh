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
#   hosts.sh netem DIR I ARGS..|off    tc netem on host I's link
#
# Names are unique per run (prefix from the pid and time), so parallel test
# runs never collide. Exits 77 (CTest's skip code) when namespaces cannot be
# made here (not root, no iproute2/unshare) and netem where the kernel lacks
# it.
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
netem)
  dir=$2 h=$(host_name "$2" "$3")
  shift 3
  if [ "$1" = off ]; then
    ip netns exec "$h" tc qdisc del dev eth0 root 2>/dev/null || true
  else
    ip netns exec "$h" tc qdisc replace dev eth0 root netem "$@" 2>"$dir/tc.err" ||
      skip "tc netem unavailable (kernel without sch_netem?): $(cat "$dir/tc.err")"
  fi
  ;;
*)
  echo "usage: $0 create DIR N | destroy DIR | enter HOST CMD.. | agent HOST CMD.. | link DIR I up|down | netem DIR I ARGS..|off" >&2
  exit 2
  ;;
esac
