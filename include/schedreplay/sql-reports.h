/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The canned queries of "schedreplay sql --query NAME": reports/NAME.sql,
 * compiled into the binary by scripts/embed-sql.sh (build/sql-reports.c),
 * so that the program needs no data files at run time.  The report runs
 * some of them too (top-tasks, top-cpus, migrations), so that its tables
 * and the canned queries count the same things.
 */
#ifndef SCHEDREPLAY_SQL_REPORTS_H
#define SCHEDREPLAY_SQL_REPORTS_H

struct sr_sql_report {
	const char *name;	/* the file name without .sql */
	const char *text;	/* the whole file: header comments, then one statement */
};

/* sorted by name, ended by a { NULL, NULL } entry */
extern const struct sr_sql_report sr_sql_reports[];

/**
 * sr_sql_report_find - the canned query called @name
 * Return: the entry (static), or NULL when there is none.
 */
const struct sr_sql_report *sr_sql_report_find(const char *name);

#endif
