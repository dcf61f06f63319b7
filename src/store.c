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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "schedreplay/event.h"
#include "schedreplay/model.h"
#include "schedreplay/slices.h"
#include "schedreplay/why.h"
#include "bind-cache.h"
#include "strtab.h"
#include "banned.h"

/* IF NOT EXISTS: an append also creates it in a file written before it existed */
#define RECONCILED_TABLE \
	"CREATE TABLE IF NOT EXISTS reconciled (" \
	" run_id INTEGER NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL);"

/*
 * How far the engine's own per-CPU inputs were from the rqstat probe's
 * (replay's second inputs: line): per class of CPU (busy, idle) and field
 * (load, util, runnable, util_est: the mean difference and mean |difference|;
 * nr_running: how many CPUs the engine counted otherwise).  IF NOT EXISTS:
 * an append adds it to a file written before it.
 */
#define INPUT_ERROR_TABLE \
	"CREATE TABLE IF NOT EXISTS input_error (" \
	" run_id INTEGER NOT NULL, cpus TEXT NOT NULL, field TEXT NOT NULL, n INTEGER NOT NULL," \
	" mean_diff REAL, mean_abs_diff REAL, differs INTEGER);"

/*
 * What marks a simulated run (schedreplay simulate -o): the run's kind, and
 * for a simulation the side that decided, the seed and the fair class's
 * rules.  An append to a file written before they existed adds them
 * (add_sim_columns): its runs are replays, as the default says.
 */
#define SIM_RUN_COLUMNS \
	"kind TEXT NOT NULL DEFAULT 'replay', variant TEXT, seed INTEGER, fair TEXT"

/*
 * The inputs that decided (include/schedreplay/why.h, the TUI's why-view):
 * each CPU's sched domains, and for the decisions where a base model missed
 * the kernel's CPU or a pair's sides diverged, what the first base model
 * read.  IF NOT EXISTS: an append adds them to a file written before them.
 */
#define WHY_TABLES \
	"CREATE TABLE IF NOT EXISTS sched_domain (" \
	" run_id INTEGER NOT NULL, cpu INTEGER NOT NULL, level INTEGER NOT NULL, name TEXT," \
	" flags INTEGER, flag_names TEXT, imbalance_pct INTEGER, span_weight INTEGER," \
	" span TEXT, imb_numa_nr INTEGER, PRIMARY KEY (run_id, cpu, level)) WITHOUT ROWID;" \
	"CREATE TABLE IF NOT EXISTS decision_input (" \
	" decision_id INTEGER PRIMARY KEY, side_id INTEGER NOT NULL," \
	" wakee_flips INTEGER, waker_flips INTEGER, wake_wide_factor INTEGER, flips_source TEXT," \
	" task_load INTEGER, task_util INTEGER, task_runnable INTEGER, pelt_source TEXT," \
	" waker_load INTEGER, this_load INTEGER, prev_load INTEGER, prev_load_source TEXT," \
	" groups_dropped INTEGER);" \
	"CREATE TABLE IF NOT EXISTS group_stat (" \
	" decision_id INTEGER NOT NULL, call INTEGER NOT NULL, fn TEXT NOT NULL," \
	" cpu INTEGER, level INTEGER, first_cpu INTEGER NOT NULL, local INTEGER, picked INTEGER," \
	" type TEXT, weight INTEGER, nr_running INTEGER, cfs_nr INTEGER, idle_cpus INTEGER," \
	" load INTEGER, avg_load INTEGER, util INTEGER, runnable INTEGER," \
	" PRIMARY KEY (decision_id, call, first_cpu)) WITHOUT ROWID;"

/* a divergent decision's original and patched sides (the divergence view) */
#define ORIG_CPU	"(CASE WHEN xo.side_id IS NULL THEN eb.cpu ELSE xo.cpu END)"
#define PATCH_CPU	"(CASE WHEN xp.side_id IS NULL THEN eb.cpu ELSE xp.cpu END)"
#define ORIG_REASON	"(CASE WHEN xo.side_id IS NULL THEN eb.reason_id ELSE xo.reason_id END)"
#define PATCH_REASON	"(CASE WHEN xp.side_id IS NULL THEN eb.reason_id ELSE xp.reason_id END)"

/*
 * Schema 4: a wakeup that found its task still queued or running (skip
 * 'runnable', about nine decisions in ten, never evaluated) is a row of the
 * narrow decision_runnable table, every other decision a row of
 * decision_row.  Both have the same columns in the same order (kind and
 * skip of a runnable row are generated, not stored), and the decision view
 * is their union: "SELECT * FROM decision" reads every decision.  Readers
 * of many rows query the two tables (a compound at the top level, or
 * decision_row where only evaluated decisions matter), never a join of the
 * view, which SQLite materializes.  An append to a schema 3 file migrates it
 * (migrate_v3()): its decision table becomes decision_row.
 */
#define RUNNABLE_TABLE \
	"CREATE TABLE decision_runnable (" \
	" decision_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL," \
	" kind TEXT GENERATED ALWAYS AS ('wakeup') VIRTUAL, ts INTEGER NOT NULL, done_ts INTEGER," \
	" tid INTEGER, comm TEXT, waker_tid INTEGER, waker_comm TEXT," \
	" this_cpu INTEGER, prev_cpu INTEGER, actual_cpu INTEGER, kernel_cpu INTEGER," \
	" sync INTEGER, wake_flags INTEGER, waker_exiting INTEGER," \
	" skip TEXT GENERATED ALWAYS AS ('runnable') VIRTUAL, inferred TEXT," \
	" this_nr INTEGER, prev_nr INTEGER, actual_nr INTEGER, idle_cpus INTEGER);"

/* the views that name the decision tables (a migration makes them anew) */
#define DECISION_VIEWS \
	"CREATE VIEW decision AS" \
	" SELECT * FROM decision_row UNION ALL SELECT * FROM decision_runnable;" \
	"CREATE VIEW evaluation AS" \
	" SELECT b.decision_id AS decision_id, s.side_id AS side_id," \
	" CASE WHEN x.side_id IS NULL THEN b.cpu ELSE x.cpu END AS cpu," \
	" CASE WHEN x.side_id IS NULL THEN b.reason_id ELSE x.reason_id END AS reason_id" \
	" FROM eval_row b JOIN side s ON s.base_side_id = b.side_id" \
	" JOIN decision_row d ON d.decision_id = b.decision_id" \
	" LEFT JOIN eval_row x ON s.patch IS NOT NULL AND x.decision_id = b.decision_id" \
	"  AND x.side_id = s.side_id" \
	" WHERE s.patch IS NULL OR instr(',' || s.kinds || ',', ',' || d.kind || ',') > 0;" \
	"CREATE VIEW evaluation_v AS" \
	" SELECT e.decision_id, s.run_id, s.side_id, s.model, s.patch, s.variant, e.cpu," \
	" r.path, r.text AS reason" \
	" FROM evaluation e JOIN side s USING (side_id) LEFT JOIN reason r USING (reason_id);" \
	"CREATE VIEW divergence AS" \
	" SELECT d.run_id, d.decision_id, so.patch, so.model, d.kind, d.ts, d.tid, d.comm," \
	" d.waker_tid, d.waker_comm, d.this_cpu, d.prev_cpu, d.actual_cpu," \
	" " ORIG_CPU " AS original_cpu, " PATCH_CPU " AS patched_cpu," \
	" ro.text AS original_reason, rp.text AS patched_reason," \
	" " ORIG_CPU " IS d.actual_cpu AS original_matches," \
	" " PATCH_CPU " IS d.actual_cpu AS patched_matches," \
	" co.llc_id IS NOT cprev.llc_id AS original_cross_llc," \
	" co.node IS NOT cprev.node AS original_cross_node," \
	" cp.llc_id IS NOT cprev.llc_id AS patched_cross_llc," \
	" cp.node IS NOT cprev.node AS patched_cross_node," \
	" d.sync, d.waker_exiting, d.inferred" \
	/* CROSS JOIN: start from the few divergent rows, not from every decision of a run */ \
	" FROM diverged v CROSS JOIN decision_row d ON d.decision_id = v.decision_id" \
	" CROSS JOIN side so ON so.side_id = v.side_id" \
	" CROSS JOIN side sp ON sp.run_id = so.run_id AND sp.patch = so.patch" \
	"  AND sp.model = so.model AND sp.variant = 'patched'" \
	/* a side without its own row answered what its base side answered */ \
	" JOIN eval_row eb ON eb.decision_id = d.decision_id AND eb.side_id = so.base_side_id" \
	" LEFT JOIN eval_row xo ON xo.decision_id = d.decision_id AND xo.side_id = so.side_id" \
	" LEFT JOIN eval_row xp ON xp.decision_id = d.decision_id AND xp.side_id = sp.side_id" \
	" LEFT JOIN reason ro ON ro.reason_id = " ORIG_REASON \
	" LEFT JOIN reason rp ON rp.reason_id = " PATCH_REASON \
	" LEFT JOIN cpu cprev ON cprev.run_id = d.run_id AND cprev.cpu = d.prev_cpu" \
	" LEFT JOIN cpu co ON co.run_id = d.run_id AND co.cpu = " ORIG_CPU \
	" LEFT JOIN cpu cp ON cp.run_id = d.run_id AND cp.cpu = " PATCH_CPU ";"

/* the sets of inferred inputs whose text is kept (all of today's 8 bits) */
#define INF_CACHE 256

/* decisions per transaction */
#define BATCH 50000

/*
 * Rows per INSERT on the writer thread: one statement of many rows costs
 * SQLite far less than as many statements of one (the decision and
 * sched_slice tables, the two that grow with the trace)
 */
#define MULTI 128

static const char schema[] =
	"CREATE TABLE meta ("
	" key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE run ("
	" run_id INTEGER PRIMARY KEY,"
	" trace TEXT NOT NULL, format TEXT, host TEXT, kernel TEXT, clock TEXT,"
	" model TEXT NOT NULL, patches TEXT, topology TEXT, tool_version TEXT,"
	" hz INTEGER, probes INTEGER, inference TEXT, started TEXT,"
	" events INTEGER, first_ts INTEGER, last_ts INTEGER, threads INTEGER,"
	" decisions INTEGER, migrations INTEGER, lost_events INTEGER,"
	" kernel_gen TEXT, " SIM_RUN_COLUMNS ");"
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
	" patch TEXT, variant TEXT NOT NULL, base_side_id INTEGER NOT NULL, kinds TEXT NOT NULL);"
	"CREATE TABLE reason ("
	" reason_id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL UNIQUE);"
	"CREATE TABLE decision_row ("
	" decision_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
	" kind TEXT NOT NULL, ts INTEGER NOT NULL, done_ts INTEGER,"
	" tid INTEGER, comm TEXT, waker_tid INTEGER, waker_comm TEXT,"
	" this_cpu INTEGER, prev_cpu INTEGER, actual_cpu INTEGER, kernel_cpu INTEGER,"
	" sync INTEGER, wake_flags INTEGER, waker_exiting INTEGER, skip TEXT, inferred TEXT,"
	" this_nr INTEGER, prev_nr INTEGER, actual_nr INTEGER, idle_cpus INTEGER);"
	RUNNABLE_TABLE
	/* what is stored of the evaluations: every base side's, and a patch
	 * side's only where it differs from its base side's (the view below) */
	"CREATE TABLE eval_row ("
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
	INPUT_ERROR_TABLE
	WHY_TABLES
	"CREATE TABLE fidelity ("
	" run_id INTEGER NOT NULL, side_id INTEGER NOT NULL, kind TEXT NOT NULL,"
	" path TEXT, n INTEGER, exact INTEGER, same_llc INTEGER,"
	" same_node INTEGER, baseline_exact INTEGER);"
	"CREATE TABLE patch_summary ("
	" run_id INTEGER NOT NULL, patch TEXT NOT NULL, seed TEXT, model TEXT NOT NULL,"
	" kind TEXT NOT NULL, decisions INTEGER, divergent INTEGER,"
	" original_exact INTEGER, patched_exact INTEGER);"
	/* the views users and the report start from */
	/* every side's evaluation of every decision it evaluates: a patch side
	 * without its own row answered what its base side answered */
	DECISION_VIEWS
	"CREATE VIEW migration_summary AS"
	" SELECT run_id, class, count(*) AS n FROM migration GROUP BY run_id, class;";

