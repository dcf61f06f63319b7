-- migrations each patch adds or avoids at its divergent decisions (a side migrates when its CPU differs from prev_cpu), cross-LLC and cross-node
-- param :run  run id (default: NULL, every run)
-- param :patch  patch pair name (default: NULL, every patch)
-- Only decisions with a known prev_cpu count.  *_added: the patched side
-- crosses where the original did not; *_avoided: the other way round.
SELECT patch, model, kind,
       count(*) AS divergent,
       sum(original_cpu IS NOT prev_cpu) AS original_migrates,
       sum(patched_cpu IS NOT prev_cpu) AS patched_migrates,
       sum(original_cross_llc) AS original_cross_llc,
       sum(patched_cross_llc) AS patched_cross_llc,
       sum(patched_cross_llc AND NOT original_cross_llc) AS cross_llc_added,
       sum(original_cross_llc AND NOT patched_cross_llc) AS cross_llc_avoided,
       sum(original_cross_node) AS original_cross_node,
       sum(patched_cross_node) AS patched_cross_node,
       sum(patched_cross_node AND NOT original_cross_node) AS cross_node_added,
       sum(original_cross_node AND NOT patched_cross_node) AS cross_node_avoided,
       sum(actual_cpu IS NOT prev_cpu) AS kernel_migrates
FROM divergence
WHERE prev_cpu IS NOT NULL
  AND (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
GROUP BY patch, model, kind
ORDER BY patch, model, kind;
