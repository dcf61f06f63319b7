#!/bin/bash
# replay end to end: every committed trace replays; the database is whole
# (integrity check, tables, one evaluation per decision and model, fidelity
# rows agree with the decisions), an existing database is not overwritten
# without --force, and a failed or interrupted replay leaves no file.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

v7="$FIX/tracedat/succeed/live-6.18-instance-v7.dat"
for f in "$FIX"/tracedat/succeed/*.dat "$FIX"/text/succeed/*.txt "$FIX"/ctf/succeed/lttng-tracefile-rotation; do
	n=$(basename "$f")
	if "$SR" replay -q --json "$f" >"$TMP/f.json" 2>"$TMP/e1"; then
		pass "$n: replays"
	else
		fail "$n: replays" "$(cat "$TMP/e1")"
	fi
done

db="$TMP/run.db"
"$SR" replay -q -o "$db" -m mainline -m v4.15 "$v7" >"$TMP/o" 2>"$TMP/e1"
same "replay -o exits 0" 0 $?
ok "the database passes integrity_check" sh -c "[ \"\$(sqlite3 '$db' 'PRAGMA integrity_check')\" = ok ]"
same "schema version" 4 "$(sqlite3 "$db" 'PRAGMA user_version')"
same "application id" 1397903436 "$(sqlite3 "$db" 'PRAGMA application_id')"
same "integrity check" ok "$(sqlite3 "$db" 'PRAGMA integrity_check')"
same "one run" 1 "$(sqlite3 "$db" 'SELECT count(*) FROM run')"
same "cpu rows: the trace's 2 cpus" 2 "$(sqlite3 "$db" 'SELECT count(*) FROM cpu')"
placed=$(sqlite3 "$db" "SELECT count(*) FROM decision WHERE skip IS NULL")
same "two evaluations per placement (two models)" "$((placed * 2))" \
	"$(sqlite3 "$db" 'SELECT count(*) FROM evaluation')"
same "skipped decisions have no evaluation" 0 \
	"$(sqlite3 "$db" "SELECT count(*) FROM evaluation e JOIN decision d USING (decision_id) WHERE d.skip IS NOT NULL")"
same "fidelity n equals the wakeup placements" \
	"$(sqlite3 "$db" "SELECT count(*) FROM decision WHERE skip IS NULL AND kind = 'wakeup'")" \
	"$(sqlite3 "$db" "SELECT n FROM fidelity JOIN side USING (side_id) WHERE model = 'mainline' AND kind = 'wakeup' AND path IS NULL")"
same "fidelity exact equals the evaluations that match" \
	"$(sqlite3 "$db" "SELECT count(*) FROM decision d JOIN evaluation_v e USING (decision_id) WHERE e.model = 'mainline' AND d.kind = 'wakeup' AND e.cpu = d.actual_cpu")" \
	"$(sqlite3 "$db" "SELECT exact FROM fidelity JOIN side USING (side_id) WHERE model = 'mainline' AND kind = 'wakeup' AND path IS NULL")"
same "every wakeup placement records sync as inferred" 0 \
	"$(sqlite3 "$db" "SELECT count(*) FROM decision WHERE skip IS NULL AND kind = 'wakeup' AND inferred NOT LIKE '%sync%'")"
ok "reason paths are stored" sh -c "[ \$(sqlite3 '$db' \"SELECT count(*) FROM evaluation_v WHERE reason LIKE '%wide%'\") -gt 0 ]"
ok "no temporary file left" sh -c "! ls '$TMP'/run.db.tmp-* 2>/dev/null"

"$SR" replay -q -o "$db" "$v7" >"$TMP/o" 2>"$TMP/e1"
same "an existing database is refused" 1 $?
ok "the refusal says --force" grep -q "exists: choose another name, --append a run to it, or replace it with --force" "$TMP/e1"
ok "--force replaces it" "$SR" replay -q -f -o "$db" "$v7"

# a bad trace: no database at all
"$SR" replay -q -o "$TMP/bad.db" "$FIX/text/fail/misordered.txt" >"$TMP/o" 2>"$TMP/e1"
same "a bad trace exits 1" 1 $?
ok "a bad trace leaves no database" sh -c "! ls '$TMP'/bad.db* 2>/dev/null"

# interrupted: SIGINT while replaying a large input leaves nothing
big="$TMP/big.txt"
for i in $(seq 1 40); do cat "$FIX/text/succeed/atrace-test.txt"; done |
	awk '/^#/ && NR > 20 { next } { print }' >"$big.src"
# make the timestamps increase across the copies
awk 'BEGIN { off = 0; last = 0 }
     /^#/ { print; next }
     { match($0, /[0-9]+\.[0-9]+:/); ts = substr($0, RSTART, RLENGTH - 1) + 0
       if (ts + off < last) off += 10; t = ts + off; last = t
       printf "%s%.6f%s\n", substr($0, 1, RSTART - 1), t, substr($0, RSTART + RLENGTH - 1) }' \
	"$big.src" >"$big"
"$SR" replay -q -o "$TMP/int.db" "$big" >"$TMP/o" 2>"$TMP/e1" &
pid=$!
# the signal once the temporary file exists, so replay's handler is in place
# (a background job of a script starts with SIGINT ignored until then)
for i in $(seq 1 2000); do
	ls "$TMP"/int.db.tmp-* >/dev/null 2>&1 || ! kill -0 $pid 2>/dev/null && break
	sleep 0.001
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
	skip "interrupted replay leaves no database" "the replay finished before the signal"
else
	same "interrupted replay exits 130" 130 $rc
	ok "interrupted replay leaves no database" sh -c "! ls '$TMP'/int.db* 2>/dev/null"
fi

# a signal as the temporary file is created (here: the copy an --append
# starts from) leaves no temporary file: a preloaded open() raises SIGTERM
CC=${CC:-cc}
cat >"$TMP/sigopen.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>

static int opened(const char *path, int flags, int fd)
{
	static int done;

	if (fd >= 0 && (flags & O_CREAT) && strstr(path, ".tmp-") && !done++)
		raise(SIGTERM);
	return fd;
}

#define WRAP(name)							\
int name(const char *path, int flags, ...)				\
{									\
	int (*real)(const char *, int, ...) =				\
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);	\
	va_list ap;							\
	int mode;							\
									\
	va_start(ap, flags);						\
	mode = va_arg(ap, int);						\
	va_end(ap);							\
	return opened(path, flags, real(path, flags, mode));		\
}
WRAP(open)
WRAP(open64)
EOF
if command -v "$CC" >/dev/null 2>&1 &&
   "$CC" -shared -fPIC -o "$TMP/sigopen.so" "$TMP/sigopen.c" -ldl 2>/dev/null; then
	numa1="$FIX/tracedat/numa/numa-6.1-forks"
	"$SR" replay -q -o "$TMP/sig.db" -t "$numa1.topo" "$numa1.dat" >/dev/null 2>&1
	cp "$TMP/sig.db" "$TMP/sig.orig"
	LD_PRELOAD="$TMP/sigopen.so" "$SR" replay -q -a -o "$TMP/sig.db" -t "$numa1.topo" \
		"$numa1.dat" >/dev/null 2>"$TMP/e1"
	same "a signal at the temporary file's creation exits 143" 143 $?
	ok "and leaves no temporary file" sh -c "! ls '$TMP'/sig.db.tmp-* 2>/dev/null"
	ok "and the database is unchanged" cmp "$TMP/sig.db" "$TMP/sig.orig"
	LD_PRELOAD="$TMP/sigopen.so" "$SR" replay -q -o "$TMP/sig2.db" -t "$numa1.topo" \
		"$numa1.dat" >/dev/null 2>"$TMP/e1"
	same "a new database: exits 143" 143 $?
	ok "and leaves nothing" sh -c "! ls '$TMP'/sig2.db* 2>/dev/null"
else
	skip "a signal at the temporary file's creation" "no C compiler"
fi

"$SR" replay --list-models >"$TMP/m"
ok "--list-models names mainline and v4.15" sh -c "grep -q '^mainline ' '$TMP/m' && grep -q '^v4.15 ' '$TMP/m'"
"$SR" replay -m nosuch "$v7" >"$TMP/o" 2>"$TMP/e1"
same "unknown model exits 2" 2 $?
"$SR" replay -t 1x1x1 "$v7" >"$TMP/o" 2>"$TMP/e1"
same "a topology smaller than the trace exits 2" 2 $?
ok "and says why" grep -q "the trace has 2 CPUs, the topology 1" "$TMP/e1"
ok "a topology file that fits is accepted" "$SR" replay -q -t 1x2x1 "$v7"
"$SR" replay -q -t "$FIX/topology/numa-guest-2x4.topo" "$v7" >"$TMP/o" 2>"$TMP/e1"
same "a topology file larger than the trace exits 2" 2 $?
ok "and says why" grep -q "does not fit .*: the trace has 2 CPUs, the topology 8 (give -t with 2 CPUs" "$TMP/e1"
n4=$FIX/tracedat/numa/numa-6.12-forks
"$SR" replay -q -t 3x3x3 "$n4.dat" >"$TMP/o" 2>"$TMP/e1"
same "3x3x3 on a 4-CPU trace is refused in one line" \
	"2 schedreplay: topology '3x3x3' does not fit '$n4.dat': the trace has 4 CPUs, the topology 27 (give -t with 4 CPUs in all, e.g. 1x4x1, or the recording machine's topology file)" \
	"$? $(cat "$TMP/e1")"
# a trace without topology: the warning comes first, -q or not, and the run says so
"$SR" replay -q -o "$TMP/flat.db" "$FIX/text/succeed/lisa-trace.txt" >"$TMP/o" 2>"$TMP/e1"
ok "no topology: a warning, also with -q" grep -q "^schedreplay: warning: replay: '.*lisa-trace.txt' carries no topology: replaying on a FLAT 6-CPU machine" "$TMP/e1"
ok "... that says the LLC and node figures mean nothing" grep -q "same-LLC and same-node figures are then 100% by construction" "$TMP/e1"
"$SR" replay "$FIX/text/succeed/lisa-trace.txt" >"$TMP/o" 2>&1
same "... before any table" "schedreplay: warning: replay:" "$(head -c 29 "$TMP/o")"
same "the run stores the topology's source" "flat fallback (the trace carries no topology)" \
	"$(sqlite3 "$TMP/flat.db" "SELECT topology FROM run")"
ok "report shows it" sh -c "'$SR' report '$TMP/flat.db' | grep -q '^  topology     flat fallback (the trace carries no topology)$'"
ok "report says under the fidelity table that its LLC and node figures mean nothing" \
	sh -c "'$SR' report '$TMP/flat.db' | grep -q '^  note [0-9]*: every row: the trace carries no topology and replay ran on the flat fallback'"
# --append with another topology: a warning; with the same one: none
"$SR" replay -q -o "$TMP/ap.db" -t "$n4.topo" "$n4.dat" 2>"$TMP/e1"
"$SR" replay -q -a -o "$TMP/ap.db" -t "$n4.topo" "$n4.dat" 2>"$TMP/e1"
same "--append with the same topology: no warning" "" "$(cat "$TMP/e1")"
"$SR" replay -q -a -o "$TMP/ap.db" -t 1x4x1 "$n4.dat" 2>"$TMP/e1"
same "--append with another topology: a warning naming both" \
	"schedreplay: warning: replay: appending to '$TMP/ap.db', whose run 1 has another topology (file $n4.topo, 4 CPUs) than this run (preset 1x4x1, 4 CPUs): comparing them compares the topologies too" \
	"$(head -n 1 "$TMP/e1")"
"$SR" replay -q -t "$FIX/topology/fail-unknown-keyword.topo" "$v7" >"$TMP/o" 2>"$TMP/e1"
same "a bad topology file exits 2" 2 $?
same "a bad topology file: one line naming file and line" \
	"schedreplay: $FIX/topology/fail-unknown-keyword.topo:3: unknown keyword 'cpus'" "$(cat "$TMP/e1")"
"$SR" replay -q -t 2x0x2 "$v7" >"$TMP/o" 2>"$TMP/e1"
same "a bad topology preset exits 2" 2 $?
ok "a bad topology preset is named" grep -q "invalid topology preset '2x0x2'" "$TMP/e1"

# a file from "schedreplay record" carries its topology, HZ and task snapshot
rec="$FIX/tracedat/succeed/live-6.18-record-v6.dat"
"$SR" replay "$rec" >"$TMP/r.txt" 2>"$TMP/e1"
ok "a recording's own topology is used" grep -q '^topology: *recording metadata$' "$TMP/r.txt"
ok "no flat-topology warning for a recording" sh -c "! grep -q 'carries no topology' '$TMP/e1'"

# the NUMA guest recordings carry the select_rq probes: replay uses them
numa="$FIX/tracedat/numa/numa-6.1-messaging"
"$SR" replay -q -o "$TMP/numa.db" -t "$numa.topo" "$numa.dat" >"$TMP/o" 2>"$TMP/e1"
same "NUMA recording replays" "" "$(cat "$TMP/e1")"
# (all but where the wakeup itself comes first in the merged stream: seen
# once, a select_rq_ret stamped 4 ms after its entry, a vCPU of the TCG
# guest stalled in between, and the woken CPU's sched_wakeup before it)
nnok=$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE skip IS NULL AND kind = 'wakeup' AND kernel_cpu IS NULL")
nprobed=$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE skip IS NULL AND kind = 'wakeup'")
ok "every probed placement has the kernel's own choice ($nnok of $nprobed without)" \
	test "$nprobed" -gt 10000 -a "$nnok" -le $((nprobed / 2000))
# (the guest's global clock, clamped under TCG, stamps whole bursts of
# events on several CPUs with one time; the merge then orders them by CPU,
# and a wakeup queued to one CPU can come before its sched_waking on another
# one, or after that task's next waking: 4 such pairs in an earlier
# recording of this load, none in this one)
nmis=$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE kernel_cpu IS NOT NULL AND kernel_cpu != actual_cpu")
nsel=$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE kernel_cpu IS NOT NULL")
ok "the kernel's select_task_rq_fair result is where the task woke ($nmis of $nsel differ)" \
	test "$nsel" -gt 10000 -a "$nmis" -le $((nsel / 2000))
same "probed wakeups do not infer sync" 0 \
	"$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE kernel_cpu IS NOT NULL AND inferred LIKE '%sync%'")"
same "the probe's flips field: probed wakeups do not infer wakee_flips" 0 \
	"$(sqlite3 "$TMP/numa.db" "SELECT count(*) FROM decision WHERE kernel_cpu IS NOT NULL AND inferred LIKE '%wakee_flips%'")"
ok "sync wakeups are seen (pipes)" sh -c "[ \$(sqlite3 '$TMP/numa.db' 'SELECT count(*) FROM decision WHERE sync = 1') -gt 1000 ]"
ok "wakeups without a probe hit are not placements" sh -c "[ \$(sqlite3 '$TMP/numa.db' \"SELECT count(*) FROM decision WHERE skip = 'no_select'\") -gt 0 ]"
ok "cross-node topology: 2 nodes in the cpu table" sh -c "[ \$(sqlite3 '$TMP/numa.db' 'SELECT count(DISTINCT node) FROM cpu') -eq 2 ]"
# several runs in one file; patch sides; migrations
adb="$TMP/append.db"
"$SR" replay -q -o "$adb" -t "$numa.topo" "$numa.dat" >/dev/null 2>&1
base_dec=$(sqlite3 "$adb" 'SELECT count(*) FROM decision')
ok "--append adds a run" "$SR" replay -q -a -o "$adb" -m v4.15 -p wake-affine-equal -p exit-sync-peterz \
	-t "$numa.topo" "$numa.dat"
same "two runs" "1 mainline|2 v4.15" "$(sqlite3 "$adb" "SELECT run_id || ' ' || model FROM run ORDER BY run_id" | paste -sd'|')"
same "decision ids stay unique across runs" "$((base_dec * 2))" \
	"$(sqlite3 "$adb" 'SELECT count(DISTINCT decision_id) FROM decision')"
# a file written before the reconciled table existed: an append adds it
cp "$adb" "$TMP/old.db"
sqlite3 "$TMP/old.db" "DROP TABLE reconciled"
ok "--append to a file without the reconciled table" "$SR" replay -q -a -o "$TMP/old.db" \
	-t "$numa.topo" "$numa.dat"
same "... which then has the new run's reconciliations" \
	"$(sqlite3 "$adb" "SELECT count(*) FROM reconciled WHERE run_id = 1")" \
	"$(sqlite3 "$TMP/old.db" "SELECT count(*) FROM reconciled WHERE run_id = 3")"
same "run 2 has a base side and two sides per patch" "base|original|patched|original|patched" \
	"$(sqlite3 "$adb" "SELECT variant FROM side WHERE run_id = 2 ORDER BY side_id" | paste -sd'|')"
same "patch sides are kept at wakeups only" 0 \
	"$(sqlite3 "$adb" "SELECT count(*) FROM evaluation_v e JOIN decision d USING (decision_id) WHERE e.patch IS NOT NULL AND d.kind != 'wakeup'")"
same "every placed wakeup of run 2 has five evaluations" \
	"$(sqlite3 "$adb" "SELECT 5 * count(*) FROM decision WHERE run_id = 2 AND skip IS NULL AND kind = 'wakeup'")" \
	"$(sqlite3 "$adb" "SELECT count(*) FROM evaluation e JOIN decision d USING (decision_id) WHERE d.run_id = 2 AND d.kind = 'wakeup'")"
same "patch summary: one row per patch" 2 "$(sqlite3 "$adb" 'SELECT count(*) FROM patch_summary WHERE run_id = 2')"
same "divergence view rows equal the summary's divergent counts" \
	"$(sqlite3 "$adb" 'SELECT coalesce(sum(divergent), 0) FROM patch_summary')" \
	"$(sqlite3 "$adb" 'SELECT count(*) FROM divergence')"
same "migrations are rows, counted per run" \
	"$(sqlite3 "$adb" 'SELECT migrations FROM run WHERE run_id = 1')" \
	"$(sqlite3 "$adb" 'SELECT count(*) FROM migration WHERE run_id = 1')"
same "wakeup migrations point at their decision" 0 \
	"$(sqlite3 "$adb" "SELECT count(*) FROM migration m LEFT JOIN decision d USING (decision_id) WHERE m.class = 'wakeup' AND (d.tid IS NOT m.tid)")"
same "no migration row lost its task" 0 "$(sqlite3 "$adb" 'SELECT count(*) FROM migration WHERE tid = 0')"
pp="$FIX/tracedat/numa/numa-6.1-pingpong"
ok "two base models with patches" "$SR" replay -q -o "$TMP/two.db" -m mainline -m v4.15 \
	-p exit-sync-mel -p exit-sync-peterz -t "$pp.topo" "$pp.dat"
same "each base model's divergences are its own rows" \
	"exit-sync-mel mainline|exit-sync-mel v4.15|exit-sync-peterz mainline|exit-sync-peterz v4.15" \
	"$(sqlite3 -separator ' ' "$TMP/two.db" 'SELECT patch, model FROM divergence ORDER BY 1, 2' | paste -sd'|')"
same "divergence rows equal the summary's counts per model" \
	"$(sqlite3 "$TMP/two.db" 'SELECT sum(divergent) FROM patch_summary')" \
	"$(sqlite3 "$TMP/two.db" 'SELECT count(*) FROM divergence')"
same "integrity after append" ok "$(sqlite3 "$adb" 'PRAGMA integrity_check')"
"$SR" replay -q -f -a -o "$adb" "$numa.dat" >/dev/null 2>"$TMP/e1"
same "--force with --append is refused" 2 $?
"$SR" replay -q -p wake-affine-cpu-arg "$numa.dat" >/dev/null 2>"$TMP/e1"
same "a pair that changes no decision is refused" 2 $?
ok "and says so" grep -q "changes no decision" "$TMP/e1"
"$SR" replay -q -p nosuch "$numa.dat" >/dev/null 2>"$TMP/e1"
same "an unknown pair is refused" "schedreplay: replay: unknown patch 'nosuch' (see --list-patches)" "$(cat "$TMP/e1")"
same "--list-patches lists the seed 004 pairs" \
	"exit-sync-mel exit-sync-peterz wake-affine-cpu-arg wake-affine-defer-prev wake-affine-equal" \
	"$("$SR" replay --list-patches | awk '/^[a-z]/ {name = $1} /^ +seed 004/ {print name}' | paste -sd' ')"
# appending to something that is not our database changes nothing
printf 'not a database at all, just text\n' >"$TMP/foreign.db"
"$SR" replay -q -a -o "$TMP/foreign.db" -t "$numa.topo" "$numa.dat" >/dev/null 2>"$TMP/e1"
same "appending to a foreign file fails" 1 $?
same "and names it" "schedreplay: '$TMP/foreign.db' is not a schedreplay database (not SQLite)" "$(cat "$TMP/e1")"
same "the foreign file is untouched" "not a database at all, just text" "$(cat "$TMP/foreign.db")"
sqlite3 "$TMP/v1.db" 'CREATE TABLE decision (decision_id INTEGER); PRAGMA user_version = 1;'
"$SR" replay -q -a -o "$TMP/v1.db" "$numa.dat" >/dev/null 2>"$TMP/e1"
ok "a schema-1 database is named as such" grep -q "schema 1; this schedreplay reads schemas 3 to 4" "$TMP/e1"
# the setaffinity probe: a task's allowed CPUs (taskset) constrain the models
aff="$FIX/scenario/affinity-mask.txt"
ok "a trace with the setaffinity probe replays" "$SR" replay -q -o "$TMP/aff.db" -t 2x2x1 "$aff"
same "the mask keeps the wakee off CPU 0: no affine wakeup" \
	"2 not wide > this not allowed > sis: target" \
	"$(sqlite3 -separator ' ' "$TMP/aff.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup'")"
grep -v ' setaffinity: ' "$aff" >"$TMP/noaff.txt"
"$SR" replay -q -o "$TMP/noaff.db" -t 2x2x1 "$TMP/noaff.txt" >/dev/null 2>&1
same "without the probe line the model pulls it to CPU 0" 0 \
	"$(sqlite3 "$TMP/noaff.db" "SELECT cpu FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup'")"
same "info counts the probe event" "setaffinity 1" \
	"$("$SR" info "$aff" | awk '$1 == "setaffinity" {print $1, $2}')"
# the setaffinity probe in a real recording (Debian 6.1 guest, taskset)
paff="$FIX/tracedat/numa/numa-6.1-pingpong-aff.dat"
if command -v trace-cmd >/dev/null; then
	same "setaffinity decodes as trace-cmd report decodes it" \
		"$(trace-cmd report -R "$paff" 2>/dev/null | sed -n 's/.* setaffinity: .* pid=\([0-9-]*\) mask=\(0x[0-9a-f]*\).*/\1 \2/p')" \
		"$("$SR" info --events "$paff" | awk -F'\t' '$3 == "setaffinity" {print $4, $5}')"