/* the first decision id after those of the file (schema @p: "" or "main.") */
#define NEXT_DECISION_ID(p)							\
	"SELECT max(coalesce((SELECT max(decision_id) FROM " p "decision_row), -1),"	\
	" coalesce((SELECT max(decision_id) FROM " p "decision_runnable), -1)) + 1"

/* created with a new file's tables; a temporary file to append from gets them
 * at commit if it becomes the database after all (IF NOT EXISTS) */
static const char indexes[] =
	"CREATE INDEX IF NOT EXISTS decision_run ON decision_row (run_id, kind, ts);"
	"CREATE INDEX IF NOT EXISTS decision_ts ON decision_row (run_id, ts);"
	"CREATE INDEX IF NOT EXISTS decision_tid ON decision_row (run_id, tid);"
	"CREATE INDEX IF NOT EXISTS decision_runnable_ts ON decision_runnable (run_id, ts);"
	"CREATE INDEX IF NOT EXISTS migration_run ON migration (run_id, ts);"
	"CREATE INDEX IF NOT EXISTS side_run ON side (run_id, patch);";

/* the reason texts met so far and the reason_id of each, by its number in the table */
struct reasons {
	struct sr_strtab text;
	long *id;
	size_t cap;
};

struct thread_row {
	int tid;
	char name[SR_COMM_LEN];
	uint64_t start_ts, end_ts;
	uint64_t decisions, migrations;
};

enum job_type { JOB_DECISION, JOB_DIVERGENT, JOB_CPU_STATE, JOB_MIGRATION, JOB_SLICE, JOB_WHY };

/* one evaluation row to write: a base side's, or a patch side's that differs */
struct job_eval {
	int side;			/* index into the run's sides */
	int cpu;
	char reason[SR_REASON_LEN];
};

/*
 * One queued row.  The payloads share their room and a decision's
 * evaluations are kept apart in its block (ev0, nevals), so that a job is
 * the size of its largest row and a block of them stays in the caches
 * (a job that held every side's evaluation was 4.6 KiB, a block 9 MiB).
 */
struct job {
	enum job_type type;
	int nevals;
	int ev0;			/* DECISION: its first row in the block's ev[] */
	int side;			/* DIVERGENT */
	long id;			/* DIVERGENT */
	union {
		struct sr_decision d;	/* DECISION, CPU_STATE (d.snap owned), WHY (d.id) */
		struct sr_migration m;	/* MIGRATION */
		struct sr_slice_row sl;	/* SLICE */
	};
	struct sr_why *why;		/* WHY (owned; d.id the decision) */
};

#define JOBS_PER_BLOCK 2048
/* evaluation rows a block holds; a decision that finds no room starts the next block */
#define EVALS_PER_BLOCK 2048

struct job_block {
	int n;
	int nev;
	struct job job[JOBS_PER_BLOCK];
	struct job_eval ev[EVALS_PER_BLOCK];
};

struct sr_store {
	sqlite3 *db;			/* the temporary database */
	sqlite3_stmt *ins_dec, *ins_eval, *ins_reason, *ins_div, *ins_mig, *ins_snap;
	sqlite3_stmt *ins_input, *ins_group;	/* decision_input, group_stat */
	sqlite3_stmt *ins_slice[SR_SL__COUNT];	/* src/slices-sql.c */
	/* the writer's rows of MULTI at a time, and those waiting for them
	 * (pointers into the block it writes, flushed before it hands it back) */
	sqlite3_stmt *ins_dec_k, *ins_slice_k;
	sqlite3_stmt *ins_run, *ins_run_k;	/* decision_runnable's, one row and MULTI */
	sqlite3_stmt *ins_eval_k;	/* eval_row's, MULTI; the rows waiting for it: */
	struct eval_wait {
		sqlite3_int64 id, side, reason;
		int cpu;
	} eq[MULTI];
	int neq;
	struct sr_bind_cache bc_dec, bc_slice, bc_run;	/* what their parameters hold */
	struct sr_strtab texts;		/* their short texts (names, states), for the writer */
	const struct sr_decision *dq[MULTI];
	const struct sr_decision *rq[MULTI];	/* the waiting decision_runnable rows */
	int nrq;
	const struct sr_slice_row *sq[MULTI];
	struct sr_slice_row sq_moved[MULTI];	/* rows of a later run, their ids moved */
	/* the rows a block left waiting, copied out of it for the next one */
	struct sr_decision dq_own[MULTI], rq_own[MULTI];
	struct sr_slice_row sq_own[MULTI];
	int ndq, nsq;
	/*
	 * The largest decision_id bound so far for decision_row [0] and
	 * decision_runnable [1] of this file (-1: none yet): see bind_decision()
	 */
	sqlite3_int64 last_id[2];
	int ncpus;
	char *path;			/* the destination (a symlink's target) */
	char *tmp;			/* "path.tmp-PID" */
	int tmp_fd;			/* holds an OFD lock on byte 0 of tmp while we live */
	struct sr_store_opts o;
	int append;			/* the destination existed: the run is copied into it */
	long run_id;			/* 1 in the temporary database; after commit, the file's */
	long id_base;			/* decision_id = id_base + engine id */
	long in_batch;
	int committed, appended;
	int migrated;			/* the append made a schema 3 file schema 4 */
	/* waiting for another writer's lock */
	int64_t busy_start;
	int busy_told;
	int lock_fd, shm_fd;		/* the destination and its -shm, to ask who holds a lock */
	/* sides */
	const struct sr_model *const *sides;
	long side_id[SR_MAX_MODELS];
	unsigned touches[SR_MAX_MODELS];
	int base_of[SR_MAX_MODELS];	/* a side's base side; itself for a base side */
	int nsides;
	struct reasons reasons;
	long next_reason;
	char inf_text[INF_CACHE][96];	/* decision.inferred by its bits, once made */
	char inf_buf[128];
	/* threads: open addressing on tid */
	struct thread_row *threads;
	size_t tcap, tn;
	uint64_t first_ts, last_ts, decisions, migrations;
	/* the writer thread: the caller fills one block of jobs while it
	 * writes the other, so SQLite and the replay run side by side; the
	 * queue is these two blocks, so the caller waits when the writer lags */
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

static int cancelled(const struct sr_store *s)
{
	return s->o.cancel && *s->o.cancel;
}

/* SQLite's progress handler: a nonzero return interrupts the statement */
static int progress_cb(void *arg)
{
	return cancelled(arg);
}

static void notice(struct sr_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(struct sr_store *s, const char *fmt, ...)
{
	char buf[PATH_MAX + 512];
	va_list ap;

	if (!s->o.notice)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->o.notice(buf, s->o.notice_data);
}

static int db_error(struct sr_store *s, char **cause, const char *what)
{
	if (cancelled(s))
		return -SR_E_INTR;
	if (s->db && (sqlite3_errcode(s->db) & 0xff) == SQLITE_NOMEM) {
		sr_cause_set(cause, "cannot write '%s': %s: out of memory", s->tmp, what);
		return -SR_E_NOMEM;
	}
	sr_cause_set(cause, "cannot write '%s': %s: %s", s->tmp, what,
		     s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -SR_E_IO;
}

static int exec(struct sr_store *s, const char *sql, char **cause)
{
	char *err = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		int nomem = (sqlite3_errcode(s->db) & 0xff) == SQLITE_NOMEM;

		sqlite3_free(err);
		if (cancelled(s))
			return -SR_E_INTR;
		sr_cause_set(cause, "cannot write '%s': %s", s->tmp,
			     nomem ? "out of memory" : sqlite3_errmsg(s->db));
		return nomem ? -SR_E_NOMEM : -SR_E_IO;
	}
	return 0;
}

/* ---- who holds a lock on a database ---------------------------------------- */

/*
 * SQLite's unix VFS locks bytes of the database file (a rollback journal's
 * writer holds the RESERVED byte, a committing one the PENDING byte, readers
 * the SHARED range) and, in WAL mode, bytes of the -shm file (the writer's
 * at offset 120).  These offsets are part of SQLite's file format.  They
 * are POSIX record locks: F_GETLK names the process of a conflicting one.
 * The descriptors are opened before SQLite opens the file and closed after
 * it closed it: closing a descriptor drops every POSIX lock the process
 * holds on the file, SQLite's included.
 */
#define LOCK_PENDING	0x40000000LL
#define LOCK_RESERVED	(LOCK_PENDING + 1)
#define LOCK_SHARED	(LOCK_PENDING + 2)
#define LOCK_SHARED_LEN	510
#define LOCK_WAL	120			/* write, checkpoint, recover */

static void watch_open(struct sr_store *s, const char *path)
{
	char shm[PATH_MAX];

	s->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(shm, sizeof(shm), "%s-shm", path);
	s->shm_fd = open(shm, O_RDONLY | O_CLOEXEC);
}

static void watch_close(struct sr_store *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->shm_fd >= 0)
		close(s->shm_fd);
	s->lock_fd = s->shm_fd = -1;
}

static pid_t lock_owner(int fd, long long start, long long len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t)start, .l_len = (off_t)len };

	if (fd < 0 || fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return 0;
	return fl.l_pid > 0 ? fl.l_pid : -1;
}

