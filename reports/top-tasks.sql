-- the tasks with the most divergent decisions (the decision's task: woken, forked or pulled), with their evaluated decisions and the patches that diverge
-- param :run integer>=1  run id (default: NULL, every run)
-- param :patch text  patch pair name (default: NULL, every patch)
-- param :comm text  task name, a GLOB pattern such as 'kworker*' (default: NULL, every task)
-- param :limit integer>=0  rows at most (default: 20)
-- evaluated: the task's decisions that were evaluated (decision.skip IS
-- NULL), under every patch; divergent: those where a patch pair's two
-- sides differ (every decision in the diverged table: a different CPU or,
-- at a balance decision, a different pull or balance flags); divergences:
-- rows of the divergence view, one per decision, patch and base model.
-- "schedreplay report" prints this query as its top tasks table.
WITH div AS (
	SELECT run_id, tid, max(comm) AS comm, count(DISTINCT decision_id) AS divergent,
	       count(*) AS divergences, group_concat(DISTINCT patch) AS patches
	FROM divergence
	WHERE (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
	GROUP BY run_id, tid
), top AS (
	SELECT div.*, coalesce(t.name, div.comm) AS name, t.migrations,
	       (SELECT count(*) FROM decision d WHERE d.run_id = div.run_id AND d.tid IS div.tid
		AND d.skip IS NULL) AS evaluated
	FROM div LEFT JOIN thread t ON t.run_id = div.run_id AND t.tid = div.tid
	WHERE :comm IS NULL OR coalesce(t.name, div.comm) GLOB :comm
)
SELECT run_id AS run, tid, name AS comm, evaluated, divergent,
       round(100.0 * divergent / max(evaluated, 1), 3) AS divergent_pct,
       divergences, migrations, patches
FROM top
ORDER BY divergent DESC, evaluated DESC, run, tid
LIMIT :limit;
