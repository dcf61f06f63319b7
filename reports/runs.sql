-- the runs in the file: replay or simulate (which side), trace, kernel, models, patches and what the run counted
-- param :run integer>=1  run id (default: NULL, every run)
SELECT run_id AS run, kind, variant, trace, format, kernel, model, patches, topology,
       hz, probes, events, threads, decisions, migrations, lost_events,
       first_ts, last_ts, last_ts - first_ts AS span_ns
FROM run
WHERE :run IS NULL OR run_id = :run
ORDER BY run_id;
