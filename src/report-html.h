/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "schedreplay report --html FILE": the report of one run as one
 * self-contained HTML page (inline SVG, no script, nothing fetched).
 */
#ifndef SCHEDREPLAY_REPORT_HTML_H
#define SCHEDREPLAY_REPORT_HTML_H

#include <stdio.h>

#include <sqlite3.h>

#include "schedreplay/report.h"

/* the page's start, for a page holding the reports of several runs */
void sr_report_html_begin(FILE *f, const char *title);
void sr_report_html_end(FILE *f);

/**
 * sr_report_html_run - one run's section: its header, the fidelity per kind
 * (a chart and the table), the top reason paths, the patch-pair table and
 * the latency distribution per task group, read from @db for run @run
 * @r: the run's report (one source, its texts escaped for a terminal)
 * Return: 0, or -1 when a query fails (the error is @db's).
 */
int sr_report_html_run(sqlite3 *db, const struct sr_report *r, long run, FILE *f);

#endif
