#!/bin/sh
# Fault script for test_host_faults.c link_cut (run by mpirun_on_hosts.sh -f,
# with HOSTS_DIR and HOSTS_SH set): when rank 0 says so, takes the last host's
# link down; once every rank wrote failed.R, brings it up and says so. Gives
# up (leaving the link as it is; the hosts are removed anyway) after 90 s.
set -u
. "$(dirname "$0")/fault_steps.sh"
await fault
"$HOSTS_SH" link "$HOSTS_DIR" "$last" down
r=0
while [ "$r" -lt "$ranks" ]; do
  await "failed.$r"
  r=$((r + 1))
done
"$HOSTS_SH" link "$HOSTS_DIR" "$last" up
touch "$HOSTS_DIR/up"
