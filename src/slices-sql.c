// SPDX-License-Identifier: GPL-2.0
/*
 * The slice tables of the results database (schedreplay-db(5)): their
 * schema, indexes, append copies and INSERTs, kept here so that the store
 * (src/store.c) only calls them.  Rows are integers but for a few short
 * letters; the open slices at the end of the trace have dur NULL.
 */
#include "schedreplay/slices.h"

#include "banned.h"

/*
 * IF NOT EXISTS: an append creates them in a file written before they
 * existed.  sched_slice and task_state together are Perfetto's
 * thread_state (the view); sched_slice alone is its sched_slice table but
 * for the idle task, whose time is in cpu_idle.
 */
const char sr_slices_schema[] =
	"CREATE TABLE IF NOT EXISTS sched_slice ("
	" run_id INTEGER NOT NULL, ts INTEGER NOT NULL, dur INTEGER, cpu INTEGER NOT NULL,"
	" tid INTEGER NOT NULL, end_state TEXT, priority INTEGER, wait INTEGER, delay INTEGER);"
	"CREATE TABLE IF NOT EXISTS task_state ("
	" run_id INTEGER NOT NULL, ts INTEGER NOT NULL, dur INTEGER, tid INTEGER NOT NULL,"
	" state TEXT NOT NULL, cpu INTEGER, waker_tid INTEGER);"
	"CREATE TABLE IF NOT EXISTS wakeup ("
	" run_id INTEGER NOT NULL, ts INTEGER NOT NULL, tid INTEGER NOT NULL, new INTEGER,"
	" target_cpu INTEGER, waker_tid INTEGER, cpu_idle INTEGER, cpu_nr INTEGER,"
	" delay INTEGER, run_cpu INTEGER, decision_id INTEGER);"
	"CREATE TABLE IF NOT EXISTS task ("
	" run_id INTEGER NOT NULL, tid INTEGER NOT NULL, comm TEXT, priority INTEGER,"
	" run_ns INTEGER, slices INTEGER, wakeups INTEGER, delay_ns INTEGER,"
	" max_delay_ns INTEGER, preemptions INTEGER,"
	" PRIMARY KEY (run_id, tid)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS cpu_idle ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, idle_ns INTEGER, idle_periods INTEGER,"
	" waiting_ns INTEGER, waiting_periods INTEGER, node_waiting_ns INTEGER,"
	" node_waiting_periods INTEGER, PRIMARY KEY (run_id, cpu)) WITHOUT ROWID;"
	"CREATE VIEW IF NOT EXISTS thread_state AS"
	" SELECT run_id, ts, dur, tid, 'Running' AS state, cpu, NULL AS waker_tid"
	" FROM sched_slice"
	" UNION ALL SELECT run_id, ts, dur, tid, state, cpu, waker_tid FROM task_state;";

const char sr_slices_indexes[] =
	"CREATE INDEX IF NOT EXISTS sched_slice_cpu ON sched_slice (run_id, cpu, ts);"
	"CREATE INDEX IF NOT EXISTS wakeup_decision ON wakeup (decision_id);";

const struct sr_slices_copy sr_slices_copy[] = {
	{ "sched_slice", "INSERT INTO main.sched_slice SELECT run_id + :r, ts, dur, cpu, tid,"
	  " end_state, priority, wait, delay FROM src.sched_slice" },
	{ "task_state", "INSERT INTO main.task_state SELECT run_id + :r, ts, dur, tid, state, cpu,"
	  " waker_tid FROM src.task_state" },
	{ "wakeup", "INSERT INTO main.wakeup SELECT run_id + :r, ts, tid, new, target_cpu,"
	  " waker_tid, cpu_idle, cpu_nr, delay, run_cpu, decision_id + :d FROM src.wakeup" },
	{ "task", "INSERT INTO main.task SELECT run_id + :r, tid, comm, priority, run_ns, slices,"
	  " wakeups, delay_ns, max_delay_ns, preemptions FROM src.task" },
	{ "cpu_idle", "INSERT INTO main.cpu_idle SELECT run_id + :r, cpu, idle_ns, idle_periods,"
	  " waiting_ns, waiting_periods, node_waiting_ns, node_waiting_periods FROM src.cpu_idle" },
	{ NULL, NULL },
};

static const char *const insert_sql[SR_SL__COUNT] = {
	[SR_SL_SCHED] = "INSERT INTO sched_slice VALUES (?,?,?,?,?,?,?,?,?)",
	[SR_SL_STATE] = "INSERT INTO task_state VALUES (?,?,?,?,?,?,?)",
	[SR_SL_WAKEUP] = "INSERT INTO wakeup VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	[SR_SL_TASK] = "INSERT INTO task VALUES (?,?,?,?,?,?,?,?,?,?)",
	[SR_SL_CPU] = "INSERT INTO cpu_idle VALUES (?,?,?,?,?,?,?,?)",
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
		sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
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
		sqlite3_bind_int64(q, 2, (sqlite3_int64)r->ts);
		bind_int(q, 3, r->dur);
		sqlite3_bind_int(q, 4, r->cpu);
		sqlite3_bind_int(q, 5, r->tid);
		bind_text(q, 6, r->state);
		bind_int(q, 7, r->prio);
		bind_int(q, 8, r->wait);
		bind_int(q, 9, r->delay);
		break;
	case SR_SL_STATE:
		sqlite3_bind_int64(q, 2, (sqlite3_int64)r->ts);
		bind_int(q, 3, r->dur);
		sqlite3_bind_int(q, 4, r->tid);
		sqlite3_bind_text(q, 5, r->state[0] ? r->state : "?", -1, SQLITE_TRANSIENT);
		bind_int(q, 6, r->cpu);
		bind_int(q, 7, r->waker);
		break;
	case SR_SL_WAKEUP:
		sqlite3_bind_int64(q, 2, (sqlite3_int64)r->ts);
		sqlite3_bind_int(q, 3, r->tid);
		bind_int(q, 4, r->is_new);
		bind_int(q, 5, r->cpu);
		bind_int(q, 6, r->waker);
		bind_int(q, 7, r->cpu_idle);
		bind_int(q, 8, r->cpu_nr);
		bind_int(q, 9, r->delay);
		bind_int(q, 10, r->run_cpu);
		bind_int(q, 11, r->decision);
		break;
	case SR_SL_TASK:
		sqlite3_bind_int(q, 2, r->tid);
		bind_text(q, 3, r->comm);
		bind_int(q, 4, r->prio);
		for (i = 0; i < 6; i++)
			sqlite3_bind_int64(q, 5 + i, (sqlite3_int64)r->n[i]);
		break;
	case SR_SL_CPU:
		sqlite3_bind_int(q, 2, r->cpu);
		for (i = 0; i < 6; i++)
			sqlite3_bind_int64(q, 3 + i, (sqlite3_int64)r->n[i]);
		break;
	default:
		return SQLITE_MISUSE;
	}
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc;
}
