-- scheduling latency per task: the delay from a wakeup (sched_wakeup, sched_wakeup_new) to the task's next switch in, as perf sched latency measures it
-- param :run integer>=1  run id (default: NULL, every run)
-- param :comm text  task name, a GLOB pattern such as 'kworker*' (default: NULL, every task)
-- param :limit integer>=0  rows at most (default: NULL, every task)
-- One row per task with a wakeup that ran (the wakeup table, delay not
-- NULL).  A wakeup counts when the task was sleeping (or not seen yet):
-- a wakeup of a task that is running or already runnable changes nothing,
-- as in perf sched latency; unlike perf's figures, the time a preempted
-- task waits is not a wakeup's (see timehist's sch_delay_us for it).
-- p95_us, p99_us: the nearest-rank percentiles (the smallest delay that
-- at least 95 / 99 % of the task's delays do not exceed).  Times in µs
-- with the trace's ns resolution; the tasks with the longest delay first.
WITH w AS (
	SELECT run_id, tid, delay,
	       row_number() OVER (PARTITION BY run_id, tid ORDER BY delay) AS k,
	       count(*) OVER (PARTITION BY run_id, tid) AS n
	FROM wakeup
	WHERE delay IS NOT NULL AND (:run IS NULL OR run_id = :run)
)
SELECT w.run_id AS run, w.tid, t.comm, max(w.n) AS wakeups,
       round(avg(w.delay) / 1000.0, 3) AS avg_us,
       round(min(CASE WHEN w.k * 100 >= w.n * 95 THEN w.delay END) / 1000.0, 3) AS p95_us,
       round(min(CASE WHEN w.k * 100 >= w.n * 99 THEN w.delay END) / 1000.0, 3) AS p99_us,
       round(max(w.delay) / 1000.0, 3) AS max_us
FROM w LEFT JOIN task t ON t.run_id = w.run_id AND t.tid = w.tid
WHERE :comm IS NULL OR t.comm GLOB :comm
GROUP BY w.run_id, w.tid
ORDER BY run, max(w.delay) DESC, w.tid
LIMIT coalesce(:limit, -1);
