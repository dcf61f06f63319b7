/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results database (SQLite).  A replay writes into a temporary file
 * beside the destination, in large transactions with prepared statements,
 * and renames it into place only when the whole replay succeeded: a failed
 * or interrupted replay leaves no half database.  The schema is documented
 * in schedreplay-db(5); its version is in PRAGMA user_version.
 */
#ifndef SCHEDREPLAY_STORE_H
#define SCHEDREPLAY_STORE_H

#include "schedreplay/fidelity.h"
#include "schedreplay/replay.h"
#include "schedreplay/trace.h"

#define SR_DB_SCHEMA_VERSION 1

struct sr_store;

struct sr_run_info {
	const char *trace;
	const struct sr_trace_info *tinfo;
	const char *models;		/* comma-separated */
	const char *topology;
	const char *version;
	int hz;
	const char *inference;		/* the inference rules in force, one line each */
};

/**
 * sr_store_create - start a database at @path (written to a temporary file)
 * @force: replace an existing file at @path when the replay succeeds
 * Return: NULL with @cause on error.
 */
struct sr_store *sr_store_create(const char *path, int force, char **cause);

int sr_store_begin_run(struct sr_store *s, const struct sr_run_info *ri,
		       const struct sr_topology *topo, char **cause);
int sr_store_decision(struct sr_store *s, const struct sr_decision *d,
		      const struct sr_model *const *models, const struct sr_eval *evals,
		      int nevals, char **cause);
int sr_store_finish_run(struct sr_store *s, const struct sr_trace_info *tinfo,
			const struct sr_replay_stats *st, const struct sr_fidelity *f,
			uint64_t events, char **cause);

/**
 * sr_store_commit - finish the file and rename it into place
 */
int sr_store_commit(struct sr_store *s, char **cause);

/**
 * sr_store_abort - remove the temporary file; also safe after commit
 */
void sr_store_free(struct sr_store *s);

/* the path of the temporary file, for a signal handler to unlink */
const char *sr_store_temp_path(const struct sr_store *s);

#endif
