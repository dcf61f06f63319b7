// SPDX-License-Identifier: GPL-2.0
/*
 * The replay database writer.  One run per replay (several runs may later
 * share a file); every decision, every model's evaluation, migration
 * classes, lost events and the fidelity table.  Written to "DB.tmp-PID"
 * with journaling off and renamed at commit: the database either appears
 * whole or not at all.
 */
#include "schedreplay/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "schedreplay/error.h"
#include "schedreplay/model.h"
#include "banned.h"

/* decisions per transaction */
#define BATCH 50000

static const char schema[] =
	"CREATE TABLE run ("
	" run_id INTEGER PRIMARY KEY,"
	" trace TEXT NOT NULL, format TEXT, host TEXT, kernel TEXT,"
	" models TEXT NOT NULL, topology TEXT, tool_version TEXT, hz INTEGER,"
	" inference TEXT, started TEXT,"
	" events INTEGER, first_ts INTEGER, last_ts INTEGER, tasks INTEGER);"
	"CREATE TABLE cpu ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, core_id INTEGER,"
	" llc_id INTEGER, node INTEGER, package INTEGER, capacity INTEGER,"
	" PRIMARY KEY (run_id, cpu));"
	"CREATE TABLE decision ("
	" run_id INTEGER NOT NULL, decision_id INTEGER NOT NULL,"
	" kind TEXT NOT NULL, ts INTEGER NOT NULL, done_ts INTEGER,"
	" pid INTEGER, comm TEXT, waker_pid INTEGER, waker_comm TEXT,"
	" this_cpu INTEGER, prev_cpu INTEGER, actual_cpu INTEGER,"
	" sync INTEGER, waker_exiting INTEGER, skip TEXT, inferred TEXT,"
	" this_nr INTEGER, prev_nr INTEGER, actual_nr INTEGER, idle_cpus INTEGER,"
	" kernel_cpu INTEGER, wake_flags INTEGER);"
	"CREATE TABLE evaluation ("
	" run_id INTEGER NOT NULL, decision_id INTEGER NOT NULL,"
	" model TEXT NOT NULL, side TEXT NOT NULL, cpu INTEGER, reason TEXT);"
	"CREATE TABLE migration_class ("
	" run_id INTEGER NOT NULL, class TEXT NOT NULL, n INTEGER NOT NULL);"
	"CREATE TABLE lost_events ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, lost INTEGER NOT NULL);"
	"CREATE TABLE skipped ("
	" run_id INTEGER NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL);"
	"CREATE TABLE fidelity ("
	" run_id INTEGER NOT NULL, model TEXT NOT NULL, kind TEXT NOT NULL,"
	" reason TEXT, n INTEGER, exact INTEGER, same_llc INTEGER,"
	" same_node INTEGER, baseline_exact INTEGER);";

struct sr_store {
	sqlite3 *db;
	sqlite3_stmt *ins_dec, *ins_eval;
	char *path, *tmp;
	int force;
	long run_id;
	long in_batch;
	int committed;
};

static int db_error(struct sr_store *s, char **cause, const char *what)
{
	sr_cause_set(cause, "cannot write '%s': %s: %s", s->path, what,
		     s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -SR_E_IO;
}

static int exec(struct sr_store *s, const char *sql, char **cause)
{
	char *err = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		sr_cause_set(cause, "cannot write '%s': %s", s->path, err ? err : "sqlite error");
		sqlite3_free(err);
		return -SR_E_IO;
	}
	return 0;
}

struct sr_store *sr_store_create(const char *path, int force, char **cause)
{
	struct sr_store *s;
	struct stat st;

	if (!force && stat(path, &st) == 0) {
		sr_cause_set(cause, "'%s' exists: choose another name or use --force", path);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->force = force;
	s->path = strdup(path);
	if (!s->path || asprintf(&s->tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		s->tmp = NULL;
		sr_store_free(s);
		return NULL;
	}
	unlink(s->tmp);
	if (sqlite3_open_v2(s->tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot create '%s': %s", s->tmp,
			     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sr_store_free(s);
		return NULL;
	}
	/* the file only becomes the database at rename: no journal needed */
	if (exec(s, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 " PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", cause) ||
	    exec(s, schema, cause)) {
		sr_store_free(s);
		return NULL;
	}
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO decision VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &s->ins_dec, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO evaluation VALUES (?,?,?,?,?,?)", -1,
			       &s->ins_eval, NULL) != SQLITE_OK) {
		db_error(s, cause, "prepare");
		sr_store_free(s);
		return NULL;
	}
	return s;
}

const char *sr_store_temp_path(const struct sr_store *s)
{
	return s ? s->tmp : NULL;
}

static int bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	return sqlite3_bind_null(st, i);
}

