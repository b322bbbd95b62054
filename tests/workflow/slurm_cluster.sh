#!/usr/bin/env bash
# A single-node SLURM cluster with accounting, for the tests of workflow/profiles/slurm
# (tests/workflow/test_slurm.py) and for trying the profile by hand. Debian 12, as root;
# needs no systemd and no cgroups. Everything it writes is in DIR, but one link:
# /etc/slurm/slurm.conf -> DIR/slurm.conf, because inside a job the slurm-jobstep plugin
# runs srun with the SLURM_* variables removed, SLURM_CONF included, so srun reads the
# default path (start refuses to replace a real file there; stop removes the link).
#
#   slurm_cluster.sh install     install the Debian packages that are missing
#   slurm_cluster.sh start DIR   configure a cluster in DIR (a new or empty folder) and start it
#   slurm_cluster.sh stop DIR    cancel its jobs, stop its daemons by pid, wait for them to exit
#
# start prints the line to use the cluster from a shell: export SLURM_CONF=DIR/slurm.conf.
# Daemons (each started by this script, its pid in DIR/pid/): munged (a key and socket of
# its own in DIR/munge), mariadbd (data in DIR/mysql, 127.0.0.1:$DB_PORT), slurmdbd
# (:6819), slurmctld (:6817), slurmd (:6818), logs in DIR/log. Accounting (slurmdbd on
# MariaDB) gives sacct, which snakemake-executor-plugin-slurm polls by default. The
# cluster $CLUSTER has one node (this machine: its CPUs and memory as slurmd -C reports
# them), one default partition $PARTITION and one account $ACCOUNT that root belongs to.
# A failed start stops what it had started. stop is safe to repeat and kills only
# processes whose pid is in DIR/pid and whose program is the daemon's own.
set -euo pipefail

CLUSTER=reeval
PARTITION=main
ACCOUNT=reeval
DB_PORT=6820
PORTS=(6817 6818 6819 "$DB_PORT")
PACKAGES=(munge slurm-client slurmctld slurmd slurmdbd mariadb-server)
# daemon -> its program: stop kills a pid only if /proc/PID/exe is that program
declare -A PROGRAM=([slurmd]=/usr/sbin/slurmd [slurmctld]=/usr/sbin/slurmctld
    [slurmdbd]=/usr/sbin/slurmdbd [mariadbd]=/usr/sbin/mariadbd [munged]=/usr/sbin/munged)
STOP_ORDER=(slurmd slurmctld slurmdbd mariadbd munged)

