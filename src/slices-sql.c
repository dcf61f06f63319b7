// SPDX-License-Identifier: GPL-2.0
/*
 * The slice tables of the results database (schedreplay-db(5)): their
 * schema, indexes, append copies and INSERTs, kept here so that the store
 * (src/store.c) only calls them.  Rows are integers but for a few short
 * letters; the open slices at the end of the trace have dur NULL.
 */
#include "schedreplay/slices.h"

#include "bind-cache.h"
#include "banned.h"

/*
 * IF NOT EXISTS: an append creates them in a file written before they
 * existed.  One row per running slice carries the time off the CPU before
 * it, so that a switch costs one row: the runnable and sleeping slices
 * (task_state) and the wakeups are views of sched_slice, with the states
 * still open at the end of the trace from the task table.
 */
const char sr_slices_schema[] =
	"CREATE TABLE IF NOT EXISTS sched_slice ("
	" run_id INTEGER NOT NULL, ts INTEGER NOT NULL, dur INTEGER, cpu INTEGER NOT NULL,"
	" tid INTEGER NOT NULL, end_state TEXT, priority INTEGER, wait INTEGER, delay INTEGER,"
	" prev_state TEXT, woken INTEGER, queue_cpu INTEGER, waker_tid INTEGER,"
	" queue_idle INTEGER, queue_nr INTEGER, decision_id INTEGER);"
	"CREATE TABLE IF NOT EXISTS task ("
	" run_id INTEGER NOT NULL, tid INTEGER NOT NULL, comm TEXT, priority INTEGER,"
	" run_ns INTEGER, slices INTEGER, wakeups INTEGER, delay_ns INTEGER,"
	" max_delay_ns INTEGER, preemptions INTEGER, state TEXT, state_ts INTEGER,"
	" state_cpu INTEGER, PRIMARY KEY (run_id, tid)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS cpu_idle ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, idle_ns INTEGER, idle_periods INTEGER,"
	" waiting_ns INTEGER, waiting_periods INTEGER, node_waiting_ns INTEGER,"
	" node_waiting_periods INTEGER, PRIMARY KEY (run_id, cpu)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS cpu_estimate ("
	" run_id INTEGER NOT NULL, decision_id INTEGER NOT NULL, cpu INTEGER NOT NULL,"
	" ts INTEGER NOT NULL, idle INTEGER, nr_running INTEGER, curr_tid INTEGER,"
	" ran_ns INTEGER, remaining_ns INTEGER, PRIMARY KEY (decision_id, cpu)) WITHOUT ROWID;"
	/*
	 * The delay of each divergent decision's woken slice (its sched_slice
	 * row's), for divergence_estimate: a few rows instead of an index of
	 * every woken slice by decision, which cost the writer a tenth of its
	 * time.  A file written before it keeps that index and its view.
	 */
	"CREATE TABLE IF NOT EXISTS divergent_wakeup ("
	" run_id INTEGER NOT NULL, decision_id INTEGER PRIMARY KEY, delay INTEGER);"
	"CREATE VIEW IF NOT EXISTS wakeup AS"
	" SELECT run_id, ts - delay AS ts, tid, woken = 2 AS new, queue_cpu AS target_cpu,"
	" waker_tid, queue_idle AS cpu_idle, queue_nr AS cpu_nr, delay, cpu AS run_cpu,"
	" decision_id FROM sched_slice WHERE woken IS NOT NULL;"
	"CREATE VIEW IF NOT EXISTS task_state AS"
	/* asleep, from the switch out to the wakeup (or to the switch in without one) */
	" SELECT run_id, ts - wait AS ts, wait - coalesce(delay, 0) AS dur, tid,"
	" coalesce(prev_state, '?') AS state, NULL AS cpu, NULL AS waker_tid"
	" FROM sched_slice WHERE wait IS NOT NULL AND (woken IS NOT NULL OR delay IS NULL)"
	/* runnable, from the wakeup or the switch out in state R */
	" UNION ALL SELECT run_id, ts - delay, delay, tid,"
	" CASE WHEN woken IS NOT NULL THEN 'R' ELSE coalesce(prev_state, 'R') END,"
	" queue_cpu, waker_tid FROM sched_slice WHERE delay IS NOT NULL"
	/* the state at the end of the trace, still going */
	" UNION ALL SELECT run_id, state_ts, NULL, tid, state, state_cpu, NULL FROM task"
	" WHERE state IS NOT NULL AND state != 'Running';"
	"CREATE VIEW IF NOT EXISTS thread_state AS"
	" SELECT run_id, ts, dur, tid, 'Running' AS state, cpu, NULL AS waker_tid"
	" FROM sched_slice"
	" UNION ALL SELECT run_id, ts, dur, tid, state, cpu, waker_tid FROM task_state;"
	/* the open-loop estimate beside each divergence: see schedreplay-db(5) */
	"CREATE VIEW IF NOT EXISTS divergence_estimate AS"
	" SELECT v.run_id, v.decision_id, v.patch, v.model, v.kind, v.ts, v.tid, v.comm,"
	" v.actual_cpu, ka.idle AS actual_idle, ka.nr_running AS actual_nr,"
	" w.delay AS actual_delay_ns,"
	" v.original_cpu, eo.idle AS original_idle, eo.nr_running AS original_nr,"
	" eo.curr_tid AS original_curr_tid, eo.remaining_ns AS original_remaining_ns,"
	/* idle with tasks queued (a wakeup in flight): no estimate, not 0 */
	" CASE WHEN eo.idle AND coalesce(eo.nr_running, 0) = 0 THEN 0 WHEN eo.idle THEN NULL"
	" ELSE eo.remaining_ns END AS original_wait_estimate_ns,"
	" v.patched_cpu, ep.idle AS patched_idle, ep.nr_running AS patched_nr,"
	" ep.curr_tid AS patched_curr_tid, ep.remaining_ns AS patched_remaining_ns,"
	" CASE WHEN ep.idle AND coalesce(ep.nr_running, 0) = 0 THEN 0 WHEN ep.idle THEN NULL"
	" ELSE ep.remaining_ns END AS patched_wait_estimate_ns"
	" FROM divergence v"
	" LEFT JOIN cpu_estimate ka ON ka.decision_id = v.decision_id AND ka.cpu = v.actual_cpu"
	" LEFT JOIN cpu_estimate eo ON eo.decision_id = v.decision_id AND eo.cpu = v.original_cpu"
	" LEFT JOIN cpu_estimate ep ON ep.decision_id = v.decision_id AND ep.cpu = v.patched_cpu"
	" LEFT JOIN divergent_wakeup w ON w.decision_id = v.decision_id;";

