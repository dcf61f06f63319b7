#!/bin/bash
# schedreplay export: the JSON trace events parse, every slice has ts and dur
# in µs (the database's ns / 1000), the counts of running slices, runnable
# slices, decisions, divergent decisions and misses are the database's,
# slices on one CPU do not overlap, a time window (naming only the tasks it
# holds) and a hostile task name stay valid JSON, and the errors are one line
# with no file left behind.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
command -v python3 >/dev/null || skip_all "no python3 to parse the trace"
N=tests/fixtures/tracedat/numa
DB=$TMP/run.db
"$SR" replay -q -m v4.15 -p wake-affine-equal -p exit-sync-mel -t $N/numa-6.12-forks.topo \
	-o "$DB" $N/numa-6.12-forks.dat || fail "the NUMA fixture replays"

# check JSON DB [SQL WINDOW]: the trace against the database
check() {
	python3 - "$@" <<'EOF'
import json, sqlite3, sys
path, dbpath = sys.argv[1], sys.argv[2]
lo, hi = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (None, None)
bad = []
try:
    t = json.load(open(path, encoding='utf-8'))
except Exception as e:
    print('does not parse: %s' % e)
    sys.exit(1)
ev = t['traceEvents']
db = sqlite3.connect(dbpath)
run = db.execute('SELECT max(run_id) FROM run').fetchone()[0]
last = db.execute('SELECT last_ts FROM run WHERE run_id = ?', (run,)).fetchone()[0]
def win(ts, end):
    if lo is None:
        return ''
    return ' AND %s >= %d AND %s <= %d' % (end, lo, ts, hi)
for e in ev:
    if e['ph'] == 'X':
        if not isinstance(e.get('ts'), (int, float)) or not isinstance(e.get('dur'), (int, float)) \
           or e['dur'] < 0:
            bad.append('slice without ts/dur: %s' % e)
runs = sorted((round(e['ts'] * 1000), round(e['dur'] * 1000), e['tid'], e['args']['tid'])
              for e in ev if e['ph'] == 'X' and e['pid'] == 1)
want = sorted(db.execute('SELECT ts, coalesce(dur, max(? - ts, 0)), cpu, tid FROM sched_slice'
                         ' WHERE run_id = ?' + win('ts', 'ts + coalesce(dur, 0)'),
                         (last, run)).fetchall())
if runs != [tuple(r) for r in want]:
    bad.append('running slices: %d in the trace, %d in the database, first differing %s' % (
        len(runs), len(want), next(((a, b) for a, b in zip(runs, want) if a != tuple(b)), None)))
waits = sorted((round(e['ts'] * 1000), round(e['dur'] * 1000), e['tid'])
               for e in ev if e['ph'] == 'X' and e['pid'] == 2)
want = sorted(db.execute("SELECT ts, coalesce(dur, max(? - ts, 0)), tid FROM task_state"
                         " WHERE run_id = ? AND state IN ('R', 'R+')" +
                         win('ts', 'ts + coalesce(dur, 0)'), (last, run)).fetchall())
if waits != [tuple(r) for r in want]:
    bad.append('runnable slices: %d in the trace, %d in the database' % (len(waits), len(want)))
dec = [e for e in ev if e['ph'] == 'i']
n = db.execute('SELECT count(*) FROM decision WHERE run_id = ?' + win('ts', 'ts'),
               (run,)).fetchone()[0]
if len(dec) != n or len({e['args']['decision_id'] for e in dec}) != n:
    bad.append('decisions: %d in the trace, %d in the database' % (len(dec), n))
n = db.execute('SELECT count(DISTINCT v.decision_id) FROM diverged v JOIN decision d USING'
               ' (decision_id) WHERE d.run_id = ?' + win('d.ts', 'd.ts'), (run,)).fetchone()[0]
if sum('divergent' in e['name'] for e in dec) != n:
    bad.append('divergent: %d named, %d in the database' % (
        sum('divergent' in e['name'] for e in dec), n))
n = db.execute("SELECT count(*) FROM decision d WHERE d.run_id = ? AND EXISTS (SELECT 1 FROM"
               " evaluation e JOIN side s USING (side_id) WHERE e.decision_id = d.decision_id"
               " AND s.variant = 'base' AND e.cpu IS NOT d.actual_cpu)" + win('d.ts', 'd.ts'),
               (run,)).fetchone()[0]
if sum(' miss' in e['name'] for e in dec) != n:
    bad.append('misses: %d named, %d in the database' % (sum(' miss' in e['name'] for e in dec), n))
for e in dec:
    a = e['args']
    for side, v in a['sides'].items():
        if 'cpu' not in v:
            bad.append('decision %d: side %s without cpu' % (a['decision_id'], side))
    if 'actual_cpu' not in a:
        bad.append('decision %d without the kernel\'s CPU' % a['decision_id'])
prev = {}
for ts, dur, cpu, tid in runs:
    if cpu in prev and prev[cpu] > ts:
        bad.append('cpu %d: a slice at %d overlaps the one before' % (cpu, ts))
    prev[cpu] = ts + dur
names = {e['tid'] for e in ev if e['ph'] == 'M' and e['pid'] == 1 and e['name'] == 'thread_name'}
if names != {r[0] for r in db.execute('SELECT cpu FROM cpu WHERE run_id = ?', (run,))}:
    bad.append('not one named track per CPU: %s' % sorted(names))
named = {e['tid'] for e in ev if e['ph'] == 'M' and e['pid'] == 2 and e['name'] == 'thread_name'}
tasks = {r[0] for r in db.execute('SELECT tid FROM task WHERE run_id = ?', (run,))}
if lo is not None:
    tasks &= {w[2] for w in waits}
if named != tasks:
    bad.append('task tracks named: %d, tasks %s: %d' % (
        len(named), 'with a runnable slice in the window' if lo is not None else 'of the run',
        len(tasks)))
for b in bad[:10]:
    print(b)
print('%d running, %d runnable, %d decisions' % (len(runs), len(waits), len(dec)))
sys.exit(1 if bad else 0)
EOF
}

