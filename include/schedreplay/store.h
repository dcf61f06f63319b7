/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results database (SQLite).  A replay writes its run into a temporary
 * database beside the destination ("DB.tmp-PID"), in large transactions with
 * prepared statements, and only when the whole replay succeeded does the run
 * reach the destination: a new file is linked into place exclusively (or
 * renamed over the old one with --force); an --append copies the run into
 * the user's file in one SQLite transaction under SQLite's own locking, so
 * the file keeps its inode, mode, links and journal mode, and whatever
 * another program committed to it stays.  A failed or interrupted replay
 * leaves no half database and no temporary file.  The schema is documented
 * in schedreplay-db(5); its version is in PRAGMA user_version and the meta
 * table.
 */
#ifndef SCHEDREPLAY_STORE_H
#define SCHEDREPLAY_STORE_H

#include <signal.h>
#include <sqlite3.h>

#include "schedreplay/fidelity.h"
#include "schedreplay/replay.h"
#include "schedreplay/trace.h"

#define SR_DB_SCHEMA_VERSION 4
/* the oldest schema read (and migrated by an append) */
#define SR_DB_SCHEMA_OLDEST 3
/* PRAGMA application_id: "SRPL" */
#define SR_DB_APPLICATION_ID 0x5352504c
/* how long an append waits for another writer's lock by default (ms) */
#define SR_DB_LOCK_TIMEOUT_MS 10000

struct sr_store;
struct sr_model;

struct sr_run_info {
	const char *trace;
	const struct sr_trace_info *tinfo;
	const char *models;		/* base models, comma-separated */
	const char *patches;		/* comma-separated, or NULL */
	const char *topology;
	const char *kernel_gen;		/* the kernel generation (sr_kgen_describe) */
	const char *version;
	int hz;
	int probes;			/* the select_rq probes were used */
	const char *inference;		/* the inference rules in force, one line each */
};

/* per patch pair and decision kind, what replay counted (patch_summary) */
struct sr_patch_summary {
	const char *patch, *seed, *model;
	const char *kind;
	uint64_t decisions, divergent, original_exact, patched_exact;
};

/**
 * sr_patch_summary_add - count decision @d into a pair's summary @ps
 * @o, @p: the pair's original and patched sides
 *
 * Return: 1 when the sides diverge (sr_eval_sides_differ()), else 0.
 */
int sr_patch_summary_add(struct sr_patch_summary *ps, const struct sr_decision *d,
			 const struct sr_eval *o, const struct sr_eval *p);

struct sr_store_opts {
	int force;		/* replace an existing file (by rename) */
	int append;		/* add the run to the database at the path if there is one */
	int lock_timeout_ms;	/* an append waits this long for another writer's lock */
	/* nonzero (a signal arrived): stop at the next statement, write nothing */
	const volatile sig_atomic_t *cancel;
	/* what the user should hear about: a stale temporary file removed, a
	 * wait for another writer's lock; NULL: nothing is said */
	void (*notice)(const char *msg, void *data);
	void *notice_data;
};

/**
 * sr_store_create - start a database at @path (written to a temporary file)
 * @o: how: see struct sr_store_opts
 *
 * Refuses an existing @path without force or append, and with append one
 * that is not a schedreplay database of this schema, is damaged (PRAGMA
 * quick_check), read-only, or locked past the timeout.  Removes the
 * temporary files of earlier replays of @path that were killed (their
 * process is gone and their lock is free), telling @o->notice.
 * Return: NULL with @cause on error (the caller frees @cause).
 */
struct sr_store *sr_store_create(const char *path, const struct sr_store_opts *o,
				 char **cause);

/**
 * sr_store_refuses - would sr_store_create() refuse @path as it is now
 * @o: as it will be given to sr_store_create()
 *
 * Only the existing file without force or append: for a command that reads
 * its whole input before it creates the database, so that it says so at
 * once.  sr_store_create() still decides (the file may appear meanwhile).
 * Return: 0, or -1 with @cause (the caller frees @cause).
 */
int sr_store_refuses(const char *path, const struct sr_store_opts *o, char **cause);

/**
 * sr_store_begin_run - the run, its CPUs and its sides
 * @sides: each evaluation's model: base models and patch sides, in the
 *	   order the engine evaluates them
 * @touches: per side, a bitmask of the decision kinds (1 << kind) whose
 *	     evaluations are kept (a patch side only where it can differ)
 */
int sr_store_begin_run(struct sr_store *s, const struct sr_run_info *ri,
		       const struct sr_topology *topo, const struct sr_model *const *sides,
		       const unsigned *touches, int nsides, char **cause);
int sr_store_decision(struct sr_store *s, const struct sr_decision *d,
		      const struct sr_eval *evals, int nevals, char **cause);
/* one decision where a patch's sides differ (the divergence view's rows);
 * @side: the index of the pair's original side in the sides of the run */
