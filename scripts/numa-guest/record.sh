#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Record real scheduler traces on a 2-node NUMA QEMU guest running a stock
# Debian kernel, with the two schedreplay kprobe events on
# select_task_rq_fair, by "trace-cmd record" (default) or by
# "schedreplay record" (--recorder schedreplay).  See README.md in this folder.
#
#   scripts/numa-guest/record.sh --kernel 6.1|6.12 \
#       --load messaging|forks|pingpong|mix|busyloops|pinnedhogs|forkpin|pphogs|spread|rtapp|
#              nohzspread|ppbail|exitsync|equalwake|kthreadpin|all --out DIR [options]
#
# Writes, per load, DIR/numa-<K>-<load>.dat (the recorder's output),
# .topo (schedreplay topology file), .facts.txt (topology facts, kprobe
# definitions, counts), .topology/ (raw sysfs copies, serial log, config).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=$HERE/cache
KERNEL= LOAD= OUT= ACCEL=tcg KPKG= BUFKB=20000 SCALE=100 TCOPTS= NOPID= BALPROBES= INPROBES= LBPROBES= RTAPP=
TIMEOUT=300 BOOT_TIMEOUT=120 RETRIES=4 NOINSTALL= RECORDER=trace-cmd CACHED= BENCH=
CRASHFIRST= SETS=
TOP=$(cd "$HERE/../.." && pwd)
SRBIN=$TOP/schedreplay BUFSET=

usage() {
	cat <<EOF
usage: $0 --kernel 6.1|6.12 --load messaging|forks|pingpong|mix|busyloops|pinnedhogs|forkpin|pphogs|spread|rtapp|
             nohzspread|ppbail|exitsync|equalwake|kthreadpin|all --out DIR
  --recorder R        trace-cmd (default: trace-cmd record, probes defined by
                      init.sh) or schedreplay (schedreplay record, which adds
                      the probes itself)
  --schedreplay PATH  the schedreplay binary for --recorder schedreplay
                      (default $SRBIN, built with make when missing)
  --kernel-pkg NAME   exact Debian package (default: newest linux-image-<K>*-amd64)
  --cached            use the newest kernel .deb of --kernel already in the
                      cache when there is one (no apt look-up, works offline)
  --accel tcg|kvm     QEMU accelerator (default tcg; KVM here cannot boot stock kernels)
  --buffer KB         record -b, per CPU (default $BUFKB for trace-cmd, the
                      recorder's own default for schedreplay)
  --scale PERCENT     load size (default $SCALE)
  --set NAME=VALUE    a load variable for init.sh (SR_HOGS, SR_PINCPU,
                      SR_CHILDCPUS, SR_PPCPUS, SR_HOGCPUS, SR_STARTCPU,
                      SR_GROUPS, SR_FDS, SR_ROUNDS, SR_PINGCPU, SR_PONGCPU,
                      SR_BURST, SR_GAPMS, SR_PARENTCPUS; README.md), repeatable
  --rtapp FILE        with --load rtapp: the rt-app workload the guest runs
                      (schedreplay simulate --export-demand); rt-app and its
                      libraries go into the guest with it
  --trace-cmd-opts S  extra trace-cmd record options, e.g. "--file-version 6"
  --no-pid            do not add the pid and flips fields to the select_rq probe
  --balance-probes    also record the balance probes (newidle, newidle_ret,
                      balance_rq, balance_rq_ret: schedreplay-record(1));
                      schedreplay record --balance-probes, or defined by
                      init.sh for trace-cmd
  --input-probes      validation: also record what the fork and wakeup slow
                      path reads of every CPU (rqstat: each rq's cfs
                      load/util/runnable/util_est, nr_running and
                      ttwu_pending at select_task_rq_fair()) and every PELT
                      update of every cfs_rq (cfs_pelt); schedreplay record
                      --input-probes, or defined by init.sh for trace-cmd;
                      README.md
  --lb-probes         trace-cmd only, validation: also record what each
                      load_balance() decided (lb_group_ret: the busiest group
                      find_busiest_group() returned, 0 balanced; lb_task and
                      lb_task_ret: every can_migrate_task() with the task's and
                      lb_env's fields and its answer); with --input-probes
                      also every CPU's rq state at find_busiest_group()
                      (lb_rqstat); README.md
  --cache DIR         where kernels and initramfs are kept (default $CACHE)
  --timeout S         kill QEMU after S seconds (default $TIMEOUT; $BOOT_TIMEOUT s to reach /init)
  --retries N         runs of QEMU per load when the guest hangs or oopses
                      (default $RETRIES)
  --no-install        do not apt-get install missing host packages
  --crash-first-boot  a test of the retry: the guest panics at /init (sysrq c)
                      until one boot has, and is booted again
  --bench RUNS        overhead benchmark (bench/guest-overhead.sh): both
                      recorders in the guest, the load RUNS times untraced,
                      under "schedreplay record --no-probes -b KB" and under
                      "trace-cmd record -b KB" (the same sched events); the
                      guest's files go to DIR/numa-<K>-<load>.bench/
  $0 --analyze FILE.dat [FILE.topo]   print the summary of a recording
EOF
	exit "${1:-2}"
}

die() { echo "record.sh: $*" >&2; exit 1; }
QPID= IROOT=
trap '[ -n "$QPID" ] && kill "$QPID" 2>/dev/null; [ -n "$IROOT" ] && rm -rf "$IROOT" "$IROOT.cpio.gz"' EXIT
trap 'exit 130' INT TERM
say() { echo "== $*" >&2; }

# ------------------------------------------------------------ summary ----
# Counts from "trace-cmd report" on the host (analyze.awk does the pairing).
analyze() {	# analyze DAT [TOPO]
	local dat=$1 topo=${2:-} nodes=""
	if [ -n "$topo" ] && [ -f "$topo" ]; then
		# "cpu N ... node M" -> "N:M,N:M"
		nodes=$(awk '$1 == "cpu" { for (i = 3; i < NF; i++) if ($i == "node") n = $(i + 1);
			print $2 ":" n }' "$topo" | paste -sd, -)
	fi
	echo "file: $(basename "$dat") ($(stat -c %s "$dat") bytes)"
	trace-cmd dump --summary -i "$dat" 2>/dev/null |
		awk '/\[Version\]/ { v = $1 } /\[Compression algorithm\]/ { c = $1 }
		     END { print "trace.dat file version " v ", compression " (c == "" ? "none" : c) }' || true
	# kernel buffer stats saved at the end of the recording
	trace-cmd report --stat -i "$dat" 2>/dev/null |
		awk '/^CPU:/ { c = $2 } /^(overrun|commit overrun|dropped events):/ { n = $NF; l = l " cpu" c "/" $1 "=" n; t += n }
		     END { print "lost events (overrun + commit overrun + dropped, all CPUs): " t + 0 (t ? " :" l : "") }' || true
	trace-cmd report -R -i "$dat" 2>/dev/null | awk -v nodes="$nodes" -f "$HERE/analyze.awk"
}

# --------------------------------------------------------------- args ----
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--load) LOAD=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--kernel-pkg) KPKG=$2; shift 2 ;;
	--recorder) RECORDER=$2; shift 2 ;;
	--schedreplay) SRBIN=$2; shift 2 ;;
	--cached) CACHED=1; shift ;;
	--accel) ACCEL=$2; shift 2 ;;
	--buffer) BUFKB=$2; BUFSET=1; shift 2 ;;
	--scale) SCALE=$2; shift 2 ;;
	--set)
		case ${2:-} in
		SR_HOGS=* | SR_PINCPU=* | SR_CHILDCPUS=* | SR_ALLCPUS=* | SR_PPCPUS=* | \
		SR_HOGCPUS=* | SR_STARTCPU=* | SR_GROUPS=* | SR_FDS=* | SR_ROUNDS=* | \
		SR_PINGCPU=* | SR_PONGCPU=* | SR_BURST=* | SR_GAPMS=* | SR_PARENTCPUS=*) ;;
		*) die "--set takes NAME=VALUE with a load variable (see --help), not '${2:-}'" ;;
		esac
		case ${2#*=} in *[!0-9,\ -]* | '') die "--set ${2%%=*}: the value must be numbers, ',', '-' or spaces" ;; esac
		SETS="$SETS${2%%=*}=\"${2#*=}\"
"; shift 2 ;;
	--trace-cmd-opts) TCOPTS=$2; shift 2 ;;
	--rtapp) RTAPP=$2; shift 2 ;;
	--no-pid) NOPID=1; shift ;;
	--balance-probes) BALPROBES=1; shift ;;
	--input-probes) INPROBES=1; shift ;;
	--lb-probes) LBPROBES=1; shift ;;
	--cache) CACHE=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--retries) RETRIES=$2; shift 2 ;;
	--crash-first-boot) CRASHFIRST=1; shift ;;
	--no-install) NOINSTALL=1; shift ;;
	--bench) BENCH=$2; shift 2 ;;
	--analyze) shift; [ $# -ge 1 ] || usage; analyze "$@"; exit 0 ;;
	-h | --help) usage 0 ;;
	*) usage ;;
	esac
