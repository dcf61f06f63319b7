#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the schedreplay NUMA recording guest (busybox sh).  Built into the
# initramfs by record.sh; see README.md.  As /init (no arguments) it:
#   mounts proc, sysfs, devtmpfs, tracefs, debugfs; loads the virtio modules;
#   saves the topology facts; with trace-cmd, defines the two schedreplay
#   kprobe events (schedreplay record adds them itself); runs the recorder
#   ("trace-cmd record" or "schedreplay record") around ONE load
#   ("$0 --load NAME"); writes a tar of /out onto the raw virtio disk
#   /dev/vda; powers off.
# Settings come from /etc/sr.conf (a second cpio archive made by record.sh):
#   SR_RECORDER  trace-cmd (default) | schedreplay
#   SR_LOAD      messaging | forks | pingpong | mix | busyloops | pinnedhogs |
#                forkpin | pphogs | spread | rtapp | nohzspread | ppbail |
#                exitsync | equalwake | kthreadpin
#   SR_HOGS, SR_PINCPU, SR_CHILDCPUS, SR_ALLCPUS, SR_PPCPUS, SR_HOGCPUS,
#   SR_STARTCPU, SR_GROUPS, SR_FDS, SR_ROUNDS, SR_PINGCPU, SR_PONGCPU,
#   SR_BURST, SR_GAPMS, SR_PARENTCPUS: the loads' variables (record.sh --set)
#   SR_PIDOFF    offset of task_struct->pid in bytes (empty: no pid field)
#   SR_FLIPSOFF  offset of task_struct->wakee_flips (empty: no flips field)
#   SR_PELTOFF   "load=OFF util=OFF runnable=OFF": task_struct->se.avg.*_avg
#   SR_PREVOFF   "C B A": prevload=+C(+B(+A(%di))), p->se.cfs_rq->rq->cfs.avg.load_avg
#   SR_BALPROBES 1: also the balance probes (schedreplay record
#                --balance-probes, or defined below for trace-cmd)
#   SR_BALOFF    "cpu=OFF avg_idle=OFF sd=OFF max_newidle_lb_cost=OFF level=OFF"
#                (struct rq and sched_domain members, for trace-cmd's probes)
#   SR_INPROBES  1: also the input probes (record.sh --input-probes:
#                schedreplay record --input-probes, or defined below for
#                trace-cmd from SR_INOFF)
#   SR_INOFF     the input probes' offsets for trace-cmd (empty: none),
#                "rq_load_avg=OFF ... cfs_rq=OFF rq_cpu=OFF"
#   SR_LBPROBES  1: also the load-balance probes (record.sh --lb-probes)
#   SR_LBOFF     their offsets, "task_struct.pid=OFF ... lb_env.imbalance=OFF ..."
#   SR_BUFKB     record -b (KiB per CPU; empty: the recorder's default)
#   SR_SCALE     load size multiplier, percent (100 = the default size)
#   SR_TRACECMD_OPTS  extra trace-cmd record options (e.g. --file-version 6)
#   SR_BENCH     N: overhead benchmark instead (bench/guest-overhead.sh): the
#                load N times untraced, under "schedreplay record --no-probes"
#                and under "trace-cmd record" (the same sched events, -b
#                SR_BUFKB for both), rounds in rotating order; /out/bench.txt
#                has one line per run, the files are /out/<tool>-<run>.dat
# "$0 --run FUNCTION [ARGS]" runs one of the load's helpers (hog, pp_ping,
# pp_pong, pp_burst, forkpin_parent, exitsync_parent) in a new shell, so that "taskset -c CPUS $0 --run ..." starts it
# with its affinity already set.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin

# ---------------------------------------------------------------- loads ----
# Each load runs as the command of "trace-cmd record", so the recording covers
# exactly one load.  Sizes are counts (not durations) where possible so the
# amount of work does not depend on the emulation speed.

sc() {	# sc N: N scaled by SR_SCALE percent, at least 1
	v=$(( $1 * ${SR_SCALE:-100} / 100 ))
	[ "$v" -lt 1 ] && v=1
	echo "$v"
}

# start_hogs N CPUS: N busy loops pinned in turn to the CPU lists of CPUS
# ("2 3": CPU 2, 3, 2, ...; taskset before exec, so their forks are not
# placed); their pids in hs
start_hogs() {
	hs= k=0
	while [ $k -lt "$1" ]; do
		for cpu in $2; do
			[ $k -lt "$1" ] || break
			taskset -c "$cpu" "$0" --run hog & hs="$hs $!"
			k=$((k + 1))
		done
	done
}

# unpin_hogs: the hogs of hs allowed SR_ALLCPUS (default every CPU)
unpin_hogs() {
	for h in $hs; do
		taskset -p -c "${SR_ALLCPUS:-0-$(($(nproc) - 1))}" "$h" >/dev/null
	done
}

# stop_hogs: the hogs of hs killed and reaped
stop_hogs() {
	# shellcheck disable=SC2086
	kill $hs
	# shellcheck disable=SC2086
	wait $hs 2>/dev/null
}

