-- the CPUs with the most divergent decisions made on them (this_cpu), and how often divergent decisions chose each CPU
-- param :run integer>=1  run id (default: NULL, every run)
-- param :patch text  patch pair name (default: NULL, every patch)
-- param :limit integer>=0  rows at most (default: 20)
-- evaluated, divergent, divergences: as in top-tasks, per CPU the decision
-- ran on (this_cpu: the waker's, the parent's or the pulling CPU).
-- as_prev, original_chose, patched_chose, kernel_chose: rows of the
-- divergence view (one per decision, patch and base model) where the CPU
-- was prev_cpu, or the CPU a side or the kernel chose.  A CPU is listed
-- when a divergent decision ran on it or involves it.
-- "schedreplay report" prints this query as its top CPUs table.
WITH d AS (
	SELECT * FROM divergence
	WHERE (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
), mine AS (
	SELECT run_id, this_cpu AS cpu, count(DISTINCT decision_id) AS divergent,
	       count(*) AS divergences
	FROM d GROUP BY run_id, this_cpu
), ev AS (
	SELECT run_id, this_cpu AS cpu, count(*) AS evaluated
	FROM decision
	WHERE skip IS NULL AND (:run IS NULL OR run_id = :run)
	GROUP BY run_id, this_cpu
), roles AS (
	-- one pass per role over the divergent rows, not one per CPU
	SELECT run_id, this_cpu AS cpu, 0 AS p, 0 AS o, 0 AS q, 0 AS k FROM d
	UNION ALL SELECT run_id, prev_cpu, 1, 0, 0, 0 FROM d
	UNION ALL SELECT run_id, original_cpu, 0, 1, 0, 0 FROM d
	UNION ALL SELECT run_id, patched_cpu, 0, 0, 1, 0 FROM d
	UNION ALL SELECT run_id, actual_cpu, 0, 0, 0, 1 FROM d
), involved AS (
	SELECT run_id, cpu, sum(p) AS as_prev, sum(o) AS original_chose, sum(q) AS patched_chose,
	       sum(k) AS kernel_chose
	FROM roles WHERE cpu IS NOT NULL GROUP BY run_id, cpu
), per AS (
	SELECT c.run_id, c.cpu, c.llc_id, c.node, coalesce(ev.evaluated, 0) AS evaluated,
	       coalesce(mine.divergent, 0) AS divergent, coalesce(mine.divergences, 0) AS divergences,
	       i.as_prev, i.original_chose, i.patched_chose, i.kernel_chose
	FROM involved i
	JOIN cpu c ON c.run_id = i.run_id AND c.cpu = i.cpu
	LEFT JOIN mine ON mine.run_id = c.run_id AND mine.cpu = c.cpu
	LEFT JOIN ev ON ev.run_id = c.run_id AND ev.cpu = c.cpu
)
SELECT run_id AS run, cpu, llc_id AS llc, node, evaluated, divergent,
       round(100.0 * divergent / max(evaluated, 1), 3) AS divergent_pct, divergences,
       as_prev, original_chose, patched_chose, kernel_chose
FROM per
ORDER BY divergent DESC, original_chose + patched_chose DESC, as_prev DESC, run, cpu
LIMIT :limit;