else
	skip "setaffinity decodes as trace-cmd report decodes it" "no trace-cmd"
fi
"$SR" replay -q -o "$TMP/paff.db" -t "${paff%.dat}.topo" "$paff" >/dev/null 2>&1
ok "taskset's masks reach the model: affine wakeups refused" sh -c \
	"[ \$(sqlite3 '$TMP/paff.db' \"SELECT count(*) FROM evaluation_v WHERE reason LIKE '%this not allowed%'\") -gt 100 ]"
# the task snapshot's Cpus_allowed_list is a mask too
"$SR" replay -q -o "$TMP/as.db" -t 2x2x1 "$FIX/scenario/affinity-snapshot.txt" >/dev/null 2>&1
same "the snapshot's mask (cpus 2-3) keeps the wakee off CPU 0" \
	"2 not wide > this not allowed > sis: target" \
	"$(sqlite3 -separator ' ' "$TMP/as.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup'")"
# the select_rq probe's flips field: the wakee's wakee_flips as the kernel
# had it, for wake_wide()
ww="$FIX/scenario/wake-wide-flips.txt"
ok "a trace with the flips field replays" "$SR" replay -q -o "$TMP/ww.db" -t 2x2x1 "$ww"
same "flips 2 from the probe: wake_wide, R1 stays on CPU 2 (the kernel's choice)" \
	"2 2 wake_wide > scan budget spent > sis: target" \
	"$(sqlite3 -separator ' ' "$TMP/ww.db" "SELECT actual_cpu, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
