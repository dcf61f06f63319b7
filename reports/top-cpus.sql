-- the CPUs divergent decisions involve: how often each side chose a CPU where the other did not, and the kernel's choice there
-- param :run  run id (default: NULL, every run)
-- param :patch  patch pair name (default: NULL, every patch)
-- param :limit  rows at most (default: 20)
-- One row of the divergence view is one (decision, patch): a decision on
-- which two patches diverge counts for each.
WITH d AS (
	SELECT * FROM divergence
	WHERE (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
)
SELECT c.run_id AS run, c.cpu, c.llc_id AS llc, c.node,
       (SELECT count(*) FROM d WHERE d.run_id = c.run_id AND d.prev_cpu = c.cpu) AS as_prev,
       (SELECT count(*) FROM d WHERE d.run_id = c.run_id AND d.original_cpu = c.cpu) AS original_chose,
       (SELECT count(*) FROM d WHERE d.run_id = c.run_id AND d.patched_cpu = c.cpu) AS patched_chose,
       (SELECT count(*) FROM d WHERE d.run_id = c.run_id AND d.actual_cpu = c.cpu) AS kernel_chose
FROM cpu c
WHERE (:run IS NULL OR c.run_id = :run)
  AND EXISTS (SELECT 1 FROM d WHERE d.run_id = c.run_id
	      AND c.cpu IN (d.prev_cpu, d.original_cpu, d.patched_cpu, d.actual_cpu))
ORDER BY original_chose + patched_chose DESC, as_prev DESC, run, c.cpu
LIMIT :limit;