# hackbench-like: G groups of N senders and N receivers; every sender writes M
# 100-byte messages to every receiver of its group through FIFOs.  A receiver
# opens its FIFO read-write (so it never blocks on open and sees no early EOF)
# and reads exactly N*M*100 bytes with head -c.  Not pinned: the 4*G*N tasks
# spread over both nodes as the scheduler likes.
load_messaging() {
	G=${SR_GROUPS:-2} N=${SR_FDS:-4} M=$(sc 1000)
	d=$SR_TMP/msg
	mkdir -p $d
	msg=$(printf '%099d' 0)
	bytes=$((N * M * 100))
	g=0
	while [ $g -lt $G ]; do
		r=0
		while [ $r -lt $N ]; do
			mkfifo $d/g$g.r$r
			head -c $bytes <>$d/g$g.r$r >/dev/null &
			r=$((r + 1))
		done
		g=$((g + 1))
	done
	g=0
	while [ $g -lt $G ]; do
		s=0
		while [ $s -lt $N ]; do
			(
				# open one fd per receiver of the group, then a
				# function writing one message to each of them
				r=0 body=
				while [ $r -lt $N ]; do
					eval "exec $((r + 3))>$d/g$g.r$r"
					body="$body echo \"\$msg\" >&$((r + 3));"
					r=$((r + 1))
				done
				eval "send_round() { $body }"
				i=0
				while [ $i -lt $M ]; do
					send_round
					i=$((i + 1))
				done
			) &
			s=$((s + 1))
		done
		g=$((g + 1))
	done
	wait
}

# fork/exit storm: one worker per CPU forking subshells "( true )" and
# fork+exec'ing /bin/true (busybox) in a loop; the parent shell waits.
load_forks() {
	W=$(nproc) K=$(sc 200)
	w=0
	while [ $w -lt $W ]; do
		(
			i=0
			while [ $i -lt $K ]; do
				( true )
				/bin/true
				i=$((i + 1))
			done
		) &
		w=$((w + 1))
	done
	wait
}

hog() { while :; do :; done; }

# two shells ping-ponging one line over two FIFOs
pp_ping() {	# pp_ping ROUNDS
	exec 3>$SR_TMP/pp.ab 4<$SR_TMP/pp.ba
	i=0
	while [ $i -lt $1 ]; do
		echo p >&3
		read -r x <&4
		i=$((i + 1))
	done
	echo q >&3
}
pp_pong() {
	exec 3<$SR_TMP/pp.ab 4>$SR_TMP/pp.ba
	while read -r x <&3; do
		[ "$x" = q ] && break
		echo p >&4
	done
}

# pingpong: phase 1, ping on CPU 0 (node 0) and pong on CPU 2 (node 1), hogs
# on CPUs 1 and 3; phase 2, the same with ping allowed on node 0 (0-1) and
# pong on node 1 (2-3), so select_task_rq_fair runs for them; phase 3, the
# hogs stop and one hog allowed on node 0 is moved with taskset to node 1 and
# back.
load_pingpong() {
	R=$(sc 600)
	rm -f $SR_TMP/pp.ab $SR_TMP/pp.ba
	mkfifo $SR_TMP/pp.ab $SR_TMP/pp.ba
	hog & h1=$!
	hog & h3=$!
	taskset -p -c 1 $h1 >/dev/null
	taskset -p -c 3 $h3 >/dev/null
	for cpus in "0 2" "0-1 2-3"; do
		set -- $cpus
		pp_ping $R & a=$!
		pp_pong & b=$!
		taskset -p -c $1 $a >/dev/null
		taskset -p -c $2 $b >/dev/null
		wait $a $b
	done
	kill $h1 $h3
	wait $h1 $h3 2>/dev/null
	hog & h=$!
	taskset -p -c 0-1 $h >/dev/null
	sleep 0.5
	taskset -p -c 2-3 $h >/dev/null
	sleep 0.5
	taskset -p -c 0-1 $h >/dev/null
	sleep 0.5
	kill $h
	wait $h 2>/dev/null
}

# pinnedhogs (seed 003's reproducer): ping and pong taking turns over two
# FIFOs, pinned to CPU 0 and CPU 2, while three busy loops pinned to each of
# CPU 1 and CPU 3 keep those overloaded with tasks nobody may pull: every
# newly idle balance of CPU 0 or 2 finds only pinned tasks (the ALL_PINNED
# redo) while the partner's wakeup is on its way.
load_pinnedhogs() {
	R=$(sc 600)
	rm -f $SR_TMP/pp.ab $SR_TMP/pp.ba
	mkfifo $SR_TMP/pp.ab $SR_TMP/pp.ba
	hs=
	for cpu in 1 1 1 3 3 3; do
		hog & h=$!
		taskset -p -c $cpu $h >/dev/null
		hs="$hs $h"
	done
	pp_ping $R & a=$!
	pp_pong & b=$!
	taskset -p -c 0 $a >/dev/null
	taskset -p -c 2 $b >/dev/null
	wait $a $b
	stop_hogs
}

# busyloops (seed 002's scenario): four busy loops started on node 0
# (taskset 0-1) while node 1 idles long enough to stop its ticks, then let
# loose on every CPU: the busy CPUs kick an idle CPU of node 1 to balance for
# itself and the other tickless CPUs (nohz idle balance).  Three rounds.
load_busyloops() {
	T=$(sc 100)
	for round in 1 2 3; do
		hs=
		for k in 1 2 3 4; do
			hog & hs="$hs $!"
		done
		for h in $hs; do
			taskset -p -c 0-1 $h >/dev/null
		done
		sleep 0.3
		for h in $hs; do
			taskset -p -c 0-3 $h >/dev/null
		done
		# T percent of one second of guest time, spread
		sleep $((T / 100)).$((T % 100))
		stop_hogs
		sleep 0.2
	done
}