same "the probe's flips are not marked inferred" 0 \
	"$(sqlite3 "$TMP/ww.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND inferred LIKE '%wakee_flips%'")"
same "info prints the flips field" "301 2" \
	"$("$SR" info --events "$ww" | awk -F'\t' '$3 == "select_rq" && $4 == 301 {print $4, $7}')"
sed 's/ flips=[0-9]*//' "$ww" >"$TMP/noflips.txt"
"$SR" replay -q -o "$TMP/noflips.db" -t 2x2x1 "$TMP/noflips.txt" >/dev/null 2>&1
same "without the flips fields: not wide, the sync wakeup pulls R1 to CPU 0" \
	"0 not wide > affine NUMA > sync, waker alone > wake_affine: this > scan budget spent > sis: target" \
	"$(sqlite3 -separator ' ' "$TMP/noflips.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
same "and every wakeup is marked: wakee_flips inferred" 4 \
	"$(sqlite3 "$TMP/noflips.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND inferred LIKE '%wakee_flips%'")"
# the same trace without sched_waking: each wakeup decision opens at its
# select_rq probe (pid, prev_cpu, wake_flags; schedreplay-models(7) 9.3)
grep -v ' sched_waking: ' "$ww" >"$TMP/ww-nw.txt"
"$SR" replay -q -o "$TMP/wwnw.db" -t 2x2x1 "$TMP/ww-nw.txt" >/dev/null 2>"$TMP/wwnw.err"
same "probes without sched_waking: the four wakeups are decided at their probes, R1 as with sched_waking" \
	"0 0 300|0 0 300|0 0 300|2 2 300 wake_wide > scan budget spent > sis: target" \
	"$(sqlite3 -separator ' ' "$TMP/wwnw.db" "SELECT actual_cpu, cpu, waker_tid, CASE WHEN tid = 301 THEN reason END FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL ORDER BY ts" | sed 's/ $//' | paste -sd'|')"