"$SR" export -o "$TMP/run.json" "$DB" 2>"$TMP/said"
same "export -o writes the file" 0 $?
ok "-o says what it wrote" grep -q "running slices" "$TMP/said"
ok "it is the database's run, in µs, counts matching" check "$TMP/run.json" "$DB"
sed 's/^/# /' "$TMP/out"
ok "python3 -m json.tool reads it" python3 -m json.tool "$TMP/run.json"
ok "no temporary file is left" sh -c "! ls '$TMP'/run.json.tmp-* 2>/dev/null"
ok "a divergent decision is named so" grep -q '"name":"wakeup divergent' "$TMP/run.json"
"$SR" export "$DB" >"$TMP/stdout.json"
ok "to standard output: the same document" cmp "$TMP/run.json" "$TMP/stdout.json"

from=$(sqlite3 "$DB" "SELECT first_ts + (last_ts - first_ts) / 3 FROM run")
to=$(sqlite3 "$DB" "SELECT first_ts + (last_ts - first_ts) / 2 FROM run")
ok "a window" "$SR" export --from "$from" --to "$to" -o "$TMP/win.json" "$DB"
ok "the window's counts are the database's in the window" check "$TMP/win.json" "$DB" "$from" "$to"
ok "the window is smaller" test "$(stat -c %s "$TMP/win.json")" -lt "$(stat -c %s "$TMP/run.json")"
# the same window in seconds from the run's first event, as the TUI prints it
fs=$(sqlite3 "$DB" "SELECT printf('%d.%09d', (l - f) / 3 / 1000000000, (l - f) / 3 % 1000000000),
	printf('%d.%09d', (l - f) / 2 / 1000000000, (l - f) / 2 % 1000000000)
	FROM (SELECT first_ts f, last_ts l FROM run)")
ok "a window in seconds" "$SR" export --from "${fs%|*}" --to "${fs#*|}" -o "$TMP/win-s.json" "$DB"
ok "... is the same window" cmp "$TMP/win.json" "$TMP/win-s.json"
ok "seconds and ns mixed: the same window" "$SR" export --from "${fs%|*}" --to "$to" \
	-o "$TMP/win-m.json" "$DB"
ok "... the same file" cmp "$TMP/win.json" "$TMP/win-m.json"
"$SR" export --from 0.5 --to 1 "$DB" >"$TMP/o" 2>"$TMP/e"
same "seconds --from after an ns --to, once resolved: exit 2" 2 $?
ok "... says so as given and in ns, and writes nothing" sh -c "grep -q '^schedreplay: export: --from 0.5 is after --to 1 ([0-9]* > 1 ns of the trace clock): an empty window$' '$TMP/e' && ! test -s '$TMP/o'"
"$SR" export --from 1.5x "$DB" 2>"$TMP/e" >/dev/null
same "bad seconds: exit 2" 2 $?
ok "... names the option and the value" grep -q "export: --from wants ns (a whole number) or seconds like 1.5 from the run's first event, not '1.5x'" "$TMP/e"
last=$(sqlite3 "$DB" "SELECT last_ts FROM run")
"$SR" export --from $((last + 1)) -o "$TMP/past.json" "$DB" 2>"$TMP/e"
same "a window after the trace's end: exit 0" 0 $?
ok "... warns, naming the run's span" grep -q "^schedreplay: warning: export: --from $((last + 1)) is after the end of run 1 of '.*' (it spans [0-9]*\.\.$last ns): nothing to export$" "$TMP/e"
ok "... and the file holds no slice and no decision" check "$TMP/past.json" "$DB" $((last + 1)) $((last + 2))

# task names with escape sequences, CR/LF and C1 controls
H=$FIX/tracedat/hostile
for f in esc-comm-ansi-v6 esc-comm-newline-osc-v6; do
	if "$SR" replay -q -o "$TMP/$f.db" -t 2 "$H/$f.dat" 2>/dev/null &&
		"$SR" export -o "$TMP/$f.json" "$TMP/$f.db" 2>/dev/null; then
		ok "$f: hostile task names stay valid JSON" check "$TMP/$f.json" "$TMP/$f.db"
		ok "$f: no raw control byte" python3 -c "
import re, sys
b = open(sys.argv[1], 'rb').read()
sys.exit(1 if re.search(rb'[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]', b) else 0)" "$TMP/$f.json"
	else
		fail "$f: replays and exports"
	fi
done

# errors
"$SR" export "$TMP/nothing.db" 2>"$TMP/e"
same "a missing database: exit 1" 1 $?
ok "... one line naming it" sh -c "test \$(wc -l <'$TMP/e') = 1 && grep -q nothing.db '$TMP/e'"
"$SR" export -r 9 "$DB" 2>"$TMP/e" >/dev/null
same "no such run: exit 1" 1 $?
ok "... says so" grep -q "has no run 9" "$TMP/e"
"$SR" export -o "$TMP/no/such/dir/x.json" "$DB" 2>"$TMP/e"
same "an unwritable output: exit 1" 1 $?
ok "... the message names the file asked for" grep -q "cannot create '$TMP/no/such/dir/x.json' (written as" "$TMP/e"
ok "... and nothing left" sh -c "! ls '$TMP'/no 2>/dev/null"
"$SR" export --from x "$DB" 2>"$TMP/e"
same "a bad --from: exit 2" 2 $?
ok "... says it takes ns or seconds, as --help does, not only a whole number" grep -q \
	"export: --from wants ns (a whole number) or seconds like 1.5 from the run's first event, not 'x'" "$TMP/e"
"$SR" export --to -1 "$DB" 2>"$TMP/e"
same "a negative --to: exit 2" 2 $?
ok "... the same message" grep -q "export: --to wants ns (a whole number) or seconds like 1.5 from the run's first event, not '-1'" "$TMP/e"
"$SR" export --from 5 --to 1 "$DB" >"$TMP/o" 2>"$TMP/e"
same "--from after --to: exit 2" 2 $?
ok "... says so, and writes nothing" sh -c "grep -q 'export: --from 5 is after --to 1' '$TMP/e' && ! test -s '$TMP/o'"
"$SR" export --from 0.3 --to 0.1 "$DB" >"$TMP/o" 2>"$TMP/e"
same "seconds --from after seconds --to: exit 2" 2 $?
ok "... quoted as given, not as ns" grep -q 'export: --from 0.3 is after --to 0.1: an empty window' "$TMP/e"
"$SR" export 2>"$TMP/e"
same "no DB: exit 2" 2 $?
"$SR" export --frobnicate "$DB" 2>"$TMP/e"
same "an unknown option: exit 2" 2 $?

test_done