done
case $KERNEL in 6.1 | 6.12) ;; *) usage ;; esac
case $LOAD in messaging | forks | pingpong | mix | busyloops | pinnedhogs | forkpin | pphogs | spread | rtapp | \
	nohzspread | ppbail | exitsync | equalwake | kthreadpin) LOADS=$LOAD ;; all) LOADS="messaging forks pingpong" ;; *) usage ;; esac
[ -n "$OUT" ] || usage
case $ACCEL in tcg | kvm) ;; *) usage ;; esac
case $RECORDER in trace-cmd | schedreplay) ;; *) usage ;; esac
if [ -n "$INPROBES" ]; then
	[ "$RECORDER" = schedreplay ] || [ -z "$NOPID" ] ||
		die "--input-probes: needs the BTF offsets that --no-pid leaves out"
	[ -z "$BENCH" ] || die "--input-probes: not with --bench"
fi
if [ -n "$LBPROBES" ]; then
	[ "$RECORDER" = trace-cmd ] || die "--lb-probes: only with --recorder trace-cmd"
	[ -z "$NOPID" ] || die "--lb-probes: needs the BTF offsets that --no-pid leaves out"
	[ -z "$BENCH" ] || die "--lb-probes: not with --bench"
fi
# --bench: both recorders in one initramfs, no probes (schedreplay record
# --no-probes, trace-cmd without -e schedreplay), one load
if [ -n "$BENCH" ]; then
	case $BENCH in '' | *[!0-9]* | 0) usage ;; esac
	[ "$LOAD" != all ] || usage
	RECORDER=bench
	[ -n "$BUFSET" ] || BUFKB=1024
	NOPID=1
fi
# schedreplay record: its own -b default unless --buffer is given; it adds the
# probes itself, with a pid field only where the kernel takes BTF arguments
# (6.6+), so the BTF offset below is not needed
if [ "$RECORDER" = schedreplay ]; then
	[ -n "$BUFSET" ] || BUFKB=
	NOPID=1