same "... not marked prev_cpu inferred" 0 \
	"$(sqlite3 "$TMP/wwnw.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND inferred LIKE '%prev_cpu%'")"
ok "... and the warning says where they open" grep -q "each wakeup decision opens at its select_rq probe" "$TMP/wwnw.err"
sed 's/ pid=[0-9]* flips=/ flips=/' "$TMP/ww-nw.txt" >"$TMP/ww-nwnp.txt"
"$SR" replay -q -o "$TMP/wwnwnp.db" -t 2x2x1 "$TMP/ww-nwnp.txt" >/dev/null 2>"$TMP/wwnwnp.err"
same "without the probe's pid field: no wakeup decision" 0 \
	"$(sqlite3 "$TMP/wwnwnp.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup'")"
ok "... and the warning says why" grep -q "the probe has no pid field: a probe hit has no wakeup to belong to" "$TMP/wwnwnp.err"
# a trace whose probe hits are all forks (wake_flags 0x4, with pid): no wakeup went undecided
"$SR" replay -q -t 2x2x1 "$FIX/scenario/fork-probe.txt" >/dev/null 2>"$TMP/forkprobe.err"
ok "probe hits of forks only: no warning of a missing pid field" \
	sh -c "! grep -q 'no pid field' '$TMP/forkprobe.err'"
# SIS_UTIL's budget as the last LLC-level balance wrote it (schedreplay-models(7) 5.6.1)
# wake300 DB [COLUMN,]: the mainline base evaluation of task 300's wakeups: cpu, reason
wake300() {
	sqlite3 -separator ' ' "$1" "SELECT ${2:-} cpu, reason FROM evaluation_v JOIN decision
		USING (decision_id) WHERE tid = 300 AND kind = 'wakeup' AND model = 'mainline'
		AND patch IS NULL"
}
su="$FIX/scenario/sis-util-stale.txt"
ok "the stale scan budget's trace replays" "$SR" replay -q -o "$TMP/su.db" -t 1x2x1 "$su"
same "the budget of the balance at 0.504 scans: X to the idle CPU 1 (the kernel's choice)" \
	"1 1 not wide > this == prev > scan: idle 1" \
	"$(wake300 "$TMP/su.db" actual_cpu,)"
sed 's/ 0\.551000: sched_waking/ 0.553000: sched_waking/; s/ 0\.551001: sched_wakeup/ 0.553001: sched_wakeup/;
	s/ 0\.551050: sched_switch/ 0.553050: sched_switch/' "$su" >"$TMP/su-late.txt"
"$SR" replay -q -o "$TMP/sul.db" -t 1x2x1 "$TMP/su-late.txt" >/dev/null 2>&1
same "after CPU 1's idle tick balanced the LLC at 0.552: overloaded, no scan" \
	"0 not wide > this == prev > sis: llc overloaded, no scan > sis: target" \
	"$(wake300 "$TMP/sul.db")"
# with the balance probes, the budget is written at the LLC-level balances they
# show (sis-util-probed.txt: CPU 1's at 0.5508, between two jiffies), not at
# the tick's; --no-balance-probes infers them from the tick again
sp="$FIX/scenario/sis-util-probed.txt"
ok "the probed LLC balances' trace replays" "$SR" replay -q -o "$TMP/sp.db" -t 1x2x1 "$sp"
same "the balance at 0.5508 wrote the budget of 50 ms of running: no scan, X kept on CPU 0 (the kernel's choice)" \
	"0 0 not wide > this == prev > sis: llc overloaded, no scan > sis: target" \
	"$(wake300 "$TMP/sp.db" actual_cpu,)"
"$SR" replay -q -o "$TMP/spn.db" -t 1x2x1 --no-balance-probes "$sp" >/dev/null 2>&1
same "--no-balance-probes: the budget of 0.504's balance, the scan takes CPU 1" \
	"1 not wide > this == prev > scan: idle 1" "$(wake300 "$TMP/spn.db")"
# a bound kthread's wakeup on an idle CPU's wake list: that CPU is not idle
# until its sched_wakeup (select_task_rq(), ttwu_queue_wakelist(), 6.1 and 6.12)
bw="$FIX/scenario/sis-bound-wakelist.txt"
ok "a bound kworker's remote wakeup replays" "$SR" replay -q -o "$TMP/bw.db" -t 1x2x1 "$bw"
same "CPU 1 has kworker/1:0's wakeup pending: the scan finds no idle CPU, X kept on CPU 0 (the kernel's choice)" \
	"0 0 not wide > this == prev > sis: target" \
	"$(wake300 "$TMP/bw.db" actual_cpu,)"
grep -v ' 0\.501000: sched_waking' "$bw" >"$TMP/bw-none.txt"
"$SR" replay -q -o "$TMP/bwn.db" -t 1x2x1 "$TMP/bw-none.txt" >/dev/null 2>&1
same "without that waking, CPU 1 is idle and the scan takes it" \
	"1 not wide > this == prev > scan: idle 1" \
	"$(wake300 "$TMP/bwn.db")"
# the per-CPU kthread stacking rule wants in_task(): the irq-flags column says
ks="$FIX/scenario/kthread-stack-irq.txt"
ok "a wakeup from ksoftirqd's softirq replays" "$SR" replay -q -o "$TMP/ks.db" -t 1x2x1 "$ks"
same "in a softirq ('s'): no kthread stacking, the scan finds CPU 1 (the kernel's choice)" \
	"1 1 not wide > this == prev > scan: idle 1" \
	"$(wake300 "$TMP/ks.db" actual_cpu,)"
sed 's/ d\.s\([34]\)\. / d..\1. /' "$ks" >"$TMP/ks-task.txt"
"$SR" replay -q -o "$TMP/kst.db" -t 1x2x1 "$TMP/ks-task.txt" >/dev/null 2>&1
same "in task context ('.'): the kthread stacks R on CPU 0" \
	"0 not wide > this == prev > sis: per-cpu kthread waker, stay" \
	"$(wake300 "$TMP/kst.db")"
# a softirq in the context of a busy CPU's task follows that CPU's tick,
# whose update_load_avg() took a dead task's pending removal off
# (schedreplay-models(7) 3.4)
wake18() {
	sqlite3 -separator ' ' "$1" "SELECT cpu, reason LIKE '%wake_affine: this%' FROM evaluation_v
		JOIN decision USING (decision_id) WHERE tid = 18 AND kind = 'wakeup'
		AND model = 'mainline' AND patch IS NULL"
}
wt="$FIX/scenario/wake-softirq-tick.txt"
ok "a timer softirq's wakeup replays" "$SR" replay -q -o "$TMP/wt.db" -t 1x2x1 "$wt"
same "in a softirq ('s') on P's CPU: the tick took D's load off, this_cpu wins (the kernel's CPU 0)" \
	"0 1" "$(wake18 "$TMP/wt.db")"
sed 's/ dNs\([34]\)\. / dN.\1. /' "$wt" >"$TMP/wt-task.txt"
"$SR" replay -q -o "$TMP/wtt.db" -t 1x2x1 "$TMP/wt-task.txt" >/dev/null 2>&1
same "in task context ('.'): no tick shown, D's load still on CPU 0, prev wins" \
	"1 0" "$(wake18 "$TMP/wtt.db")"
