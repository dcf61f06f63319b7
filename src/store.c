// SPDX-License-Identifier: GPL-2.0
/*
 * The results database: writer and reader-side open (schedreplay-db(5)).
 * One run per replay; several runs may share a file (--append).  Every
 * decision, every side's evaluation (reasons interned in their own table),
 * the decisions where a patch's sides differ, every classified migration,
 * threads, lost events, and the fidelity and patch tables.  Written to
 * "DB.tmp-PID" with journaling off and renamed at commit: the database
 * either appears whole or not at all.
 */
#include "schedreplay/store.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "schedreplay/model.h"
#include "banned.h"

/* created with IF NOT EXISTS also when a run is appended to an older file */
#define RECONCILED_TABLE \
	"CREATE TABLE IF NOT EXISTS reconciled (" \
	" run_id INTEGER NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL);"

/* decisions per transaction */
#define BATCH 50000

static const char schema[] =
	"CREATE TABLE meta ("
	" key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE run ("
	" run_id INTEGER PRIMARY KEY,"
	" trace TEXT NOT NULL, format TEXT, host TEXT, kernel TEXT, clock TEXT,"
	" model TEXT NOT NULL, patches TEXT, topology TEXT, tool_version TEXT,"
	" hz INTEGER, probes INTEGER, inference TEXT, started TEXT,"
	" events INTEGER, first_ts INTEGER, last_ts INTEGER, threads INTEGER,"
	" decisions INTEGER, migrations INTEGER, lost_events INTEGER);"
	"CREATE TABLE cpu ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, core_id INTEGER,"
	" llc_id INTEGER, node INTEGER, package INTEGER, capacity INTEGER,"
	" PRIMARY KEY (run_id, cpu)) WITHOUT ROWID;"
	"CREATE TABLE thread ("
	" run_id INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT,"
	" start_ts INTEGER, end_ts INTEGER, decisions INTEGER, migrations INTEGER,"
	" PRIMARY KEY (run_id, tid)) WITHOUT ROWID;"
	"CREATE TABLE side ("
	" side_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, model TEXT NOT NULL,"
	" patch TEXT, variant TEXT NOT NULL);"
	"CREATE TABLE reason ("
	" reason_id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL UNIQUE);"
	"CREATE TABLE decision ("
	" decision_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
	" kind TEXT NOT NULL, ts INTEGER NOT NULL, done_ts INTEGER,"
	" tid INTEGER, comm TEXT, waker_tid INTEGER, waker_comm TEXT,"
	" this_cpu INTEGER, prev_cpu INTEGER, actual_cpu INTEGER, kernel_cpu INTEGER,"
	" sync INTEGER, wake_flags INTEGER, waker_exiting INTEGER, skip TEXT, inferred TEXT,"
	" this_nr INTEGER, prev_nr INTEGER, actual_nr INTEGER, idle_cpus INTEGER);"
	"CREATE TABLE evaluation ("
	" decision_id INTEGER NOT NULL, side_id INTEGER NOT NULL, cpu INTEGER,"
	" reason_id INTEGER, PRIMARY KEY (decision_id, side_id)) WITHOUT ROWID;"
	"CREATE TABLE diverged ("
	" decision_id INTEGER NOT NULL, side_id INTEGER NOT NULL,"
	" PRIMARY KEY (decision_id, side_id)) WITHOUT ROWID;"
	"CREATE TABLE cpu_state ("
	" decision_id INTEGER NOT NULL, cpu INTEGER NOT NULL, nr_running INTEGER,"
	" cfs_nr INTEGER, curr_tid INTEGER, curr_comm TEXT, idle INTEGER,"
	" load INTEGER, util INTEGER, PRIMARY KEY (decision_id, cpu)) WITHOUT ROWID;"
	"CREATE TABLE migration ("
	" run_id INTEGER NOT NULL, ts INTEGER NOT NULL, tid INTEGER, comm TEXT,"
	" orig_cpu INTEGER, dest_cpu INTEGER, emit_cpu INTEGER, class TEXT NOT NULL,"
	" decision_id INTEGER);"
	"CREATE TABLE lost_events ("
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, lost INTEGER NOT NULL);"
	"CREATE TABLE skipped ("
	" run_id INTEGER NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL);"
	RECONCILED_TABLE
	"CREATE TABLE fidelity ("
	" run_id INTEGER NOT NULL, side_id INTEGER NOT NULL, kind TEXT NOT NULL,"
	" path TEXT, n INTEGER, exact INTEGER, same_llc INTEGER,"
	" same_node INTEGER, baseline_exact INTEGER);"
	"CREATE TABLE patch_summary ("
	" run_id INTEGER NOT NULL, patch TEXT NOT NULL, seed TEXT, model TEXT NOT NULL,"
	" kind TEXT NOT NULL, decisions INTEGER, divergent INTEGER,"
	" original_exact INTEGER, patched_exact INTEGER);"
	/* the views users and the report start from */
	"CREATE VIEW evaluation_v AS"
	" SELECT e.decision_id, s.run_id, s.side_id, s.model, s.patch, s.variant, e.cpu,"
	" r.path, r.text AS reason"
	" FROM evaluation e JOIN side s USING (side_id) LEFT JOIN reason r USING (reason_id);"
	"CREATE VIEW divergence AS"
	" SELECT d.run_id, d.decision_id, so.patch, so.model, d.kind, d.ts, d.tid, d.comm,"
	" d.waker_tid, d.waker_comm, d.this_cpu, d.prev_cpu, d.actual_cpu,"
	" eo.cpu AS original_cpu, ep.cpu AS patched_cpu,"
	" ro.text AS original_reason, rp.text AS patched_reason,"
	" eo.cpu IS d.actual_cpu AS original_matches, ep.cpu IS d.actual_cpu AS patched_matches,"
	" co.llc_id IS NOT cprev.llc_id AS original_cross_llc,"
	" co.node IS NOT cprev.node AS original_cross_node,"
	" cp.llc_id IS NOT cprev.llc_id AS patched_cross_llc,"
	" cp.node IS NOT cprev.node AS patched_cross_node,"
	" d.sync, d.waker_exiting, d.inferred"
	/* CROSS JOIN: start from the few divergent rows, not from every decision of a run */
	" FROM diverged v CROSS JOIN decision d ON d.decision_id = v.decision_id"
	" JOIN side so ON so.side_id = v.side_id"
	" JOIN side sp ON sp.run_id = so.run_id AND sp.patch = so.patch AND sp.model = so.model"
	"  AND sp.variant = 'patched'"
	" JOIN evaluation eo ON eo.decision_id = d.decision_id AND eo.side_id = so.side_id"
	" JOIN evaluation ep ON ep.decision_id = d.decision_id AND ep.side_id = sp.side_id"
	" LEFT JOIN reason ro ON ro.reason_id = eo.reason_id"
	" LEFT JOIN reason rp ON rp.reason_id = ep.reason_id"
	" LEFT JOIN cpu cprev ON cprev.run_id = d.run_id AND cprev.cpu = d.prev_cpu"
	" LEFT JOIN cpu co ON co.run_id = d.run_id AND co.cpu = eo.cpu"
	" LEFT JOIN cpu cp ON cp.run_id = d.run_id AND cp.cpu = ep.cpu;"
	"CREATE VIEW migration_summary AS"
	" SELECT run_id, class, count(*) AS n FROM migration GROUP BY run_id, class;";

