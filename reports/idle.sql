-- idle time per CPU and per node, and the idle time while another CPU had tasks waiting for it (anywhere, or in the same node)
-- param :run integer>=1  run id (default: NULL, every run)
-- From the cpu_idle table: a CPU is idle from a switch to the idle task to
-- the next switch (periods begun before the trace's first switch on the
-- CPU are not counted).  waiting: idle while some other CPU ran a task and
-- had at least one more runnable (woken or preempted, not yet running) --
-- work this CPU could have taken, affinity aside; node_waiting: such a CPU
-- in the same node.  *_periods: the idle periods during which that held
-- at some time.  idle_pct: of the run's span (run.first_ts to last_ts).
-- scope 'node': the sums over the node's CPUs.
WITH c AS (
	SELECT i.run_id, i.cpu, c.node, i.idle_ns, i.idle_periods, i.waiting_ns,
	       i.waiting_periods, i.node_waiting_ns, i.node_waiting_periods,
	       max(r.last_ts - r.first_ts, 1) AS span
	FROM cpu_idle i JOIN cpu c ON c.run_id = i.run_id AND c.cpu = i.cpu
	JOIN run r ON r.run_id = i.run_id
	WHERE :run IS NULL OR i.run_id = :run
)
SELECT run, scope, node, cpu, round(idle_ns / 1e6, 3) AS idle_ms,
       round(100.0 * idle_ns / span / ncpus, 2) AS idle_pct, idle_periods,
       round(waiting_ns / 1e6, 3) AS waiting_ms, waiting_periods,
       round(node_waiting_ns / 1e6, 3) AS node_waiting_ms, node_waiting_periods
FROM (
	SELECT run_id AS run, 'cpu' AS scope, node, cpu, idle_ns, 1 AS ncpus, span, idle_periods,
	       waiting_ns, waiting_periods, node_waiting_ns, node_waiting_periods
	FROM c
	UNION ALL
	SELECT run_id, 'node', node, NULL, sum(idle_ns), count(*), max(span), sum(idle_periods),
	       sum(waiting_ns), sum(waiting_periods), sum(node_waiting_ns),
	       sum(node_waiting_periods)
	FROM c GROUP BY run_id, node
)
ORDER BY run, node, scope = 'node', cpu;