# ksoftirqd/0 woken before D died and not yet run: the softirq may be work
# an earlier tick left it, no new tick
sed 's/^\( *D-401 *\[000\] d\.\.2\. *0\.996000: .*\)$/\1\
               D-401     [000] dNs3.     0.998000: sched_waking: comm=ksoftirqd\/0 pid=15 prio=120 target_cpu=000\
               D-401     [000] dNs4.     0.998001: sched_wakeup: comm=ksoftirqd\/0 pid=15 prio=120 target_cpu=000/' \
	"$wt" >"$TMP/wt-ksoftirqd.txt"
same "the variant wakes ksoftirqd/0" "2" "$(grep -c 'comm=ksoftirqd/0' "$TMP/wt-ksoftirqd.txt")"
"$SR" replay -q -o "$TMP/wtk.db" -t 1x2x1 "$TMP/wt-ksoftirqd.txt" >/dev/null 2>&1
same "with ksoftirqd/0 woken and not run: no tick taken, prev wins" \
	"1 0" "$(wake18 "$TMP/wtk.db")"
# a wakee's mask inferred from its wakeups (schedreplay-models(7) 9.2)
aw="$FIX/scenario/affinity-wakeups.txt"
ok "a pinned wakee's trace replays" "$SR" replay -q -o "$TMP/aw.db" -t 2x2x1 "$aw"
same "three wakeups kept on node 1 against the model, then 'this not allowed', CPU 2 (the kernel's), marked inferred" \
	"0 -1|0 -1|0 -1|2 1|2 1" \
	"$(sqlite3 -separator ' ' "$TMP/aw.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# the same inside one LLC, for a wakee seen on one CPU only (affinity-wakeups-llc.txt)
awl="$FIX/scenario/affinity-wakeups-llc.txt"
ok "a wakee pinned beside its waker's CPU replays" "$SR" replay -q -o "$TMP/awl.db" -t 2x2x1 "$awl"
same "three wakeups kept on CPU 1 against the model, then CPU 1 (the kernel's), 'this not allowed', marked inferred" \
	"0 -1|0 -1|0 -1|1 1|1 1" \
	"$(sqlite3 -separator ' ' "$TMP/awl.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# a wakeup off an idle prev_cpu (and this_cpu) to a third CPU of its LLC shows
# a new mask, and what was seen starts afresh (affinity-wakeup-llc-new-mask.txt):
# the CPU seen before the pin no longer counts as one of the task's
anm="$FIX/scenario/affinity-wakeup-llc-new-mask.txt"
ok "a wakee pinned inside its LLC while it slept replays" "$SR" replay -q -o "$TMP/anm.db" -t 2x2x1 "$anm"
same "the timer wakeup moved to CPU 2, three wakeups kept there against the model, then CPU 2 (the kernel's), 'this not allowed'" \
	"3 2 0|3 2 0|3 2 0|3 2 0|2 2 1|2 2 1" \
	"$(sqlite3 -separator ' ' "$TMP/anm.db" "SELECT e.cpu, d.actual_cpu, e.reason LIKE '%this not allowed%' FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'wakeup' AND e.patch IS NULL ORDER BY d.ts" | paste -sd'|')"
# the rqstat input probe: the placement reads every CPU as the kernel had it (kernel-inputs.txt)
ki="$FIX/scenario/kernel-inputs.txt"
ok "a trace with the rqstat probe replays" "$SR" replay -q -o "$TMP/ki.db" -t 1x2x1 "$ki"
same "the wakeup reads CPU 1 idle from rqstat: prev idle, CPU 1 (the kernel's)" "1|1" \
	"$(sqlite3 -separator '|' "$TMP/ki.db" "SELECT cpu, reason LIKE '%prev idle%' FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL")"
ok "... and with --no-input-probes" "$SR" replay -q -o "$TMP/ki2.db" -t 1x2x1 --no-input-probes "$ki"
same "... the engine's CPU 1 is busy: wake_affine_weight() takes it to CPU 0" "0|0" \
	"$(sqlite3 -separator '|' "$TMP/ki2.db" "SELECT cpu, reason LIKE '%prev idle%' FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL")"
"$SR" replay -t 1x2x1 "$ki" >"$TMP/ki.out" 2>&1
grep -q '^inputs: *rqstat: 1 placements read every CPU.*; 0 events of fewer CPUs' "$TMP/ki.out"
same "... the summary counts the placement that read the probe" 0 $?
# the engine's own values against the kernel's: CPU 0 ran W (busy), CPU 1
# was idle in the kernel while the engine held it busy with H
kin=$(grep "^inputs: *the engine's against rqstat" "$TMP/ki.out")
same "... and says how far the engine's inputs were: one busy CPU, one idle CPU" "busy CPUs 1:|idle CPUs 1:" \
	"$(printf '%s\n' "$kin" | grep -o '\(busy\|idle\) CPUs [0-9]*:' | paste -sd'|')"
same "... the idle CPU is the one whose nr_running the engine had otherwise" "0|1" \
	"$(printf '%s\n' "$kin" | grep -o 'nr_running otherwise [0-9]*' | awk '{print $3}' | paste -sd'|')"
same "... neither had a util_est: no difference" "+0 / 0|+0 / 0" \
	"$(printf '%s\n' "$kin" | grep -o 'util_est [-+0-9]* / [0-9]*' | sed 's/util_est //' | paste -sd'|')"
same "... and SIS_UTIL's budget: the engine's at both CPUs read is the kernel's" "2 2 2" \
	"$(printf '%s\n' "$kin" | sed -n 's/.*SIS_UTIL nr_idle_scan the same at \([0-9]*\) of \([0-9]*\) CPUs read, scan or not the same at \([0-9]*\).*/\1 \2 \3/p')"
same "... the engine's idle CPU carried H's load the kernel's did not" "1" \
	"$(printf '%s\n' "$kin" | sed 's/.*idle CPUs 1: load +\([0-9]*\) .*/\1/' | awk '{print ($1 > 100)}')"
same "... the database keeps it: input_error, 10 rows, the idle CPU's nr_running otherwise" \
	"10 busy:0|idle:1" \
	"$(sqlite3 "$TMP/ki.db" "SELECT count(*) FROM input_error") $(sqlite3 "$TMP/ki.db" "SELECT cpus || ':' || differs FROM input_error WHERE field = 'nr_running' ORDER BY cpus" | paste -sd'|')"
same "... and its load as the text says" "$(printf '%s\n' "$kin" | sed 's/.*idle CPUs 1: load +\([0-9]*\) .*/\1/')" \
	"$(sqlite3 "$TMP/ki.db" "SELECT printf('%.0f', mean_diff) FROM input_error WHERE cpus = 'idle' AND field = 'load'")"
same "... with --no-input-probes no rows" 0 "$(sqlite3 "$TMP/ki2.db" "SELECT count(*) FROM input_error")"
# the same trace from 3.000 on: its rqstat is in the trace's warm-up (229 ms),
# where the engine's CPUs lack the PELT history from before the trace: left out
grep -v ' 2\.700000: ' "$ki" >"$TMP/ki-warm.txt"
"$SR" replay -t 1x2x1 "$TMP/ki-warm.txt" >"$TMP/kiw.out" 2>&1
same "... an rqstat in the trace's first 229 ms is left out of the comparison, and counted" \
	"busy CPUs 0:|idle CPUs 0:|1" \
	"$(grep "^inputs: *the engine's against rqstat" "$TMP/kiw.out" | grep -o '\(busy\|idle\) CPUs [0-9]*:' | paste -sd'|')|$(grep "^inputs: *the engine's against rqstat" "$TMP/kiw.out" | sed -n "s/.*; \([0-9]*\) in the trace's first 229 ms left out.*/\1/p")"
# lb_rqstat (find_busiest_group()'s entry, record.sh --lb-probes --input-probes):
# a periodic balance of CPU 0 just before the wakeup reads CPU 1 idle, which
# the engine holds busy with H
sed 's/^\( *W-400 *\[000\] d\.\.2\. *\)3\.020000: sched_waking: .*$/\13.019000: lb_rqstat: (find_busiest_group+0x0\/0x5e0) c0load=1000 c0util=900 c0run=950 c0ue=0 c0nr=1 c0ttwu=0 c0scan=1 c1load=20 c1util=15 c1run=15 c1ue=0 c1nr=0 c1ttwu=0 c1scan=1\
&/' "$ki" >"$TMP/ki-lb.txt"
same "the variant carries one lb_rqstat" 1 "$(grep -c ' lb_rqstat: ' "$TMP/ki-lb.txt")"
"$SR" replay -t 1x2x1 "$TMP/ki-lb.txt" >"$TMP/kilb.out" 2>&1
klb=$(grep "^inputs: *balance: the engine's other CPUs against lb_rqstat (1)" "$TMP/kilb.out")
same "... the balance line compares CPU 1 only: no busy CPU, one idle, its nr_running otherwise" \
	"busy CPUs 0:|idle CPUs 1:|0|1" \
	"$(printf '%s\n' "$klb" | grep -o '\(busy\|idle\) CPUs [0-9]*:' | paste -sd'|')|$(printf '%s\n' "$klb" | grep -o 'nr_running otherwise [0-9]*' | awk '{print $3}' | paste -sd'|')"