/* created once the bulk load is over (or at once when appending) */
static const char indexes[] =
	"CREATE INDEX IF NOT EXISTS decision_run ON decision (run_id, kind, ts);"
	"CREATE INDEX IF NOT EXISTS decision_ts ON decision (run_id, ts);"
	"CREATE INDEX IF NOT EXISTS decision_tid ON decision (run_id, tid);"
	"CREATE INDEX IF NOT EXISTS migration_run ON migration (run_id, ts);"
	"CREATE INDEX IF NOT EXISTS side_run ON side (run_id, patch);";

/* a small string → id table for the reason texts */
struct intern {
	char **text;
	long *id;
	size_t n, cap;
};

struct thread_row {
	int tid;
	char name[SR_COMM_LEN];
	uint64_t start_ts, end_ts;
	uint64_t decisions, migrations;
};

enum job_type { JOB_DECISION, JOB_DIVERGENT, JOB_CPU_STATE, JOB_MIGRATION };

struct job {
	enum job_type type;
	struct sr_decision d;		/* DECISION, CPU_STATE (d.snap owned) */
	int nevals;
	struct sr_eval ev[SR_MAX_MODELS];
	long id;			/* DIVERGENT */
	int side;
	struct sr_migration m;		/* MIGRATION */
};

#define JOBS_PER_BLOCK 2048

struct job_block {
	int n;
	struct job job[JOBS_PER_BLOCK];
};

struct sr_store {
	sqlite3 *db;
	sqlite3_stmt *ins_dec, *ins_eval, *ins_reason, *ins_div, *ins_mig, *ins_snap;
	int ncpus;
	char *path, *tmp;
	int force, append;
	long run_id;
	long id_base;			/* decision_id = id_base + engine id */
	long in_batch;
	int committed;
	/* sides */
	const struct sr_model *const *sides;
	long side_id[SR_MAX_MODELS];
	unsigned touches[SR_MAX_MODELS];
	int nsides;
	struct intern reasons;
	long next_reason;
	/* threads: open addressing on tid */
	struct thread_row *threads;
	size_t tcap, tn;
	uint64_t first_ts, last_ts, decisions, migrations;
	/* the writer thread: the caller fills one block of jobs while it
	 * writes the other, so SQLite and the replay run side by side */
	pthread_t writer;
	int writer_on;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job_block *fill, *spare;	/* the caller's block, the other one */
	struct job_block *busy;		/* handed to the writer; NULL when idle */
	int quit;
	int err;			/* first error of the writer */
	char *err_cause;
};

static int writer_start(struct sr_store *s);

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

static int copy_file(const char *from, const char *to, char **cause)
{
	char buf[1 << 16];
	int in, out;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		sr_cause_set(cause, "cannot open '%s': %s", from, strerror(errno));
		return -SR_E_IO;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		sr_cause_set(cause, "cannot create '%s': %s", to, strerror(errno));
		close(in);
		return -SR_E_IO;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || close(out) < 0) {
		sr_cause_set(cause, "cannot copy '%s' to '%s': %s", from, to, strerror(errno));
		close(in);
		return -SR_E_IO;
	}
	close(in);
	return 0;
}

