-- divergent decisions by patch and decision kind: how often a patch's two sides differ, and which side matches the kernel there
-- param :run integer>=1  run id (default: NULL, every run)
-- param :patch text  patch pair name (default: NULL, every patch)
-- Counts are summed over the runs selected; original_matches and
-- patched_matches count the divergent decisions where that side chose the
-- CPU the kernel chose (decision.actual_cpu).
SELECT patch, model, kind,
       count(DISTINCT run_id) AS runs,
       sum(decisions) AS decisions,
       sum(divergent) AS divergent,
       round(100.0 * sum(divergent) / max(sum(decisions), 1), 3) AS divergent_pct,
       sum(original_exact) AS original_matches,
       sum(patched_exact) AS patched_matches
FROM patch_summary
WHERE (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
GROUP BY patch, model, kind
ORDER BY patch, model, kind;