same "... and the placement's rqstat line is as before" \
	"$(grep "^inputs: *the engine's against rqstat" "$TMP/ki.out")" \
	"$(grep "^inputs: *the engine's against rqstat" "$TMP/kilb.out")"
sed 's/c1util=15 c1run=15 c1ue=0 c1nr=0 c1ttwu=0 c1scan=1$/c1util=xx c1run=15 c1ue=0 c1nr=0 c1ttwu=0 c1scan=1/' \
	"$TMP/ki-lb.txt" >"$TMP/ki-lbbad.txt"
"$SR" replay -q -t 1x2x1 -o "$TMP/kilbbad.db" "$TMP/ki-lbbad.txt" >"$TMP/kilbbad.out" 2>&1
same "a bad lb_rqstat value: exit 1, no database, one line naming the file, the line and the field" \
	"1 0 1" "$? $([ -e "$TMP/kilbbad.db" ] && echo 1 || echo 0) $(grep -c "ki-lbbad.txt': line [0-9]*: malformed lb_rqstat: bad value for c1util" "$TMP/kilbbad.out")"
"$SR" replay -t 1x2x1 --no-input-probes "$TMP/ki-lb.txt" >"$TMP/kilb2.out" 2>&1
same "... not with --no-input-probes" 0 "$(grep -c '^inputs: *balance' "$TMP/kilb2.out")"
# a file written before the input_error table existed: an append adds it
sqlite3 "$TMP/ki2.db" "DROP TABLE input_error"
ok "--append to a file without the input_error table" "$SR" replay -q -a -o "$TMP/ki2.db" -t 1x2x1 "$ki"
same "... which then has the new run's rows" "10 2" \
	"$(sqlite3 "$TMP/ki2.db" "SELECT count(*), min(run_id) FROM input_error" | tr '|' ' ')"
"$SR" replay -t 1x2x1 --no-input-probes "$ki" >"$TMP/kin.out" 2>&1
same "... not without the probe's values (--no-input-probes)" "0" \
	"$(grep -c "^inputs: *the engine's against rqstat" "$TMP/kin.out")"
"$SR" replay -t 2x2x1 "$ki" >"$TMP/ki4.out" 2>&1
grep -q '^inputs: *rqstat: 0 placements read every CPU.*; 1 events of fewer CPUs' "$TMP/ki4.out"
same "... on four CPUs the event of two is not read" 0 $?
# a wakeup outside the LLCs of this_cpu and prev_cpu: a new mask, what was
# seen before it no longer counts (affinity-wakeup-moved.txt)
awm="$FIX/scenario/affinity-wakeup-moved.txt"
ok "a wakee pinned while asleep replays" "$SR" replay -q -o "$TMP/awm.db" -t 2x2x1 "$awm"
same "the move and three wakeups kept on node 1 against the model, then 'this not allowed', CPU 2 (the kernel's), marked inferred" \
	"0 -1|0 -1|0 -1|0 -1|2 1|2 1" \
	"$(sqlite3 -separator ' ' "$TMP/awm.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND skip IS NULL AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# a move across LLCs (here an idle balance's pull) starts what was seen of
# the task afresh (affinity-crossed-llc.txt)
acl="$FIX/scenario/affinity-crossed-llc.txt"
ok "a wakee pinned after an idle pull replays" "$SR" replay -q -o "$TMP/acl.db" -t 2x2x1 "$acl"
same "CPU 0, left for node 1, is not counted: three wakeups kept on node 1 against the model, then 'this not allowed', CPU 2, marked inferred" \
	"0 -1|0 -1|0 -1|2 1|2 1" \
	"$(sqlite3 -separator ' ' "$TMP/acl.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND skip IS NULL AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# a queued task moved by another task's sched_setaffinity() (affinity-moved.txt):
# a pull in task context after which the puller did not block is no balance,
# what was seen of the task before it says nothing of its new mask, and the
# CPU it left is not in that mask (affine_move_task() moves only then)
am="$FIX/scenario/affinity-moved.txt"
ok "a trace with a task moved by taskset -p replays" "$SR" replay -q -o "$TMP/am.db" -t 2x2x1 "$am"
same "the move is an affinity migration, not a balance decision" \
	"affinity|0" \
	"$(sqlite3 "$TMP/am.db" "SELECT class, (SELECT count(*) FROM decision WHERE kind LIKE 'balance%') FROM migration WHERE tid = 401")"
same "the CPU it was moved off is not allowed: every wakeup from CPU 0 is 'this not allowed', CPU 2 (the kernel's), marked inferred" \
	"2 1|2 1|2 1|2 1|2 1|2 1" \
	"$(sqlite3 -separator ' ' "$TMP/am.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND patch IS NULL ORDER BY ts" | paste -sd'|')"
same "... and the newly idle CPU 0 does not pull it back there: none movable, no pull, marked inferred" \
	"1 1 1" \
	"$(sqlite3 -separator ' ' "$TMP/am.db" "SELECT instr(reason, 'none movable') > 0, cpu IS NULL, inferred LIKE '%affinity%' FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'newidle' AND ts = 3014000000 AND patch IS NULL")"
sed 's/^\( *T-402 \[002\] \)d\.\.2\.\( *3\.000400:\)/\1d.s2.\2/' "$am" >"$TMP/am-softirq.txt"
"$SR" replay -q -o "$TMP/ams.db" -t 2x2x1 "$TMP/am-softirq.txt" >/dev/null 2>&1
same "the same pull from a softirq ('s') is a periodic balance; the move to node 1 starts what was seen of P afresh: three wakeups from CPU 0 count, then 'this not allowed'" \
	"balance_periodic|0 -1|0 -1|0 -1|2 1|2 1|2 1" \
	"$(sqlite3 "$TMP/ams.db" "SELECT class FROM migration WHERE tid = 401")|$(sqlite3 -separator ' ' "$TMP/ams.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# the same move by a task on the CPU it leaves (W on CPU 0) or on a third CPU
# (H1 on CPU 1): affine_move_task() runs on the caller's CPU
for who in "W-400 [000]" "H1-411 [001]"; do
	sed "s/^ *T-402 \[002\] \(d\.\.2\. *3\.000400: sched_migrate_task\)/ $who \1/" "$am" >"$TMP/am-by.txt"
	"$SR" replay -q -o "$TMP/amb.db" -t 2x2x1 "$TMP/am-by.txt" >/dev/null 2>&1
	same "moved by $who: an affinity migration, every wakeup of P 'this not allowed' (CPU 2), no newly idle pull" \
		"affinity|2 1|2 1|2 1|2 1|2 1|2 1|1 1 1" \
		"$(sqlite3 "$TMP/amb.db" "SELECT class FROM migration WHERE tid = 401")|$(sqlite3 -separator ' ' "$TMP/amb.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND patch IS NULL ORDER BY ts" | paste -sd'|')|$(sqlite3 -separator ' ' "$TMP/amb.db" "SELECT instr(reason, 'none movable') > 0, cpu IS NULL, inferred LIKE '%affinity%' FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'newidle' AND ts = 3014000000 AND patch IS NULL")"
done
# the same move by a caller that exits before its final switch, to P, 300 us
# later (affinity-moved-exit.txt): it ran on (sched_process_exit), so the pull
# was no newly idle balance of its __schedule(), and in task context no
# periodic one either; without the exit, the same switch is a newly idle pull
# however long __schedule() took
ame="$FIX/scenario/affinity-moved-exit.txt"
ok "a trace with a task moved by an exiting taskset replays" "$SR" replay -q -o "$TMP/ame.db" -t 2x2x1 "$ame"
same "the move is an affinity migration, no balance decision, every wakeup of P 'this not allowed' (CPU 2), marked inferred" \
	"affinity|0|2 1|2 1|2 1|2 1|2 1" \
	"$(sqlite3 "$TMP/ame.db" "SELECT class, (SELECT count(*) FROM decision WHERE kind LIKE 'balance%') FROM migration WHERE tid = 401")|$(sqlite3 -separator ' ' "$TMP/ame.db" "SELECT cpu, (reason LIKE '%this not allowed%') + (inferred LIKE '%affinity%') - 1 FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 401 AND patch IS NULL ORDER BY ts" | paste -sd'|')"
