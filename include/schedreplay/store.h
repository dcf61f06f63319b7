/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results database (SQLite).  A replay writes into a temporary file
 * beside the destination, in large transactions with prepared statements,
 * and renames it into place only when the whole replay succeeded: a failed
 * or interrupted replay leaves no half database, and --append leaves the
 * old one as it was.  The schema is documented in schedreplay-db(5); its
 * version is in PRAGMA user_version and in the meta table.
 */
#ifndef SCHEDREPLAY_STORE_H
#define SCHEDREPLAY_STORE_H

#include <sqlite3.h>

#include "schedreplay/fidelity.h"
#include "schedreplay/replay.h"
#include "schedreplay/trace.h"

#define SR_DB_SCHEMA_VERSION 2
/* PRAGMA application_id: "SRPL" */
#define SR_DB_APPLICATION_ID 0x5352504c

struct sr_store;
struct sr_model;

struct sr_run_info {
	const char *trace;
	const struct sr_trace_info *tinfo;
	const char *models;		/* base models, comma-separated */
	const char *patches;		/* comma-separated, or NULL */
	const char *topology;
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
 * sr_store_create - start a database at @path (written to a temporary file)
 * @force: replace an existing file at @path when the replay succeeds
 * @append: add a run to the database at @path (a copy is written, then
 *	    renamed over it)
 * Return: NULL with @cause on error.
 */
struct sr_store *sr_store_create(const char *path, int force, int append, char **cause);

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
int sr_store_migration(struct sr_store *s, const struct sr_migration *m, char **cause);
int sr_store_finish_run(struct sr_store *s, const struct sr_trace_info *tinfo,
			const struct sr_replay_stats *st, const struct sr_fidelity *f,
			const struct sr_patch_summary *ps, int nps, uint64_t events,
			uint64_t first_ts, uint64_t last_ts, char **cause);

/**
 * sr_store_commit - finish the file and rename it into place
 */
int sr_store_commit(struct sr_store *s, char **cause);

/**
 * sr_store_free - close; removes the temporary file unless committed
 */
void sr_store_free(struct sr_store *s);

/* the path of the temporary file, for a signal handler to unlink */
const char *sr_store_temp_path(const struct sr_store *s);

/* the global id the next decision gets (decision ids are unique per file) */
long sr_store_decision_id(const struct sr_store *s, long engine_id);

/**
 * sr_db_open - open a results database for reading (sql, report, tui)
 * @writable: open read-write (sql --write)
 * Return: the handle, or NULL with @cause: not a file, not SQLite, not a
 * schedreplay database, or a schema version this build does not read.
 */
sqlite3 *sr_db_open(const char *path, int writable, char **cause);

#endif