const struct sr_slices_copy sr_slices_copy[] = {
	{ "sched_slice", "INSERT INTO main.sched_slice SELECT run_id + :r, ts, dur, cpu, tid,"
	  " end_state, priority, wait, delay, prev_state, woken, queue_cpu, waker_tid,"
	  " queue_idle, queue_nr, decision_id + :d FROM src.sched_slice" },
	{ "task", "INSERT INTO main.task SELECT run_id + :r, tid, comm, priority, run_ns, slices,"
	  " wakeups, delay_ns, max_delay_ns, preemptions, state, state_ts, state_cpu"
	  " FROM src.task" },
	{ "cpu_idle", "INSERT INTO main.cpu_idle SELECT run_id + :r, cpu, idle_ns, idle_periods,"
	  " waiting_ns, waiting_periods, node_waiting_ns, node_waiting_periods FROM src.cpu_idle" },
	{ "cpu_estimate", "INSERT INTO main.cpu_estimate SELECT run_id + :r, decision_id + :d, cpu,"
	  " ts, idle, nr_running, curr_tid, ran_ns, remaining_ns FROM src.cpu_estimate" },
	{ "divergent_wakeup", "INSERT INTO main.divergent_wakeup SELECT run_id + :r,"
	  " decision_id + :d, delay FROM src.divergent_wakeup" },
	{ NULL, NULL },
};

static const char *const insert_sql[SR_SL__COUNT] = {
	[SR_SL_SCHED] = "INSERT INTO sched_slice VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SR_SL_TASK] = "INSERT INTO task VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SR_SL_CPU] = "INSERT INTO cpu_idle VALUES (?,?,?,?,?,?,?,?)",
	[SR_SL_ESTIMATE] = "INSERT INTO cpu_estimate VALUES (?,?,?,?,?,?,?,?,?)",
	[SR_SL_DIVERGENT] = "INSERT INTO divergent_wakeup VALUES (?,?,?)",
};

int sr_slices_sql_prepare(sqlite3 *db, sqlite3_stmt *st[SR_SL__COUNT])
{
	int i, rc;

	for (i = 0; i < SR_SL__COUNT; i++)
		st[i] = NULL;
	for (i = 0; i < SR_SL__COUNT; i++) {
		rc = sqlite3_prepare_v2(db, insert_sql[i], -1, &st[i], NULL);
		if (rc != SQLITE_OK) {
			sr_slices_sql_finalize(st);
			return rc;
		}
	}
	return SQLITE_OK;
}