/* the name of a process (/proc/PID/comm), "" if unknown */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char p[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* " by pid 1234 (sqlite3)", " by another process", or "" when no lock is seen */
static void lock_holder(struct sr_store *s, char *buf, size_t len)
{
	pid_t pid = lock_owner(s->shm_fd, LOCK_WAL, 3);
	char comm[64];

	if (!pid)
		pid = lock_owner(s->lock_fd, LOCK_RESERVED, 1);
	if (!pid)
		pid = lock_owner(s->lock_fd, LOCK_PENDING, 1);
	if (!pid)
		pid = lock_owner(s->lock_fd, LOCK_SHARED, LOCK_SHARED_LEN);
	buf[0] = '\0';
	if (pid < 0) {
		snprintf(buf, len, " by another process");
	} else if (pid > 0) {
		proc_comm(pid, comm, sizeof(comm));
		snprintf(buf, len, " by pid %d%s%s%s", (int)pid, *comm ? " (" : "", comm,
			 *comm ? ")" : "");
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SQLite's busy handler: wait for the lock up to the timeout, unless a signal came */
static int busy_cb(void *arg, int count)
{
	struct sr_store *s = arg;
	int64_t now = now_ms();
	char who[128];

	if (cancelled(s))
		return 0;
	if (!count)
		s->busy_start = now;
	if (now - s->busy_start >= s->o.lock_timeout_ms)
		return 0;
	if (!count && !s->busy_told) {
		lock_holder(s, who, sizeof(who));
		notice(s, "'%s' is locked%s: waiting up to %g s", s->path, who,
		       s->o.lock_timeout_ms / 1000.0);
		s->busy_told = 1;
	}
	/* a signal ends the sleep early */
	usleep(count < 20 ? 1000 : 10000);
	return 1;
}

/*
 * A failed statement on the destination @db as one message: locked (and by
 * whom), damaged, out of memory, interrupted, or SQLite's own words.
 */
static int dest_error(struct sr_store *s, sqlite3 *db, const char *what, char **cause)
{
	int rc = db ? sqlite3_errcode(db) & 0xff : SQLITE_NOMEM;
	char who[128];

	if (cancelled(s))
		return -SR_E_INTR;
	switch (rc) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		lock_holder(s, who, sizeof(who));
		sr_cause_set(cause, "'%s' is locked%s: gave up after %g s (see --lock-timeout); "
			     "the file is unchanged", s->path, who, s->o.lock_timeout_ms / 1000.0);
		return -SR_E_IO;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		sr_cause_set(cause, "'%s' is damaged (%s): not appending to it", s->path,
			     sqlite3_errmsg(db));
		return -SR_E_CORRUPT;
	case SQLITE_NOMEM:
		sr_cause_set(cause, "cannot write '%s': %s: out of memory", s->path, what);
		return -SR_E_NOMEM;
	case SQLITE_READONLY:
		sr_cause_set(cause, "cannot write '%s': it is read-only (%s)", s->path,
			     sqlite3_errmsg(db));
		return -SR_E_IO;
	default:
		sr_cause_set(cause, "cannot write '%s': %s: %s", s->path, what, sqlite3_errmsg(db));
		return -SR_E_IO;
	}
}

/* ---- opening and checking a database file ----------------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Is @path a regular file that starts with an SQLite header and holds whole
 * pages?  SQLite would take an empty or foreign file as a new database, and
 * a truncated one as an empty or a foreign database.  0, or -1 with @cause.
 */
static int check_file(const char *path, char **cause)
{
	unsigned char h[100];
	char journal[PATH_MAX];
	struct stat st, jst;
	unsigned ps;
	ssize_t n;
	int fd;

	if (stat(path, &st) < 0)
		return sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sr_cause_set(cause, "cannot open '%s': not a regular file", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n < 16 || memcmp(h, "SQLite format 3", 16))
		return sr_cause_set(cause, "'%s' is not a schedreplay database (not SQLite)", path);
	if (n < (ssize_t)sizeof(h))
		return sr_cause_set(cause, "'%s' is damaged: truncated to %lld bytes (an SQLite "
				    "database's header alone is 100)", path,
				    (long long)st.st_size);
	/* a hot rollback journal beside it puts a half-written file right */
	snprintf(journal, sizeof(journal), "%s-journal", path);
	if (stat(journal, &jst) == 0 && jst.st_size > 0)
		return 0;
	ps = (unsigned)h[16] << 8 | h[17];
	if (ps == 1)
		ps = 65536;
	if (ps < 512 || (ps & (ps - 1)))
		return sr_cause_set(cause, "'%s' is damaged: its header gives the page size %u",
				    path, ps);
	if (st.st_size < ps || st.st_size % ps)
		return sr_cause_set(cause, "'%s' is damaged: truncated (%lld bytes, not a whole "
				    "number of %u-byte pages)", path, (long long)st.st_size, ps);
	/* the page count in the header is valid when its change counter matches
	 * (and the pages of a WAL database may still be in the WAL) */
	if (h[18] == 1 && !memcmp(h + 24, h + 92, 4) &&
	    (unsigned long long)be32(h + 28) * ps > (unsigned long long)st.st_size)
		return sr_cause_set(cause, "'%s' is damaged: truncated (%lld bytes; its header "
				    "says %llu)", path, (long long)st.st_size,
				    (unsigned long long)be32(h + 28) * ps);
	return 0;
}

/*
 * What a file is: the schema of a schedreplay database this schedreplay
 * reads (SR_DB_SCHEMA_OLDEST .. SR_DB_SCHEMA_VERSION), else -1 with @cause
 */
static int check_schema(sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt *st = NULL;
	int app = 0, ver = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		switch (sqlite3_errcode(db) & 0xff) {
		case SQLITE_BUSY:
		case SQLITE_LOCKED:
			sr_cause_set(cause, "'%s' is locked by another process: %s", path,
				     sqlite3_errmsg(db));
			break;
		case SQLITE_CORRUPT:
		case SQLITE_NOTADB:
			sr_cause_set(cause, "'%s' is damaged: %s", path, sqlite3_errmsg(db));
			break;
		case SQLITE_READONLY:
			if (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK) {
				/* a write was cut off: its journal is there to be rolled back */
				sr_cause_set(cause, "cannot read '%s': a write to it was cut off "
					     "and left its journal ('%s-journal'), which a read-only "
					     "open cannot roll back; the next read-write open does "
					     "it (e.g. 'sqlite3 %s \"PRAGMA quick_check\"'), and "
					     "nothing committed is lost", path, path, path);
				break;
			}
			/* fall through */
		default:
			sr_cause_set(cause, "cannot read '%s': %s", path, sqlite3_errmsg(db));
		}
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
				     "schedreplay reads schemas %d to %d: replay the trace again",
				     path, SR_DB_SCHEMA_OLDEST, SR_DB_SCHEMA_VERSION);
			return -1;
		}
		sr_cause_set(cause, "'%s' is an SQLite database, but not one schedreplay wrote",
			     path);
		return -1;
	}
	if (ver < SR_DB_SCHEMA_OLDEST || ver > SR_DB_SCHEMA_VERSION) {
		sr_cause_set(cause, "'%s' has database schema %d; this schedreplay reads schemas "
			     "%d to %d: %s", path, ver, SR_DB_SCHEMA_OLDEST, SR_DB_SCHEMA_VERSION,
			     ver > SR_DB_SCHEMA_VERSION ? "use a newer schedreplay" :
			     "replay the trace again");
		return -1;
	}
	return ver;
}

/*
 * A schema 3 file read as a schema 4 one: its decision table holds every
 * decision, so decision_row is all of it and decision_runnable is empty
 * (views of this connection only; the file is unchanged)
 */
static const char v3_reader_views[] =
	"CREATE TEMP VIEW decision_row AS SELECT * FROM main.decision;\n"
	"CREATE TEMP VIEW decision_runnable AS SELECT * FROM main.decision WHERE 0;\n";

/* the schema version of @db's main file, -1 when it cannot be read */
static int file_version(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int ver = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return ver;
}

const char *sr_db_reader_views(sqlite3 *db)
{
	return file_version(db) == 3 ? v3_reader_views : "";
}

/*
 * A schema 3 file becomes a schema 4 one, inside the caller's transaction
 * (an append's): its decision table, indexes and rows, becomes decision_row
 * (with its runnable wakeups, which the views and readers allow), and the
 * views are made anew over both tables.  legacy_alter_table: the rename
 * leaves alone the views that name "decision", a user's too, which then
 * read the decision view of every decision.
 * Return: 0, or -1 (the caller reads the error from @db).
 */
