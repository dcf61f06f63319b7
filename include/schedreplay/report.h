/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's tables (schedreplay-report(1)): what one run of a results
 * database says, or what two runs say side by side.  Each table is a list
 * of rows keyed by a label (a patch pair and decision kind, a fidelity kind,
 * a migration class, ...) with one set of values per source; a row that only
 * one source has holds NULL values for the other.  The queries behind the
 * tables are plain SQL with named parameters (:run, :top, :reasons), listed by
 * sr_report_sql() so that the same aggregates can be run by other tools.
 */
#ifndef SCHEDREPLAY_REPORT_H
#define SCHEDREPLAY_REPORT_H

#include <sqlite3.h>

#define SR_REPORT_MAX_SOURCES	2
#define SR_REPORT_MAX_KEYS	3

enum sr_cell_type {
	SR_CELL_NONE,		/* no value (a percentage of nothing) */
	SR_CELL_INT,		/* a count: deltas are relative */
	SR_CELL_PCT,		/* a percentage: deltas are in points */
	SR_CELL_TEXT,		/* no delta */
};

struct sr_cell {
	enum sr_cell_type type;
	long long i;
	double d;
	char *s;
};

struct sr_report_row {
	char *key[SR_REPORT_MAX_KEYS];
	/* per source: ncols cells, or NULL when the source has no such row */
	struct sr_cell *val[SR_REPORT_MAX_SOURCES];
	/* per source: 1 + the index of the table's note on this row, or 0 */
	int note[SR_REPORT_MAX_SOURCES];
};

struct sr_report_table {
	const char *name;			/* JSON member name */
	const char *title;			/* text heading */
	int nkeys;
	const char *const *keys;		/* key names (text and JSON) */
	int ncols;
	const char *const *cols;		/* column headings */
	const char *const *json_cols;		/* JSON member names of the columns */
	int key_last;				/* text: keys after the values (long keys) */
	const char *def;			/* what the counts are, printed under the title */
	struct sr_report_row *rows;
	int nrows, cap;
	/*
	 * What the reader must know next to a figure: a pair whose result
	 * contradicts the recording kernel, a model no better than the
	 * baseline.  Each names its row; @src is the source it is about.
	 */
	struct sr_report_note {
		int src;
		char *text;
	} *notes;
	int nnotes;
};

/* where a source's numbers come from */
struct sr_report_source {
	const char *file;			/* as given on the command line */
	long run;
	long long decisions;
	int patches;				/* the run has patch pairs */
	char kernel[160];			/* the recording kernel's release, or "" */
	char topology[160];			/* where the run's topology came from */
};

struct sr_report {
	int nsrc;
	struct sr_report_source src[SR_REPORT_MAX_SOURCES];
	/* one key ("field"), one column whose cells vary in type */
	struct sr_report_table header;
	struct sr_report_table patch;		/* per patch pair, model and kind */
	struct sr_report_table fidelity;	/* per base model and kind */
	struct sr_report_table reconciled;	/* per kind of reconciliation */
	struct sr_report_table reasons;		/* top reason paths of wakeup_moved */
	struct sr_report_table migration;	/* per class */
	struct sr_report_table tasks;		/* top tasks by divergent decisions */
	struct sr_report_table cpus;		/* top CPUs (this_cpu) by divergent decisions */
	struct sr_report_table latency;		/* the tasks with the longest wakeup latency */
};

struct sr_report_opts {
	long top;				/* rows of the top tables */
	long reasons;				/* reason paths per base model */
};

/**
 * sr_report_runs - the run ids of a database, in order
 * Return: the number of runs (0 in a database without runs) with *@runs
 * allocated (caller frees), or a negative sr_error with @cause.
 */
int sr_report_runs(sqlite3 *db, const char *file, long **runs, char **cause);

/**
 * sr_report_new - an empty report, tables declared, no source yet
 * Return: the report (free with sr_report_free), or NULL without memory.
 */
struct sr_report *sr_report_new(void);

/**
 * sr_report_add - add one run of @db as the next source (at most two)
 * @file: the database's name, for messages and headings (borrowed: must
 *	  outlive the report)
 * Return: 0, or a negative sr_error with @cause (a run that does not exist
 * is -SR_E_USAGE).
 */
int sr_report_add(struct sr_report *r, sqlite3 *db, const char *file, long run,
		  const struct sr_report_opts *o, char **cause);

/* the tables in print order, header first; NULL after the last */
const struct sr_report_table *sr_report_table_at(const struct sr_report *r, int i);

void sr_report_free(struct sr_report *r);

/**
 * sr_report_sql - the statements the report runs, in order
 * @i: 0, 1, ... until NULL
 * @name: set to the statement's name (the table it fills)
 * Return: static SQL text with named parameters, or NULL after the last.
 */
const char *sr_report_sql(int i, const char **name);

#endif
