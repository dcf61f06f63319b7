-- the tasks with the most divergent decisions (woken or forked task), with their decisions and the patches that diverge
-- param :run  run id (default: NULL, every run)
-- param :patch  patch pair name (default: NULL, every patch)
-- param :comm  task name, a GLOB pattern such as 'kworker*' (default: NULL, every task)
-- param :limit  rows at most (default: 20)
WITH div AS (
	SELECT run_id, tid, count(DISTINCT decision_id) AS divergent,
	       group_concat(DISTINCT patch) AS patches
	FROM divergence
	WHERE (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
	GROUP BY run_id, tid
)
SELECT div.run_id AS run, div.tid, t.name AS comm,
       t.decisions, div.divergent,
       round(100.0 * div.divergent / max(t.decisions, 1), 3) AS divergent_pct,
       t.migrations, div.patches
FROM div JOIN thread t ON t.run_id = div.run_id AND t.tid = div.tid
WHERE :comm IS NULL OR t.name GLOB :comm
ORDER BY div.divergent DESC, t.decisions DESC, run, div.tid
LIMIT :limit;
