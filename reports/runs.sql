-- the runs in the file: trace, kernel, models, patches and what the replay counted
-- param :run integer>=1  run id (default: NULL, every run)
SELECT run_id AS run, trace, format, kernel, model, patches, topology,
       hz, probes, events, threads, decisions, migrations, lost_events,
       first_ts, last_ts, last_ts - first_ts AS span_ns
FROM run
WHERE :run IS NULL OR run_id = :run
ORDER BY run_id;
