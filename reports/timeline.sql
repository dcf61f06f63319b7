-- decisions and migrations around a time, with the patches that diverge at each decision
-- param :ts integer  the time in ns, trace clock (required)
-- param :window integer>=0  ns on either side of :ts (default: 1000000)
-- param :run integer>=1  run id (default: NULL, every run)
-- from_cpu is prev_cpu for a decision and the source CPU for a migration;
-- to_cpu is the CPU the kernel chose, or the migration's destination.
SELECT run, ts, ts - :ts AS rel_ns, event, tid, comm, from_cpu, to_cpu, by_cpu,
       decision_id, diverging
FROM (
	SELECT d.run_id AS run, d.ts, d.kind AS event, d.tid, d.comm,
	       d.prev_cpu AS from_cpu, d.actual_cpu AS to_cpu, d.this_cpu AS by_cpu,
	       d.decision_id,
	       (SELECT group_concat(DISTINCT s.patch) FROM diverged v JOIN side s USING (side_id)
		WHERE v.decision_id = d.decision_id) AS diverging
	FROM decision d
	WHERE d.ts BETWEEN :ts - :window AND :ts + :window
	  AND (:run IS NULL OR d.run_id = :run)
	UNION ALL
	SELECT m.run_id, m.ts, 'migrate ' || m.class, m.tid, m.comm,
	       m.orig_cpu, m.dest_cpu, m.emit_cpu, m.decision_id, NULL
	FROM migration m
	WHERE m.ts BETWEEN :ts - :window AND :ts + :window
	  AND (:run IS NULL OR m.run_id = :run)
)
ORDER BY ts, run, event, tid;