/* what a file is: 1 a schedreplay database of this schema, else -1 with @cause */
static int check_schema(sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt *st = NULL;
	int app = 0, ver = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sr_cause_set(cause, "'%s' is not an SQLite database: %s", path,
			     sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	app = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (app != SR_DB_APPLICATION_ID) {
		/* schema 1 had no application id but a decision table */
		if (ver == 1 && sqlite3_table_column_metadata(db, NULL, "decision", "decision_id",
							      NULL, NULL, NULL, NULL,
							      NULL) == SQLITE_OK) {
			sr_cause_set(cause, "'%s' is a schedreplay database of schema 1; this "
				     "schedreplay reads schema %d: replay the trace again", path,
				     SR_DB_SCHEMA_VERSION);
			return -1;
		}
		sr_cause_set(cause, "'%s' is an SQLite database, but not one schedreplay wrote",
			     path);
		return -1;
	}
	if (ver != SR_DB_SCHEMA_VERSION) {
		sr_cause_set(cause, "'%s' has database schema %d; this schedreplay reads schema %d: "
			     "%s", path, ver, SR_DB_SCHEMA_VERSION,
			     ver > SR_DB_SCHEMA_VERSION ? "use a newer schedreplay" :
			     "replay the trace again");
		return -1;
	}
	return 1;
}

sqlite3 *sr_db_open(const char *path, int writable, char **cause)
{
	sqlite3 *db = NULL;
	struct stat st;
	char hdr[16];
	int fd;

	if (stat(path, &st) < 0) {
		sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sr_cause_set(cause, "cannot open '%s': not a regular file", path);
		return NULL;
	}
	/* SQLite would take an empty or foreign file as a new database */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (read(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "SQLite format 3", 16)) {
		close(fd);
		sr_cause_set(cause, "'%s' is not a schedreplay database (not SQLite)", path);
		return NULL;
	}
	close(fd);
	if (sqlite3_open_v2(path, &db, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot open '%s': %s", path,
			     db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	if (check_schema(db, path, cause) < 0) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static long max_decision(struct sr_store *s)
{
	sqlite3_stmt *st = NULL;
	long v = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(decision_id), -1) FROM decision", -1,
			       &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

struct sr_store *sr_store_create(const char *path, int force, int append, char **cause)
{
	struct sr_store *s;
	struct stat st;
	int exists = stat(path, &st) == 0;

	if (exists && !force && !append) {
		sr_cause_set(cause, "'%s' exists: choose another name, --append a run to it, or "
			     "replace it with --force", path);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->force = force;
	s->append = append && exists;
	s->path = strdup(path);
	if (!s->path || asprintf(&s->tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		s->tmp = NULL;
		sr_store_free(s);
		return NULL;
	}
	unlink(s->tmp);
	if (s->append) {
		sqlite3 *old = sr_db_open(path, 0, cause);

		if (!old) {
			sr_store_free(s);
			return NULL;
		}
		sqlite3_close(old);
		if (copy_file(path, s->tmp, cause)) {
			sr_store_free(s);
			return NULL;
		}
	}
	if (sqlite3_open_v2(s->tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot create '%s': %s", s->tmp,
			     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sr_store_free(s);
		return NULL;
	}
	/* the file only becomes the database at rename: no journal needed */
	if (exec(s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 " PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", cause)) {
		sr_store_free(s);
		return NULL;
	}
	if (!s->append) {
		char sql[160];

		snprintf(sql, sizeof(sql),
			 "PRAGMA page_size=16384; PRAGMA application_id=%d; PRAGMA user_version=%d;",
			 SR_DB_APPLICATION_ID, SR_DB_SCHEMA_VERSION);
		if (exec(s, sql, cause) || exec(s, schema, cause)) {
			sr_store_free(s);
			return NULL;
		}
		snprintf(sql, sizeof(sql),
			 "INSERT INTO meta VALUES ('schema_version', '%d'), "
			 "('application', 'schedreplay')", SR_DB_SCHEMA_VERSION);
		if (exec(s, sql, cause)) {
			sr_store_free(s);
			return NULL;
		}
	}
	/* engine ids start at 0 in every run */
	s->id_base = s->append ? max_decision(s) + 1 : 0;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO decision VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &s->ins_dec, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO evaluation VALUES (?,?,?,?)", -1,
			       &s->ins_eval, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO reason VALUES (?,?,?)", -1,
			       &s->ins_reason, NULL) != SQLITE_OK ||
	    /* a patch over two base models may diverge twice at one decision */
	    sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO diverged VALUES (?,?)", -1,
			       &s->ins_div, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO migration VALUES (?,?,?,?,?,?,?,?,?)", -1,
			       &s->ins_mig, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO cpu_state VALUES (?,?,?,?,?,?,?,?,?)", -1,
			       &s->ins_snap, NULL) != SQLITE_OK) {
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

long sr_store_decision_id(const struct sr_store *s, long engine_id)
{
	return s->id_base + engine_id;
}

static int bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	return sqlite3_bind_null(st, i);
}

static int step_done(struct sr_store *s, sqlite3_stmt *st, const char *what, char **cause)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return db_error(s, cause, what);
	}
	sqlite3_reset(st);
	return 0;
}

static long next_run_id(struct sr_store *s)
{
	sqlite3_stmt *st = NULL;
	long v = 1;

	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(run_id), 0) + 1 FROM run", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int sr_store_begin_run(struct sr_store *s, const struct sr_run_info *ri,
		       const struct sr_topology *topo, const struct sr_model *const *sides,
		       const unsigned *touches, int nsides, char **cause)
{
	sqlite3_stmt *st = NULL;
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	int c;

	if (nsides > SR_MAX_MODELS)
		nsides = SR_MAX_MODELS;
	s->sides = sides;
	s->nsides = nsides;
	memcpy(s->touches, touches, sizeof(*touches) * (size_t)nsides);
	s->ncpus = topo->ncpus;
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (exec(s, "BEGIN", cause))
		return -SR_E_IO;
	s->run_id = next_run_id(s);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO run (run_id, trace, format, host, kernel, "
			       "clock, model, patches, topology, tool_version, hz, probes, "
			       "inference, started) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	sqlite3_bind_int64(st, 1, s->run_id);
	bind_text_or_null(st, 2, ri->trace);
	bind_text_or_null(st, 3, ri->tinfo->format);
	bind_text_or_null(st, 4, ri->tinfo->hostname);
	bind_text_or_null(st, 5, ri->tinfo->kernel);
	bind_text_or_null(st, 6, ri->tinfo->clock);
	bind_text_or_null(st, 7, ri->models);
	bind_text_or_null(st, 8, ri->patches);
	bind_text_or_null(st, 9, ri->topology);
	bind_text_or_null(st, 10, ri->version);
	sqlite3_bind_int(st, 11, ri->hz);
	sqlite3_bind_int(st, 12, ri->probes);
	bind_text_or_null(st, 13, ri->inference);
	bind_text_or_null(st, 14, started);
	c = step_done(s, st, "insert run", cause);
	sqlite3_finalize(st);
	if (c)
		return c;

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
		if (step_done(s, st, "insert cpu", cause)) {
			sqlite3_finalize(st);
			return -SR_E_IO;
		}
	}
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(s->db, "INSERT INTO side (run_id, model, patch, variant) "
			       "VALUES (?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (c = 0; c < nsides; c++) {
		const struct sr_model *m = sides[c];

		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_text(st, 2, m->base ? m->base->name : m->name, -1, SQLITE_STATIC);
		bind_text_or_null(st, 3, m->patch);
		sqlite3_bind_text(st, 4, m->variant ? m->variant : "base", -1, SQLITE_STATIC);
		if (step_done(s, st, "insert side", cause)) {
			sqlite3_finalize(st);
			return -SR_E_IO;
		}
		s->side_id[c] = (long)sqlite3_last_insert_rowid(s->db);
	}
	sqlite3_finalize(st);
	s->next_reason = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(reason_id), 0) FROM reason", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		s->next_reason = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	/* appending: the reasons already in the file keep their ids */
	if (s->append) {
		if (sqlite3_prepare_v2(s->db, "SELECT reason_id, text FROM reason", -1, &st,
				       NULL) != SQLITE_OK)
			return db_error(s, cause, "prepare");
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct intern *in = &s->reasons;

			if (in->n == in->cap) {
				size_t cap = in->cap ? in->cap * 2 : 1024;
				char **t = realloc(in->text, cap * sizeof(*t));
				long *id;

				if (t)
					in->text = t;
				id = t ? realloc(in->id, cap * sizeof(*id)) : NULL;
				if (!id) {
					sqlite3_finalize(st);
					return -SR_E_NOMEM;
				}
				in->id = id;
				in->cap = cap;
			}
			in->text[in->n] = strdup((const char *)sqlite3_column_text(st, 1));
			if (!in->text[in->n]) {
				sqlite3_finalize(st);
				return -SR_E_NOMEM;
			}
			in->id[in->n++] = (long)sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
	}
	return writer_start(s);
}

/* ---- reasons: interned (a few thousand distinct texts in millions of rows) ---- */

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h * 0x9e3779b97f4a7c15ULL;
}