# mix: a short load (about 2-3 s of guest time under TCG) with the three
# things at once: a fork storm (one unpinned worker per CPU, each forking
# "( true )" and fork+exec'ing /bin/true), a FIFO ping-pong with ping allowed
# on node 0 (SR_PINGCPU, default CPUs 0-1) and pong on node 1 (SR_PONGCPU,
# default 2-3) from their start (so select_task_rq_fair places every wakeup
# of the pair, and each crosses the nodes), and a hog allowed on ping's CPUs
# that taskset moves to pong's and back (cross-node sched_migrate_task
# events by construction).  On a 2-CPU machine: SR_PINGCPU=0 SR_PONGCPU=1.
load_mix() {
	R=$(sc 150) K=$(sc 30) W=$(nproc)
	c0=${SR_PINGCPU:-0-1} c1=${SR_PONGCPU:-2-3}
	rm -f $SR_TMP/pp.ab $SR_TMP/pp.ba
	mkfifo $SR_TMP/pp.ab $SR_TMP/pp.ba
	taskset -c "$c0" "$0" --run hog & h=$!
	taskset -c "$c0" "$0" --run pp_ping "$R" & a=$!
	taskset -c "$c1" "$0" --run pp_pong & b=$!
	ws=
	w=0
	while [ $w -lt "$W" ]; do
		(
			i=0
			while [ $i -lt "$K" ]; do
				( true )
				/bin/true
				i=$((i + 1))
			done
		) &
		ws="$ws $!"
		w=$((w + 1))
	done
	sleep 0.3
	taskset -p -c "$c1" $h >/dev/null
	sleep 0.3
	taskset -p -c "$c0" $h >/dev/null
	sleep 0.2
	# shellcheck disable=SC2086
	wait $a $b $ws
	kill $h
	wait $h 2>/dev/null
}

# forkpin (issue 11 item 2): a parent pinned to CPU SR_PINCPU (default 2, on
# node 1) forks N short children, each of which sets its own affinity to
# SR_CHILDCPUS (default 0-1, node 0) with taskset and exits; then the parent
# allows itself every CPU and does it N times again.  A child of the pinned
# parent inherits the single-CPU mask, so select_task_rq() never calls
# select_task_rq_fair() for it; a child of the unpinned parent is placed by
# sched_balance_find_dst_group() / find_idlest_group() across the nodes.
forkpin_parent() {	# forkpin_parent N CHILDCPUS ALLCPUS
	for phase in pinned unpinned; do
		i=0
		while [ $i -lt "$1" ]; do
			taskset -c "$2" /bin/true
			i=$((i + 1))
		done
		[ $phase = pinned ] && taskset -p -c "$3" $$ >/dev/null
	done
}
load_forkpin() {
	N=$(sc 250)
	taskset -c "${SR_PINCPU:-2}" "$0" --run forkpin_parent "$N" \
		"${SR_CHILDCPUS:-0-1}" "${SR_ALLCPUS:-0-$(($(nproc) - 1))}"
}

# pphogs (issue 11 item 3): a FIFO ping-pong of R lines with both ends allowed
# on SR_PPCPUS (default 0-1, node 0) from their start, while SR_HOGS busy loops
# (default 4) are pinned round-robin to the CPUs of SR_HOGCPUS (default
# "2 3"): a newly idle CPU of node 0 sees node 1 overloaded with tasks it may
# not pull.
# rtapp: the workload record.sh --rtapp put into the guest (a recorded
# demand, schedreplay simulate --export-demand), run by rt-app in /tmp
load_rtapp() {
	(cd /tmp && rt-app /etc/sr-rtapp.json)
}

load_pphogs() {
	R=$(sc 600)
	rm -f $SR_TMP/pp.ab $SR_TMP/pp.ba
	mkfifo $SR_TMP/pp.ab $SR_TMP/pp.ba
	start_hogs "${SR_HOGS:-4}" "${SR_HOGCPUS:-2 3}"
	taskset -c "${SR_PPCPUS:-0-1}" "$0" --run pp_ping "$R" & a=$!
	taskset -c "${SR_PPCPUS:-0-1}" "$0" --run pp_pong & b=$!
	wait $a $b
	stop_hogs
}

# spread (issue 11): SR_HOGS busy loops (default 4) started on one CPU
# (SR_STARTCPU, default 0; taskset before exec, so their forks are not
# placed), then allowed every CPU at once: the periodic and newly idle
# balances must spread them over both nodes.  T percent of one second each
# round, two rounds.
load_spread() {
	T=$(sc 100)
	for round in 1 2; do
		start_hogs "${SR_HOGS:-4}" "${SR_STARTCPU:-0}"
		sleep 0.2
		unpin_hogs
		sleep $((T / 100)).$((T % 100))
		stop_hogs
		sleep 0.2
	done
}

# ------------------------------------------- seed loads (issues 11, 16) ----
# One load per seed pair of /work/shared/seeds, each the situation its
# author argued with, on this 2-node guest (README.md, "Seed loads").