fi

# ------------------------------------------------------ host packages ----
# trace-cmd is needed on the host for the summary (trace-cmd report) with
# either recorder; bpftool only for the pid offset of the hand-made probe
HOST_PKGS="qemu-system-x86 busybox-static cpio xz-utils zstd trace-cmd"
[ "$RECORDER" = trace-cmd ] && HOST_PKGS="$HOST_PKGS bpftool"
if [ "$LOAD" = rtapp ]; then
	[ -r "$RTAPP" ] || die "--load rtapp needs --rtapp FILE (a readable rt-app workload)"
	HOST_PKGS="$HOST_PKGS rt-app"
elif [ "$LOAD" = equalwake ]; then
	# seed 004 3/4's load is an rt-app workload of this folder
	[ -z "$RTAPP" ] || die "--rtapp FILE goes with --load rtapp (equalwake runs $HERE/equalwake.json)"
	RTAPP=$HERE/equalwake.json
	HOST_PKGS="$HOST_PKGS rt-app"
elif [ -n "$RTAPP" ]; then
	die "--rtapp FILE goes with --load rtapp"
fi
missing=
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ -z "$NOINSTALL" ] || die "missing host packages:$missing"
	[ "$(id -u)" = 0 ] || die "missing host packages:$missing (run as root, or apt-get install them)"
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $missing >/dev/null; }
fi
BUSYBOX=/bin/busybox
[ -x $BUSYBOX ] || die "no $BUSYBOX (busybox-static)"
file -L $BUSYBOX 2>/dev/null | grep -q dynamic && die "$BUSYBOX is not static"
if [ "$RECORDER" != trace-cmd ]; then
	if [ ! -x "$SRBIN" ]; then
		[ "$SRBIN" = "$TOP/schedreplay" ] || die "no schedreplay binary at $SRBIN"
		say "building schedreplay (make)"
		make -C "$TOP" >&2 || die "make failed"
		[ -x "$SRBIN" ] || die "make did not build $SRBIN"
	fi
	SRBIN=$(cd "$(dirname "$SRBIN")" && pwd)/$(basename "$SRBIN")
fi

