-- every run slice as perf sched timehist prints it: when it ended, the CPU, the task, its wait time, scheduling delay and run time
-- param :run integer>=1  run id (default: NULL, every run)
-- param :cpu integer>=0  only this CPU (default: NULL, every CPU)
-- param :tid integer>=1  only this task (default: NULL, every task)
-- param :from integer  slices ending at or after this ns, trace clock (default: NULL, from the start)
-- param :to integer  slices ending at or before this ns (default: NULL, to the end)
-- param :limit integer>=0  rows at most (default: NULL, every slice)
-- One row per switch out (the sched_slice table; the idle task's time is
-- in the idle query).  wait_us: the time since the task's previous switch
-- out (asleep and runnable); sch_delay_us: of that, the time it was
-- runnable (since its wakeup, or since it was preempted); run_us: the
-- slice; state: the task's state at the switch out (R, R+, S, D, ...).
-- NULL where the trace does not show it (the task's first slice).
SELECT s.run_id AS run, s.ts + s.dur AS ts, s.cpu, s.tid, t.comm,
       round(s.wait / 1000.0, 3) AS wait_us, round(s.delay / 1000.0, 3) AS sch_delay_us,
       round(s.dur / 1000.0, 3) AS run_us, s.end_state AS state
FROM sched_slice s LEFT JOIN task t ON t.run_id = s.run_id AND t.tid = s.tid
WHERE s.dur IS NOT NULL AND (:run IS NULL OR s.run_id = :run)
  AND (:cpu IS NULL OR s.cpu = :cpu) AND (:tid IS NULL OR s.tid = :tid)
  AND (:from IS NULL OR s.ts + s.dur >= :from) AND (:to IS NULL OR s.ts + s.dur <= :to)
ORDER BY run, s.ts + s.dur, s.cpu
LIMIT coalesce(:limit, -1);