int sr_store_begin_run(struct sr_store *s, const struct sr_run_info *ri,
		       const struct sr_topology *topo, char **cause)
{
	sqlite3_stmt *st = NULL;
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	int c;

	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (exec(s, "BEGIN", cause))
		return -SR_E_IO;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO run (trace, format, host, kernel, models, "
			       "topology, tool_version, hz, inference, started) VALUES "
			       "(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	bind_text_or_null(st, 1, ri->trace);
	bind_text_or_null(st, 2, ri->tinfo->format);
	bind_text_or_null(st, 3, ri->tinfo->hostname);
	bind_text_or_null(st, 4, ri->tinfo->kernel);
	bind_text_or_null(st, 5, ri->models);
	bind_text_or_null(st, 6, ri->topology);
	bind_text_or_null(st, 7, ri->version);
	sqlite3_bind_int(st, 8, ri->hz);
	bind_text_or_null(st, 9, ri->inference);
	bind_text_or_null(st, 10, started);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_error(s, cause, "insert run");
	}
	sqlite3_finalize(st);
	s->run_id = (long)sqlite3_last_insert_rowid(s->db);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO cpu VALUES (?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (c = 0; c < topo->ncpus; c++) {
		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_int(st, 2, c);
		sqlite3_bind_int(st, 3, topo->cpu[c].core_id);
		sqlite3_bind_int(st, 4, topo->cpu[c].llc_id);
		sqlite3_bind_int(st, 5, topo->cpu[c].node);
		sqlite3_bind_int(st, 6, topo->cpu[c].package);
		sqlite3_bind_int(st, 7, topo->cpu[c].capacity);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_error(s, cause, "insert cpu");
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

static const char *const skip_names[] = {
	[SR_SKIP_NONE] = NULL,
	[SR_SKIP_RUNNABLE] = "runnable",
	[SR_SKIP_BOUND] = "bound",
	[SR_SKIP_ON_CPU] = "on_cpu",
	[SR_SKIP_UNKNOWN_TASK] = "unknown_task",
	[SR_SKIP_NOT_FAIR] = "not_fair",
	[SR_SKIP_NO_SELECT] = "no_select",
};

static void inferred_text(unsigned inf, char *buf, size_t len)
{
	static const char *const names[] = {
		"sync", "exiting", "kthread", "affinity", "pelt_warmup", "topology", "prev_cpu",
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (inf & (1u << i))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
					      o ? "," : "", names[i]);
}

int sr_store_decision(struct sr_store *s, const struct sr_decision *d,
		      const struct sr_model *const *models, const struct sr_eval *evals,
		      int nevals, char **cause)
{
	sqlite3_stmt *st = s->ins_dec;
	char inf[128];
	int i;

	inferred_text(d->inferred, inf, sizeof(inf));
	sqlite3_bind_int64(st, 1, s->run_id);
	sqlite3_bind_int64(st, 2, d->id);
	sqlite3_bind_text(st, 3, d->kind == SR_DEC_WAKEUP ? "wakeup" : "fork", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)d->ts);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)d->done_ts);
	sqlite3_bind_int(st, 6, d->pid);
	bind_text_or_null(st, 7, d->comm);
	sqlite3_bind_int(st, 8, d->waker);
	bind_text_or_null(st, 9, d->waker_comm);
	sqlite3_bind_int(st, 10, d->this_cpu);
	sqlite3_bind_int(st, 11, d->prev_cpu);
	sqlite3_bind_int(st, 12, d->actual_cpu);
	sqlite3_bind_int(st, 13, d->sync);
	sqlite3_bind_int(st, 14, d->waker_exiting);
	bind_text_or_null(st, 15, (unsigned)d->skip < sizeof(skip_names) / sizeof(skip_names[0]) ?
			  skip_names[d->skip] : "other");
	bind_text_or_null(st, 16, inf);
	sqlite3_bind_int(st, 17, d->this_nr);
	sqlite3_bind_int(st, 18, d->prev_nr);
	sqlite3_bind_int(st, 19, d->actual_nr);
	sqlite3_bind_int(st, 20, d->idle_cpus);
	if (d->kernel_cpu >= 0)
		sqlite3_bind_int(st, 21, d->kernel_cpu);
	else
		sqlite3_bind_null(st, 21);
	if (d->wake_flags >= 0)
		sqlite3_bind_int64(st, 22, d->wake_flags);
	else
		sqlite3_bind_null(st, 22);
	if (sqlite3_step(st) != SQLITE_DONE)
		return db_error(s, cause, "insert decision");
	sqlite3_reset(st);

	for (i = 0; i < nevals; i++) {
		st = s->ins_eval;
		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_int64(st, 2, d->id);
		sqlite3_bind_text(st, 3, models[i]->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, "original", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, evals[i].cpu);
		sqlite3_bind_text(st, 6, evals[i].reason, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			return db_error(s, cause, "insert evaluation");
		sqlite3_reset(st);
	}
	if (++s->in_batch >= BATCH) {
		s->in_batch = 0;
		if (exec(s, "COMMIT; BEGIN", cause))
			return -SR_E_IO;
	}
	return 0;
}

int sr_store_finish_run(struct sr_store *s, const struct sr_trace_info *tinfo,
			const struct sr_replay_stats *st, const struct sr_fidelity *f,
			uint64_t events, char **cause)
{
	const struct sr_fidelity_row *rows;
	sqlite3_stmt *q = NULL;
	int i, n;

	if (sqlite3_prepare_v2(s->db, "UPDATE run SET events = ?, tasks = ? WHERE run_id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	sqlite3_bind_int64(q, 1, (sqlite3_int64)events);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)st->tasks_seen);
	sqlite3_bind_int64(q, 3, s->run_id);
	if (sqlite3_step(q) != SQLITE_DONE) {
		sqlite3_finalize(q);
		return db_error(s, cause, "update run");
	}
	sqlite3_finalize(q);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO migration_class VALUES (?,?,?)", -1, &q,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (i = 0; i < SR_MIG__COUNT; i++) {
		sqlite3_bind_int64(q, 1, s->run_id);
		sqlite3_bind_text(q, 2, sr_migration_kind_name(i), -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)st->migrations[i]);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return db_error(s, cause, "insert migration_class");
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO skipped VALUES (?,?,?)", -1, &q,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (i = 1; i < (int)(sizeof(skip_names) / sizeof(skip_names[0])); i++) {
		sqlite3_bind_int64(q, 1, s->run_id);
		sqlite3_bind_text(q, 2, skip_names[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)st->skipped[i]);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return db_error(s, cause, "insert skipped");
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO lost_events VALUES (?,?,?)", -1, &q,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (i = 0; i < tinfo->ncpus; i++) {
		uint64_t lost = sr_cpu_lost(&tinfo->cpu[i]);

		if (!lost && !tinfo->cpu[i].lost_markers)
			continue;
		sqlite3_bind_int64(q, 1, s->run_id);
		sqlite3_bind_int(q, 2, i);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)lost);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return db_error(s, cause, "insert lost_events");
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO fidelity VALUES (?,?,?,?,?,?,?,?,?)", -1, &q,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	n = sr_fidelity_rows(f, &rows);
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, s->run_id);
		sqlite3_bind_text(q, 2, rows[i].model, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, rows[i].kind, -1, SQLITE_STATIC);
		bind_text_or_null(q, 4, rows[i].reason);
		sqlite3_bind_int64(q, 5, (sqlite3_int64)rows[i].n);
		sqlite3_bind_int64(q, 6, (sqlite3_int64)rows[i].exact);
		sqlite3_bind_int64(q, 7, (sqlite3_int64)rows[i].same_llc);
		sqlite3_bind_int64(q, 8, (sqlite3_int64)rows[i].same_node);
		sqlite3_bind_int64(q, 9, (sqlite3_int64)rows[i].baseline_exact);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return db_error(s, cause, "insert fidelity");
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return 0;
}