# nohzspread (seed 002, Preeti U Murthy): "Busy loops equal to number of
# cores were spawned ... all busy loops would start on one of the numa
# domains"; the idle CPUs of the other node must get them through the nohz
# idle balance.  SR_ROUNDS rounds (default 10): SR_HOGS busy loops (default
# 4) started with taskset -c SR_STARTCPU (default 1: one CPU of node 0), 0.3 s
# for the idle CPUs to stop their ticks, then allowed every CPU for T percent
# of a second (--scale, default 0.4 s), killed, 0.1 s idle.  With node 0's
# other CPU idle, that CPU is the idle load balancer (find_new_ilb: the first
# idle CPU) and its pass balances node 1's first idle CPU before itself.  With
# loops on both CPUs of node 0 (SR_STARTCPU=0-1) the ILB is CPU 2 and its
# pass for CPU 3 cannot pull across the nodes (should_we_balance: only the
# first idle CPU of the local group balances an idle domain), so every pull is
# the ILB's own.
load_nohzspread() {
	T=$(sc 40) r=0
	while [ $r -lt "${SR_ROUNDS:-10}" ]; do
		start_hogs "${SR_HOGS:-4}" "${SR_STARTCPU:-1}"
		sleep 0.3
		unpin_hogs
		sleep $((T / 100)).$(printf %02d $((T % 100)))
		stop_hogs
		sleep 0.1
		r=$((r + 1))
	done
}

# ping of ppbail: bursts of SR_BURST exchanges, then SR_GAPMS ms asleep
pp_burst() {	# pp_burst ROUNDS BURST GAPMS
	exec 3>$SR_TMP/pp.ab 4<$SR_TMP/pp.ba
	i=0
	while [ $i -lt $1 ]; do
		echo p >&3
		read -r x <&4
		i=$((i + 1))
		[ $((i % $2)) = 0 ] && sleep 0.$(printf %03d "$3")
	done
	echo q >&3
}

# ppbail (seed 003, Josh Don): "two threads that take turns sleeping and
# waking each other up are affined to two cores - a large number of threads
# with 100% utilization are pinned to all other cores".  ping pinned to
# SR_PINGCPU (default 0), pong to SR_PONGCPU (default 1), SR_HOGS busy loops
# (default 6) pinned round-robin to SR_HOGCPUS (default "2 3"); ping pauses
# SR_GAPMS ms (default 20) after every SR_BURST exchanges (default 8), so the
# CPUs' avg_idle grows past the balance cost and the newly idle balances of
# the next exchanges run (with the partner's wakeup on its way) instead of
# being skipped.  R exchanges (--scale, default 800).
load_ppbail() {
	R=$(sc 800)
	rm -f $SR_TMP/pp.ab $SR_TMP/pp.ba
	mkfifo $SR_TMP/pp.ab $SR_TMP/pp.ba
	start_hogs "${SR_HOGS:-6}" "${SR_HOGCPUS:-2 3}"
	taskset -c "${SR_PINGCPU:-0}" "$0" --run pp_burst "$R" "${SR_BURST:-8}" \
		"${SR_GAPMS:-20}" & a=$!
	taskset -c "${SR_PONGCPU:-1}" "$0" --run pp_pong & b=$!
	wait $a $b
	stop_hogs
}

# the parent of exitsync: starts on SR_PARENTCPUS, allows itself every CPU,
# then becomes xargs, which runs each child and waits for it (SIGCHLD left at
# its default: the child's exit wakes it through __wake_up_parent, WF_SYNC)
exitsync_parent() {	# exitsync_parent N CHILDCPUS ALLCPUS
	seq "$1" >$SR_TMP/exitsync.list
	taskset -p -c "$3" $$ >/dev/null
	exec xargs -n 1 taskset -c "$2" true <$SR_TMP/exitsync.list
}

# exitsync (seed 004 4/4, Mel Gorman: "When a task exits, it notifies the
# parent that it has exited. This is a sync wakup and the exiting task may
# pull the parent towards the wakers CPU"): a parent started on node 1
# (SR_PARENTCPUS, default 2-3) and then allowed every CPU runs N children
# (--scale, default 300) one after another, each of which moves itself to
# SR_CHILDCPUS (default 0-1, node 0) and exits there.  A shell would not do:
# busybox sh catches SIGCHLD, and the signal's wakeup (not sync) comes first.
load_exitsync() {
	N=$(sc 300)
	taskset -c "${SR_PARENTCPUS:-2-3}" "$0" --run exitsync_parent "$N" \
		"${SR_CHILDCPUS:-0-1}" "${SR_ALLCPUS:-0-$(($(nproc) - 1))}"
}

# equalwake (seed 004 3/4, Mel Gorman: "avoids migrations on wakeup when two
# CPUs are equally loaded which is particularly important in the case where
# the measured load is 0"): the rt-app workload equalwake.json that record.sh
# puts into /etc/sr-rtapp.json.  Three SCHED_FIFO wakers pinned to CPU 0
# each resume (futex wakeup, not sync) a SCHED_OTHER thread of their own once
# a second (one wakee per waker: its wakee_flips stay low, so wake_wide() does
# not decide); a SCHED_FIFO loop pinned to each CPU runs 600 us of every
# millisecond, with no CFS load (so that an idle CPU does not end the wakeup
# in wake_affine_idle() and the threads find no idle CPU to settle on).  A
# thread woken while an RT task runs on prev_cpu has, once its own load has
# decayed over the second since, CFS loads 0 on both sides:
# wake_affine_weight compares 0 with 0.
# The duration (seconds) is scaled by --scale (default 8 s).
load_equalwake() {
	d=$(sc 8)
	sed "s/\"duration\": *[0-9]*/\"duration\": $d/" /etc/sr-rtapp.json >"$SR_TMP/equalwake.json"
	(cd /tmp && rt-app "$SR_TMP/equalwake.json")
}

