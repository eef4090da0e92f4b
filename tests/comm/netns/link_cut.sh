#!/bin/sh
# Fault script for test_link_cut.c (run by mpirun_on_hosts.sh -f, with
# HOSTS_DIR and HOSTS_SH set): when rank 0 says so, takes the last host's link
# down; once every rank wrote failed.R, brings it up and says so. Gives up
# (leaving the link as it is; the hosts are removed anyway) after 90 s.
set -u
ranks=$(awk -F"slots=" '{ s += $2 } END { print s }' "$HOSTS_DIR/hostfile")
last=$(($(wc -l <"$HOSTS_DIR/hostfile") - 1))
await() {
  i=0
  while [ ! -e "$HOSTS_DIR/$1" ]; do
    i=$((i + 1))
    [ "$i" -lt 9000 ] || exit 1
    sleep 0.01
  done
}
await cut
"$HOSTS_SH" link "$HOSTS_DIR" "$last" down
r=0
while [ "$r" -lt "$ranks" ]; do
  await "failed.$r"
  r=$((r + 1))
done
"$HOSTS_SH" link "$HOSTS_DIR" "$last" up
touch "$HOSTS_DIR/up"