/* the open-addressing index over in->text, rebuilt when it grows */
static size_t *ihash;
static size_t ihcap;

static long reason_id(struct sr_store *s, const char *text, char **cause)
{
	struct intern *in = &s->reasons;
	size_t j, i;
	char path[SR_REASON_LEN];

	if (!ihash || in->n * 2 >= ihcap) {
		size_t cap = ihcap ? ihcap * 2 : 4096;
		size_t *nh;

		/* appending loads every reason of the file at once */
		while (in->n * 2 >= cap)
			cap *= 2;
		nh = calloc(cap, sizeof(*nh));
		if (!nh)
			return -SR_E_NOMEM;
		for (i = 0; i < in->n; i++) {
			j = str_hash(in->text[i]) & (cap - 1);
			while (nh[j])
				j = (j + 1) & (cap - 1);
			nh[j] = i + 1;
		}
		free(ihash);
		ihash = nh;
		ihcap = cap;
	}
	for (j = str_hash(text) & (ihcap - 1); ihash[j]; j = (j + 1) & (ihcap - 1))
		if (!strcmp(in->text[ihash[j] - 1], text))
			return in->id[ihash[j] - 1];
	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 1024;
		char **t = realloc(in->text, cap * sizeof(*t));
		long *id;

		if (!t)
			return -SR_E_NOMEM;
		in->text = t;
		id = realloc(in->id, cap * sizeof(*id));
		if (!id)
			return -SR_E_NOMEM;
		in->id = id;
		in->cap = cap;
	}
	in->text[in->n] = strdup(text);
	if (!in->text[in->n])
		return -SR_E_NOMEM;
	in->id[in->n] = ++s->next_reason;
	ihash[j] = ++in->n;
	sr_reason_normalize(text, path, sizeof(path));
	sqlite3_bind_int64(s->ins_reason, 1, s->next_reason);
	sqlite3_bind_text(s->ins_reason, 2, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->ins_reason, 3, text, -1, SQLITE_STATIC);
	if (step_done(s, s->ins_reason, "insert reason", cause))
		return -SR_E_IO;
	return s->next_reason;
}