# ------------------------------------------------------------- kernel ----
mkdir -p "$CACHE"
KVER_DEB=
if [ -n "$CACHED" ]; then
	# the newest .deb of the series in the cache, without asking apt
	if [ -n "$KPKG" ]; then
		pat="${KPKG}_*_amd64.deb"
	elif [ "$KERNEL" = 6.1 ]; then
		pat='linux-image-6.1.0-*-amd64_*_amd64.deb'
	else
		pat='linux-image-6.12.*-amd64_*_amd64.deb'
	fi
	# shellcheck disable=SC2086  # $pat is a glob
	deb=$(cd "$CACHE" && ls $pat 2>/dev/null | sort -V | tail -1 || true)
	if [ -n "$deb" ]; then
		KPKG=${deb%%_*}
		KVER_DEB=${deb#*_}
		KVER_DEB=${KVER_DEB%_amd64.deb}
		KVER_DEB=${KVER_DEB//%3a/:}
		deb=$CACHE/$deb
	fi
fi
if [ -z "$KPKG" ]; then
	if [ "$KERNEL" = 6.1 ]; then
		re='^linux-image-6\.1\.0-[0-9]+-amd64$'
	else
		re='^linux-image-6\.12\.[0-9]+([+~][a-z0-9.]+)?-amd64$'
	fi
	KPKG=$(apt-cache search --names-only "$re" | awk '{ print $1 }' | sort -V | tail -1)
	if [ -z "$KPKG" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -q >/dev/null
		KPKG=$(apt-cache search --names-only "$re" | awk '{ print $1 }' | sort -V | tail -1)
	fi
	[ -n "$KPKG" ] || die "no package matching $re on the configured mirrors (apt-get update?)"
fi
if [ -z "$KVER_DEB" ]; then
	KVER_DEB=$(apt-cache policy "$KPKG" | awk '/Candidate:/ { print $2 }')
	[ -n "$KVER_DEB" ] && [ "$KVER_DEB" != "(none)" ] || die "$KPKG has no candidate version"
	deb=$(ls "$CACHE/${KPKG}_"*.deb 2>/dev/null | grep -F "_${KVER_DEB//:/%3a}_" | head -1 || true)
fi
say "kernel package $KPKG $KVER_DEB"
if [ -z "$deb" ]; then
	# (as root apt warns that _apt cannot write there and downloads anyway)
	(cd "$CACHE" && apt-get download "$KPKG=$KVER_DEB") >"$CACHE/download.log" 2>&1 ||
		{ cat "$CACHE/download.log" >&2; die "apt-get download $KPKG failed"; }
	deb=$(ls "$CACHE/${KPKG}_"*.deb | grep -F "_${KVER_DEB//:/%3a}_" | head -1)
fi
KDIR=$CACHE/${KPKG}_${KVER_DEB//:/_}
if [ ! -f "$KDIR/.unpacked" ]; then
	rm -rf "$KDIR"
	dpkg -x "$deb" "$KDIR"
	# keep boot/ and the module directories the initramfs draws from
	# (virtio_pci, virtio_blk and their dependencies): ~20 MB, not ~500
	for m in "$KDIR"/lib/modules/*/kernel "$KDIR"/usr/lib/modules/*/kernel; do
		[ -d "$m" ] || continue
		find "$m" -mindepth 1 -maxdepth 1 ! -name drivers -exec rm -rf {} +
		find "$m/drivers" -mindepth 1 -maxdepth 1 ! -name virtio ! -name block -exec rm -rf {} +
	done
	touch "$KDIR/.unpacked"
fi
VMLINUZ=$(ls "$KDIR"/boot/vmlinuz-*)
KCONFIG=$(ls "$KDIR"/boot/config-*)
KREL=${VMLINUZ##*/vmlinuz-}
MODDIR=$KDIR/lib/modules/$KREL
[ -d "$MODDIR" ] || MODDIR=$KDIR/usr/lib/modules/$KREL
HZ=$(sed -n 's/^CONFIG_HZ=//p' "$KCONFIG")

# task_struct->pid, ->wakee_flips and ->se.avg.{load,util,runnable}_avg
# offsets from the kernel's own BTF (vmlinux extracted from the bzImage: xz
# in 6.1, zstd in 6.12), with bpftool
if [ -z "$NOPID" ] && { [ ! -f "$KDIR/.pidoff" ] || [ ! -f "$KDIR/.flipsoff" ] ||
	[ ! -f "$KDIR/.peltoff" ] || [ ! -f "$KDIR/.prevoff" ] || [ ! -f "$KDIR/.baloff" ] ||
	[ ! -f "$KDIR/.lboff" ] ||
	[ ! -f "$KDIR/.inoff" ] || [ ! -f "$KDIR/.sdsoff" ]; }; then
	: >"$KDIR/.inoff"
	: >"$KDIR/.sdsoff"
	: >"$KDIR/.baloff"
	: >"$KDIR/.lboff"
	: >"$KDIR/.pidoff"
	: >"$KDIR/.flipsoff"
	: >"$KDIR/.peltoff"
	: >"$KDIR/.prevoff"
	vml=$KDIR/vmlinux.tmp
	for magic in '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dc' '\x1f\x8b\x08:gzip -dc'; do
		off=$(LC_ALL=C grep -obUaP "${magic%%:*}" "$VMLINUZ" | head -1 | cut -d: -f1 || true)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$VMLINUZ" | ${magic#*:} >"$vml" 2>/dev/null || true
		if head -c 4 "$vml" | grep -q ELF; then break; fi
	done
	bpftool btf dump file "$vml" format raw >"$vml.btf" 2>/dev/null || true
	rm -f "$vml"
	# bits S M: the bit offset of member M of struct S
	bits() {
		awk -v s="$1" -v m="$2" '/^\[/ { inb = 0 }
			$2 == "STRUCT" && $3 == "\047" s "\047" { inb = 1 }
			inb && $1 == "\047" m "\047" { sub(/.*bits_offset=/, ""); print; exit }' "$vml.btf" || true
	}
	for m in pid wakee_flips; do
		b=$(bits task_struct "$m")
		f=$KDIR/.pidoff
		[ "$m" = pid ] || f=$KDIR/.flipsoff
		if [ -n "$b" ] && [ $((b % 8)) = 0 ]; then
			printf '0x%x\n' $((b / 8)) >"$f"
		else
			say "could not find task_struct->$m in the BTF: no ${m#wakee_} field"
		fi
	done
	# the task's own PELT signals, p->se.avg.*_avg (embedded structs)
	se=$(bits task_struct se) avg=$(bits sched_entity avg)
	for m in load_avg util_avg runnable_avg; do
		b=$(bits sched_avg "$m")
		if [ -n "$se" ] && [ -n "$avg" ] && [ -n "$b" ] && [ $(((se + avg + b) % 8)) = 0 ]; then
			printf '%s=0x%x ' "${m%_avg}" $(((se + avg + b) / 8)) >>"$KDIR/.peltoff"
		fi
	done
	# prev_cpu's cpu_load(): p->se.cfs_rq->rq->cfs.avg.load_avg, as
	# "C B A" for +C(+B(+A(%di)))
	a=$(bits sched_entity cfs_rq) b=$(bits cfs_rq rq) c=$(bits rq cfs)
	d=$(bits cfs_rq avg) e=$(bits sched_avg load_avg)
	if [ -n "$se" ] && [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ -n "$d" ] && [ -n "$e" ]; then
		printf '0x%x 0x%x 0x%x\n' $(((c + d + e) / 8)) $((b / 8)) $(((se + a) / 8)) >"$KDIR/.prevoff"
	fi
	# the balance probes' fields (trace-cmd mode): rq->cpu, ->avg_idle, ->sd,
	# sched_domain->max_newidle_lb_cost, ->level, as "cpu=0x.. avg_idle=0x.. ..."
	for sm in rq:cpu rq:avg_idle rq:sd sched_domain:max_newidle_lb_cost sched_domain:level; do
		b=$(bits "${sm%%:*}" "${sm#*:}")
		[ -n "$b" ] && [ $((b % 8)) = 0 ] && printf '%s=0x%x ' "${sm#*:}" $((b / 8)) >>"$KDIR/.baloff"
	done
	# --input-probes (trace-cmd mode): "name=OFF ..." in bytes.  rq_*: from
	# struct rq to rq->cfs.avg.{load,util,runnable}_avg, ->cfs.avg.util_est
	# (6.1: struct util_est, whose first member is .enqueued), ->nr_running,
	# ->ttwu_pending; cfs_*: from struct cfs_rq to ->avg.*, ->rq, and
	# rq->cpu; every one present or none
	d=$(bits cfs_rq avg) c=$(bits rq cfs) q=$(bits cfs_rq rq) u=$(bits rq cpu)
	inoff=
	for m in load_avg util_avg runnable_avg util_est last_update_time; do
		b=$(bits sched_avg "$m")
		if [ -z "$b" ] || [ -z "$c" ] || [ -z "$d" ]; then inoff=; break; fi
		inoff="$inoff rq_$m=0x$(printf %x $(((c + d + b) / 8))) cfs_$m=0x$(printf %x $(((d + b) / 8)))"
	done
	for sm in rq:nr_running rq:ttwu_pending; do
		b=$(bits "${sm%%:*}" "${sm#*:}")
		if [ -z "$inoff" ] || [ -z "$b" ]; then inoff=; break; fi
		inoff="$inoff rq_${sm#*:}=0x$(printf %x $((b / 8)))"
	done
	[ -n "$inoff" ] && [ -n "$q" ] && [ -n "$u" ] &&
		printf '%s cfs_rq=0x%x rq_cpu=0x%x\n' "${inoff# }" $((q / 8)) $((u / 8)) >"$KDIR/.inoff"
	# and SIS_UTIL's hint, sched_domain_shared->nr_idle_scan (6.0+), for
	# rqstat's cNscan: "sds_nr_idle_scan=OFF", or empty
	b=$(bits sched_domain_shared nr_idle_scan)
	[ -n "$b" ] && printf 'sds_nr_idle_scan=0x%x\n' $((b / 8)) >"$KDIR/.sdsoff"
	# --lb-probes (trace-cmd mode): "name=OFF ..." in bytes, every one
	# present or none.  Of the task (can_migrate_task()'s %di): pid,
	# numa_preferred_nid, se.exec_start, se.avg.util_avg, se.avg.util_est
	# (6.1: .enqueued, the struct's first member; 6.12: the u32, its bit 31
	# UTIL_AVG_UNCHANGED); of struct lb_env (%si): its members; of the
	# sched_domain and the source rq it points to: level,
	# nr_balance_failed, clock_task, nr_running
	se=$(bits task_struct se) ex=$(bits sched_entity exec_start) av=$(bits sched_entity avg)
	lboff=
	for sm in task_struct:pid task_struct:numa_preferred_nid sched_avg:util_avg \
		sched_avg:util_est lb_env:sd lb_env:src_rq lb_env:src_cpu lb_env:dst_cpu \
		lb_env:idle lb_env:imbalance lb_env:flags lb_env:loop lb_env:fbq_type \
		lb_env:migration_type sched_domain:level sched_domain:nr_balance_failed \
		rq:clock_task rq:nr_running; do
		b=$(bits "${sm%%:*}" "${sm#*:}")
		if [ -z "$b" ] || [ -z "$se" ] || [ -z "$ex" ] || [ -z "$av" ]; then lboff=; break; fi
		[ "${sm%%:*}" = sched_avg ] && b=$((se + av + b))
		lboff="$lboff ${sm%%:*}.${sm#*:}=0x$(printf %x $((b / 8)))"
	done
	[ -n "$lboff" ] && printf '%s task_struct.exec_start=0x%x\n' "${lboff# }" $(((se + ex) / 8)) >"$KDIR/.lboff"
	rm -f "$vml.btf"
fi
PIDOFF= FLIPSOFF= PELTOFF= PREVOFF= BALOFF=
[ -z "$NOPID" ] && PIDOFF=$(cat "$KDIR/.pidoff") && FLIPSOFF=$(cat "$KDIR/.flipsoff") &&
	PELTOFF=$(cat "$KDIR/.peltoff") && PREVOFF=$(cat "$KDIR/.prevoff")
[ -z "$NOPID" ] && [ -n "$BALPROBES" ] && BALOFF=$(cat "$KDIR/.baloff")
LBOFF=
if [ -n "$LBPROBES" ]; then
	LBOFF=$(cat "$KDIR/.lboff")
	[ -n "$LBOFF" ] || die "--lb-probes: the kernel's BTF lacks a struct lb_env / sched_domain / rq member the probes read"
fi
INOFF=
# the schedreplay recorder defines the input probes itself (--input-probes)
if [ -n "$INPROBES" ] && [ "$RECORDER" = trace-cmd ]; then
	INOFF=$(cat "$KDIR/.inoff")
	[ -n "$INOFF" ] || die "--input-probes: the kernel's BTF lacks a struct rq / cfs_rq member the probes read"
	INOFF="$INOFF $(cat "$KDIR/.sdsoff")"
fi
say "kernel $KREL, CONFIG_HZ=$HZ, task_struct->pid at ${PIDOFF:-(not used)}, ->wakee_flips at ${FLIPSOFF:-(not used)}, ->se.avg: ${PELTOFF:-(not used)}, prevload: ${PREVOFF:-(not used)}"

# ---------------------------------------------------------- initramfs ----
# base archive: busybox, the recorder (trace-cmd or schedreplay) + the
# libraries ldd lists for it, virtio modules, /init
INITRD=$KDIR/initrd-base-$RECORDER.cpio.gz
build_initrd() {
	local r f rec
	# a directory and archive of this run's own: runs may share the cache
	r=$(mktemp -d "$KDIR/initrd.root.XXXXXX")
	IROOT=$r
	chmod 755 "$r"
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,out,etc,boot,lib/modules/sr}
	cp $BUSYBOX "$r/bin/busybox"
	ln -s busybox "$r/bin/sh"
	install -m 755 "$HERE/init.sh" "$r/init"
	rec=
	if [ "$RECORDER" != trace-cmd ]; then
		# only what the binary needs to start: babeltrace2's plugins are
		# loaded at run time for CTF input, which record never reads
		rec=$SRBIN
		cp "$SRBIN" "$r/usr/bin/schedreplay"
		# the kernel config, for the "kernel ... hz N" and "config" metadata
		cp "$KCONFIG" "$r/boot/"
	fi
	if [ "$RECORDER" != schedreplay ]; then
		rec="$rec $(command -v trace-cmd)"
		cp "$(command -v trace-cmd)" "$r/usr/bin/trace-cmd"
	fi
	# shellcheck disable=SC2086  # $rec: one or two binaries
	for f in $(for b in $rec; do ldd "$b"; done |
		awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }' | sort -u); do
		mkdir -p "$r$(dirname "$f")"
		cp -L "$f" "$r$f"
	done
	# virtio_pci, virtio_blk and their dependencies (from .modinfo), in load
	# order; those built in (6.12: all but virtio_blk) are skipped
	local order=() seen=" "
	addmod() {
		local name=$1 f dep
		case $seen in *" $name "*) return ;; esac
		seen="$seen$name "
		if grep -qE "/$name\.ko(\.[a-z]+)?$" "$MODDIR/modules.builtin" 2>/dev/null; then return; fi
		f=$(find "$MODDIR/kernel" -name "$name.ko" -o -name "$name.ko.xz" -o -name "$name.ko.zst" -o -name "$name.ko.gz" | head -1)
		[ -n "$f" ] || die "module $name not found in $MODDIR"
		case $f in
		*.xz) xz -dc "$f" >"$r/lib/modules/sr/$name.ko" ;;
		*.zst) zstd -qdc "$f" >"$r/lib/modules/sr/$name.ko" ;;
		*.gz) gzip -dc "$f" >"$r/lib/modules/sr/$name.ko" ;;
		*) cp "$f" "$r/lib/modules/sr/$name.ko" ;;
		esac
		for dep in $(tr '\0' '\n' <"$r/lib/modules/sr/$name.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
			addmod "${dep//-/_}"
		done
		order+=("$name")
	}
	addmod virtio_pci
	addmod virtio_blk
	printf '%s\n' "${order[@]}" >"$r/lib/modules/sr/order"
	(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -6n) >"$r.cpio.gz"
	mv "$r.cpio.gz" "$INITRD"
	rm -rf "$r"
	IROOT=
}
build_initrd
say "initramfs $(stat -c %s "$INITRD") bytes (modules: $(zcat "$INITRD" | cpio -i --to-stdout --quiet lib/modules/sr/order | paste -sd' ' -))"

