#!/bin/bash
# Regenerate the bad-input corpus under tests/fixtures/*/fail/ from the
# committed good fixtures, and (with --expect) the .expect file of each case
# from the current binary's message.  Run on purpose only, then read every
# new .expect: it is the contract t2000-bad-input.sh holds the code to.
set -e
cd "$(dirname "$0")/fixtures"
S=tracedat/succeed
v7=$S/live-6.18-instance-v7.dat
v6=$S/live-6.18-instance-v6.dat

# byte offset of the first occurrence of a string in a file
offset_of() {
	grep -abo -m1 -- "$2" "$1" | head -n 1 | cut -d: -f1
}
# patch N bytes at OFFSET with the given printf-escaped bytes
patch_bytes() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

mkdir -p tracedat/fail text/fail ctf/fail
(
	cd tracedat/fail
	rm -f ./*.dat
	: >zero-length.dat
	head -c 4096 /dev/urandom | tr '\027' 'x' >garbage.dat
	cp "../../$v7" wrong-magic.dat
	patch_bytes wrong-magic.dat 3 'TRACING'
	cp "../../$v7" version-5.dat
	patch_bytes version-5.dat 10 '5'
	cp "../../$v7" version-99.dat
	patch_bytes version-99.dat 10 '9'
	head -c 17 "../../$v7" >trunc-in-initial-header-v7.dat
	head -c 300 "../../$v7" >trunc-in-headers-v7.dat
	head -c $(( $(offset_of "../../$v6" sched_switch) + 40 )) "../../$v6" >trunc-in-event-formats-v6.dat
	size6=$(stat -c %s "../../$v6")
	head -c $((size6 - 5000)) "../../$v6" >trunc-in-cpu-data-v6.dat
	size7=$(stat -c %s "../../$v7")
	head -c $((size7 - 3000)) "../../$v7" >trunc-in-cpu-data-v7.dat
	head -c $((size7 / 2)) "../../$v7" >trunc-half-v7.dat
	# flip bytes in the middle of the compressed cpu data
	cp "../../$v7" corrupt-compressed-chunk-v7.dat
	patch_bytes corrupt-compressed-chunk-v7.dat $((size7 - 200000)) '\377\377\377\377\000\000\000\000\377\377\377\377'
	printf 'not a trace at all\n' >prose.dat
	# reproducers found by fuzzing (issue 17), byte edits of good fixtures:
	# what crashed libtraceevent/libtracecmd or reached the engine unchecked
	r6=../../$S/live-6.18-record-v6.dat
	n61=../../tracedat/numa/numa-6.1-busyloops.dat
	cp "$r6" oob-v6-waking-target-cpu-512.dat	# sched_waking target_cpu 0 -> 512
	patch_bytes oob-v6-waking-target-cpu-512.dat 214829 '\002'
	cp "$r6" segv-v6-page-commit-ffffffff.dat	# commit of cpu 0's 6th page
	patch_bytes segv-v6-page-commit-ffffffff.dat 155656 '\377\377\377\377'
	# the same page: a commit past the page's 4080 data bytes but not past
	# the page, and a full page that says a missing-events count follows it
	cp "$r6" page-commit-past-data-v6.dat
	patch_bytes page-commit-past-data-v6.dat 155656 '\372\017\000\000'
	cp "$r6" page-missing-count-past-page-v6.dat
	patch_bytes page-missing-count-past-page-v6.dat 155656 '\360\017\000\300'
	cp "$r6" segv-v6-byterun-m242.dat		# 4096 bytes of 0xff across two pages
	head -c 4096 /dev/zero | tr '\000' '\377' |
		dd of=segv-v6-byterun-m242.dat bs=1 seek=152040 conv=notrunc status=none
	cp "$r6" segv-v6-event-format-nul.dat		# a NUL in an event format
	patch_bytes segv-v6-event-format-nul.dat 4084 '\000'
	cp "$r6" asan-v6-printk-strcmp-overflow.dat	# printk formats: a NUL in a line
	patch_bytes asan-v6-printk-strcmp-overflow.dat 33327 '\000'
	cp "$r6" asan-v6-printk-strdup-overflow.dat
	patch_bytes asan-v6-printk-strdup-overflow.dat 30321 '\000'
	# a print fmt whose __print_flags() names a field the format lacks
	# (libtraceevent's process_entry() crashes; found by fuzzing its parser)
	cp "$r6" segv-v6-print-flags-no-field.dat
	patch_bytes segv-v6-print-flags-no-field.dat $(( $(offset_of "$r6" 'long prev_state;') + 12 )) 'm'
	# sched_switch's format replaced by printable text that crashes
	# libtraceevent's parser (found by fuzzing it), padded with blanks
	at=$(( $(offset_of "$r6" 'name: sched_switch') ))
	cat >fmt.tmp <<'EOT'
name: sched_switch
ID: 372
format:

	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:int prev_prio;	offset:28;	size:4;	signed:1;
	field:long prev_state;	offset:64;	size:8;	signed:1;

print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001ong caller[8];	offset:16;	size:64;	signed:0;
print fmt: "\t=> %ps\n\t=> %ps\n\t=> %ps\n" "\t=>4;	size:4;	signed:1;
EOT
	cp "$r6" segv-v6-print-fmt-cut.dat
	{ cat fmt.tmp; head -c $((1488 - $(stat -c %s fmt.tmp))) /dev/zero | tr '\000' ' '; } |
		dd of=segv-v6-print-fmt-cut.dat bs=1 seek="$at" conv=notrunc status=none
	rm -f fmt.tmp
	# the same format in a system the reader parses only at the first record
	# of its id (read-tracedat.c): refused there, by the child that parses it first
	cp segv-v6-print-fmt-cut.dat segv-v6-lazy-format.dat
	patch_bytes segv-v6-lazy-format.dat "$(offset_of segv-v6-print-fmt-cut.dat 'sched')" 'schxd'
	cp "$n61" segv-v7-compressed-header-section.dat	# two bytes of zstd data
	patch_bytes segv-v7-compressed-header-section.dat 718 '\000\000'
	cp "$n61" asan-v7-compressed-printk-overflow.dat	# compressed printk section
	patch_bytes asan-v7-compressed-printk-overflow.dat 894687 '\200\200'
	patch_bytes asan-v7-compressed-printk-overflow.dat 894691 '\200\200'
	patch_bytes asan-v7-compressed-printk-overflow.dat 894694 '\200\200\200\200\200\200\200\200\200'
)
(
	cd text/fail
	# probe-*.txt are written by hand: keep them
	find . -maxdepth 1 -name "*.txt" ! -name "probe-*" -delete
	src=../succeed/trace-critical-path.txt
	# the first sched_switch loses next_pid; the second gets a bad prev_pid
	awk '/sched_switch:/ && !done { sub(/ next_pid=[0-9]*/, ""); done = 1 } { print }' \
		$src >missing-field.txt
	awk '/sched_switch:/ { n++ } n == 2 && !done { sub(/prev_pid=[0-9]*/, "&x"); done = 1 } { print }' \
		$src >bad-number.txt
	# swap two event lines so that time runs backwards
	awk 'NR == 13 { hold = $0; next } NR == 14 { print; print hold; next } { print }' $src >misordered.txt
	awk '/\[000\]/ && !done { sub(/\[000\]/, "[9999]"); done = 1 } { print }' \
		$src >cpu-out-of-range.txt
	# a <task>-<pid> above INT_MAX, a [<cpu>] above the reader's 65535
	sed '11s/Content-2711 /Content-4294967295 /' $src >pid-out-of-range.txt
	sed '11s/\[003\]/[99999]/' $src >cpu-above-65535.txt
	{ head -n 12 $src; printf 'garbage in the middle of a trace\n'; tail -n +13 $src; } >malformed-line.txt
	{ head -n 20 $src; printf '\000\000\000binary'; } >nul-bytes.txt
	sed '12s/target_cpu=[0-9]*/target_cpu=/' $src >empty-value.txt
	head -c 1500 $src >truncated-line.txt
	# CPU numbers beyond the trace's CPU count, in every CPU field (issue 17;
	# oob-target-cpu*.txt are the reproducers found by fuzzing)
	cat >oob-base.tmp <<'EOT'