int sr_store_commit(struct sr_store *s, char **cause)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SR_DB_SCHEMA_VERSION);
	if (exec(s, "COMMIT", cause) || exec(s, sql, cause) ||
	    /* bulk load first, indexes once at the end */
	    exec(s, "CREATE UNIQUE INDEX decision_id ON decision (run_id, decision_id);"
		 "CREATE INDEX decision_kind ON decision (run_id, kind);"
		 "CREATE INDEX evaluation_decision ON evaluation (run_id, decision_id);",
		 cause))
		return -SR_E_IO;
	sqlite3_finalize(s->ins_dec);
	sqlite3_finalize(s->ins_eval);
	s->ins_dec = s->ins_eval = NULL;
	if (sqlite3_close(s->db) != SQLITE_OK)
		return db_error(s, cause, "close");
	s->db = NULL;
	if (rename(s->tmp, s->path) < 0) {
		sr_cause_set(cause, "cannot rename '%s' to '%s': %s", s->tmp, s->path,
			     strerror(errno));
		return -SR_E_IO;
	}
	s->committed = 1;
	return 0;
}

void sr_store_free(struct sr_store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->ins_dec);
	sqlite3_finalize(s->ins_eval);
	if (s->db)
		sqlite3_close(s->db);
	if (!s->committed && s->tmp)
		unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	free(s);
}