sed '/sched_process_exit/d' "$ame" >"$TMP/ame-noexit.txt"
"$SR" replay -q -o "$TMP/amn.db" -t 2x2x1 "$TMP/ame-noexit.txt" >/dev/null 2>&1
same "without the exit: a newly idle pull, 300 us before the switch" \
	"balance_newidle" "$(sqlite3 "$TMP/amn.db" "SELECT class FROM migration WHERE tid = 401")"
# a trace without sched_waking (schedreplay-models(7) 9.3): decisions from the
# wakee's sched_migrate_task (on the waker's CPU) or its sched_wakeup
nw="$FIX/scenario/no-waking.txt"
ok "a trace without sched_waking replays" "$SR" replay -q -o "$TMP/nw.db" -t 2x2x1 "$nw"
same "the moved wakeup opens at its migration on W's CPU, the one left in place at its sched_wakeup; both right, prev_cpu inferred" \
	"301 0 2 300 0 0 1|302 3 3 0 3 3 1" \
	"$(sqlite3 -separator ' ' "$TMP/nw.db" "SELECT tid, this_cpu, prev_cpu, coalesce(waker_tid, 0), actual_cpu, cpu, inferred LIKE '%prev_cpu%' FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND patch IS NULL ORDER BY ts" | paste -sd'|')"
# WF_SYNC inferred without the probe (schedreplay-models(7) 9.1): a user
# task's wakeup of a user task is sync, a kernel thread's and an exiting
# waker's are not
si="$FIX/scenario/sync-inferred.txt"
ok "a trace without probes replays" "$SR" replay -q -o "$TMP/si.db" -t 2x2x1 "$si"
same "user task wakes user task: inferred sync, 'waker alone' pulls R to CPU 0 (the kernel's choice)" \
	"1|0|0|not wide > affine NUMA > sync, waker alone > wake_affine: this > scan budget spent > sis: target" \
	"$(sqlite3 "$TMP/si.db" "SELECT sync, actual_cpu, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
same "the wakeups of a kernel thread and by an exiting waker are non-sync; all three marked inferred" \
	"16 0 1|299 0 1|301 1 1" \
	"$(sqlite3 -separator ' ' "$TMP/si.db" "SELECT tid, sync, inferred LIKE '%sync%' FROM decision WHERE kind = 'wakeup' ORDER BY tid" | paste -sd'|')"
# an uninterruptible sleeper (D) is woken by complete() or wake_up_process(),
# never by the sync wait-queue wakeups: non-sync, the weights keep it
sd="$FIX/scenario/sync-inferred-d.txt"
ok "a D sleeper's wakeup replays" "$SR" replay -q -o "$TMP/sd.db" -t 2x2x1 "$sd"
same "W wakes the D sleeper V: inferred non-sync, the weights keep V on CPU 2 (the kernel's choice)" \
	"0|2|2|1" \
	"$(sqlite3 "$TMP/sd.db" "SELECT sync, actual_cpu, cpu, inferred LIKE '%sync%' FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
# the probe's load, util and runnable fields: the wakee's own PELT signal as
# the kernel had it replaces the engine's (R1 ran 4 ms in the trace: a
# signal still warming up), and its CPU's blocked load follows.  The same
# wakeup, made non-sync and without flips, so that the weights decide.
sed -e '/pid=301 flips=2/s/wake_flags=0x18 pid=301 flips=2/wake_flags=0x8 pid=301/' "$ww" >"$TMP/nopelt.txt"
sed -e '/prev_cpu=2 wake_flags=0x8 pid=301/s/$/ load=1024 util=600 runnable=700/' "$TMP/nopelt.txt" >"$TMP/pelt.txt"
"$SR" replay -q -o "$TMP/nopelt.db" -t 2x2x1 "$TMP/nopelt.txt" >/dev/null 2>&1
"$SR" replay -q -o "$TMP/pelt.db" -t 2x2x1 "$TMP/pelt.txt" >/dev/null 2>&1
same "without the PELT fields: the engine's signal, still warming up" \
	"pelt_warmup,topology,wakee_flips|2|not wide > affine NUMA > weight: this 37990400 >= prev 23003136 > wake_affine: prev > scan budget spent > sis: target" \
	"$(sqlite3 "$TMP/nopelt.db" "SELECT inferred, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
# (prev: CPU 2's load is 1 above the wakee's since attaches align the
# task's decay window with the CPU's and rebuild its sums from its averages,
# attach_entity_load_avg(): the sums' integer truncation, not a rule)
same "with them: the kernel's load 1024 on both sides of the comparison, not marked warming up" \
	"topology,wakee_flips|2|not wide > affine NUMA > weight: this 134553600 >= prev 110592 > wake_affine: prev > scan budget spent > sis: target" \
	"$(sqlite3 "$TMP/pelt.db" "SELECT inferred, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
# the probe's prevload: prev_cpu's cpu_load() as the kernel read it, in
# place of the engine's on the prev side of wake_affine_weight (mainline;
# v4.15 compares runnable load, which the field is not)
sed -e '/load=1024 util=600 runnable=700/s/$/ prevload=3000/' "$TMP/pelt.txt" >"$TMP/prevload.txt"
"$SR" replay -q -o "$TMP/prevload.db" -t 2x2x1 "$TMP/prevload.txt" >/dev/null 2>&1
same "prevload 3000: the prev side is the kernel's, and the task is pulled to CPU 0" \
	"0|not wide > affine NUMA > weight: this 134553600 < prev 218640384 > wake_affine: this > scan budget spent > sis: target" \
	"$(sqlite3 "$TMP/prevload.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
"$SR" replay -q -m v4.15 -o "$TMP/prevload415.db" -t 2x2x1 "$TMP/prevload.txt" >/dev/null 2>&1
"$SR" replay -q -m v4.15 -o "$TMP/pelt415.db" -t 2x2x1 "$TMP/pelt.txt" >/dev/null 2>&1
same "v4.15 does not take it" \
	"$(sqlite3 "$TMP/pelt415.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")" \
	"$(sqlite3 "$TMP/prevload415.db" "SELECT cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE tid = 301 AND kind = 'wakeup'")"
same "info prints the PELT fields" "301 1024 600 700" \
	"$("$SR" info --events "$TMP/pelt.txt" | awk -F'\t' '$3 == "select_rq" && $4 == 301 {print $4, $8, $9, $10}')"
same "info prints prevload" "301 3000" \
	"$("$SR" info --events "$TMP/prevload.txt" | awk -F'\t' '$3 == "select_rq" && $4 == 301 {print $4, $11}')"
ok "replay says the probes carried the wakee's PELT" sh -c \
	"'$SR' replay -t 2x2x1 '$TMP/pelt.txt' 2>/dev/null | grep -q \"^probes: .*the wakee's PELT\""
# forks and the select_rq probe (WF_FORK): a fork is paired with its probe
# (prev_cpu, wake_flags, the returned CPU); a fork without one in a probed
# trace is no placement (select_task_rq() took cpumask_any())
fp="$FIX/scenario/fork-probe.txt"
ok "a trace with fork probes replays" "$SR" replay -q -o "$TMP/fp.db" -t 2x2x1 "$fp"
same "the unprobed fork is not a placement, the probed one has the probe's fields" \
	"401|no_select|||3|3 402||0|4|3|0" \
	"$(sqlite3 "$TMP/fp.db" "SELECT tid, skip, kernel_cpu, wake_flags, prev_cpu, actual_cpu FROM decision WHERE kind = 'fork' ORDER BY tid" | paste -sd' ')"
same "only the probed fork is evaluated" 402 \
	"$(sqlite3 "$TMP/fp.db" "SELECT tid FROM evaluation_v JOIN decision USING (decision_id) WHERE kind = 'fork'")"
ok "replay --fidelity says why the fork is not a placement" sh -c \
	"'$SR' replay -q --fidelity -t 2x2x1 '$fp' | grep -q '^forks: *1 without select_rq, not placements: select_task_rq() takes cpumask_any()'"
grep -v ' select_rq' "$fp" >"$TMP/fp-noprobe.txt"
"$SR" replay -q -o "$TMP/fpn.db" -t 2x2x1 "$TMP/fp-noprobe.txt" >/dev/null 2>&1
same "without any probe both forks are placements, prev_cpu from the fork event" \
	"401|||3 402|||2" \
	"$(sqlite3 "$TMP/fpn.db" "SELECT tid, skip, kernel_cpu, prev_cpu FROM decision WHERE kind = 'fork' ORDER BY tid" | paste -sd' ')"