cpus=2
          <idle>-0     [000]   10.000000000: sched_switch:         swapper/0:0 [120] R ==> a:100 [120]
               a-100   [000]   10.000100000: sched_switch:         a:100 [120] S ==> swapper/0:0 [120]
          <idle>-0     [001]   10.000200000: sched_switch:         swapper/1:0 [120] R ==> b:200 [120]
               b-200   [001]   10.000300000: sched_waking:         comm=a pid=100 prio=120 target_cpu=0
               b-200   [001]   10.000400000: sched_wakeup:         a:100 [120] CPU:000
EOT
	sed 's/target_cpu=0$/target_cpu=100000/' oob-base.tmp >oob-target-cpu.txt
	sed 's/target_cpu=0$/target_cpu=2/' oob-base.tmp >oob-target-cpu-2.txt
	ln='               b-200   [001]   10.000500000:'
	oob() { { cat oob-base.tmp; printf '%s %s\n' "$ln" "$2"; } >"oob-$1.txt"; }
	oob wakeup-cpu 'sched_wakeup:         a:100 [120] CPU:002'
	oob wakeup-new-target-cpu 'sched_wakeup_new:     comm=c pid=300 prio=120 target_cpu=002'
	oob migrate-orig-cpu 'sched_migrate_task:   comm=a pid=100 prio=120 orig_cpu=5 dest_cpu=1'
	oob migrate-dest-cpu 'sched_migrate_task:   comm=a pid=100 prio=120 orig_cpu=0 dest_cpu=2'
	oob select-rq-prev-cpu 'select_rq:            (select_task_rq_fair+0x0/0x1c0) prev_cpu=2 wake_flags=0x8'
	oob select-rq-ret-cpu 'select_rq_ret:        (try_to_wake_up+0x1e5/0x6c0 <- select_task_rq_fair) cpu=3'
	{ cat oob-base.tmp; printf '%s\n' '               b-200   [002]   10.000500000: sched_switch:         b:200 [120] S ==> swapper/1:0 [120]'; } >oob-event-cpu.txt
	rm -f oob-base.tmp
	# a CPU count beyond what a trace may have (8192)
	sed '1s/cpus=2/cpus=8193/' oob-target-cpu-2.txt >cpus-8193.txt
	{ printf '# tracer: nop\n#\n# entries-in-buffer/entries-written: 5/5   #P:9000\n'
	  tail -n +2 oob-target-cpu-2.txt; } >tracefs-p-9000.txt
)
(
	cd ctf/fail
	rm -rf ./*/
	good=../succeed/lttng-tracefile-rotation/kernel
	mkdir -p no-metadata && cp $good/mychan_0_0 no-metadata/
	mkdir -p empty-dir && touch empty-dir/.keep
	mkdir -p garbage-metadata && cp $good/mychan_0_0 garbage-metadata/ &&
		head -c 4096 /dev/urandom >garbage-metadata/metadata
	mkdir -p truncated-metadata && head -c 3000 $good/metadata >truncated-metadata/metadata &&
		cp $good/mychan_0_0 truncated-metadata/
	pt=../succeed/perf-taskset2
	mkdir -p truncated-stream && cp $pt/metadata truncated-stream/ &&
		head -c 40000 $pt/perf_stream_0 >truncated-stream/perf_stream_0
	mkdir -p corrupt-packet-header && cp $pt/metadata $pt/perf_stream_0 corrupt-packet-header/ &&
		patch_bytes corrupt-packet-header/perf_stream_0 0 '\000\000\000\000'
	mkdir -p no-stream && cp $pt/metadata no-stream/
	# babeltrace2 2.0.4 never returns from this metadata (found by make fuzz)
	mkdir -p babeltrace-metadata-hang && (
		cd babeltrace-metadata-hang &&
		f=../../../../fuzz/known/ctf-babeltrace2-metadata-hang.bin &&
		len=$(( $(od -An -tu1 -N1 $f) * 256 + $(od -An -tu1 -j1 -N1 $f) )) &&
		tail -c +3 $f | head -c $len >metadata &&
		tail -c +$((3 + len)) $f >stream_0)
	mkdir -p bad-tsdl && sed 's/event {/evnt {/' $pt/metadata >bad-tsdl/metadata &&
		cp $pt/perf_stream_0 bad-tsdl/
)

if [ "${1:-}" = --expect ]; then
	sr=../../schedreplay
	for f in tracedat/fail/* text/fail/* ctf/fail/*; do
		case $f in *.expect) continue ;; esac
		# the message with the fixture's path as the test passes it
		(cd ../.. && ./schedreplay info "tests/fixtures/$f" 2>&1 >/dev/null |
			sed "s|$PWD/||g" >"tests/fixtures/$f.expect") || true
	done
	echo "wrote .expect files; read them before committing"
fi