# kthreadpin (seed 000, Yihao Wu: per-CPU kernel threads "created by
# kernel_thread" have no KTHREAD_IS_PER_CPU; load balance tries to migrate
# them and "further makes wakeup balance at NUMA domain level messed up"):
# the kernel threads that are not per-CPU by name and that user space may
# bind (RCU's, kcompactd, kswapd, khugepaged, ksmd, oom_reaper, kauditd) are
# pinned to SR_PINCPU (default 0) with taskset -p; then SR_ROUNDS rounds
# (default 4): SR_HOGS busy loops (default 3) started on SR_STARTCPU
# (default 0) and then allowed every CPU, beside a fork storm of one worker
# per CPU (every exit queues RCU callbacks, so the pinned rcu_preempt runs
# often), T percent of a second (--scale, default 0.5 s) each.
load_kthreadpin() {
	T=$(sc 50) r=0
	for d in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$d/comm" || continue
		case $c in
		rcu_preempt | rcu_sched | rcu_tasks* | rcu_exp* | kcompactd* | kswapd* | \
		khugepaged | ksmd | oom_reaper | kauditd)
			taskset -p -c "${SR_PINCPU:-0}" "${d#/proc/}" >/dev/null 2>&1 ;;
		esac
	done
	while [ $r -lt "${SR_ROUNDS:-4}" ]; do
		start_hogs "${SR_HOGS:-3}" "${SR_STARTCPU:-0}"
		ws= w=0
		while [ $w -lt "$(nproc)" ]; do
			(
				i=0
				while [ $i -lt 20 ]; do
					( true )
					i=$((i + 1))
				done
			) &
			ws="$ws $!"
			w=$((w + 1))
		done
		sleep 0.1
		unpin_hogs
		sleep $((T / 100)).$(printf %02d $((T % 100)))
		# shellcheck disable=SC2086
		wait $ws
		stop_hogs
		r=$((r + 1))
	done
}

if [ "$1" = --run ]; then
	[ -f /etc/sr.conf ] && . /etc/sr.conf
	case $2 in
	hog | pp_ping | pp_pong | pp_burst | forkpin_parent | exitsync_parent) f=$2; shift 2; "$f" "$@" ;;
	*) echo "unknown helper $2" >&2; exit 1 ;;
	esac
	exit 0
fi
# "$0 --timed LOAD FILE": the load, with /proc/uptime before and after it in
# FILE (busybox date has no %N here; uptime has 10 ms steps)
if [ "$1" = --timed ]; then
	[ -f /etc/sr.conf ] && . /etc/sr.conf
	a=$(cut -d' ' -f1 /proc/uptime)
	"$0" --load "$2"
	rc=$?
	b=$(cut -d' ' -f1 /proc/uptime)
	echo "$a $b" >"$3"
	exit $rc
fi
if [ "$1" = --load ]; then
	[ -f /etc/sr.conf ] && . /etc/sr.conf
	# the load's FIFOs and files live in a directory of its own, so two
	# loads at once (two host recordings) never share them; its helpers
	# ("$0 --run") inherit SR_TMP
	if [ -z "${SR_TMP:-}" ]; then
		SR_TMP=$(mktemp -d /tmp/sr-load.XXXXXX) || exit 1
		trap 'rm -rf "$SR_TMP"' EXIT
		trap 'exit 130' INT TERM
	fi
	export SR_TMP
	case $2 in
	messaging | forks | pingpong | mix | busyloops | pinnedhogs | forkpin | pphogs | spread | rtapp | \
	nohzspread | ppbail | exitsync | equalwake | kthreadpin) "load_$2" ;;
	*) echo "unknown load $2" >&2; exit 1 ;;
	esac
	exit 0
fi

# ---------------------------------------------------------------- /init ----
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp /out
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
[ -f /etc/sr.conf ] && . /etc/sr.conf
T=/sys/kernel/tracing
O=/out
log() { echo "sr-guest: $* (uptime $(cut -d' ' -f1 /proc/uptime))"; }

# record.sh --crash-first-boot (a test of its retry): the first boot panics
# here, through sysrq, before anything is recorded
if grep -q ' sr.crash=1' /proc/cmdline; then
	log "crashing on purpose (sr.crash=1)"
	echo c >/proc/sysrq-trigger
fi

finish() {
	cd /
	log "writing results to /dev/vda"
	tar -cf /dev/vda -C $O . && sync && log "results written"
	poweroff -f
}
fail() {
	log "FAILED: $*"
	echo "$*" >>$O/FAILED
	finish
}

# add_probes NAME: every kprobe of $O/kprobe_events-NAME.in into tracefs (the
# first one the kernel rejects ends the boot with its error_log), then the
# result and the lines as "kprobe_events (NAME): ..." into the facts
add_probes() {
	while read -r ev; do
		echo "$ev" >>$T/kprobe_events || {
			cat $T/error_log >$O/kprobe-error.txt 2>/dev/null
			fail "kprobe_events rejected: $ev"
		}
	done <$O/kprobe_events-$1.in
	cp $T/kprobe_events $O/kprobe_events
	sed "s/^/kprobe_events ($1): /" $O/kprobe_events-$1.in >>$F
}

for m in $(cat /lib/modules/sr/order 2>/dev/null); do
	insmod /lib/modules/sr/$m.ko || log "insmod $m failed"
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || { log "no /dev/vda"; poweroff -f; }

