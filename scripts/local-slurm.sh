#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the sweep tests: `scripts/local-slurm.sh start|stop|status`.
# start (as root): installs Debian's slurm-wlm + munge when missing, writes a cgroup-free slurm.conf (one node
# = this host, partition `debug`), starts munged, slurmctld and slurmd, and waits until the node is idle.
# Everything it writes lives in $BENCHLEDGER_SLURM_DIR (default /tmp/benchledger-slurm) plus /etc/slurm/slurm.conf
# and the packages; stop ends the three daemons it started (by their pid files). Every step is time-bounded.
set -euo pipefail
DIR="${BENCHLEDGER_SLURM_DIR:-/tmp/benchledger-slurm}"
CONF=/etc/slurm/slurm.conf

die() { echo "local-slurm: $*" >&2; exit 1; }

start() {
  [ "$(id -u)" = "0" ] || die "must run as root (it installs packages and starts daemons)"
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || die "slurm-wlm/munge missing and no apt-get to install them"
    echo "local-slurm: installing slurm-wlm + munge"
    timeout 600 apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq slurm-wlm munge >/dev/null
  fi
  if status >/dev/null 2>&1; then echo "local-slurm: already running"; return 0; fi
  mkdir -p "$DIR"/{spool,state,log} /etc/slurm /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  fi
  chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  chmod 0700 /etc/munge && chmod 0400 /etc/munge/munge.key
  local host cpus mem
  host="$(hostname -s)"
  cpus="$(nproc)"
  mem="$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"
  cat > "$CONF" <<EOF
# written by benchledger scripts/local-slurm.sh: a single-node test cluster (no cgroups, no accounting)
ClusterName=benchledger
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
KillWait=10
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  if ! pgrep -x munged >/dev/null; then
    timeout 30 runuser -u munge -- munged --force || timeout 30 munged --force
  fi
  timeout 30 slurmctld
  timeout 30 slurmd
  local deadline=$((SECONDS + 90))
  until sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; do
    if [ $SECONDS -gt $deadline ]; then
      tail -20 "$DIR"/log/*.log >&2 || true
      die "the node did not become idle within 90 s (logs above)"
    fi
    scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
    sleep 1
  done
  echo "local-slurm: up (partition debug, node $host, $cpus CPUs)"
}

stop() {
  for name in slurmd slurmctld; do
    local pidfile="$DIR/$name.pid" pid
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      local deadline=$((SECONDS + 30))
      while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
    fi
  done
  echo "local-slurm: stopped (munged is left running; its key is /etc/munge/munge.key)"
}

status() {
  command -v sinfo >/dev/null || { echo "not installed"; return 1; }
  timeout 10 sinfo -h -o "%P %T %N" 2>/dev/null | grep -q debug || { echo "not running"; return 1; }
  timeout 10 sinfo -h -o "%P %T %N"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