/* ---- threads ----------------------------------------------------------------- */

static struct thread_row *thread_get(struct sr_store *s, int tid)
{
	size_t j;

	if (s->tn * 2 >= s->tcap) {
		size_t cap = s->tcap ? s->tcap * 2 : 1024, i;
		struct thread_row *nt = calloc(cap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < s->tcap; i++) {
			if (!s->threads[i].tid)
				continue;
			j = ((size_t)s->threads[i].tid * 0x9e3779b97f4a7c15ULL) & (cap - 1);
			while (nt[j].tid)
				j = (j + 1) & (cap - 1);
			nt[j] = s->threads[i];
		}
		free(s->threads);
		s->threads = nt;
		s->tcap = cap;
	}
	for (j = ((size_t)tid * 0x9e3779b97f4a7c15ULL) & (s->tcap - 1); s->threads[j].tid;
	     j = (j + 1) & (s->tcap - 1))
		if (s->threads[j].tid == tid)
			return &s->threads[j];
	s->threads[j].tid = tid;
	s->tn++;
	return &s->threads[j];
}

static int thread_seen(struct sr_store *s, int tid, const char *name, uint64_t ts, int dec,
		       int mig)
{
	struct thread_row *t;

	if (tid <= 0)
		return 0;
	t = thread_get(s, tid);
	if (!t)
		return -SR_E_NOMEM;
	if (!t->start_ts || ts < t->start_ts)
		t->start_ts = ts;
	if (ts > t->end_ts)
		t->end_ts = ts;
	if (name && *name)
		memcpy(t->name, name, SR_COMM_LEN);
	t->decisions += (uint64_t)dec;
	t->migrations += (uint64_t)mig;
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
		"wakee_flips",
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (inf & (1u << i))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
					      o ? "," : "", names[i]);
}

static void bind_cpu(sqlite3_stmt *st, int i, int cpu)
{
	if (cpu >= 0)
		sqlite3_bind_int(st, i, cpu);
	else
		sqlite3_bind_null(st, i);
}

static int batch(struct sr_store *s, char **cause)
{
	if (++s->in_batch >= BATCH) {
		s->in_batch = 0;
		if (exec(s, "COMMIT; BEGIN", cause))
			return -SR_E_IO;
	}
	return 0;
}

static int decision_now(struct sr_store *s, const struct sr_decision *d,
			const struct sr_eval *evals, int nevals, char **cause)
{
	sqlite3_stmt *st = s->ins_dec;
	long id = s->id_base + d->id;
	char inf[128];
	int i, err;

	inferred_text(d->inferred, inf, sizeof(inf));
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, s->run_id);
	sqlite3_bind_text(st, 3, sr_decision_kind_name(d->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)d->ts);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)d->done_ts);
	sqlite3_bind_int(st, 6, d->pid);
	bind_text_or_null(st, 7, d->comm);
	if (d->waker > 0)
		sqlite3_bind_int(st, 8, d->waker);
	else
		sqlite3_bind_int(st, 8, 0);
	bind_text_or_null(st, 9, d->waker_comm);
	bind_cpu(st, 10, d->this_cpu);
	bind_cpu(st, 11, d->prev_cpu);
	bind_cpu(st, 12, d->actual_cpu);
	bind_cpu(st, 13, d->kernel_cpu);
	sqlite3_bind_int(st, 14, d->sync);
	if (d->wake_flags >= 0)
		sqlite3_bind_int64(st, 15, d->wake_flags);
	else
		sqlite3_bind_null(st, 15);
	sqlite3_bind_int(st, 16, d->waker_exiting);
	bind_text_or_null(st, 17, (unsigned)d->skip < sizeof(skip_names) / sizeof(skip_names[0]) ?
			  skip_names[d->skip] : "other");
	bind_text_or_null(st, 18, inf);
	sqlite3_bind_int(st, 19, d->this_nr);
	sqlite3_bind_int(st, 20, d->prev_nr);
	sqlite3_bind_int(st, 21, d->actual_nr);
	sqlite3_bind_int(st, 22, d->idle_cpus);
	if (step_done(s, st, "insert decision", cause))
		return -SR_E_IO;
	s->decisions++;
	if (!s->first_ts || d->ts < s->first_ts)
		s->first_ts = d->ts;
	if (d->done_ts > s->last_ts)
		s->last_ts = d->done_ts;
	err = thread_seen(s, d->pid, d->comm, d->ts, 1, 0);
	if (!err)
		err = thread_seen(s, d->waker, d->waker_comm, d->ts, 0, 0);
	if (err)
		return err;

	for (i = 0; i < nevals && i < s->nsides; i++) {
		long rid;

		if (!(s->touches[i] & (1u << d->kind)))
			continue;
		rid = reason_id(s, evals[i].reason, cause);
		if (rid < 0)
			return (int)rid;
		st = s->ins_eval;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, s->side_id[i]);
		bind_cpu(st, 3, evals[i].cpu);
		sqlite3_bind_int64(st, 4, rid);
		if (step_done(s, st, "insert evaluation", cause))
			return -SR_E_IO;
	}
	return batch(s, cause);
}