# ---- overhead benchmark (SR_BENCH): no facts, no hand-made probes
bench_one() {	# bench_one TOOL RUN: one line in $O/bench.txt
	rm -f /tmp/load.t
	b0=$(cut -d' ' -f1 /proc/uptime)
	case $1 in
	untraced)
		/init --timed "$SR_LOAD" /tmp/load.t >$O/$1-$2.log 2>&1 ;;
	schedreplay)
		schedreplay record --no-probes -b "$SR_BUFKB" -o $O/$1-$2.dat \
			-- /init --timed "$SR_LOAD" /tmp/load.t >$O/$1-$2.log 2>&1 ;;
	trace-cmd)
		# shellcheck disable=SC2086
		trace-cmd record -b "$SR_BUFKB" $SR_TRACECMD_OPTS -o $O/$1-$2.dat \
			-e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \
			-e sched:sched_wakeup_new -e sched:sched_migrate_task \
			-e sched:sched_process_fork -e sched:sched_process_exit \
			-e sched:sched_process_free \
			/init --timed "$SR_LOAD" /tmp/load.t >$O/$1-$2.log 2>&1 ;;
	esac
	rc=$?
	b1=$(cut -d' ' -f1 /proc/uptime)
	# what a recorder left in the top-level buffer (trace-cmd records there)
	ev=$(grep -c . $T/set_event)
	echo "$1 $2 $(cat /tmp/load.t 2>/dev/null || echo '- -') $b0 $b1 $rc $(cat $T/tracing_on) $ev" >>$O/bench.txt
	log "bench $1 run $2: exit $rc, load $(cat /tmp/load.t 2>/dev/null), events left enabled $ev"
	# the next run starts with nothing enabled at the top level
	[ "$ev" = 0 ] || echo >$T/set_event
}
if [ -n "$SR_BENCH" ]; then
	uname -r >$O/uname-r
	cp $T/trace_clock $O/trace_clock
	echo "# tool run load_start load_end cmd_start cmd_end exit tracing_on events_left (guest uptime, s)" >$O/bench.txt
	log "recording bench: load $SR_LOAD, $SR_BENCH runs each, buffer $SR_BUFKB KB per cpu"
	cd /tmp
	i=1
	while [ $i -le "$SR_BENCH" ]; do
		# the order rotates, so no recorder always runs first or last
		case $((i % 3)) in
		1) order="untraced schedreplay trace-cmd" ;;
		2) order="schedreplay trace-cmd untraced" ;;
		0) order="trace-cmd untraced schedreplay" ;;
		esac
		for tool in $order; do
			bench_one $tool $i
		done
		i=$((i + 1))
	done
	dmesg >$O/dmesg.txt
	finish
fi
log "saving the facts"