# ------------------------------------------------------------ records ----
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
qemu_accel() {
	if [ "$ACCEL" = kvm ]; then echo "-accel kvm -cpu host"; else echo "-accel tcg,thread=multi -cpu max"; fi
}

write_topo() {	# write_topo TOPOLOGY_DIR: schedreplay topology file on stdout
	local t=$1/sys/devices/system c n idx llc l nllc=0
	local -A llcs=()
	echo "# Recorded on a 2-node QEMU guest, kernel $(cat "$1/../uname-r" 2>/dev/null || echo "?")."
	echo "# Written from the guest's sysfs by scripts/numa-guest/record.sh (llc: distinct"
	echo "# shared_cpu_list of the last cache index; core/package: cpu*/topology)."
	for c in $(ls -d "$t"/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -n); do
		n=""
		for f in "$t"/node/node*/cpulist; do
			if cpu_in_list "$c" "$(cat "$f")"; then n=${f%/cpulist}; n=${n##*node}; fi
		done
		# LLC: the highest cache index (index3 on x86).  Its sysfs "id" is
		# per CPU under QEMU TCG (cpu0..3 = 0..3) although shared_cpu_list
		# says 0-1 and 2-3, and the kernel's MC domains follow the list:
		# number the distinct shared_cpu_lists instead.
		idx=$(ls -d "$t/cpu/cpu$c"/cache/index* 2>/dev/null | sort -V | tail -1)
		llc=
		if [ -n "$idx" ] && [ -f "$idx/shared_cpu_list" ]; then
			l=$(cat "$idx/shared_cpu_list")
			if [ -z "${llcs[$l]:-}" ]; then llcs[$l]=$nllc; nllc=$((nllc + 1)); fi
			llc=${llcs[$l]}
		fi
		printf 'cpu %s core %s package %s' "$c" "$(cat "$t/cpu/cpu$c/topology/core_id")" \
			"$(cat "$t/cpu/cpu$c/topology/physical_package_id")"
		[ -n "$llc" ] && printf ' llc %s' "$llc"
		printf ' node %s\n' "${n:-0}"
	done
	echo
	for f in $(ls -d "$t"/node/node[0-9]* | sort -V); do
		echo "distance ${f##*node} $(cat "$f/distance")"
	done
}
cpu_in_list() {	# cpu_in_list CPU LIST ("0-1,4")
	local c=$1 part
	for part in ${2//,/ }; do
		case $part in
		*-*) [ "$c" -ge "${part%-*}" ] && [ "$c" -le "${part#*-}" ] && return 0 ;;
		*) [ "$c" = "$part" ] && return 0 ;;
		esac
	done
	return 1
}