static int migrate_v3(sqlite3 *db)
{
	static const char sql[] =
		"PRAGMA legacy_alter_table = ON;"
		"ALTER TABLE main.decision RENAME TO decision_row;"
		"PRAGMA legacy_alter_table = OFF;"
		"DROP VIEW IF EXISTS main.evaluation_v;"
		"DROP VIEW IF EXISTS main.evaluation;"
		"DROP VIEW IF EXISTS main.divergence;"
		RUNNABLE_TABLE
		DECISION_VIEWS;
	char ver[128];
	int rc;

	/* on failure the caller rolls back and closes @db, legacy flag and all */
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return -1;
	snprintf(ver, sizeof(ver), "PRAGMA main.user_version = %d; UPDATE main.meta SET value = "
		 "'%d' WHERE key = 'schema_version'", SR_DB_SCHEMA_VERSION, SR_DB_SCHEMA_VERSION);
	return sqlite3_exec(db, ver, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int sr_db_upgrade(sqlite3 *db, const char *path, char **cause)
{
	int ver, begun;

	begun = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
	ver = begun ? file_version(db) : -1;
	if (ver >= 0 && ver != 3)
		return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	/* the views sr_db_open() added would hide the tables of that name */
	if (ver == 3 &&
	    sqlite3_exec(db, "DROP VIEW IF EXISTS temp.decision_row;"
			 "DROP VIEW IF EXISTS temp.decision_runnable;", NULL, NULL, NULL) == SQLITE_OK &&
	    !migrate_v3(db) && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 1;
	sr_cause_set(cause, "cannot migrate '%s' from schema 3 to 4: %s (the file is unchanged)",
		     path, sqlite3_errmsg(db));
	if (begun)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

sqlite3 *sr_db_open(const char *path, int writable, char **cause)
{
	return sr_db_open_wait(path, writable, SR_DB_LOCK_TIMEOUT_MS, cause, NULL);
}

sqlite3 *sr_db_open_wait(const char *path, int writable, int wait_ms, char **cause, int *busy)
{
	sqlite3 *db = NULL;
	int ver;

	if (busy)
		*busy = 0;
	if (check_file(path, cause) < 0)
		return NULL;
	if (sqlite3_open_v2(path, &db, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot open '%s': %s", path,
			     db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	/* a replay appending to it holds the write lock for a moment */
	sqlite3_busy_timeout(db, wait_ms);
	ver = check_schema(db, path, cause);
	if (ver < 0) {
		if (busy)
			*busy = (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY;
		sqlite3_close(db);
		return NULL;
	}
	if (ver == 3 && sqlite3_exec(db, v3_reader_views, NULL, NULL, NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* open the destination for an append, with the lock wait and the interrupt */
static sqlite3 *dest_open(struct sr_store *s, char **cause)
{
	sqlite3 *db = NULL;

	if (check_file(s->path, cause) < 0)
		return NULL;
	watch_open(s, s->path);
	if (sqlite3_open_v2(s->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot open '%s': %s", s->path,
			     db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		watch_close(s);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_handler(db, busy_cb, s);
	sqlite3_progress_handler(db, 10000, progress_cb, s);
	if (sqlite3_db_readonly(db, "main") == 1) {
		sr_cause_set(cause, "cannot append to '%s': it is read-only", s->path);
		sqlite3_close(db);
		watch_close(s);
		return NULL;
	}
	if (check_schema(db, s->path, cause) < 0) {
		if ((sqlite3_errcode(db) & 0xff) == SQLITE_BUSY && cause) {
			free(*cause);
			*cause = NULL;
			dest_error(s, db, "read", cause);
		}
		sqlite3_close(db);
		watch_close(s);
		return NULL;
	}
	return db;
}

static void dest_close(struct sr_store *s, sqlite3 *db)
{
	sqlite3_close(db);
	watch_close(s);
}

/* quick_check's first complaint, on one line */
static void damaged(struct sr_store *s, const char *text, char **cause)
{
	static const char prefix[] = "*** in database main ***\n";
	char buf[256], *p;

	if (!strncmp(text, prefix, sizeof(prefix) - 1))
		text += sizeof(prefix) - 1;
	sr_strlcpy(buf, text, sizeof(buf));
	for (p = buf; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	sr_cause_set(cause, "'%s' is damaged (PRAGMA quick_check: %s): not appending to it; "
		     "the file is unchanged", s->path, buf);
}

/*
 * Before the replay: may the run be appended to the destination?  Ours,
 * this schema, writable (a file without write permission is not written,
 * even by root), and whole (PRAGMA quick_check).
 */
static int check_append(struct sr_store *s, const struct stat *st, char **cause)
{
	sqlite3_stmt *q = NULL;
	char dir[PATH_MAX];
	const char *slash;
	sqlite3 *db;
	int ok, rc;

	if (S_ISREG(st->st_mode) && (!(st->st_mode & 0222) || access(s->path, W_OK) < 0))
		return sr_cause_set(cause, "cannot append to '%s': it is read-only (mode %04o); "
				    "make it writable or write a new database", s->path,
				    (unsigned)(st->st_mode & 07777)), -SR_E_IO;
	slash = strrchr(s->path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - s->path) + 1 : 1,
		 slash ? s->path : ".");
	if (access(dir, W_OK) < 0)
		return sr_cause_set(cause, "cannot append to '%s': its directory '%s' is not "
				    "writable (SQLite keeps a journal beside the file while it "
				    "writes)", s->path, dir), -SR_E_IO;
	db = dest_open(s, cause);
	if (!db)
		return -SR_E_IO;
	ok = 0;
	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "ok"))
		ok = 1;
	else if (rc == SQLITE_ROW)
		damaged(s, (const char *)sqlite3_column_text(q, 0), cause);
	sqlite3_finalize(q);
	if (!ok && rc != SQLITE_ROW) {
		rc = dest_error(s, db, "quick_check", cause);
		dest_close(s, db);
		return rc == -SR_E_CORRUPT || rc == -SR_E_INTR ? rc : -SR_E_IO;
	}
	dest_close(s, db);
	return ok ? 0 : -SR_E_CORRUPT;
}

/* ---- temporary files -------------------------------------------------------- */

/*
 * A temporary file is live while its replay holds an OFD lock on its first
 * byte (SQLite's own locks are far beyond it); one without the lock whose
 * process is gone was left by a killed replay.  A live process that is not
 * schedreplay reused the PID: the file is stale too.
 */
static int temp_is_live(const char *path, pid_t pid)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	char comm[64];
	int fd, held;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 1;
	held = fcntl(fd, F_OFD_GETLK, &fl) < 0 || fl.l_type != F_UNLCK;
	close(fd);
	if (held)
		return 1;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 0;
	proc_comm(pid, comm, sizeof(comm));
	return !*comm || !strncmp(comm, "schedreplay", 11);
}

/* remove "DB.tmp-PID" files that killed replays of @s->path left behind */
static void remove_stale(struct sr_store *s)
{
	const char *slash = strrchr(s->path, '/');
	const char *base = slash ? slash + 1 : s->path;
	size_t blen = strlen(base);
	char dir[PATH_MAX], full[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - s->path) + 1 : 1,
		 slash ? s->path : ".");
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *p = de->d_name, *num;
		char *end;
		long pid;

		if (strncmp(p, base, blen) || strncmp(p + blen, ".tmp-", 5))
			continue;
		num = p + blen + 5;
		pid = strtol(num, &end, 10);
		if (end == num || *end || pid <= 0 || pid == (long)getpid())
			continue;
		snprintf(full, sizeof(full), "%s%s", slash ? dir : "", p);
		if (temp_is_live(full, (pid_t)pid))
			continue;
		if (unlink(full) == 0)
			notice(s, "removed '%s': a temporary file left by replay process %ld, "
			       "which was killed", full, pid);
	}
	closedir(d);
}

/* create "DB.tmp-PID" exclusively and mark it live */
static int temp_create(struct sr_store *s, mode_t mode, char **cause)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	if (asprintf(&s->tmp, "%s.tmp-%d", s->path, (int)getpid()) < 0) {
		s->tmp = NULL;
		sr_cause_set(cause, "out of memory");
		return -SR_E_NOMEM;
	}
	/* a file of this name was left by an earlier process with our PID */
	unlink(s->tmp);
	s->tmp_fd = open(s->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (s->tmp_fd < 0) {
		sr_cause_set(cause, "cannot create '%s': %s", s->tmp, strerror(errno));
		free(s->tmp);
		s->tmp = NULL;
		return -SR_E_IO;
	}
	/* where the file system has no OFD locks, the PID alone tells */
	fcntl(s->tmp_fd, F_OFD_SETLK, &fl);
	return 0;
}

#define DECISION_COLUMNS 22
/* decision_runnable's stored columns: all but kind and skip */
#define RUNNABLE_COLUMNS 20

/* "INSERT INTO t VALUES " @head with MULTI rows of @ncols parameters */
static int prepare_multi(sqlite3 *db, const char *head, int ncols, sqlite3_stmt **st)
{
	size_t len = strlen(head) + (size_t)MULTI * ((size_t)ncols * 2 + 2) + 1, o;
	char *sql = malloc(len);
	int r, c, rc;

	*st = NULL;
	if (!sql)
		return SQLITE_NOMEM;
	o = (size_t)snprintf(sql, len, "%s", head);
	for (r = 0; r < MULTI; r++) {
		sql[o++] = r ? ',' : '(';
		if (r)
			sql[o++] = '(';
		for (c = 0; c < ncols; c++) {
			sql[o++] = '?';
			sql[o++] = c + 1 < ncols ? ',' : ')';
		}
	}
	sql[o] = '\0';
	rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
	free(sql);
	return rc;
}

/* the file to write: a symlink's target, so that the link keeps pointing at the run */
static char *dest_path(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			return real;
	}
	return strdup(path);
}

static void refuse_existing(const char *path, char **cause)
{
	sr_cause_set(cause, "'%s' exists: choose another name, --append a run to it, or "
		     "replace it with --force", path);
}

int sr_store_refuses(const char *path, const struct sr_store_opts *o, char **cause)
{
	char *dest;
	struct stat st;
	int exists;

	if (o->force || o->append)
		return 0;
	dest = dest_path(path);
	if (!dest) {
		sr_cause_set(cause, "out of memory");
		return -1;
	}
	exists = lstat(dest, &st) == 0;
	free(dest);
	if (!exists)
		return 0;
	refuse_existing(path, cause);
	return -1;
}

struct sr_store *sr_store_create(const char *path, const struct sr_store_opts *o, char **cause)
{
	static int heap_limited;
	struct sr_store *s;
	struct stat st;
	mode_t mode = 0644;
	int exists, err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		sr_cause_set(cause, "out of memory");
		return NULL;
	}
	s->o = *o;
	s->tmp_fd = s->lock_fd = s->shm_fd = -1;
	s->last_id[0] = s->last_id[1] = -1;
	s->path = dest_path(path);
	if (!s->path) {
		sr_cause_set(cause, "out of memory");
		goto fail;
	}
	exists = lstat(s->path, &st) == 0;
	if (exists && !o->force && !o->append) {
		refuse_existing(path, cause);
		goto fail;
	}
	if (exists && o->append) {
		s->append = 1;
		err = check_append(s, &st, cause);
		if (err < 0)
			goto fail;
	}
	/* --force: the new file gets the old one's permissions */
	if (exists && o->force && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	remove_stale(s);
	if (temp_create(s, mode, cause) < 0)
		goto fail;
	if (exists && o->force && S_ISREG(st.st_mode))
		fchmod(s->tmp_fd, mode);
	/*
	 * SQLite's memory: the page cache below, sorting (index builds) in
	 * temporary files rather than in memory; and a hard limit that turns
	 * runaway growth into an "out of memory" error instead of the OOM killer.
	 */
	if (!heap_limited++)
		sqlite3_hard_heap_limit64(512LL << 20);
	if (sqlite3_open_v2(s->tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot create '%s': %s", s->tmp,
			     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_progress_handler(s->db, 10000, progress_cb, s);
	/*
	 * The file only becomes the database when it is complete: no journal
	 * needed.  secure_delete off: Debian's SQLite zeroes the room every
	 * cell leaves (SQLITE_SECURE_DELETE), and this file only ever gets
	 * rows, so that room held copies of rows it still has (the writer's
	 * memset, 1.4 % of its instructions).
	 */
	if (exec(s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=FILE;"
		 " PRAGMA secure_delete=OFF;", cause))
		goto fail;
	{
		char sql[160];

		/*
		 * The cache size after the page size: SQLite turns a size in KiB
		 * into pages when it is set, and a page size set later keeps that
		 * page count (64 MiB of 4 KiB pages became 256 MiB of 16 KiB ones).
		 */
		snprintf(sql, sizeof(sql),
			 "PRAGMA page_size=16384; PRAGMA cache_size=-16384; "
			 "PRAGMA application_id=%d; PRAGMA user_version=%d;",
			 SR_DB_APPLICATION_ID, SR_DB_SCHEMA_VERSION);
		if (exec(s, sql, cause) || exec(s, schema, cause) || exec(s, sr_slices_schema, cause))
			goto fail;
		/*
		 * The indexes of a new file grow with its rows, on the writer
		 * thread beside the replay: as much work as building them at
		 * the end, but not after it.  An append's temporary file has
		 * none (the destination's take the rows when they are copied).
		 */
		if (!s->append && exec(s, indexes, cause))
			goto fail;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO meta VALUES ('schema_version', '%d'), "
			 "('application', 'schedreplay')", SR_DB_SCHEMA_VERSION);
		if (exec(s, sql, cause))
			goto fail;
	}
	/* engine ids start at 0 in every run; an append offsets them when it copies */
	s->id_base = 0;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO decision_row VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &s->ins_dec, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO eval_row VALUES (?,?,?,?)", -1,
			       &s->ins_eval, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO reason VALUES (?,?,?)", -1,
			       &s->ins_reason, NULL) != SQLITE_OK ||
	    /* a patch over two base models may diverge twice at one decision */
	    sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO diverged VALUES (?,?)", -1,
			       &s->ins_div, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO migration VALUES (?,?,?,?,?,?,?,?,?)", -1,
			       &s->ins_mig, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO cpu_state VALUES (?,?,?,?,?,?,?,?,?)", -1,
			       &s->ins_snap, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO decision_input VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s->ins_input,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO group_stat VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s->ins_group,
			       NULL) != SQLITE_OK ||
	    sr_slices_sql_prepare(s->db, s->ins_slice) != SQLITE_OK ||
	    prepare_multi(s->db, "INSERT INTO decision_row VALUES ", DECISION_COLUMNS,
			  &s->ins_dec_k) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO decision_runnable VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &s->ins_run, NULL) != SQLITE_OK ||
	    prepare_multi(s->db, "INSERT INTO decision_runnable VALUES ", RUNNABLE_COLUMNS,
			  &s->ins_run_k) != SQLITE_OK ||
	    prepare_multi(s->db, SR_SL_SCHED_INSERT, SR_SL_SCHED_COLUMNS,
			  &s->ins_slice_k) != SQLITE_OK ||
	    prepare_multi(s->db, "INSERT INTO eval_row VALUES ", 4, &s->ins_eval_k) != SQLITE_OK) {
		db_error(s, cause, "prepare");
		goto fail;
	}
	/* without the room, every value is bound each time: slower, the same rows */
	sr_bc_init(&s->bc_dec, MULTI * DECISION_COLUMNS);
	sr_bc_init(&s->bc_slice, MULTI * SR_SL_SCHED_COLUMNS);
	sr_bc_init(&s->bc_run, MULTI * RUNNABLE_COLUMNS);
	s->bc_dec.texts = s->bc_slice.texts = s->bc_run.texts = &s->texts;
	return s;
fail:
	if (cause && !*cause)
		sr_cause_set(cause, "out of memory");
	sr_store_free(s);
	return NULL;
}

const char *sr_store_temp_path(const struct sr_store *s)
{
	return s ? s->tmp : NULL;
}

long sr_store_run_id(const struct sr_store *s)
{
	return s->run_id;
}

int sr_store_appended(const struct sr_store *s)
{
	return s->appended;
}

int sr_store_migrated(const struct sr_store *s)
{
	return s->migrated;
}

const char *sr_store_path(const struct sr_store *s)
{
	return s->path;
}

uint64_t sr_store_decisions(const struct sr_store *s)
{
	return s->decisions;
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

/* the names of a domain's flags, as the kernel's SD_* without the prefix */
static void domain_flag_names(unsigned flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"BALANCE_NEWIDLE", "BALANCE_EXEC", "BALANCE_FORK", "BALANCE_WAKE",
		"WAKE_AFFINE", "SHARE_CPUCAPACITY", "SHARE_LLC", "SERIALIZE",
		"PREFER_SIBLING", "NUMA", "OVERLAP", "CLUSTER",
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && o < len; i++)
		if (flags & (1u << i))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "|" : "", names[i]);
}

/* a cpumask as a CPU list ("0-3,8"), cut at @len */
static void cpulist(const uint64_t *mask, int ncpus, char *buf, size_t len)
{
	size_t o = 0;
	int c = 0, e;

	buf[0] = '\0';
	while (c < ncpus && o < len) {
		if (!(mask[c / 64] >> (c % 64) & 1)) {
			c++;
			continue;
		}
		for (e = c; e + 1 < ncpus && (mask[(e + 1) / 64] >> ((e + 1) % 64) & 1); e++)
			;
		o += (size_t)snprintf(buf + o, len - o, e > c ? "%s%d-%d" : "%s%d", o ? "," : "",
				      c, e);
		c = e + 1;
	}
}

/* every CPU's sched domains (sched_domain) */
static int domains_now(struct sr_store *s, const struct sr_topology *topo, char **cause)
{
	sqlite3_stmt *st = NULL;
	char flags[256], span[512];
	int c, l;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO sched_domain VALUES (?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (c = 0; c < topo->ncpus; c++) {
		for (l = 0; l < topo->cpu[c].ndomains; l++) {
			const struct sr_domain *sd = &topo->cpu[c].dom[l];

			domain_flag_names(sd->flags, flags, sizeof(flags));
			cpulist(sd->span, topo->ncpus, span, sizeof(span));
			sqlite3_bind_int64(st, 1, s->run_id);
			sqlite3_bind_int(st, 2, c);
			sqlite3_bind_int(st, 3, l);
			bind_text_or_null(st, 4, sd->name);
			sqlite3_bind_int64(st, 5, sd->flags);
			bind_text_or_null(st, 6, flags);
			sqlite3_bind_int(st, 7, sd->imbalance_pct);
			sqlite3_bind_int(st, 8, sd->span_weight);
			bind_text_or_null(st, 9, span);
			sqlite3_bind_int(st, 10, sd->imb_numa_nr);
			if (step_done(s, st, "insert sched_domain", cause)) {
				sqlite3_finalize(st);
				return -SR_E_IO;
			}
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int sr_store_begin_run(struct sr_store *s, const struct sr_run_info *ri,
		       const struct sr_topology *topo, const struct sr_model *const *sides,
		       const unsigned *touches, int nsides, char **cause)
{
	sqlite3_stmt *st = NULL;
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	long next_side;
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
			       "inference, started, kernel_gen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
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
	bind_text_or_null(st, 15, ri->kernel_gen);
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
	c = domains_now(s, topo, cause);
	if (c)
		return c;

	/* side ids are given here: a patch side names its base side's */
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(side_id), 0) FROM side", -1, &st,
			       NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_error(s, cause, "read side");
	}
	next_side = (long)sqlite3_column_int64(st, 0) + 1;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO side (side_id, run_id, model, patch, variant, "
			       "base_side_id, kinds) VALUES (?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	for (c = 0; c < nsides; c++)
		s->side_id[c] = next_side + c;
	for (c = 0; c < nsides; c++) {
		const struct sr_model *m = sides[c];
		char kinds[256];
		size_t o = 0;
		int b, k;

		/* a patch side's base side is the side of the model it derives from */
		s->base_of[c] = c;
		for (b = 0; m->patch && b < nsides; b++)
			if (!sides[b]->patch && sides[b] == m->base) {
				s->base_of[c] = b;
				break;
			}
		if (m->patch && s->base_of[c] == c) {
			sqlite3_finalize(st);
			sr_cause_set(cause, "internal error: patch side %s/%s has no base side",
				     m->patch, m->variant ? m->variant : "?");
			return -SR_E_USAGE;
		}
		kinds[0] = '\0';
		for (k = 0; k < SR_DEC__COUNT; k++)
			if (touches[c] & (1u << k))
				o += (size_t)snprintf(kinds + o, o < sizeof(kinds) ? sizeof(kinds) - o : 0,
						      "%s%s", o ? "," : "",
						      sr_decision_kind_name((enum sr_decision_kind)k));
		sqlite3_bind_int64(st, 1, s->side_id[c]);
		sqlite3_bind_int64(st, 2, s->run_id);
		sqlite3_bind_text(st, 3, m->base ? m->base->name : m->name, -1, SQLITE_STATIC);
		bind_text_or_null(st, 4, m->patch);
		sqlite3_bind_text(st, 5, m->variant ? m->variant : "base", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, s->side_id[s->base_of[c]]);
		sqlite3_bind_text(st, 7, kinds, -1, SQLITE_TRANSIENT);
		if (step_done(s, st, "insert side", cause)) {
			sqlite3_finalize(st);
			return -SR_E_IO;
		}
	}
	sqlite3_finalize(st);
	s->next_reason = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(reason_id), 0) FROM reason", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		s->next_reason = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return writer_start(s);
}

/* ---- reasons: interned (a few thousand distinct texts in millions of rows) ---- */

static long reason_id(struct sr_store *s, const char *text, char **cause)
{
	struct reasons *in = &s->reasons;
	size_t len = strlen(text);
	char path[SR_REASON_LEN];
	long i = sr_strtab_find(&in->text, text, len);

	if (i >= 0)
		return in->id[i];
	if (in->text.n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 1024;
		long *id = realloc(in->id, cap * sizeof(*id));

		if (!id)
			return -SR_E_NOMEM;
		in->id = id;
		in->cap = cap;
	}
	i = sr_strtab_add(&in->text, text, len, NULL);
	if (i < 0)
		return -SR_E_NOMEM;
	in->id[i] = ++s->next_reason;
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
	[SR_SKIP_NO_BALANCE] = "no_balance",
};

static void inferred_text(unsigned inf, char *buf, size_t len)
{
	static const char *const names[] = {
		"sync", "exiting", "kthread", "affinity", "pelt_warmup", "topology", "prev_cpu",
		"wakee_flips", "ni_random", "near",
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
		/*
		 * Start writing what is there to the disk now, without waiting
		 * for it: the fsync() before the rename then has only the last
		 * batches left to wait for, not the whole file (on the 2.2 M-event
		 * bench trace, 150 MB and up to 0.35 s after the replay was done)
		 */
		if (s->tmp_fd >= 0)
			sync_file_range(s->tmp_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	}
	return 0;
}

/*
 * The decision row @d into parameters @o + 1 .. @o + DECISION_COLUMNS of
 * @st; its texts must stay put until the statement has run (a job's, or
 * static)
 */
static void bind_cpu_bc(struct sr_bind_cache *bc, sqlite3_stmt *st, int i, int cpu)
{
	if (cpu >= 0)
		sr_bc_int(bc, st, i, cpu);
	else
		sr_bc_null(bc, st, i);
}

/*
 * The parameter of @st for column @i (1-based, the decision view's order):
 * a decision_runnable row (@narrow) has no kind (3) nor skip (17) to bind
 */
#define DEC_PARAM(i) (o + (narrow ? (i) - ((i) > 3) - ((i) > 17) : (i)))

/*
 * @bc: what @st's parameters hold (the MULTI statement's), or NULL;
 * @narrow: @st inserts into decision_runnable
 */
static void bind_decision(struct sr_store *s, sqlite3_stmt *st, struct sr_bind_cache *bc, int o,
			  const struct sr_decision *d, int narrow)
{
	sqlite3_int64 id;
	int n;

	/* the text of each set of inferred inputs is made once, and stays put */
	if (d->inferred < INF_CACHE) {
		if (!s->inf_text[d->inferred][0])
			inferred_text(d->inferred, s->inf_text[d->inferred], sizeof(s->inf_text[0]));
		if (s->inf_text[d->inferred][0])
			sr_bc_static(bc, st, DEC_PARAM(18), s->inf_text[d->inferred]);
		else
			sr_bc_null(bc, st, DEC_PARAM(18));
	} else {
		inferred_text(d->inferred, s->inf_buf, sizeof(s->inf_buf));
		if (bc && DEC_PARAM(18) <= bc->n)
			bc->tag[DEC_PARAM(18)] = SR_BC_NONE;
		bind_text_or_null(st, DEC_PARAM(18), s->inf_buf);
	}
	/*
	 * The id one above the table's largest goes in as NULL: SQLite gives
	 * a row without a rowid one more than the largest rowid of its table
	 * (while that is below 2^63 - 1, https://sqlite.org/autoinc.html), the
	 * same value, from the b-tree's last row, where an explicit one costs a
	 * search for the uniqueness check; the writer numbers a run's decisions
	 * in order, so this is nine runnable wakeups in ten (bench-small).
	 * last_id is the table's largest rowid: every row of these tables in
	 * this file is bound here, in the order it is inserted.
	 */
	id = s->id_base + d->id;
	if (s->last_id[narrow] >= 0 && id == s->last_id[narrow] + 1)
		sr_bc_null(bc, st, DEC_PARAM(1));
	else
		sr_bc_int(bc, st, DEC_PARAM(1), id);
	if (id > s->last_id[narrow])
		s->last_id[narrow] = id;
	sr_bc_int(bc, st, DEC_PARAM(2), s->run_id);
	if (!narrow)
		sr_bc_static(bc, st, DEC_PARAM(3), sr_decision_kind_name(d->kind));
	sr_bc_int(bc, st, DEC_PARAM(4), (sqlite3_int64)d->ts);
	sr_bc_int(bc, st, DEC_PARAM(5), (sqlite3_int64)d->done_ts);
	sr_bc_int(bc, st, DEC_PARAM(6), d->pid);
	/* the names are the job's: bound from the writer's copies (sr_bc_text) */
	for (n = 0; n < SR_COMM_LEN && d->comm[n]; n++)
		;
	if (n)
		sr_bc_text(bc, st, DEC_PARAM(7), d->comm, n);
	else
		sr_bc_null(bc, st, DEC_PARAM(7));
	sr_bc_int(bc, st, DEC_PARAM(8), d->waker > 0 ? d->waker : 0);
	for (n = 0; n < SR_COMM_LEN && d->waker_comm[n]; n++)
		;
	if (n)
		sr_bc_text(bc, st, DEC_PARAM(9), d->waker_comm, n);
	else
		sr_bc_null(bc, st, DEC_PARAM(9));
	bind_cpu_bc(bc, st, DEC_PARAM(10), d->this_cpu);
	bind_cpu_bc(bc, st, DEC_PARAM(11), d->prev_cpu);
	bind_cpu_bc(bc, st, DEC_PARAM(12), d->actual_cpu);
	bind_cpu_bc(bc, st, DEC_PARAM(13), d->kernel_cpu);
	sr_bc_int(bc, st, DEC_PARAM(14), d->sync);
	if (d->wake_flags >= 0)
		sr_bc_int(bc, st, DEC_PARAM(15), d->wake_flags);
	else
		sr_bc_null(bc, st, DEC_PARAM(15));
	sr_bc_int(bc, st, DEC_PARAM(16), d->waker_exiting);
	if (!narrow)
		sr_bc_static(bc, st, DEC_PARAM(17),
			     (unsigned)d->skip < sizeof(skip_names) / sizeof(skip_names[0]) ?
			     skip_names[d->skip] : "other");
	sr_bc_int(bc, st, DEC_PARAM(19), d->this_nr);
	sr_bc_int(bc, st, DEC_PARAM(20), d->prev_nr);
	sr_bc_int(bc, st, DEC_PARAM(21), d->actual_nr);
	sr_bc_int(bc, st, DEC_PARAM(22), d->idle_cpus);
}

#undef DEC_PARAM

/*
 * the writer's waiting decision rows, MULTI in one statement when there are
 * as many: those of the decision table, or (@narrow) of decision_runnable
 */
static int flush_decisions(struct sr_store *s, int narrow, char **cause)
{
	const struct sr_decision **q = narrow ? s->rq : s->dq;
	int *np = narrow ? &s->nrq : &s->ndq;
	sqlite3_stmt *one = narrow ? s->ins_run : s->ins_dec;
	int cols = narrow ? RUNNABLE_COLUMNS : DECISION_COLUMNS;
	int i, n = *np, err = 0;

	*np = 0;
	if (n == MULTI) {
		sqlite3_stmt *multi = narrow ? s->ins_run_k : s->ins_dec_k;
		struct sr_bind_cache *bc = narrow ? &s->bc_run : &s->bc_dec;

		for (i = 0; i < n; i++)
			bind_decision(s, multi, bc, i * cols, q[i], narrow);
		return step_done(s, multi, "insert decision", cause) ? -SR_E_IO : 0;
	}
	for (i = 0; i < n && !err; i++) {
		bind_decision(s, one, NULL, 0, q[i], narrow);
		err = step_done(s, one, "insert decision", cause) ? -SR_E_IO : 0;
	}
	return err;
}

static int flush_slices(struct sr_store *s, char **cause)
{
	int i, n = s->nsq, err = 0;

	s->nsq = 0;
	if (n == MULTI) {
		for (i = 0; i < n; i++)
			sr_slices_sql_bind_sched(s->ins_slice_k, &s->bc_slice, i * SR_SL_SCHED_COLUMNS,
						 s->run_id, s->sq[i]);
		return step_done(s, s->ins_slice_k, "insert slice", cause) ? -SR_E_IO : 0;
	}
	for (i = 0; i < n && !err; i++)
		if (sr_slices_sql_insert(s->ins_slice, s->run_id, s->sq[i]) != SQLITE_DONE)
			err = db_error(s, cause, "insert slice");
	return err;
}

/* the writer's waiting eval_row rows, MULTI in one statement when there are as many */
/* one evaluation row's parameters, from @o on */
static void bind_eval(sqlite3_stmt *st, int o, sqlite3_int64 id, sqlite3_int64 side, int cpu,
		      sqlite3_int64 reason)
{
	sqlite3_bind_int64(st, o + 1, id);
	sqlite3_bind_int64(st, o + 2, side);
	bind_cpu(st, o + 3, cpu);
	sqlite3_bind_int64(st, o + 4, reason);
}

static int flush_evals(struct sr_store *s, char **cause)
{
	int i, n = s->neq;

	s->neq = 0;
	if (n == MULTI) {
		for (i = 0; i < n; i++)
			bind_eval(s->ins_eval_k, 4 * i, s->eq[i].id, s->eq[i].side, s->eq[i].cpu,
				  s->eq[i].reason);
		return step_done(s, s->ins_eval_k, "insert evaluation", cause) ? -SR_E_IO : 0;
	}
	for (i = 0; i < n; i++) {
		bind_eval(s->ins_eval, 0, s->eq[i].id, s->eq[i].side, s->eq[i].cpu, s->eq[i].reason);
		if (step_done(s, s->ins_eval, "insert evaluation", cause))
			return -SR_E_IO;
	}
	return 0;
}

/*
 * The decision @d with its evaluation rows; @defer: @d stays put until
 * flush_decisions(), which writes its row, and its evaluations wait for
 * flush_evals() (the writer thread's jobs)
 */
static int decision_now(struct sr_store *s, const struct sr_decision *d,
			const struct job_eval *evals, int nevals, int defer, char **cause)
{
	sqlite3_stmt *st;
	long id = s->id_base + d->id;
	/* decision_runnable's rows: the generated kind and skip, no evaluation */
	int narrow = d->kind == SR_DEC_WAKEUP && d->skip == SR_SKIP_RUNNABLE && !nevals;
	int i, err;

	if (defer) {
		int *np = narrow ? &s->nrq : &s->ndq;

		(narrow ? s->rq : s->dq)[(*np)++] = d;
		if (*np == MULTI && (err = flush_decisions(s, narrow, cause)))
			return err;
	} else {
		st = narrow ? s->ins_run : s->ins_dec;
		bind_decision(s, st, NULL, 0, d, narrow);
		if (step_done(s, st, "insert decision", cause))
			return -SR_E_IO;
	}
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

	for (i = 0; i < nevals; i++) {
		long rid;

		rid = reason_id(s, evals[i].reason, cause);
		if (rid < 0)
			return (int)rid;
		if (defer) {
			struct eval_wait *w = &s->eq[s->neq++];

			w->id = id;
			w->side = s->side_id[evals[i].side];
			w->cpu = evals[i].cpu;
			w->reason = rid;
			if (s->neq == MULTI && (err = flush_evals(s, cause)))
				return err;
			continue;
		}
		bind_eval(s->ins_eval, 0, id, s->side_id[evals[i].side], evals[i].cpu, rid);
		if (step_done(s, s->ins_eval, "insert evaluation", cause))
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

static const char *why_source(enum sr_why_source src)
{
	switch (src) {
	case SR_WHY_ENGINE:
		return "engine";
	case SR_WHY_PROBE:
		return "probe";
	case SR_WHY_WARMUP:
		return "engine, warm-up";
	default:
		return NULL;
	}
}

static void bind_known(sqlite3_stmt *st, int i, long v)
{
	if (v >= 0)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* what the first base model read at decision @id (decision_input, group_stat) */
static int why_now(struct sr_store *s, long id, const struct sr_why *w, char **cause)
{
	sqlite3_stmt *st = s->ins_input;
	int i;

	sqlite3_bind_int64(st, 1, s->id_base + id);
	sqlite3_bind_int64(st, 2, s->side_id[0]);
	bind_known(st, 3, w->wakee_flips);
	bind_known(st, 4, w->waker_flips);
	bind_known(st, 5, w->factor > 0 ? w->factor : -1);
	bind_text_or_null(st, 6, why_source(w->flips_src));
	bind_known(st, 7, w->task_load);
	bind_known(st, 8, w->task_util);
	bind_known(st, 9, w->task_runnable);
	bind_text_or_null(st, 10, why_source(w->pelt_src));
	bind_known(st, 11, w->waker_load);
	bind_known(st, 12, w->this_load);
	bind_known(st, 13, w->prev_load);
	bind_text_or_null(st, 14, why_source(w->prev_load_src));
	sqlite3_bind_int(st, 15, w->dropped);
	if (step_done(s, st, "insert decision_input", cause))
		return -SR_E_IO;
	st = s->ins_group;
	for (i = 0; i < w->ngroups; i++) {
		const struct sr_why_group *g = &w->g[i];

		sqlite3_bind_int64(st, 1, s->id_base + id);
		sqlite3_bind_int(st, 2, g->call);
		sqlite3_bind_text(st, 3, g->fn ? "find_busiest_group" : "find_idlest_group", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, 4, g->cpu);
		sqlite3_bind_int(st, 5, g->level);
		sqlite3_bind_int(st, 6, g->first);
		sqlite3_bind_int(st, 7, g->local);
		sqlite3_bind_int(st, 8, g->picked);
		bind_text_or_null(st, 9, g->type);
		sqlite3_bind_int(st, 10, g->weight);
		sqlite3_bind_int(st, 11, g->nr);
		bind_known(st, 12, g->cfs);
		sqlite3_bind_int(st, 13, g->idle);
		sqlite3_bind_int64(st, 14, g->load);
		bind_known(st, 15, g->avg_load);
		bind_known(st, 16, g->util);
		bind_known(st, 17, g->runnable);
		if (step_done(s, st, "insert group_stat", cause))
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

/* @defer: as decision_now()'s */
static int slice_now(struct sr_store *s, const struct sr_slice_row *r, int defer, char **cause)
{
	struct sr_slice_row moved;
	int err;

	/* a decision id as the engine numbers it, like decision_now's (a later run's) */
	if (s->id_base && r->decision != SR_SL_NONE) {
		moved = *r;
		moved.decision += s->id_base;
		r = &moved;
	}
	if (defer && r->table == SR_SL_SCHED) {
		/* a moved row waits in the store's own copy, not on this stack */
		if (r == &moved) {
			s->sq_moved[s->nsq] = moved;
			r = &s->sq_moved[s->nsq];
		}
		s->sq[s->nsq++] = r;
		if (s->nsq == MULTI && (err = flush_slices(s, cause)))
			return err;
	} else if (sr_slices_sql_insert(s->ins_slice, s->run_id, r) != SQLITE_DONE) {
		return db_error(s, cause, "insert slice");
	}
	return batch(s, cause);
}

/* ---- the writer thread ---------------------------------------------------- */

/* the writer's first error @err (0: none) with its @cause, kept for the caller */
static void writer_fail(struct sr_store *s, int err, char *cause)
{
	if (err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->lock);
		s->err_cause = cause;
		__atomic_store_n(&s->err, err, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
	} else {
		free(cause);
	}
}

static void run_job(struct sr_store *s, struct job_block *b, struct job *j)
{
	char *cause = NULL;
	int err = 0;

	if (!err && cancelled(s))
		err = -SR_E_INTR;
	if (!err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE)) {
		switch (j->type) {
		case JOB_DECISION:
			err = decision_now(s, &j->d, &b->ev[j->ev0], j->nevals, 1, &cause);
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
		case JOB_SLICE:
			err = slice_now(s, &j->sl, 1, &cause);
			break;
		case JOB_WHY:
			err = why_now(s, j->d.id, j->why, &cause);
			break;
		}
	}
	if (j->type == JOB_CPU_STATE)
		free((void *)j->d.snap);
	if (j->type == JOB_WHY)
		free(j->why);
	writer_fail(s, err, cause);
}

/*
 * The rows still waiting, before the block they point into is handed back:
 * copied out of it, to wait for the rows of the next block (MULTI to a
 * statement still), in the same order
 */
static void carry_over(struct sr_store *s)
{
	int i;

	for (i = 0; i < s->ndq; i++)
		if (s->dq[i] != &s->dq_own[i]) {
			s->dq_own[i] = *s->dq[i];
			s->dq[i] = &s->dq_own[i];
		}
	for (i = 0; i < s->nrq; i++)
		if (s->rq[i] != &s->rq_own[i]) {
			s->rq_own[i] = *s->rq[i];
			s->rq[i] = &s->rq_own[i];
		}
	for (i = 0; i < s->nsq; i++)
		if (s->sq[i] != &s->sq_own[i]) {
			s->sq_own[i] = *s->sq[i];
			s->sq[i] = &s->sq_own[i];
		}
}

/* the rows still waiting, at the end of the run's last block */
static void flush_block(struct sr_store *s)
{
	char *cause = NULL;
	int err = 0;

	if (cancelled(s))
		err = -SR_E_INTR;
	if (!err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
		err = flush_decisions(s, 0, &cause);
	if (!err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
		err = flush_decisions(s, 1, &cause);
	if (!err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
		err = flush_slices(s, &cause);
	if (!err && !__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
		err = flush_evals(s, &cause);
	s->ndq = s->nsq = s->nrq = s->neq = 0;
	writer_fail(s, err, cause);
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
		if (!b) {
			flush_block(s);
			return NULL;
		}
		for (i = 0; i < b->n; i++)
			run_job(s, b, &b->job[i]);
		carry_over(s);
		b->n = 0;
		b->nev = 0;
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
		else if (s->fill->job[i].type == JOB_WHY)
			free(s->fill->job[i].why);
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

/*
 * The rows of eval_row for one decision: every base side's evaluation, and
 * a patch side's where the pair evaluates the decision's kind and the side
 * answered otherwise (another CPU or another reason) than its base side;
 * the evaluation view gives the others their base side's row.  Return:
 * the rows in @out.
 */
static int pick_evals(const struct sr_store *s, const struct sr_decision *d,
		      const struct sr_eval *evals, int nevals, struct job_eval *out)
{
	int i, n = 0;

	if (nevals > s->nsides)
		nevals = s->nsides;
	for (i = 0; i < nevals; i++) {
		const struct sr_eval *e = &evals[i], *b = &evals[s->base_of[i]];

		if (!(s->touches[i] & (1u << d->kind)))
			continue;
		if (s->base_of[i] != i && e->cpu == b->cpu && !strcmp(e->reason, b->reason))
			continue;
		out[n].side = i;
		out[n].cpu = e->cpu;
		sr_strlcpy(out[n].reason, e->reason, sizeof(out[n].reason));
		n++;
	}
	return n;
}

int sr_store_decision(struct sr_store *s, const struct sr_decision *d,
		      const struct sr_eval *evals, int nevals, char **cause)
{
	struct job_eval ev[SR_MAX_MODELS];
	struct job *j;
	int err;

	if (!s->writer_on)
		return decision_now(s, d, ev, pick_evals(s, d, evals, nevals, ev), 0, cause);
	/* room for every side's row, or the next block */
	if (s->fill->nev + SR_MAX_MODELS > EVALS_PER_BLOCK)
		writer_flush(s);
	j = job_new(s, JOB_DECISION, cause, &err);
	if (!j)
		return err;
	j->d = *d;
	j->d.snap = NULL;
	j->ev0 = s->fill->nev;
	j->nevals = pick_evals(s, d, evals, nevals, &s->fill->ev[j->ev0]);
	s->fill->nev += j->nevals;
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

int sr_store_why(struct sr_store *s, long decision_id, const struct sr_why *w, char **cause)
{
	size_t size;
	struct sr_why *copy;
	struct job *j;
	int err;

	if (!w || !w->valid)
		return 0;
	if (!s->writer_on)
		return why_now(s, decision_id, w, cause);
	/* the groups recorded, in the same block */
	size = sizeof(*copy) + sizeof(w->g[0]) * (size_t)w->ngroups;
	copy = malloc(size);
	if (!copy)
		return -SR_E_NOMEM;
	*copy = *w;
	copy->g = (struct sr_why_group *)(copy + 1);
	copy->cap = w->ngroups;
	if (w->ngroups)
		memcpy(copy->g, w->g, sizeof(w->g[0]) * (size_t)w->ngroups);
	j = job_new(s, JOB_WHY, cause, &err);
	if (!j) {
		free(copy);
		return err;
	}
	j->d.id = decision_id;
	j->why = copy;
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

int sr_store_slice(struct sr_store *s, const struct sr_slice_row *row, char **cause)
{
	struct job *j;
	int err;

	if (!s->writer_on)
		return slice_now(s, row, 0, cause);
	j = job_new(s, JOB_SLICE, cause, &err);
	if (!j)
		return err;
	j->sl = *row;
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

/* input_error rows: per class of CPU (busy, idle), the 4 PELT fields then nr_running */
static const char *const kin_field_names[] = { "load", "util", "runnable", "util_est",
					       "nr_running" };

static int bind_input_error(struct sr_store *s, sqlite3_stmt *q, const void *ctx, int i)
{
	const struct sr_replay_stats *st = ctx;
	int cls = i / 5, f = i % 5;
	uint64_t n = f < 4 ? st->kin.n[cls][f] : st->kin.cpus[cls];

	if (!n)
		return 0;
	sqlite3_bind_int64(q, 1, s->run_id);
	sqlite3_bind_text(q, 2, cls ? "idle" : "busy", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, kin_field_names[f], -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)n);
	if (f < 4) {
		sqlite3_bind_double(q, 5, (double)st->kin.err[cls][f] / (double)n);
		sqlite3_bind_double(q, 6, (double)st->kin.abs[cls][f] / (double)n);
		sqlite3_bind_null(q, 7);
	} else {
		sqlite3_bind_null(q, 5);
		sqlite3_bind_null(q, 6);
		sqlite3_bind_int64(q, 7, (sqlite3_int64)st->kin.nr_differs[cls]);
	}
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
		err = insert_rows(s, "INSERT INTO reconciled VALUES (?,?,?)", "insert reconciled",
				  SR_REC__COUNT, bind_reconciled, st, cause);
	if (!err)
		err = insert_rows(s, "INSERT INTO input_error VALUES (?,?,?,?,?,?,?)",
				  "insert input_error", 10, bind_input_error, st, cause);
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

/* ---- simulated runs (schedreplay simulate -o) --------------------------------- */

int sr_store_mark_simulated(struct sr_store *s, const struct sr_sim_run_info *si, char **cause)
{
	sqlite3_stmt *q = NULL;
	int err;

	if (sqlite3_prepare_v2(s->db, "UPDATE run SET kind = 'simulate', variant = ?, seed = ?,"
			       " fair = ? WHERE run_id = ?", -1, &q, NULL) != SQLITE_OK)
		return db_error(s, cause, "prepare");
	bind_text_or_null(q, 1, si->variant);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)si->seed);
	bind_text_or_null(q, 3, si->fair);
	sqlite3_bind_int64(q, 4, s->run_id);
	err = step_done(s, q, "update run", cause);
	sqlite3_finalize(q);
	return err;
}

int sr_store_next_run(struct sr_store *s, char **cause)
{
	sqlite3_stmt *q = NULL;

	if (s->writer_on) {
		sr_cause_set(cause, "internal error: the next run before the last one finished");
		return -SR_E_USAGE;
	}
	if (exec(s, "COMMIT", cause))
		return -SR_E_IO;
	/* decision ids are unique in the file: the next run's follow this one's */
	if (sqlite3_prepare_v2(s->db, NEXT_DECISION_ID(""), -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		return db_error(s, cause, "read decision");
	}
	s->id_base = (long)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	/* what the next run counts for itself */
	free(s->threads);
	s->threads = NULL;
	s->tcap = s->tn = 0;
	s->first_ts = s->last_ts = s->decisions = s->migrations = 0;
	s->in_batch = 0;
	s->quit = 0;
	return 0;
}

int sr_patch_summary_add(struct sr_patch_summary *ps, const struct sr_decision *d,
			 const struct sr_eval *o, const struct sr_eval *p)
{
	ps->decisions++;
	if (!sr_eval_sides_differ(d, o, p))
		return 0;
	ps->divergent++;
	ps->original_exact += sr_eval_matches(d, o);
	ps->patched_exact += sr_eval_matches(d, p);
	return 1;
}

/* ---- putting the run in place ------------------------------------------------ */

static void finalize_all(struct sr_store *s)
{
	sqlite3_finalize(s->ins_dec);
	sqlite3_finalize(s->ins_eval);
	sqlite3_finalize(s->ins_reason);
	sqlite3_finalize(s->ins_div);
	sqlite3_finalize(s->ins_mig);
	sqlite3_finalize(s->ins_snap);
	sqlite3_finalize(s->ins_input);
	sqlite3_finalize(s->ins_group);
	sqlite3_finalize(s->ins_dec_k);
	sqlite3_finalize(s->ins_run);
	sqlite3_finalize(s->ins_run_k);
	s->ins_run = s->ins_run_k = NULL;
	sqlite3_finalize(s->ins_slice_k);
	sqlite3_finalize(s->ins_eval_k);
	s->ins_eval_k = NULL;
	s->ins_dec = s->ins_eval = s->ins_reason = s->ins_div = s->ins_mig = s->ins_snap = NULL;
	s->ins_input = s->ins_group = s->ins_dec_k = s->ins_slice_k = NULL;
	sr_slices_sql_finalize(s->ins_slice);
}

/* a standalone database: indexes, statistics, on disk */
static int temp_finish(struct sr_store *s, char **cause)
{
	int err;

	if (!s->db)
		return 0;
	/* made with the tables, unless the file was to be appended from */
	err = exec(s, indexes, cause);
	if (!err)
		err = exec(s, "PRAGMA analysis_limit = 1000; ANALYZE", cause);
	if (err)
		return err;
	finalize_all(s);
	if (sqlite3_close(s->db) != SQLITE_OK)
		return db_error(s, cause, "close");
	s->db = NULL;
	if (fsync(s->tmp_fd) < 0) {
		sr_cause_set(cause, "cannot write '%s': %s", s->tmp, strerror(errno));
		return -SR_E_IO;
	}
	return 0;
}

/*
 * --force over a database: hold its write lock across the rename, so that
 * an append running at the same time lands either before the replacement
 * or, seeing the file replaced once it has the lock, in the new file.
 * NULL when there is nothing to lock (not a database, or locked too long).
 */
static sqlite3 *lock_old(struct sr_store *s)
{
	sqlite3 *db;

	if (check_file(s->path, NULL) < 0)
		return NULL;
	watch_open(s, s->path);
	if (sqlite3_open_v2(s->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		dest_close(s, db);
		return NULL;
	}
	sqlite3_busy_handler(db, busy_cb, s);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		dest_close(s, db);
		return NULL;
	}
	return db;
}

/*
 * The finished temporary file becomes the destination: atomically replacing
 * it with --force, else only if nothing is there (RENAME_NOREPLACE, or
 * link() where the file system lacks it).  0, 1 when the path exists, <0.
 */
static int place_new(struct sr_store *s, char **cause)
{
	if (s->o.force) {
		sqlite3 *old = lock_old(s);
		int ok = rename(s->tmp, s->path) == 0;

		if (old) {
			sqlite3_exec(old, "ROLLBACK", NULL, NULL, NULL);
			dest_close(s, old);
		}
		if (ok)
			return 0;
	} else if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->path, RENAME_NOREPLACE) == 0) {
		return 0;
	} else if (errno == EEXIST) {
		return 1;
	} else if (errno == EINVAL || errno == ENOSYS) {
		if (link(s->tmp, s->path) == 0) {
			unlink(s->tmp);
			return 0;
		}
		if (errno == EEXIST)
			return 1;
	}
	sr_cause_set(cause, "cannot create '%s': %s", s->path, strerror(errno));
	return -SR_E_IO;
}

/*
 * How the run's rows go from the temporary database ("src", where the run
 * is 1, sides and reasons count from 1 and decisions from 0) into the
 * destination: ids offset past the file's (:r runs, :s sides, :d decisions),
 * reasons merged by their text.  Every table of the schema but meta is here
 * (checked before copying).
 */
static const struct {
	const char *table, *sql;
} copy_sql[] = {
	{ "run", "INSERT INTO main.run (run_id, trace, format, host, kernel, clock, model,"
	  " patches, topology, tool_version, hz, probes, inference, started, events, first_ts,"
	  " last_ts, threads, decisions, migrations, lost_events, kernel_gen,"
	  " kind, variant, seed, fair)"
	  " SELECT run_id + :r, trace, format, host, kernel, clock,"
	  " model, patches, topology, tool_version, hz, probes, inference, started, events,"
	  " first_ts, last_ts, threads, decisions, migrations, lost_events, kernel_gen,"
	  " kind, variant, seed, fair"
	  " FROM src.run" },
	{ "cpu", "INSERT INTO main.cpu SELECT run_id + :r, cpu, core_id, llc_id, node, package,"
	  " capacity FROM src.cpu" },
	{ "thread", "INSERT INTO main.thread SELECT run_id + :r, tid, name, start_ts, end_ts,"
	  " decisions, migrations FROM src.thread" },
	{ "side", "INSERT INTO main.side SELECT side_id + :s, run_id + :r, model, patch, variant,"
	  " base_side_id + :s, kinds FROM src.side" },
	{ "reason", "INSERT OR IGNORE INTO main.reason (path, text) SELECT path, text"
	  " FROM src.reason ORDER BY reason_id" },
	{ "decision_row", "INSERT INTO main.decision_row SELECT decision_id + :d, run_id + :r,"
	  " kind, ts, done_ts, tid, comm, waker_tid, waker_comm, this_cpu, prev_cpu, actual_cpu,"
	  " kernel_cpu, sync, wake_flags, waker_exiting, skip, inferred, this_nr, prev_nr,"
	  " actual_nr, idle_cpus FROM src.decision_row ORDER BY decision_id" },
	/* its generated kind and skip are not written */
	{ "decision_runnable", "INSERT INTO main.decision_runnable SELECT decision_id + :d,"
	  " run_id + :r, ts, done_ts, tid, comm, waker_tid, waker_comm, this_cpu, prev_cpu,"
	  " actual_cpu, kernel_cpu, sync, wake_flags, waker_exiting, inferred, this_nr, prev_nr,"
	  " actual_nr, idle_cpus FROM src.decision_runnable ORDER BY decision_id" },
	{ "eval_row", "INSERT INTO main.eval_row SELECT e.decision_id + :d, e.side_id + :s,"
	  " e.cpu, m.reason_id FROM src.eval_row e"
	  " LEFT JOIN src.reason r ON r.reason_id = e.reason_id"
	  " LEFT JOIN main.reason m ON m.text = r.text" },
	{ "diverged", "INSERT INTO main.diverged SELECT decision_id + :d, side_id + :s"
	  " FROM src.diverged" },
	{ "cpu_state", "INSERT INTO main.cpu_state SELECT decision_id + :d, cpu, nr_running,"
	  " cfs_nr, curr_tid, curr_comm, idle, load, util FROM src.cpu_state" },
	{ "sched_domain", "INSERT INTO main.sched_domain SELECT run_id + :r, cpu, level, name,"
	  " flags, flag_names, imbalance_pct, span_weight, span, imb_numa_nr"
	  " FROM src.sched_domain" },
	{ "decision_input", "INSERT INTO main.decision_input SELECT decision_id + :d,"
	  " side_id + :s, wakee_flips, waker_flips, wake_wide_factor, flips_source, task_load,"
	  " task_util, task_runnable, pelt_source, waker_load, this_load, prev_load,"
	  " prev_load_source, groups_dropped FROM src.decision_input" },
	{ "group_stat", "INSERT INTO main.group_stat SELECT decision_id + :d, call, fn, cpu,"
	  " level, first_cpu, local, picked, type, weight, nr_running, cfs_nr, idle_cpus, load,"
	  " avg_load, util, runnable FROM src.group_stat" },
	{ "migration", "INSERT INTO main.migration SELECT run_id + :r, ts, tid, comm, orig_cpu,"
	  " dest_cpu, emit_cpu, class, decision_id + :d FROM src.migration" },
	{ "lost_events", "INSERT INTO main.lost_events SELECT run_id + :r, cpu, lost"
	  " FROM src.lost_events" },
	{ "skipped", "INSERT INTO main.skipped SELECT run_id + :r, reason, n FROM src.skipped" },
	{ "reconciled", "INSERT INTO main.reconciled SELECT run_id + :r, kind, n"
	  " FROM src.reconciled" },
	{ "input_error", "INSERT INTO main.input_error SELECT run_id + :r, cpus, field, n,"
	  " mean_diff, mean_abs_diff, differs FROM src.input_error" },
	{ "fidelity", "INSERT INTO main.fidelity SELECT run_id + :r, side_id + :s, kind, path, n,"
	  " exact, same_llc, same_node, baseline_exact FROM src.fidelity" },
	{ "patch_summary", "INSERT INTO main.patch_summary SELECT run_id + :r, patch, seed, model,"
	  " kind, decisions, divergent, original_exact, patched_exact FROM src.patch_summary" },
};

#define NCOPY (sizeof(copy_sql) / sizeof(copy_sql[0]))

static int64_t query_int(sqlite3 *db, const char *sql, int *rc)
{
	sqlite3_stmt *q = NULL;
	int64_t v = 0;

	*rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
	if (*rc == SQLITE_OK)
		*rc = sqlite3_step(q);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int64(q, 0);
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(q);
	return v;
}

/* every table of the temporary database has its copy statement */
static int copy_covers_schema(sqlite3 *db, char **cause)
{
	sqlite3_stmt *q = NULL;
	size_t i, k;
	int ok = 1;

	if (sqlite3_prepare_v2(db, "SELECT name FROM src.sqlite_schema WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%' AND name != 'meta'", -1, &q,
			       NULL) != SQLITE_OK)
		return -1;
	while (ok && sqlite3_step(q) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);

		for (i = 0; i < NCOPY && strcmp(copy_sql[i].table, t); i++)
			;
		for (k = 0; i == NCOPY && sr_slices_copy[k].table; k++)
			if (!strcmp(sr_slices_copy[k].table, t))
				i = 0;
		if (i == NCOPY) {
			sr_cause_set(cause, "internal error: table '%s' has no append copy", t);
			ok = 0;
		}
	}
	sqlite3_finalize(q);
	return ok ? 0 : -1;
}

/*
 * A file written before the simulated runs' columns existed gets them, its
 * runs marked as the replays they are (SIM_RUN_COLUMNS' default).
 * Return: 0, or -1 (the caller reads the error from @db).
 */
static int add_sim_columns(sqlite3 *db)
{
	static const char *const add[] = {
		"ALTER TABLE main.run ADD COLUMN kind TEXT NOT NULL DEFAULT 'replay'",
		"ALTER TABLE main.run ADD COLUMN variant TEXT",
		"ALTER TABLE main.run ADD COLUMN seed INTEGER",
		"ALTER TABLE main.run ADD COLUMN fair TEXT",
	};
	static const char *const name[] = { "kind", "variant", "seed", "fair" };
	sqlite3_stmt *q = NULL;
	size_t i;
	int have;

	for (i = 0; i < sizeof(add) / sizeof(add[0]); i++) {
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('run', 'main')"
				       " WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_text(q, 1, name[i], -1, SQLITE_STATIC);
		have = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) > 0;
		sqlite3_finalize(q);
		if (!have && sqlite3_exec(db, add[i], NULL, NULL, NULL) != SQLITE_OK)
			return -1;
	}
	return 0;
}

static int copy_rows(struct sr_store *s, sqlite3 *db, int64_t r, int64_t sd, int64_t d,
		     char **cause)
{
	size_t i;
	int qrc;

	/* a file written before the reconciled table existed gets it here */
	if (sqlite3_exec(db, RECONCILED_TABLE, NULL, NULL, NULL) != SQLITE_OK)
		return dest_error(s, db, "reconciled", cause);
	/* and the input_error table */
	if (sqlite3_exec(db, INPUT_ERROR_TABLE, NULL, NULL, NULL) != SQLITE_OK)
		return dest_error(s, db, "input_error", cause);
	/* and the why-view's tables */
	if (sqlite3_exec(db, WHY_TABLES, NULL, NULL, NULL) != SQLITE_OK)
		return dest_error(s, db, "why tables", cause);
	/* and one written before run.kernel_gen existed gets the column */
	if (!query_int(db, "SELECT count(*) FROM pragma_table_info('run', 'main')"
		       " WHERE name = 'kernel_gen'", &qrc) && qrc == SQLITE_OK &&
	    sqlite3_exec(db, "ALTER TABLE main.run ADD COLUMN kernel_gen TEXT", NULL, NULL,
			 NULL) != SQLITE_OK)
		return dest_error(s, db, "run.kernel_gen", cause);
	if (add_sim_columns(db))
		return dest_error(s, db, "run.kind", cause);
	/* and the slice tables (src/slices-sql.c), copied after the others */
	if (sqlite3_exec(db, sr_slices_schema, NULL, NULL, NULL) != SQLITE_OK)
		return dest_error(s, db, "slice tables", cause);
	for (i = 0; i < NCOPY || sr_slices_copy[i - NCOPY].table; i++) {
		const char *table = i < NCOPY ? copy_sql[i].table : sr_slices_copy[i - NCOPY].table;
		const char *sql = i < NCOPY ? copy_sql[i].sql : sr_slices_copy[i - NCOPY].sql;
		sqlite3_stmt *q = NULL;
		int idx, rc;

		if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
			return dest_error(s, db, table, cause);
		if ((idx = sqlite3_bind_parameter_index(q, ":r")))
			sqlite3_bind_int64(q, idx, r);
		if ((idx = sqlite3_bind_parameter_index(q, ":s")))
			sqlite3_bind_int64(q, idx, sd);
		if ((idx = sqlite3_bind_parameter_index(q, ":d")))
			sqlite3_bind_int64(q, idx, d);
		rc = sqlite3_step(q);
		sqlite3_finalize(q);
		if (rc != SQLITE_DONE)
			return dest_error(s, db, table, cause);
	}
	return 0;
}

/* does the path still name the file we opened (lock_fd)? */
static int same_file(struct sr_store *s)
{
	struct stat a, b;

	if (s->lock_fd < 0 || fstat(s->lock_fd, &a) < 0)
		return 1;
	return stat(s->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Copy the run into the destination in one transaction.  BEGIN IMMEDIATE
 * takes SQLite's write lock (waiting for another writer up to the lock
 * timeout); in WAL mode readers go on reading.  0, 1 when the destination
 * is gone (the caller then places the file), 2 when it was replaced (the
 * caller tries again), <0.
 */
static int copy_into(struct sr_store *s, char **cause)
{
	struct stat st;
	sqlite3_stmt *q = NULL;
	int64_t r, sd, d;
	sqlite3 *db;
	int rc, err = 0, migrated;
	char *msg = NULL;

	if (stat(s->path, &st) < 0 && errno == ENOENT)
		return 1;
	db = dest_open(s, cause);
	if (!db)
		return cancelled(s) ? -SR_E_INTR : -SR_E_IO;
	sqlite3_exec(db, "PRAGMA cache_size = -65536; PRAGMA temp_store = FILE", NULL, NULL,
		     NULL);
	rc = sqlite3_prepare_v2(db, "ATTACH ? AS src", -1, &q, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(q, 1, s->tmp, -1, SQLITE_STATIC);
		rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_OK) {
		err = dest_error(s, db, "attach", cause);
		goto out;
	}
	if (copy_covers_schema(db, cause) < 0) {
		err = -SR_E_IO;
		goto out;
	}
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		err = dest_error(s, db, "begin", cause);
		goto out;
	}
	/* a --force replaced the file while we waited for its lock: start over */
	if (!same_file(s)) {
		err = 2;
		goto rollback;
	}
	/* a schema 3 file (read now, under the lock) becomes a schema 4 one */
	migrated = query_int(db, "PRAGMA main.user_version", &rc) == 3 && rc == SQLITE_OK;
	if (migrated && migrate_v3(db)) {
		err = dest_error(s, db, "migrate schema 3 to 4", cause);
		goto rollback;
	}
	r = query_int(db, "SELECT coalesce(max(run_id), 0) FROM main.run", &rc);
	if (rc == SQLITE_OK)
		sd = query_int(db, "SELECT coalesce(max(side_id), 0) FROM main.side", &rc);
	if (rc == SQLITE_OK)
		d = query_int(db, NEXT_DECISION_ID("main."), &rc);
	if (rc != SQLITE_OK) {
		err = dest_error(s, db, "read", cause);
		goto rollback;
	}
	err = copy_rows(s, db, r, sd, d, cause);
	if (err)
		goto rollback;
	if (sqlite3_exec(db, indexes, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA analysis_limit = 1000; ANALYZE main", NULL, NULL,
			 NULL) != SQLITE_OK) {
		err = dest_error(s, db, "index", cause);
		goto rollback;
	}
	/* the last moment a signal undoes the append */
	if (cancelled(s)) {
		err = -SR_E_INTR;
		goto rollback;
	}
	sqlite3_progress_handler(db, 0, NULL, NULL);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		err = dest_error(s, db, "commit", cause);
		goto rollback;
	}
	s->run_id = (long)r + 1;
	s->appended = 1;
	s->migrated = migrated;
	goto out;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
	dest_close(s, db);
	return err;
}

int sr_store_commit(struct sr_store *s, char **cause)
{
	int err, tries;

	if (cancelled(s))
		return -SR_E_INTR;
	err = exec(s, "COMMIT", cause);
	if (err)
		return err;
	for (tries = 0; tries < 5; tries++) {
		if (!s->append) {
			err = temp_finish(s, cause);
			if (err)
				return err;
			if (cancelled(s))
				return -SR_E_INTR;
			err = place_new(s, cause);
			if (err < 0)
				return err;
			if (!err) {
				s->committed = 1;
				s->run_id = 1;
				return 0;
			}
			if (!s->o.append) {
				sr_cause_set(cause, "'%s' exists (another process created it during "
					     "the replay): use -f to replace it, -a to append to it",
					     s->path);
				return -SR_E_IO;
			}
			/* --append and a database appeared meanwhile: the run goes into it */
			s->append = 1;
		}
		if (s->db) {
			finalize_all(s);
			if (sqlite3_close(s->db) != SQLITE_OK)
				return db_error(s, cause, "close");
			s->db = NULL;
		}
		err = copy_into(s, cause);
		if (err < 0)
			return err;
		if (!err) {
			unlink(s->tmp);
			s->committed = 1;
			return 0;
		}
		/* the destination went away: a new file after all */
		if (err == 1)
			s->append = 0;
	}
	sr_cause_set(cause, "cannot write '%s': it keeps appearing and disappearing", s->path);
	return -SR_E_IO;
}

void sr_store_free(struct sr_store *s)
{
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
	finalize_all(s);
	sr_bc_release(&s->bc_dec);
	sr_bc_release(&s->bc_slice);
	sr_bc_release(&s->bc_run);
	if (s->db)
		sqlite3_close(s->db);
	if (!s->committed && s->tmp)
		unlink(s->tmp);
	/* after SQLite closed the file: closing drops the process's locks on it */
	if (s->tmp_fd >= 0)
		close(s->tmp_fd);
	watch_close(s);
	sr_strtab_release(&s->reasons.text);
	/* after the statements that were bound to its texts are gone */
	sr_strtab_release(&s->texts);
	free(s->reasons.id);
	free(s->threads);
	free(s->tmp);
	free(s->path);
	free(s);
}