static int divergent_now(struct sr_store *s, long decision_id, int side, char **cause)
{
	sqlite3_bind_int64(s->ins_div, 1, s->id_base + decision_id);
	sqlite3_bind_int64(s->ins_div, 2, s->side_id[side]);
	return step_done(s, s->ins_div, "insert diverged", cause);
}

static int cpu_state_now(struct sr_store *s, const struct sr_decision *d, char **cause)
{
	sqlite3_stmt *st = s->ins_snap;
	int c;

	if (!d->snap)
		return 0;
	for (c = 0; c < s->ncpus; c++) {
		const struct sr_cpu_snap *sn = &d->snap[c];

		sqlite3_bind_int64(st, 1, s->id_base + d->id);
		sqlite3_bind_int(st, 2, c);
		sqlite3_bind_int(st, 3, sn->nr_running);
		sqlite3_bind_int(st, 4, sn->cfs_nr);
		if (sn->curr >= 0)
			sqlite3_bind_int(st, 5, sn->curr);
		else
			sqlite3_bind_null(st, 5);
		bind_text_or_null(st, 6, sn->curr_comm);
		sqlite3_bind_int(st, 7, sn->idle);
		sqlite3_bind_int64(st, 8, sn->load);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)sn->util);
		if (step_done(s, st, "insert cpu_state", cause))
			return -SR_E_IO;
	}
	return 0;
}

static int migration_now(struct sr_store *s, const struct sr_migration *m, char **cause)
{
	sqlite3_stmt *st = s->ins_mig;
	int err;

	sqlite3_bind_int64(st, 1, s->run_id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)m->ts);
	sqlite3_bind_int(st, 3, m->pid);
	bind_text_or_null(st, 4, m->comm);
	bind_cpu(st, 5, m->orig_cpu);
	bind_cpu(st, 6, m->dest_cpu);
	bind_cpu(st, 7, m->emit_cpu);
	sqlite3_bind_text(st, 8, sr_migration_kind_name(m->kind), -1, SQLITE_STATIC);
	if (m->decision >= 0)
		sqlite3_bind_int64(st, 9, s->id_base + m->decision);
	else
		sqlite3_bind_null(st, 9);
	if (step_done(s, st, "insert migration", cause))
		return -SR_E_IO;
	s->migrations++;
	err = thread_seen(s, m->pid, m->comm, m->ts, 0, 1);
	return err ? err : batch(s, cause);
}

/* ---- the writer thread ---------------------------------------------------- */

static void run_job(struct sr_store *s, struct job *j)
{
	char *cause = NULL;
	int err = 0;

	if (!__atomic_load_n(&s->err, __ATOMIC_ACQUIRE)) {
		switch (j->type) {
		case JOB_DECISION:
			err = decision_now(s, &j->d, j->ev, j->nevals, &cause);
			break;
		case JOB_DIVERGENT:
			err = divergent_now(s, j->id, j->side, &cause);
			break;
		case JOB_CPU_STATE:
			err = cpu_state_now(s, &j->d, &cause);
			break;
		case JOB_MIGRATION:
			err = migration_now(s, &j->m, &cause);
			break;
		}
	}
	if (j->type == JOB_CPU_STATE)
		free((void *)j->d.snap);
	if (err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->lock);
		s->err_cause = cause;
		__atomic_store_n(&s->err, err, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
	} else {
		free(cause);
	}
}

static void *writer_main(void *arg)
{
	struct sr_store *s = arg;
	struct job_block *b;
	int i;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (!s->busy && !s->quit)
			pthread_cond_wait(&s->cond, &s->lock);
		b = s->busy;
		pthread_mutex_unlock(&s->lock);
		if (!b)
			return NULL;
		for (i = 0; i < b->n; i++)
			run_job(s, &b->job[i]);
		b->n = 0;
		pthread_mutex_lock(&s->lock);
		s->busy = NULL;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
}

static int writer_start(struct sr_store *s)
{
	struct job_block *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	if (!a || !b) {
		free(a);
		free(b);
		return -SR_E_NOMEM;
	}
	s->fill = a;
	s->spare = b;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (pthread_create(&s->writer, NULL, writer_main, s)) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
		free(s->fill);
		free(s->spare);
		s->fill = s->spare = NULL;
		return -SR_E_NOMEM;
	}
	s->writer_on = 1;
	return 0;
}

/* hand the filled block to the writer once it is done with the other */
static void writer_flush(struct sr_store *s)
{
	struct job_block *b;

	if (!s->fill->n)
		return;
	pthread_mutex_lock(&s->lock);
	while (s->busy)
		pthread_cond_wait(&s->cond, &s->lock);
	b = s->fill;
	s->fill = s->spare;
	s->spare = b;
	s->busy = b;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* wait for every queued job, stop the thread; the store is synchronous after */
static void writer_stop(struct sr_store *s)
{
	int i;

	if (!s->writer_on)
		return;
	writer_flush(s);
	pthread_mutex_lock(&s->lock);
	while (s->busy)
		pthread_cond_wait(&s->cond, &s->lock);
	s->quit = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->writer, NULL);
	s->writer_on = 0;
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	/* a block never handed over still owns its snapshots */
	for (i = 0; s->fill && i < s->fill->n; i++)
		if (s->fill->job[i].type == JOB_CPU_STATE)
			free((void *)s->fill->job[i].d.snap);
	free(s->fill);
	free(s->spare);
	s->fill = s->spare = NULL;
}

