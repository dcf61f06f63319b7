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
)
(
	cd text/fail
	rm -f ./*.txt
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
	{ head -n 12 $src; printf 'garbage in the middle of a trace\n'; tail -n +13 $src; } >malformed-line.txt
	{ head -n 20 $src; printf '\000\000\000binary'; } >nul-bytes.txt
	sed '12s/target_cpu=[0-9]*/target_cpu=/' $src >empty-value.txt
	head -c 1500 $src >truncated-line.txt
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
