-- fidelity of each base model by decision kind and reason path: how often it chose the kernel's CPU, against the stay-on-prev_cpu baseline
-- param :run integer>=1  run id (default: NULL, every run)
-- param :model text  base model name (default: NULL, every model)
-- param :min integer>=0  leave out paths taken fewer times than this (default: 1)
-- The row with an empty path is the total of the model and kind.  Counts
-- are summed over the runs selected.
SELECT s.model, f.kind, f.path,
       sum(f.n) AS n,
       sum(f.exact) AS exact,
       round(100.0 * sum(f.exact) / max(sum(f.n), 1), 3) AS exact_pct,
       round(100.0 * sum(f.same_llc) / max(sum(f.n), 1), 3) AS same_llc_pct,
       round(100.0 * sum(f.same_node) / max(sum(f.n), 1), 3) AS same_node_pct,
       round(100.0 * sum(f.baseline_exact) / max(sum(f.n), 1), 3) AS baseline_pct
FROM fidelity f JOIN side s ON s.side_id = f.side_id
WHERE s.variant = 'base'
  AND (:run IS NULL OR f.run_id = :run) AND (:model IS NULL OR s.model = :model)
GROUP BY s.model, f.kind, f.path
HAVING sum(f.n) >= :min
ORDER BY s.model, f.kind, f.path IS NOT NULL, sum(f.n) DESC, f.path;