/* the writer's first error, once, for the caller */
static int writer_error(struct sr_store *s, char **cause)
{
	int err;

	if (!__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&s->lock);
	err = s->err;
	if (err && cause && s->err_cause) {
		free(*cause);
		*cause = s->err_cause;
		s->err_cause = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

static struct job *job_new(struct sr_store *s, enum job_type type, char **cause, int *err)
{
	struct job *j;

	*err = writer_error(s, cause);
	if (*err)
		return NULL;
	if (s->fill->n == JOBS_PER_BLOCK)
		writer_flush(s);
	j = &s->fill->job[s->fill->n];
	j->type = type;
	return j;
}

int sr_store_decision(struct sr_store *s, const struct sr_decision *d,
		      const struct sr_eval *evals, int nevals, char **cause)
{
	struct job *j;
	int err;

	if (!s->writer_on)
		return decision_now(s, d, evals, nevals, cause);
	j = job_new(s, JOB_DECISION, cause, &err);
	if (!j)
		return err;
	if (nevals > SR_MAX_MODELS)
		nevals = SR_MAX_MODELS;
	j->d = *d;
	j->d.snap = NULL;
	j->nevals = nevals;
	memcpy(j->ev, evals, sizeof(*evals) * (size_t)nevals);
	s->fill->n++;
	return 0;
}

int sr_store_divergent(struct sr_store *s, long decision_id, int side, char **cause)
{
	struct job *j;
	int err;

	if (side < 0 || side >= s->nsides)
		return -SR_E_USAGE;
	if (!s->writer_on)
		return divergent_now(s, decision_id, side, cause);
	j = job_new(s, JOB_DIVERGENT, cause, &err);
	if (!j)
		return err;
	j->id = decision_id;
	j->side = side;
	s->fill->n++;
	return 0;
}

int sr_store_cpu_state(struct sr_store *s, const struct sr_decision *d, char **cause)
{
	struct sr_cpu_snap *copy;
	struct job *j;
	int err;

	if (!d->snap)
		return 0;
	if (!s->writer_on)
		return cpu_state_now(s, d, cause);
	copy = malloc(sizeof(*copy) * (size_t)s->ncpus);
	if (!copy)
		return -SR_E_NOMEM;
	j = job_new(s, JOB_CPU_STATE, cause, &err);
	if (!j) {
		free(copy);
		return err;
	}
	memcpy(copy, d->snap, sizeof(*copy) * (size_t)s->ncpus);
	j->d.id = d->id;
	j->d.snap = copy;
	s->fill->n++;
	return 0;
}

int sr_store_migration(struct sr_store *s, const struct sr_migration *m, char **cause)
{
	struct job *j;
	int err;

	if (!s->writer_on)
		return migration_now(s, m, cause);
	j = job_new(s, JOB_MIGRATION, cause, &err);
	if (!j)
		return err;
	j->m = *m;
	s->fill->n++;
	return 0;
}

/*
 * One prepared INSERT run over @n rows: @bind binds row @i into @q and says
 * whether to insert it (0 skips it).  The end-of-run tables all go this way.
 */
typedef int (*bind_row_fn)(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i);

static int insert_rows(struct sr_store *s, const char *sql, const char *what, int n,
		       bind_row_fn bind, const void *ctx, char **cause)
{
	sqlite3_stmt *q = NULL;
	int i, err = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (i = 0; i < n && !err; i++)
		if (bind(s, q, ctx, i))
			err = step_done(s, q, what, cause);
	sqlite3_finalize(q);
	return err;
}

static int bind_thread(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct thread_row *t = &s->threads[i];

	(void)ctx;
	if (!t->tid)
		return 0;
	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_int(q, 2, t->tid);
	bind_text_or_null(q, 3, t->name);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)t->start_ts);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)t->end_ts);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)t->decisions);
	sqlite3_bind_int64(q, 7, (sqlite3_int64)t->migrations);
	return 1;
}

static int bind_skipped(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_replay_stats *st = ctx;

	if (i == SR_SKIP_NONE)
		return 0;
	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_text(q, 2, skip_names[i], -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)st->skipped[i]);
	return 1;
}

static int bind_reconciled(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_replay_stats *st = ctx;

	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_text(q, 2, sr_reconcile_name(i), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)st->reconciled[i]);
	return 1;
}

static int bind_lost(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_trace_info *tinfo = ctx;
	uint64_t lost = sr_cpu_lost(&tinfo->cpu[i]);

	if (!lost && !tinfo->cpu[i].lost_markers)
		return 0;
	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_int(q, 2, i);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)lost);
	return 1;
}

static long side_of(const struct sr_store *s, const char *model)
{
	int i;

	for (i = 0; i < s->nsides; i++)
		if (!s->sides[i]->patch && !strcmp(s->sides[i]->name, model))
			return s->side_id[i];
	return -1;
}

static int bind_fidelity(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_fidelity_row *r = (const struct sr_fidelity_row *)ctx + i;
	long side = side_of(s, r->model);

	if (side < 0)
		return 0;
	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_int64(q, 2, side);
	sqlite3_bind_text(q, 3, r->kind, -1, SQLITE_STATIC);
	bind_text_or_null(q, 4, r->reason);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)r->n);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)r->exact);
	sqlite3_bind_int64(q, 7, (sqlite3_int64)r->same_llc);
	sqlite3_bind_int64(q, 8, (sqlite3_int64)r->same_node);
	sqlite3_bind_int64(q, 9, (sqlite3_int64)r->baseline_exact);
	return 1;
}