# an oops or panic of the guest kernel.  Seen once under multi-threaded TCG
# (6.1, 14 s after boot, on a 2-core CI machine): a call through a NULL
# pointer in run_ksoftirqd, the same class of emulation fault as the int3
# spins below; the run is booted again like a stalled one.
CRASH_RE='Kernel panic - not syncing|BUG: kernel NULL pointer dereference|BUG: unable to handle|general protection fault|Oops: [0-9]|invalid opcode: [0-9]'
guest_crashed() { grep -qE "$CRASH_RE" "$1"; }

record_one() {	# record_one LOAD
	local load=$1 name=numa-$KERNEL-$1 w img rc
	w=$(mktemp -d "${TMPDIR:-/tmp}/sr-numa.XXXXXX")
	img=$w/out.img
	mkdir -p "$w/conf/etc"
	cat >"$w/conf/etc/sr.conf" <<EOF
SR_LOAD=$load
SR_PIDOFF=$PIDOFF
SR_FLIPSOFF=$FLIPSOFF
SR_PELTOFF="$PELTOFF"
SR_PREVOFF="$PREVOFF"
SR_BALPROBES=$BALPROBES
SR_BALOFF="$BALOFF"
SR_INPROBES=$INPROBES
SR_INOFF="$INOFF"
SR_LBPROBES=$LBPROBES
SR_LBOFF="$LBOFF"
SR_BUFKB=$BUFKB
SR_SCALE=$SCALE
SR_TRACECMD_OPTS="$TCOPTS"
SR_RECORDER=$RECORDER
SR_BENCH=$BENCH
$SETS
EOF
	# --load rtapp / equalwake: the workload, rt-app and the libraries it loads
	if [ "$load" = rtapp ] || [ "$load" = equalwake ]; then
		local f
		mkdir -p "$w/conf/usr/bin"
		cp "$RTAPP" "$w/conf/etc/sr-rtapp.json"
		cp "$(command -v rt-app)" "$w/conf/usr/bin/rt-app"
		# glibc dlopens libgcc_s for pthread_exit (ldd does not list it)
		for f in $(ldd "$(command -v rt-app)" |
			awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }' | sort -u) \
			"$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ { print $NF; exit }')"; do
			mkdir -p "$w/conf$(dirname "$f")"
			cp -L "$f" "$w/conf$f"
		done
	fi
	(cd "$w/conf" && find . | cpio -o -H newc --quiet | gzip -n) >"$w/conf.cpio.gz"
	cat "$INITRD" "$w/conf.cpio.gz" >"$w/initrd.gz"
	# shellcheck disable=SC2046
	local qemu=(qemu-system-x86_64 -machine q35 $(qemu_accel) -m 1024
		-smp 4,sockets=2,cores=2,threads=1
		-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1
		-numa dist,src=0,dst=1,val=20
		-nographic -no-reboot -nodefaults -serial stdio -display none
		-kernel "$VMLINUZ" -initrd "$w/initrd.gz"
		-append "console=ttyS0 sched_verbose panic=-1 loglevel=5"
		-drive "file=$img,format=raw,if=virtio")
	local app i crashed=
	for i in "${!qemu[@]}"; do
		[ "${qemu[i]}" = -append ] && app=$((i + 1))	# the -append string
	done
	# QEMU runs in the background, watched: under TCG with several threads
	# a vCPU sometimes loops forever in the int3 handler while the kernel
	# patches its text (static keys at boot, kprobe arming): the guest then
	# reports an RCU stall.  Such a run is killed and started again.
	local attempt=0 s started secs t0 qpid
	while :; do
		attempt=$((attempt + 1))
		say "$name: booting ($ACCEL), attempt $attempt"
		# --crash-first-boot: boots panic on purpose until one has (one
		# may stall before /init, as any boot may)
		qemu[app]=${qemu[app]% sr.crash=1}
		[ -n "$CRASHFIRST" ] && [ -z "$crashed" ] && qemu[app]="${qemu[app]} sr.crash=1"
		rm -f "$img"
		truncate -s 512M "$img"
		t0=$(date +%s.%N)
		: >"$w/serial.log"
		"${qemu[@]}" </dev/null >"$w/serial.log" 2>&1 &
		qpid=$!
		QPID=$qpid
		rc= started= s=0
		while :; do
			if ! kill -0 "$qpid" 2>/dev/null; then
				rc=0
				wait "$qpid" || rc=$?
				# panic=-1 and -no-reboot: a guest that oopses ends QEMU
				[ "$rc" = 0 ] && guest_crashed "$w/serial.log" && rc=crash
				break
			fi
			[ -z "$started" ] && grep -q 'sr-guest: recording' "$w/serial.log" && started=$s
			if grep -q 'rcu: INFO: .* detected stalls' "$w/serial.log"; then
				rc=stall
			elif guest_crashed "$w/serial.log"; then
				rc=crash
			elif [ -z "$started" ] && [ "$s" -ge "$BOOT_TIMEOUT" ]; then
				rc=boot-timeout
			elif [ "$s" -ge "$TIMEOUT" ]; then
				rc=timeout
			fi
			if [ -n "$rc" ]; then
				kill "$qpid" 2>/dev/null || true
				wait "$qpid" 2>/dev/null || true
				break
			fi
			sleep 1
			s=$((s + 1))
		done
		secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		say "$name: QEMU ended ($rc) after ${secs} s"
		cp "$w/serial.log" "$w/serial.$attempt.log"
		case $rc in
		0) break ;;
		stall | boot-timeout | timeout)
			[ "$attempt" -lt "$RETRIES" ] || break
			grep -m1 -B2 -A12 'detected stalls' "$w/serial.log" | grep -E 'RIP|stall|sr-guest' | head -4 >&2 || true ;;
		crash)
			crashed=1
			# the first lines of the oops: what it hit and where
			grep -m1 -A14 -E "$CRASH_RE" "$w/serial.log" |
				grep -E "$CRASH_RE|RIP:|Call Trace|^\[ *[0-9.]+\]  [a-z_]+\+0x" | head -8 >&2 || true
			[ "$attempt" -lt "$RETRIES" ] || break ;;
		*) break ;;
		esac
	done
	QPID=
	ATTEMPTS=$attempt
	mkdir -p "$w/res"
	if [ -n "$BENCH" ]; then
		# the benchmark's files as the guest wrote them; bench/guest-overhead.sh
		# reads them
		if ! tar -xf "$img" -C "$w/res" 2>/dev/null || [ ! -f "$w/res/bench.txt" ] ||
			[ -f "$w/res/FAILED" ]; then
			tail -40 "$w/serial.log" >&2
			[ -f "$w/res/FAILED" ] && cat "$w/res/FAILED" >&2
			die "$name: no benchmark results (work dir kept: $w)"
		fi
		rm -rf "$OUT/$name.bench"
		mkdir -p "$OUT/$name.bench"
		cp -a "$w/res/." "$OUT/$name.bench/"
		cp "$w/serial.log" "$OUT/$name.bench/serial.log"
		{
			echo "kernel package: $KPKG $KVER_DEB"
			echo "qemu: ${qemu[*]}" | sed "s|$w/||g; s|$KDIR/||g"
			echo "host: $(qemu-system-x86_64 --version | head -1); $("$SRBIN" --version 2>/dev/null | head -1); trace-cmd $(dpkg-query -W -f='${Version}' trace-cmd)"
			echo "load: $load (scale $SCALE%), $BENCH runs per recorder, buffer $BUFKB KB per cpu"
			echo "wall time of the QEMU run: ${secs} s ($ACCEL, attempt $ATTEMPTS)"
		} >"$OUT/$name.bench/host.txt"
		rm -rf "$w"
		return 0
	fi
	if ! tar -xf "$img" -C "$w/res" 2>/dev/null || [ ! -f "$w/res/trace.dat" ] || [ -f "$w/res/FAILED" ]; then
		tail -40 "$w/serial.log" >&2
		[ -f "$w/res/FAILED" ] && cat "$w/res/FAILED" >&2
		[ -f "$w/res/kprobe-error.txt" ] && cat "$w/res/kprobe-error.txt" >&2
		[ -f "$w/res/record.log" ] && tail -20 "$w/res/record.log" >&2
		die "$name: no trace (work dir kept: $w)"
	fi
	rm -rf "$OUT/$name.topology"
	mkdir -p "$OUT/$name.topology"
	cp -a "$w/res/." "$OUT/$name.topology/"
	mv "$OUT/$name.topology/trace.dat" "$OUT/$name.dat"
	cp "$w/serial.log" "$OUT/$name.topology/serial.log"
	cp "$KCONFIG" "$OUT/$name.topology/"
	write_topo "$OUT/$name.topology/topology" >"$OUT/$name.topo"
	{
		echo "# $name: recorded by scripts/numa-guest/record.sh on $(date -u +%Y-%m-%d)"
		echo "kernel package: $KPKG $KVER_DEB (sha256 $(sha256sum "$deb" | cut -c1-16)...)"
		echo "CONFIG_HZ: $HZ (from $(basename "$KCONFIG"))"
		echo "CONFIG_PREEMPT: $(grep -E '^CONFIG_PREEMPT(_VOLUNTARY|_DYNAMIC)?=y' "$KCONFIG" | paste -sd' ' -)"
		echo "task_struct->pid offset (BTF): ${PIDOFF:-not used}"
		echo "task_struct->wakee_flips offset (BTF): ${FLIPSOFF:-not used}"
		echo "task_struct->se.avg offsets (BTF): ${PELTOFF:-not used}"
		echo "->se.cfs_rq->rq->cfs.avg.load_avg offsets (BTF): ${PREVOFF:-not used}"
		echo "qemu: ${qemu[*]}" | sed "s|$w/||g; s|$KDIR/||g"
		if [ "$RECORDER" = schedreplay ]; then
			echo "host: $(qemu-system-x86_64 --version | head -1); $("$SRBIN" --version 2>/dev/null | head -1) (guest copy of $SRBIN)"
			echo "schedreplay record: ${BUFKB:+-b $BUFKB }(its default events and select_rq probes)"
		else
			echo "host: $(qemu-system-x86_64 --version | head -1); trace-cmd $(dpkg-query -W -f='${Version}' trace-cmd) (guest copy of the host binary)"
			echo "trace-cmd record: -b $BUFKB $TCOPTS -e sched:{switch,waking,wakeup,wakeup_new,migrate_task,process_fork,process_exit,process_free} -e schedreplay"
		fi
		echo "load: $load (scale $SCALE%${SETS:+; $(echo $SETS)}); wall time of the QEMU run: ${secs} s ($ACCEL, attempt $ATTEMPTS)"
		echo
		echo "## guest facts"
		cat "$w/res/facts.txt"
		echo
		echo "## summary (trace-cmd report on the host)"
		analyze "$OUT/$name.dat" "$OUT/$name.topo"
	} >"$OUT/$name.facts.txt"
	grep -vE '^(/sys/kernel/debug/sched/domains|/sys/devices/system/cpu/cpu[0-9]+/(topology|cache)/)' \
		"$OUT/$name.facts.txt" | sed -n '/^## summary/,$p' >&2
	rm -rf "$w"
}

for l in $LOADS; do
	record_one "$l"
done
say "done: $(cd "$OUT" && ls -d numa-"$KERNEL"-* | paste -sd' ' -)"
