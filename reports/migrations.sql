-- migrations each patch adds or avoids at its divergent decisions (a side migrates when its CPU is not prev_cpu), and those that cross an LLC or a node
-- param :run integer>=1  run id (default: NULL, every run)
-- param :patch text  patch pair name (default: NULL, every patch)
-- divergent: the divergent decisions (rows of the divergence view) whose
-- two sides chose different CPUs and whose prev_cpu is known; a balance
-- decision whose sides differ only in the source, the task or the flags
-- moves nothing differently and does not count.  migrations_added: the
-- patched side migrates where the original does not, added_cross_llc and
-- added_cross_node those of them whose patched CPU is in another LLC or
-- node than prev_cpu; migrations_avoided and avoided_*: the other way
-- round.  "schedreplay report" prints these as the mig columns of its patch
-- pairs table.
SELECT patch, model, kind,
       count(*) AS divergent,
       sum(om) AS original_migrates,
       sum(pm) AS patched_migrates,
       sum(pm AND NOT om) AS migrations_added,
       sum(pm AND NOT om AND patched_cross_llc) AS added_cross_llc,
       sum(pm AND NOT om AND patched_cross_node) AS added_cross_node,
       sum(om AND NOT pm) AS migrations_avoided,
       sum(om AND NOT pm AND original_cross_llc) AS avoided_cross_llc,
       sum(om AND NOT pm AND original_cross_node) AS avoided_cross_node,
       sum(actual_cpu IS NOT prev_cpu) AS kernel_migrates
FROM (
	SELECT *, original_cpu IS NOT prev_cpu AS om, patched_cpu IS NOT prev_cpu AS pm
	FROM divergence
	WHERE prev_cpu IS NOT NULL AND original_cpu IS NOT patched_cpu
	  AND (:run IS NULL OR run_id = :run) AND (:patch IS NULL OR patch = :patch)
)
GROUP BY patch, model, kind
ORDER BY patch, model, kind;
