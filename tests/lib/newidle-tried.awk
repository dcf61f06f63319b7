# trace-cmd report -t output -> one line per switch whose prev blocked (a
# newly idle switch is one of them): "TS_NS CPU TRIED", TRIED 1 when the balance probe
# schedreplay/balance_rq with idle=2 (CPU_NEWLY_IDLE) fired on that CPU since
# its previous switch.  trace-cmd prints sched_switch as
# "prev:pid [prio] STATE ==> next:pid [prio]".
{
	cpu = -1
	for (i = 1; i < NF - 1; i++)
		if ($i ~ /^\[[0-9]+\]$/) {
			cpu = substr($i, 2, length($i) - 2) + 0
			ts = $(i + 1)
			ev = $(i + 2)
			break
		}
	if (cpu < 0)
		next
	if (ev == "balance_rq:" && $0 ~ / idle=2( |$)/)
		tried[cpu] = 1
	if (ev != "sched_switch:")
		next
	for (j = i + 3; j < NF; j++)
		if ($j == "==>")
			break
	st = $(j - 1)
	if (st !~ /^R/) {
		sub(/:$/, "", ts)
		split(ts, p, ".")
		printf "%s%s %d %d\n", p[1], p[2], cpu, tried[cpu] ? 1 : 0
	}
	tried[cpu] = 0
}