int sr_store_divergent(struct sr_store *s, long decision_id, int side, char **cause);
/* every CPU's state at decision @d (d->snap; nothing when it has none) */
int sr_store_cpu_state(struct sr_store *s, const struct sr_decision *d, char **cause);
struct sr_why;
/* what the first base model read at decision @decision_id (decision_input,
 * group_stat: include/schedreplay/why.h); nothing for a NULL @w */
int sr_store_why(struct sr_store *s, long decision_id, const struct sr_why *w, char **cause);
int sr_store_migration(struct sr_store *s, const struct sr_migration *m, char **cause);
struct sr_slice_row;
/* a row of the slice tables (include/schedreplay/slices.h), queued like the others */
int sr_store_slice(struct sr_store *s, const struct sr_slice_row *row, char **cause);
int sr_store_finish_run(struct sr_store *s, const struct sr_trace_info *tinfo,
			const struct sr_replay_stats *st, const struct sr_fidelity *f,
			const struct sr_patch_summary *ps, int nps, uint64_t events,
			uint64_t first_ts, uint64_t last_ts, char **cause);

/* what marks a simulated run (run.kind 'simulate'; schedreplay-db(5)) */
struct sr_sim_run_info {
	const char *variant;		/* the side that decided: base, original, patched */
	uint64_t seed;			/* of the run's timing perturbation */
	const char *fair;		/* the fair class's rules: cfs, eevdf, eevdf-delay */
};

/**
 * sr_store_mark_simulated - the run just begun (sr_store_begin_run) is a
 * simulation: its decisions, migrations and slices are the simulated
 * machine's, not the kernel's
 * Return: 0, or a negative code with @cause.
 */
int sr_store_mark_simulated(struct sr_store *s, const struct sr_sim_run_info *si,
			    char **cause);

/**
 * sr_store_next_run - after sr_store_finish_run(), another run follows in
 * the same database (sr_store_begin_run() again); sr_store_commit() puts
 * them all in place together, or none of them.  Its decision ids follow
 * the last run's.
 * Return: 0, or a negative code with @cause.
 */
int sr_store_next_run(struct sr_store *s, char **cause);

/**
 * sr_store_commit - finish the run and put it in place
 *
 * A new database is linked into place exclusively: when another process
 * created the path meanwhile, this fails ("exists") unless appending, when
 * the run goes into that file.  An append copies the run into the file in
 * one transaction (BEGIN IMMEDIATE, waiting up to the lock timeout).
 * Return: 0, -SR_E_INTR when *cancel became nonzero (nothing was written),
 * or another negative code with @cause.
 */
int sr_store_commit(struct sr_store *s, char **cause);

/**
 * sr_store_free - close; removes the temporary file unless committed
 */
void sr_store_free(struct sr_store *s);

/* the path of the temporary file, for a signal handler to unlink */
const char *sr_store_temp_path(const struct sr_store *s);

/* after a commit: the (first) run's id in the file, whether it was appended,
 * and the file written (a symlink's target) */
long sr_store_run_id(const struct sr_store *s);
int sr_store_appended(const struct sr_store *s);
/* after a commit: the append migrated a schema 3 file to schema 4 */
int sr_store_migrated(const struct sr_store *s);
const char *sr_store_path(const struct sr_store *s);
/* the decisions stored */
uint64_t sr_store_decisions(const struct sr_store *s);

/**
 * sr_db_open - open a results database for reading (sql, report, tui)
 * @writable: open read-write (sql --write)
 * Return: the handle, or NULL with @cause: not a file, not SQLite, damaged
 * (truncated), locked past the default lock timeout, not a schedreplay
 * database, or a schema version this build does not read.
 */
sqlite3 *sr_db_open(const char *path, int writable, char **cause);

/**
 * sr_db_open_wait - sr_db_open() waiting at most @wait_ms for a writer's
 * lock (0: not at all)
 * @busy: if not NULL, set to 1 when it failed because the file was locked
 */
sqlite3 *sr_db_open_wait(const char *path, int writable, int wait_ms, char **cause, int *busy);

/**
 * sr_db_upgrade - migrate a database sr_db_open() opened writable to this
 * schema (a schema 3 file becomes schema 4, as an append does it), in one
 * transaction: on failure the file is unchanged
 * Return: 1 migrated, 0 already of this schema, -1 with @cause.
 */
int sr_db_upgrade(sqlite3 *db, const char *path, char **cause);

/**
 * sr_db_reader_views - what sr_db_open() added to a connection of @db
 * Return: the statements (SQL text, one a line) of the temporary views
 * through which a file of an older schema reads as one of this schema,
 * "" for a file of this schema: an sqlite3 shell given a query of ours
 * runs them first.
 */
const char *sr_db_reader_views(sqlite3 *db);

#endif