say() { echo "slurm_cluster: $*" >&2; }
die() { say "error: $*"; exit 1; }

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every second until it succeeds
wait_for() {
    local seconds=$1 what=$2
    shift 2
    for ((i = 0; i < seconds; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 1
    done
    die "$what did not come up within ${seconds}s (logs in $DIR/log)"
}

install_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "not root: cannot install ${missing[*]}"
    command -v apt-get >/dev/null || die "no apt-get: install ${missing[*]} by hand"
    say "installing ${missing[*]}"
    # keep the packages' own services from starting (policy-rc.d exit 101: "not now")
    local policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_config() {
    local host node
    host=$(hostname -s)
    # this machine as slurmd sees it: NodeName=HOST CPUs=.. Boards=.. ... RealMemory=..
    node=$(slurmd -C | head -1)
    mkdir -p "$DIR"/{pid,log,spool/ctld,spool/d,munge}
    cat >"$DIR/slurm.conf" <<EOF
# written by tests/workflow/slurm_cluster.sh
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/spool/ctld
SlurmdSpoolDir=$DIR/spool/d
SlurmctldPidFile=$DIR/pid/slurmctld.pid
SlurmdPidFile=$DIR/pid/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
# no cgroups here: processes tracked through /proc, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=6819
AccountingStoragePass=$DIR/munge/munge.socket
# keep sbatch --comment (the executor plugin's rule_<rule>_wildcards_<values>) for sacct
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    # slurmdbd reads slurmdbd.conf beside slurm.conf; it holds a password: mode 600
    install -m 600 /dev/null "$DIR/slurmdbd.conf"
    cat >"$DIR/slurmdbd.conf" <<EOF
# written by tests/workflow/slurm_cluster.sh
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
DbdHost=localhost
DbdPort=6819
SlurmUser=root
PidFile=$DIR/pid/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
}

ETC_CONF=/etc/slurm/slurm.conf

# /etc/slurm/slurm.conf -> DIR/slurm.conf; a link left by a cluster whose folder is gone
# is replaced, anything else there is refused
link_config() {
    if [ -e "$ETC_CONF" ] || [ -L "$ETC_CONF" ]; then
        [ -L "$ETC_CONF" ] && [ ! -e "$ETC_CONF" ] \
            || die "$ETC_CONF exists (a real cluster's, or a running test cluster's: $(readlink "$ETC_CONF"))"
    fi
    mkdir -p "$(dirname "$ETC_CONF")"
    ln -sfn "$DIR/slurm.conf" "$ETC_CONF"
}

unlink_config() {
    [ "$(readlink "$ETC_CONF" 2>/dev/null)" = "$DIR/slurm.conf" ] && rm -f "$ETC_CONF"
    return 0
}

start_munge() {
    mungekey --create --keyfile="$DIR/munge/munge.key"
    munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
        --pid-file="$DIR/pid/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munged.seed"
    wait_for 30 munged munge --socket="$DIR/munge/munge.socket" --no-input
}

start_mariadb() {
    mariadb-install-db --no-defaults --user=root --datadir="$DIR/mysql" --skip-test-db \
        --auth-root-authentication-method=socket >"$DIR/log/mariadb-install.log" 2>&1 \
        || die "mariadb-install-db failed (see $DIR/log/mariadb-install.log)"
    # mariadbd stays in the foreground: run it in a session of its own (setsid execs it, as
    # a background job of this script is no process group leader: $! is mariadbd's pid)
    setsid mariadbd --no-defaults --user=root --datadir="$DIR/mysql" --socket="$DIR/mysql.sock" \
        --port="$DB_PORT" --bind-address=127.0.0.1 --pid-file="$DIR/mysql/mariadbd.pid" \
        --log-error="$DIR/log/mariadb.log" --innodb-lock-wait-timeout=900 </dev/null >/dev/null 2>&1 &
    echo $! >"$DIR/pid/mariadbd.pid"
    wait_for 60 mariadbd mariadb --no-defaults --socket="$DIR/mysql.sock" -e "SELECT 1"
    mariadb --no-defaults --socket="$DIR/mysql.sock" -e "
        CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

start_slurm() {
    slurmdbd
    wait_for 60 slurmdbd sacctmgr -n list cluster
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
    sacctmgr -i add account "$ACCOUNT" cluster="$CLUSTER" description=tests organization=reeval >/dev/null
    sacctmgr -i add user root account="$ACCOUNT" cluster="$CLUSTER" >/dev/null
    slurmctld
    wait_for 60 slurmctld scontrol ping
    slurmd
    wait_for 60 "the node (sinfo: idle)" node_idle
}

node_idle() { [ "$(sinfo -h -N -o %T)" = idle ]; }

start() {
    [ "$(id -u)" -eq 0 ] || die "not root"
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || die "package $p is missing: run $0 install"
    done
    local other
    other=$(dirname "$(readlink "$ETC_CONF" 2>/dev/null || echo ITS_DIR/x)")
    for port in "${PORTS[@]}"; do
        port_in_use "$port" && die "port $port is in use (another test cluster? $0 stop $other)"
    done
    mkdir -p "$DIR"
    [ -z "$(ls -A "$DIR")" ] || die "$DIR is not empty"
    DIR=$(cd "$DIR" && pwd)
    export SLURM_CONF=$DIR/slurm.conf
    # a failed or interrupted start stops whatever it had started
    trap 'status=$?; [ $status -eq 0 ] || stop; exit $status' EXIT
    trap 'exit 130' INT TERM
    write_config
    link_config
    start_munge
    start_mariadb
    start_slurm
    say "cluster $CLUSTER is up: partition $PARTITION, account $ACCOUNT"
    echo "export SLURM_CONF=$SLURM_CONF"
}

# pid of a daemon from its pid file, if that process still runs the daemon's program
# (Debian's /usr/sbin/slurmd is a link to slurmd-wlm: compare the resolved paths)
daemon_pid() {
    local file=$DIR/pid/$1.pid pid
    [ -s "$file" ] || return 1
    pid=$(cat "$file")
    [ -e "/proc/$pid" ] || return 1
    if [ "$(readlink -f "/proc/$pid/exe")" != "$(readlink -f "${PROGRAM[$1]}")" ]; then
        say "pid $pid of $file runs $(readlink -f "/proc/$pid/exe"), not $1: left alone"
        return 1
    fi
    echo "$pid"
}

cancel_jobs() {
    local jobs
    jobs=$(squeue -h -o %i 2>/dev/null) || return 0
    [ -z "$jobs" ] && return 0
    say "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    scancel $jobs || true
    for ((i = 0; i < 60; i++)); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
        sleep 1
    done
    say "jobs still listed after 60s: $(squeue -h 2>&1)"
}

# gone PID SECONDS: wait up to SECONDS for process PID to exit
gone() {
    for ((i = 0; i < $2; i++)); do
        [ -e "/proc/$1" ] || return 0
        sleep 1
    done
    [ ! -e "/proc/$1" ]
}

stop() {
    [ -d "$DIR/pid" ] || return 0
    DIR=$(cd "$DIR" && pwd)
    export SLURM_CONF=$DIR/slurm.conf
    daemon_pid slurmctld >/dev/null && cancel_jobs
    local left=()
    for daemon in "${STOP_ORDER[@]}"; do
        local pid
        pid=$(daemon_pid "$daemon") || continue
        kill -TERM "$pid" 2>/dev/null || true
        if ! gone "$pid" 60; then
            say "$daemon ($pid) still runs 60s after SIGTERM: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            gone "$pid" 10 || left+=("$daemon($pid)")
        fi
        rm -f "$DIR/pid/$daemon.pid"
    done
    unlink_config
    [ ${#left[@]} -eq 0 ] || die "still running: ${left[*]}"
    say "stopped"
}

case "${1:-}" in
    install) install_packages ;;
    start | stop)
        [ $# -eq 2 ] || die "usage: $0 $1 DIR"
        DIR=$2
        "$1" ;;
    *) die "usage: $0 install | start DIR | stop DIR" ;;
esac