void sr_slices_sql_finalize(sqlite3_stmt *st[SR_SL__COUNT])
{
	int i;

	for (i = 0; i < SR_SL__COUNT; i++) {
		sqlite3_finalize(st[i]);
		st[i] = NULL;
	}
}

/* an integer column, NULL for SR_SL_NONE */
static void bind_int(sqlite3_stmt *q, int i, int64_t v)
{
	if (v == SR_SL_NONE)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_int64(q, i, v);
}

static void bind_text(sqlite3_stmt *q, int i, const char *v)
{
	if (v[0])
		sqlite3_bind_text(q, i, v, -1, SQLITE_STATIC);	/* stepped at once */
	else
		sqlite3_bind_null(q, i);
}

static void bc_int(struct sr_bind_cache *bc, sqlite3_stmt *q, int i, int64_t v)
{
	if (v == SR_SL_NONE)
		sr_bc_null(bc, q, i);
	else
		sr_bc_int(bc, q, i, v);
}

static void bc_text(struct sr_bind_cache *bc, sqlite3_stmt *q, int i, const char *v)
{
	int n = 0;

	/* the texts of a row are a few bytes: counted here, not by a call per value */
	while (v[n])
		n++;
	if (n)
		sr_bc_text(bc, q, i, v, n);
	else
		sr_bc_null(bc, q, i);
}

/* a sched_slice row into parameters @o + 1 .. @o + SR_SL_SCHED_COLUMNS of @q */
void sr_slices_sql_bind_sched(sqlite3_stmt *q, struct sr_bind_cache *bc, int o, long run_id,
			      const struct sr_slice_row *r)
{
	sr_bc_int(bc, q, o + 1, run_id);
	sr_bc_int(bc, q, o + 2, (sqlite3_int64)r->ts);
	bc_int(bc, q, o + 3, r->dur);
	sr_bc_int(bc, q, o + 4, r->cpu);
	sr_bc_int(bc, q, o + 5, r->tid);
	bc_text(bc, q, o + 6, r->state);
	bc_int(bc, q, o + 7, r->prio);
	bc_int(bc, q, o + 8, r->wait);
	bc_int(bc, q, o + 9, r->delay);
	bc_text(bc, q, o + 10, r->prev_state);
	bc_int(bc, q, o + 11, r->woken);
	bc_int(bc, q, o + 12, r->queue_cpu);
	bc_int(bc, q, o + 13, r->waker);
	bc_int(bc, q, o + 14, r->queue_idle);
	bc_int(bc, q, o + 15, r->queue_nr);
	bc_int(bc, q, o + 16, r->decision);
}

int sr_slices_sql_insert(sqlite3_stmt *st[SR_SL__COUNT], long run_id,
			 const struct sr_slice_row *r)
{
	sqlite3_stmt *q;
	int i, rc;

	if ((unsigned)r->table >= SR_SL__COUNT)
		return SQLITE_MISUSE;
	q = st[r->table];
	sqlite3_bind_int64(q, 1, run_id);
	switch (r->table) {
	case SR_SL_SCHED:
		sr_slices_sql_bind_sched(q, NULL, 0, run_id, r);
		break;
	case SR_SL_TASK:
		sqlite3_bind_int(q, 2, r->tid);
		bind_text(q, 3, r->comm);
		bind_int(q, 4, r->prio);
		for (i = 0; i < 6; i++)
			sqlite3_bind_int64(q, 5 + i, (sqlite3_int64)r->n[i]);
		bind_text(q, 11, r->state);
		if (r->state[0])
			sqlite3_bind_int64(q, 12, (sqlite3_int64)r->ts);
		else
			sqlite3_bind_null(q, 12);
		bind_int(q, 13, r->cpu);
		break;
	case SR_SL_CPU:
		sqlite3_bind_int(q, 2, r->cpu);
		for (i = 0; i < 6; i++)
			sqlite3_bind_int64(q, 3 + i, (sqlite3_int64)r->n[i]);
		break;
	case SR_SL_ESTIMATE:
		sqlite3_bind_int64(q, 2, r->decision);
		sqlite3_bind_int(q, 3, r->cpu);
		sqlite3_bind_int64(q, 4, (sqlite3_int64)r->ts);
		bind_int(q, 5, r->queue_idle);
		bind_int(q, 6, r->queue_nr);
		bind_int(q, 7, r->tid);
		bind_int(q, 8, r->wait);
		bind_int(q, 9, r->dur);
		break;
	case SR_SL_DIVERGENT:
		sqlite3_bind_int64(q, 2, r->decision);
		bind_int(q, 3, r->delay);
		break;
	default:
		return SQLITE_MISUSE;
	}
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc;
}