static int bind_patch_summary(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_patch_summary *ps = (const struct sr_patch_summary *)ctx + i;

	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_text(q, 2, ps->patch, -1, SQLITE_STATIC);
	bind_text_or_null(q, 3, ps->seed);
	sqlite3_bind_text(q, 4, ps->model, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, ps->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)ps->decisions);
	sqlite3_bind_int64(q, 7, (sqlite3_int64)ps->divergent);
	sqlite3_bind_int64(q, 8, (sqlite3_int64)ps->original_exact);
	sqlite3_bind_int64(q, 9, (sqlite3_int64)ps->patched_exact);
	return 1;
}

int sr_store_finish_run(struct sr_store *s, const struct sr_trace_info *tinfo,
			const struct sr_replay_stats *st, const struct sr_fidelity *f,
			const struct sr_patch_summary *ps, int nps, uint64_t events,
			uint64_t first_ts, uint64_t last_ts, char **cause)
{
	const struct sr_fidelity_row *rows;
	sqlite3_stmt *q = NULL;
	uint64_t lost_total = 0;
	int i, n, err;

	if (s->writer_on) {
		writer_stop(s);
		if (s->err) {
			if (s->err_cause) {
				free(*cause);
				*cause = s->err_cause;
				s->err_cause = NULL;
			}
			return s->err;
		}
	}
	for (i = 0; i < tinfo->ncpus; i++)
		lost_total += sr_cpu_lost(&tinfo->cpu[i]);
	err = insert_rows(s, "INSERT INTO thread VALUES (?,?,?,?,?,?,?)", "insert thread",
			  (int)s->tcap, bind_thread, NULL, cause);
	if (err)
		return err;
	if (sqlite3_prepare_v2(s->db, "UPDATE run SET events = ?, threads = ?, decisions = ?, "
			       "migrations = ?, lost_events = ?, first_ts = ?, last_ts = ? "
			       "WHERE run_id = ?", -1, &q, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	sqlite3_bind_int64(q, 1, (sqlite3_int64)events);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)s->tn);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)s->decisions);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)s->migrations);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)lost_total);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)(first_ts ? first_ts : s->first_ts));
	sqlite3_bind_int64(q, 7, (sqlite3_int64)(last_ts ? last_ts : s->last_ts));
	sqlite3_bind_int64(q, 8, s->run_id);
	err = step_done(s, q, "update run", cause);
	sqlite3_finalize(q);
	if (err)
		return err;

	n = sr_fidelity_rows(f, &rows);
	err = insert_rows(s, "INSERT INTO skipped VALUES (?,?,?)", "insert skipped",
			  (int)(sizeof(skip_names) / sizeof(skip_names[0])), bind_skipped, st, cause);
	if (!err)
		err = exec(s, RECONCILED_TABLE, cause);
	if (!err)
		err = insert_rows(s, "INSERT INTO reconciled VALUES (?,?,?)", "insert reconciled",
				  SR_REC__COUNT, bind_reconciled, st, cause);
	if (!err)
		err = insert_rows(s, "INSERT INTO lost_events VALUES (?,?,?)", "insert lost_events",
				  tinfo->ncpus, bind_lost, tinfo, cause);
	if (!err)
		err = insert_rows(s, "INSERT INTO fidelity VALUES (?,?,?,?,?,?,?,?,?)",
				  "insert fidelity", n, bind_fidelity, rows, cause);
	if (!err)
		err = insert_rows(s, "INSERT INTO patch_summary VALUES (?,?,?,?,?,?,?,?,?)",
				  "insert patch_summary", nps, bind_patch_summary, ps, cause);
	return err;
}

int sr_store_commit(struct sr_store *s, char **cause)
{
	/* bulk load first, indexes once at the end */
	if (exec(s, "COMMIT", cause) || exec(s, indexes, cause) ||
	    exec(s, "PRAGMA analysis_limit = 1000; ANALYZE", cause))
		return -SR_E_IO;
	sqlite3_finalize(s->ins_dec);
	sqlite3_finalize(s->ins_eval);
	sqlite3_finalize(s->ins_reason);
	sqlite3_finalize(s->ins_div);
	sqlite3_finalize(s->ins_mig);
	sqlite3_finalize(s->ins_snap);
	s->ins_dec = s->ins_eval = s->ins_reason = s->ins_div = s->ins_mig = s->ins_snap = NULL;
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
	size_t i;

	if (!s)
		return;
	/* an interrupted replay: let the writer finish its block, then drop all */
	if (s->writer_on) {
		pthread_mutex_lock(&s->lock);
		if (!s->err)
			__atomic_store_n(&s->err, -SR_E_IO, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
		writer_stop(s);
	}
	free(s->err_cause);
	sqlite3_finalize(s->ins_dec);
	sqlite3_finalize(s->ins_eval);
	sqlite3_finalize(s->ins_reason);
	sqlite3_finalize(s->ins_div);
	sqlite3_finalize(s->ins_mig);
	sqlite3_finalize(s->ins_snap);
	if (s->db)
		sqlite3_close(s->db);
	if (!s->committed && s->tmp)
		unlink(s->tmp);
	for (i = 0; i < s->reasons.n; i++)
		free(s->reasons.text[i]);
	free(s->reasons.text);
	free(s->reasons.id);
	free(ihash);
	ihash = NULL;
	ihcap = 0;
	free(s->threads);
	free(s->tmp);
	free(s->path);
	free(s);
}
