# The database and the canned-query outputs that tests/t6000-sql.sh holds
# to tests/fixtures/golden/sql/, shared with tests/update-golden.sh so that
# both make them the same way.  Run from the top of the checkout: the run
# table keeps trace paths as given.

# sql_golden_db SR OUT: three runs in one file (--append), each with patch
# pairs that diverge somewhere on these real traces
sql_golden_db() {
	local sr=$1 out=$2 n=tests/fixtures/tracedat/numa
	rm -f "$out"
	"$sr" replay -q -o "$out" -m v4.15 -t $n/numa-6.12-forks.topo \
		-p wake-affine-equal -p exit-sync-mel -p exit-sync-peterz $n/numa-6.12-forks.dat &&
	"$sr" replay -q -o "$out" -a -m mainline -t $n/numa-6.1-pingpong.topo \
		-p exit-sync-mel -p exit-sync-peterz $n/numa-6.1-pingpong.dat &&
	"$sr" replay -q -o "$out" -a -m v4.15 -t $n/numa-6.12-pingpong.topo \
		-p wake-affine-equal $n/numa-6.12-pingpong.dat
}

# one golden per line: file name, then the sql arguments before DB
SQL_GOLDENS='runs.csv -F csv -Q runs
divergences.csv -F csv -Q divergences
divergences.json -F json -Q divergences
divergences-run3.csv -F csv -Q divergences --run 3
migrations.csv -F csv -Q migrations
top-tasks.csv -F csv -Q top-tasks
top-tasks-rcu.csv -F csv -Q top-tasks -P comm=rcu*
top-cpus.csv -F csv -Q top-cpus
fidelity.csv -F csv -Q fidelity
fidelity-v4.15-min100.json -F json -Q fidelity -P model=v4.15 -P min=100
timeline.csv -F csv -Q timeline -P ts=24047794893 -P run=1
timeline-wide.csv -F csv -Q timeline -P ts=32746529931 -P window=20000000'

# sql_golden_outputs SR DB DIR: write every golden output into DIR
sql_golden_outputs() {
	local sr=$1 db=$2 dir=$3 name args
	mkdir -p "$dir"
	# word splitting of args is wanted (no argument holds a space), globbing not
	printf '%s\n' "$SQL_GOLDENS" | (set -f; while read -r name args; do
		"$sr" sql $args "$db" >"$dir/$name" || exit 1
	done)
}