# fork placement across nodes (fork-numa-spare.txt): with spare CPUs on both
# nodes and the parent running on node 1, imb_numa_nr is 1 on a 2-CPU node
# (build_sched_domains(), before degeneration), so the node with more idle
# CPUs takes the child, its most recently idle CPU; node 1 keeps the child
# when node 0 has no idle CPU
fn="$FIX/scenario/fork-numa-spare.txt"
"$SR" replay -q -o "$TMP/fn.db" -t 2x2x1 "$fn" >/dev/null 2>&1
same "fork across nodes: mainline picks the kernel's CPU for both children" "401|1|1 402|3|3" \
	"$(sqlite3 "$TMP/fn.db" "SELECT d.tid, d.kernel_cpu, e.cpu FROM decision d JOIN evaluation_v e
		USING (decision_id) WHERE d.kind = 'fork' AND e.model = 'mainline' ORDER BY d.tid" | paste -sd' ')"
same "fork across nodes: the first child leaves the parent's node at the NUMA level" \
	"fork > NUMA: idlest group, cpu 1 > MC: local" \
	"$(sqlite3 "$TMP/fn.db" "SELECT e.reason FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.kind = 'fork' AND d.tid = 401 AND e.model = 'mainline'")"
# the group marks without the balance probes (fork-numa-marked.txt): a newly
# idle balance that meets only tasks pinned to CPU 0 marks node 0
# imbalanced, and the fork on the fully busy node 1 half a millisecond
# later stays there, as the kernel's probe says; with the same tasks
# unpinned nothing marks node 0 and the child goes to its idle CPU 1
fm="$FIX/scenario/fork-numa-marked.txt"
"$SR" replay -q -o "$TMP/fm.db" -t 2x2x1 "$fm" >/dev/null 2>&1
"$SR" replay -t 2x2x1 "$fm" >"$TMP/fm.out" 2>&1
same "without the balance probes a fork reads the mark a balance left: node 0 imbalanced, the child stays" \
	"401|2|2|fork > NUMA: local > MC: local" \
	"$(sqlite3 "$TMP/fm.db" "SELECT d.tid, d.kernel_cpu, e.cpu, e.reason FROM decision d
		JOIN evaluation_v e USING (decision_id) WHERE d.kind = 'fork' AND e.model = 'mainline'")"
ok "replay says how many balances it inferred and how many marked a group" \
	grep -q '^marks: .* passes inferred from the tick .* marked a group at [1-9]' "$TMP/fm.out"
sed 's/ cpus 0 policy/ cpus 0-3 policy/' "$fm" >"$TMP/fm-free.txt"
"$SR" replay -q -o "$TMP/fmf.db" -t 2x2x1 "$TMP/fm-free.txt" >/dev/null 2>&1
same "with nothing pinned no balance marks node 0: the child goes to its idle CPU" \
	"401|1|fork > NUMA: idlest group, cpu 1 > MC: local" \
	"$(sqlite3 "$TMP/fmf.db" "SELECT d.tid, e.cpu, e.reason FROM decision d
		JOIN evaluation_v e USING (decision_id) WHERE d.kind = 'fork' AND e.model = 'mainline'")"
# inferred affinity from forks (fork-pinned.txt, no probes, no masks): a
# child put on its parent's busy CPU while a CPU of that LLC idles shows a
# pinned parent, whose next fork is no placement, until a child lands
# elsewhere
fork_skips() {	# fork_skips DB: "tid|skip|inferred affinity" of every fork
	sqlite3 "$1" "SELECT tid, coalesce(skip, '-'), coalesce(inferred, '') LIKE '%affinity%'
		FROM decision WHERE kind = 'fork' ORDER BY tid" | paste -sd' '
}
fk="$FIX/scenario/fork-pinned.txt"
"$SR" replay -q -o "$TMP/fk.db" -t 2x2x1 "$fk" >/dev/null 2>&1
same "forks of a parent inferred pinned are no placements, until a child lands elsewhere" \
	"401|-|0 402|bound|1 403|bound|1 404|-|0" \
	"$(fork_skips "$TMP/fk.db")"
same "only the unpinned parent's forks are evaluated" "401 404" \
	"$(sqlite3 "$TMP/fk.db" "SELECT DISTINCT d.tid FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.kind = 'fork' ORDER BY d.tid" | paste -sd' ')"
# ... and its wakeups (fork-pinned-wakeups.txt): three forks that show the pin
# make the parent's wakeups onto its CPU no placements, until one moves it
fw="$FIX/scenario/fork-pinned-wakeups.txt"
wake_pins() {	# wake_pins DB: "skip inferred-affinity actual_cpu" of P's wakeups
	sqlite3 "$1" "SELECT group_concat(coalesce(skip, 'placement') || ' ' ||
		(inferred LIKE '%affinity%') || ' ' || actual_cpu, ', ') FROM
		(SELECT * FROM decision WHERE kind = 'wakeup' AND tid = 400 ORDER BY ts)"
}
"$SR" replay -q -o "$TMP/fw.db" -t 2x2x1 "$fw" >/dev/null 2>&1
same "a parent three forks show pinned wakes there with no placement; a wakeup that moves it is one, and ends the pin" \
	"bound 1 2, placement 1 3, placement 0 3" "$(wake_pins "$TMP/fw.db")"
grep -v 'pid=403 \|child_pid=403\|C3-403\|next_comm=C3' "$fw" >"$TMP/fw2.txt"
"$SR" replay -q -o "$TMP/fw2.db" -t 2x2x1 "$TMP/fw2.txt" >/dev/null 2>&1
same "after two such forks its wakeups are still placements" \
	"placement 0 2, placement 0 3, placement 0 3" "$(wake_pins "$TMP/fw2.db")"
# the same with the recorder's task snapshot but no setaffinity probe
# (fork-pinned-snapshot.txt): the snapshot's every-CPU mask of P holds only
# at the snapshot, so P's child on its busy CPU still shows P pinned
fks="$FIX/scenario/fork-pinned-snapshot.txt"
"$SR" replay -q -o "$TMP/fks.db" -t 2x2x1 "$fks" >/dev/null 2>&1
same "without the setaffinity probe a snapshot mask of every CPU does not stop the fork rule" \
	"401|-|0 402|bound|1" \
	"$(fork_skips "$TMP/fks.db")"
# inferred affinity from a stopper migration (affinity-stopper.txt): the
# stopper moves H onto a CPU as loaded as the one it left (no sched_exec, no
# active balance: a new mask), so a newly idle CPU does not pull it there
as="$FIX/scenario/affinity-stopper.txt"
"$SR" replay -q -o "$TMP/ast.db" -t 2x2x1 "$as" >/dev/null 2>&1
same "a task the stopper moved onto an equally loaded CPU is not pulled by a newly idle CPU" \
	"0" "$(sqlite3 "$TMP/ast.db" "SELECT count(*) FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.kind IN ('newidle', 'balance_newidle') AND e.cpu IS NOT NULL")"
same "... and that balance is marked inferred affinity" "1" \
	"$(sqlite3 "$TMP/ast.db" "SELECT count(*) > 0 FROM decision WHERE kind = 'newidle' AND
		inferred LIKE '%affinity%' AND ts > 1005000000")"
# an inferred mask refuted (affinity-refuted.txt): H, taken for pinned to
# CPU 0, is pulled to CPU 3 of the other node, so its mask changed; the
# newly idle CPU 2 pulls it as the kernel did.  G, pinned to CPU 2 and seen
# on CPU 3 of the same node, stays denied on node 0
ar="$FIX/scenario/affinity-refuted.txt"
"$SR" replay -q -o "$TMP/arf.db" -t 2x2x1 "$ar" >/dev/null 2>&1
same "a task pulled across nodes off its inferred pin is pulled again by a newly idle CPU" \
	"2|1" "$(sqlite3 "$TMP/arf.db" "SELECT e.cpu, instr(r.text, 'pull 500 from 3 to 2') > 0
		FROM decision d JOIN evaluation e USING (decision_id) JOIN reason r USING (reason_id)
		WHERE d.kind = 'balance_newidle' AND d.ts = 1040000000")"
same "... and one seen on two CPUs of its node stays off the other node" "0" \
	"$(sqlite3 "$TMP/arf.db" "SELECT count(*) FROM decision d JOIN evaluation e USING (decision_id)
		WHERE d.kind = 'newidle' AND d.ts = 1080000000 AND e.cpu IS NOT NULL")"
test_done