# ---- facts: raw copies under $O/topology/<path>, and one "path: value" line
# per file in $O/facts.txt (multi-line files are joined with " | ")
F=$O/facts.txt
: >$F
save() {	# save FILE...: copy files (that exist) and add them to facts.txt
	for f; do
		[ -f "$f" ] || continue
		mkdir -p "$O/topology${f%/*}"
		cat "$f" >"$O/topology$f" 2>/dev/null || continue
		printf '%s: %s\n' "$f" "$(tr '\n' '|' <"$O/topology$f" | sed 's/|$//; s/|/ | /g')" >>$F
	done
}
uname -r >$O/uname-r
echo "uname -r: $(uname -r)" >>$F
echo "nproc: $(nproc)" >>$F
save /proc/cmdline /proc/sys/kernel/sched_autogroup_enabled \
	/proc/sys/kernel/sched_child_runs_first \
	/sys/devices/system/cpu/online /sys/devices/system/cpu/possible \
	/sys/devices/system/node/online /sys/devices/system/node/possible \
	/sys/devices/system/node/has_cpu \
	/sys/devices/system/node/node*/cpulist \
	/sys/devices/system/node/node*/distance \
	/sys/devices/system/cpu/cpu[0-9]*/topology/* \
	/sys/devices/system/cpu/cpu[0-9]*/cache/index*/level \
	/sys/devices/system/cpu/cpu[0-9]*/cache/index*/type \
	/sys/devices/system/cpu/cpu[0-9]*/cache/index*/id \
	/sys/devices/system/cpu/cpu[0-9]*/cache/index*/shared_cpu_list \
	/sys/devices/system/cpu/cpu[0-9]*/cpu_capacity \
	/sys/kernel/debug/sched/features \
	/sys/kernel/debug/sched/*_ns /sys/kernel/debug/sched/nr_migrate \
	/sys/kernel/debug/sched/tunable_scaling \
	/sys/kernel/debug/sched_features \
	$T/trace_clock
if [ -d /sys/kernel/debug/sched/domains ]; then
	save $(find /sys/kernel/debug/sched/domains -type f | sort)
else
	echo "/sys/kernel/debug/sched/domains: absent" >>$F
fi
grep -m1 'model name' /proc/cpuinfo >>$F
save /proc/sys/kernel/kptr_restrict /proc/sys/kernel/perf_event_paranoid
echo "/proc/kallsyms first line: $(head -n 1 /proc/kallsyms)" >>$F
# tasks alive before the recording: pid, comm, allowed CPUs, policy
for p in /proc/[0-9]*; do
	[ -f $p/status ] || continue
	echo "${p#/proc/} $(sed -n 's/^Name:\t//p; s/^Cpus_allowed_list:\t//p' $p/status | tr '\n' ' ')"
done >$O/tasks-before.txt 2>/dev/null

# ---- the two schedreplay kprobe events (names and fields are a contract),
# by hand for trace-cmd; schedreplay record adds and removes them itself
if [ "${SR_RECORDER:-trace-cmd}" = trace-cmd ]; then
	PIDF=
	[ -n "$SR_PIDOFF" ] && PIDF=" pid=+$SR_PIDOFF(%di):s32"
	[ -n "$SR_FLIPSOFF" ] && PIDF="$PIDF flips=+$SR_FLIPSOFF(%di):u32"
	for kv in $SR_PELTOFF; do
		PIDF="$PIDF ${kv%%=*}=+${kv#*=}(%di):u64"
	done
	prevf() { PIDF="$PIDF prevload=+$1(+$2(+$3(%di))):u64"; }
	# shellcheck disable=SC2086
	[ -n "$SR_PREVOFF" ] && prevf $SR_PREVOFF
	{
		echo "p:schedreplay/select_rq select_task_rq_fair prev_cpu=%si:s32 wake_flags=%dx:x32$PIDF"
		echo 'r:schedreplay/select_rq_ret select_task_rq_fair cpu=$retval:s32'
		echo 'p:schedreplay/setaffinity sched_setaffinity pid=%di:s32 mask=+0(%si):x64'
	} >$O/kprobe_events.in
	while read -r ev; do
		echo "$ev" >>$T/kprobe_events || {
			cat $T/error_log >$O/kprobe-error.txt 2>/dev/null
			fail "kprobe_events rejected: $ev"
		}
	done <$O/kprobe_events.in
	cp $T/kprobe_events $O/kprobe_events
	sed 's/^/kprobe_events: /' $T/kprobe_events >>$F
fi

# ---- the four optional balance probes (schedreplay-record(1), "Balance
# probes"), by hand for trace-cmd, on whichever names the kernel has
if [ "${SR_RECORDER:-trace-cmd}" = trace-cmd ] && [ -n "$SR_BALPROBES" ]; then
	balfunc() {	# balfunc NEW OLD: the name /proc/kallsyms has
		if grep -q " $1\$" /proc/kallsyms; then echo "$1"; else echo "$2"; fi
	}
	balfield() {	# balfield MEMBER: its offset from SR_BALOFF
		for kv in $SR_BALOFF; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done
	}
	NI=$(balfunc sched_balance_newidle newidle_balance)
	LB=$(balfunc sched_balance_rq load_balance)
	c=$(balfield cpu) a=$(balfield avg_idle) s=$(balfield sd)
	m=$(balfield max_newidle_lb_cost) l=$(balfield level)
	NIF=""
	LBF=""
	[ -n "$c" ] && NIF="$NIF cpu=+$c(%di):s32"
	[ -n "$a" ] && NIF="$NIF avg_idle=+$a(%di):u64"
	[ -n "$s" ] && [ -n "$m" ] && NIF="$NIF cost=+$m(+$s(%di)):u64"
	[ -n "$l" ] && LBF=" level=+$l(%dx):s32"
	{
		echo "p:schedreplay/newidle $NI$NIF"
		echo "r:schedreplay/newidle_ret $NI ret=\$retval:s32"
		echo "p:schedreplay/balance_rq $LB cpu=%di:s32 idle=%cx:s32$LBF"
		echo "r:schedreplay/balance_rq_ret $LB moved=\$retval:s32"
	} >$O/kprobe_events-balance.in
	add_probes balance
fi

# ---- the optional load-balance probes (record.sh --lb-probes, trace-cmd
# only, validation): what each load_balance() found and decided, which the
# balance probes do not show.  lb_group_ret: find_busiest_group()'s
# (sched_balance_find_src_group()'s) busiest group, 0 when balanced (or
# imbalance 0); lb_task: every can_migrate_task(p, env), with the task's pid,
# numa_preferred_nid, exec_start, util_avg and util_est and lb_env's src and
# dst CPUs, idle type, imbalance, flags, loop, fbq_type, migration_type (0
# load, 1 util, 2 task, 3 misfit), sd->level, sd->nr_balance_failed and the
# source rq's clock_task and nr_running; lb_task_ret: its answer.  Both
# functions are out of line in the Debian 6.1 and 6.12 kernels (their BTF)
if [ "${SR_RECORDER:-trace-cmd}" = trace-cmd ] && [ -n "${SR_LBPROBES:-}" ]; then
	lbf() { for kv in $SR_LBOFF; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
	if grep -q " sched_balance_find_src_group\$" /proc/kallsyms; then
		FBG=sched_balance_find_src_group
	else
		FBG=find_busiest_group
	fi
	LTF="pid=+$(lbf task_struct.pid)(%di):s32 nid=+$(lbf task_struct.numa_preferred_nid)(%di):s32"
	LTF="$LTF exec=+$(lbf task_struct.exec_start)(%di):u64 util=+$(lbf sched_avg.util_avg)(%di):u64"
	LTF="$LTF ue=+$(lbf sched_avg.util_est)(%di):u32 src=+$(lbf lb_env.src_cpu)(%si):s32"
	LTF="$LTF dst=+$(lbf lb_env.dst_cpu)(%si):s32 idle=+$(lbf lb_env.idle)(%si):s32"
	LTF="$LTF imb=+$(lbf lb_env.imbalance)(%si):s64 flags=+$(lbf lb_env.flags)(%si):u32"
	LTF="$LTF loop=+$(lbf lb_env.loop)(%si):u32 fbq=+$(lbf lb_env.fbq_type)(%si):u32"
	LTF="$LTF mt=+$(lbf lb_env.migration_type)(%si):u32"
	LTF="$LTF level=+$(lbf sched_domain.level)(+$(lbf lb_env.sd)(%si)):s32"
	LTF="$LTF nbf=+$(lbf sched_domain.nr_balance_failed)(+$(lbf lb_env.sd)(%si)):u32"
	LTF="$LTF clock=+$(lbf rq.clock_task)(+$(lbf lb_env.src_rq)(%si)):u64"
	LTF="$LTF srcnr=+$(lbf rq.nr_running)(+$(lbf lb_env.src_rq)(%si)):u32"
	{
		echo "r:schedreplay/lb_group_ret $FBG busiest=\$retval:x64"
		echo "p:schedreplay/lb_task can_migrate_task $LTF"
		echo "r:schedreplay/lb_task_ret can_migrate_task ret=\$retval:s32"
	} >$O/kprobe_events-lb.in
	add_probes lb
fi

# ---- the optional input probes (record.sh --input-probes, trace-cmd only):
# what the slow path of select_task_rq_fair() reads of every CPU, at its
# entry (rqstat), and every PELT update of every cfs_rq (cfs_pelt, at the
# entry of __update_load_avg_cfs_rq(now, cfs_rq): the averages as the
# previous update left them, less the removed load this update takes out).
# rqstat reads rq(i) as the per-CPU address of runqueues, through
# __per_cpu_offset[i] (kprobe fetch args: @SYM+OFF, +OFF(...)); 7 fields a
# CPU, so up to 18 CPUs (128 fields a probe event)
if [ "${SR_RECORDER:-trace-cmd}" = trace-cmd ] && [ -n "$SR_INOFF" ]; then
	inf() { for kv in $SR_INOFF; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
	RQA=$(awk '$3 == "runqueues" { print $1; exit }' /proc/kallsyms)
	[ -n "$RQA" ] || fail "input probes: no runqueues in /proc/kallsyms"
	# SIS_UTIL's hint of the CPU's LLC, per_cpu(sd_llc_shared, i)->nr_idle_scan
	# (c<i>scan; where the kernel has it)
	SDA=$(awk '$3 == "sd_llc_shared" { print $1; exit }' /proc/kallsyms)
	SDO=$(inf sds_nr_idle_scan)
	RQF= i=0
	while [ $i -lt "$(nproc)" ]; do
		for m in load_avg:load:u64 util_avg:util:u64 runnable_avg:run:u64 \
			util_est:ue:u32 nr_running:nr:u32 ttwu_pending:ttwu:u32; do
			f=${m#*:}
			RQF="$RQF c$i${f%%:*}=+$((0x$RQA + $(inf "rq_${m%%:*}")))(@__per_cpu_offset+$((8 * i))):${f#*:}"
		done
		[ -n "$SDA" ] && [ -n "$SDO" ] &&
			RQF="$RQF c${i}scan=+$((SDO))(+$((0x$SDA))(@__per_cpu_offset+$((8 * i)))):s32"
		i=$((i + 1))
	done
	q=$(inf cfs_rq)
	{
		echo "p:schedreplay/rqstat select_task_rq_fair$RQF"
		# with --lb-probes, the same state at every find_busiest_group()
		[ -z "${FBG:-}" ] || echo "p:schedreplay/lb_rqstat $FBG$RQF"
		echo "p:schedreplay/cfs_pelt __update_load_avg_cfs_rq now=%di:u64 cfs=%si:x64 rq=+$q(%si):x64 cpu=+$(inf rq_cpu)(+$q(%si)):s32 lut=+$(inf cfs_last_update_time)(%si):u64 load=+$(inf cfs_load_avg)(%si):u64 util=+$(inf cfs_util_avg)(%si):u64 runnable=+$(inf cfs_runnable_avg)(%si):u64"
	} >$O/kprobe_events-input.in
	add_probes input
fi

# ---- record one load
log "recording load $SR_LOAD with ${SR_RECORDER:-trace-cmd}"
cd /tmp
t0=$(cat /proc/uptime)
if [ "${SR_RECORDER:-trace-cmd}" = schedreplay ]; then
	# tracefs as the recorder found it, to compare with what it leaves
	ls $T/instances >$O/instances-before 2>&1
	cat $T/kprobe_events >$O/kprobe_events-before 2>&1
	schedreplay record ${SR_BUFKB:+-b $SR_BUFKB} ${SR_BALPROBES:+--balance-probes} \
		${SR_INPROBES:+--input-probes} -o $O/trace.dat \
		-- /init --load "$SR_LOAD" >$O/record.log 2>&1
	rc=$?
	t1=$(cat /proc/uptime)
	ls $T/instances >$O/instances-after 2>&1
	cat $T/kprobe_events >$O/kprobe_events-after 2>&1
	echo "schedreplay record exit status: $rc" >>$F
	echo "instances after the recording: $(tr '\n' ' ' <$O/instances-after)" >>$F
	echo "kprobe_events after the recording: $(tr '\n' ' ' <$O/kprobe_events-after)" >>$F
else
	# shellcheck disable=SC2086
	trace-cmd record -b ${SR_BUFKB:-20000} $SR_TRACECMD_OPTS -o $O/trace.dat \
		-e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \
		-e sched:sched_wakeup_new -e sched:sched_migrate_task \
		-e sched:sched_process_fork -e sched:sched_process_exit \
		-e sched:sched_process_free -e schedreplay \
		/init --load "$SR_LOAD" >$O/trace-cmd.log 2>&1
	rc=$?
	t1=$(cat /proc/uptime)
	echo "trace-cmd exit status: $rc" >>$F
	save $T/kprobe_profile
fi
echo "guest uptime before/after recording: ${t0%% *} ${t1%% *}" >>$F
cp $T/per_cpu/cpu0/stats $O/cpu0-stats-after 2>/dev/null
dmesg >$O/dmesg.txt
[ $rc = 0 ] || fail "${SR_RECORDER:-trace-cmd} record exited with $rc"
finish
