// SPDX-License-Identifier: GPL-2.0
/*
 * The report as one self-contained HTML page (src/report-html.h): the
 * tables of reports/report.c as HTML tables, and three charts drawn as
 * inline SVG: the fidelity of each base model per decision kind against the
 * stay-put baseline, and the wakeup latency of each task group as a
 * distribution over decades of delay.  Nothing is fetched and nothing runs:
 * the page can be attached to a review as it is.
 */
#include "report-html.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "version.h"
#include "banned.h"

/* text escaped for HTML (text from the trace escaped for a terminal first) */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void cell(FILE *f, const struct sr_cell *c)
{
	if (!c) {
		fputs("-", f);
		return;
	}
	switch (c->type) {
	case SR_CELL_INT:
		fprintf(f, "%lld", c->i);
		break;
	case SR_CELL_PCT:
		fprintf(f, "%.2f", c->d);
		break;
	case SR_CELL_TEXT:
		esc(f, c->s);
		break;
	default:
		fputs("n/a", f);
	}
}

void sr_report_html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	esc(f, title);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;font-size:14px;max-width:75em;margin:1em auto;"
	      "padding:0 1em;color:#222}\n"
	      "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em}\n"
	      "table{border-collapse:collapse;margin:.5em 0}\n"
	      "td,th{border:1px solid #ccc;padding:2px 7px;text-align:right}\n"
	      "th{background:#f0f0f0}td.k{text-align:left;font-family:monospace}\n"
	      "p.def{color:#555;max-width:60em}p.note{color:#a33;max-width:60em}\n"
	      "svg text{font-family:sans-serif;font-size:12px}\n"
	      "</style></head><body>\n<h1>", f);
	esc(f, title);
	fputs("</h1>\n", f);
}

void sr_report_html_end(FILE *f)
{
	fprintf(f, "<p class=\"def\">written by schedreplay %s (schedreplay report --html)</p>\n"
		"</body></html>\n", SR_VERSION);
}

static void table(FILE *f, const struct sr_report_table *t, const char *empty)
{
	int i, k, c;

	fputs("<h2>", f);
	esc(f, t->title);
	fputs("</h2>\n", f);
	if (t->def) {
		fputs("<p class=\"def\">", f);
		esc(f, t->def);
		fputs("</p>\n", f);
	}
	if (!t->nrows) {
		fprintf(f, "<p>%s</p>\n", empty);
		return;
	}
	fputs("<table>\n<tr>", f);
	for (k = 0; k < t->nkeys; k++) {
		fputs("<th>", f);
		esc(f, t->keys[k]);
		fputs("</th>", f);
	}
	for (c = 0; c < t->ncols; c++) {
		fputs("<th>", f);
		esc(f, t->cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (i = 0; i < t->nrows; i++) {
		const struct sr_report_row *row = &t->rows[i];

		fputs("<tr>", f);
		for (k = 0; k < t->nkeys; k++) {
			fputs("<td class=\"k\">", f);
			esc(f, row->key[k]);
			if (k == t->nkeys - 1 && row->note[0])
				fprintf(f, " (note %d)", row->note[0]);
			fputs("</td>", f);
		}
		for (c = 0; c < t->ncols; c++) {
			fputs("<td>", f);
			cell(f, row->val[0] ? &row->val[0][c] : NULL);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (i = 0; i < t->nnotes; i++) {
		fprintf(f, "<p class=\"note\">note %d: ", i + 1);
		esc(f, t->notes[i].text);
		fputs("</p>\n", f);
	}
}

/* a percentage cell as a number, -1 when it has none */
static double pct(const struct sr_report_row *row, int c)
{
	const struct sr_cell *v = row->val[0] ? &row->val[0][c] : NULL;

	return v && v->type == SR_CELL_PCT ? v->d : -1;
}

#define SR_REPORT_GROUP_LEN 16	/* a comm's length */
#define LABEL_W 260
#define BAR_W 420
#define ROW_H 20

/* exact% of each base model and kind as a bar, the baseline as a mark */
static void fidelity_chart(FILE *f, const struct sr_report_table *t)
{
	int i, h = (t->nrows + 2) * ROW_H;

	if (!t->nrows)
		return;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"role=\"img\" aria-label=\"fidelity per base model and kind\">\n",
		LABEL_W + BAR_W + 90, h);
	for (i = 0; i <= 4; i++)
		fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
			LABEL_W + i * BAR_W / 4, LABEL_W + i * BAR_W / 4, h - ROW_H - 4,
			LABEL_W + i * BAR_W / 4, h - 6, i * 25);
	for (i = 0; i < t->nrows; i++) {
		const struct sr_report_row *row = &t->rows[i];
		double exact = pct(row, 1), base = pct(row, 4);
		int y = i * ROW_H;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6, y + 14);
		esc(f, row->key[0]);
		fputc(' ', f);
		esc(f, row->key[1]);
		fputs("</text>\n", f);
		if (exact >= 0)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"#4a7bd0\"><title>exact %.2f%%</title></rect>"
				"<text x=\"%.1f\" y=\"%d\">%.1f%%</text>\n", LABEL_W, y + 3,
				exact * BAR_W / 100.0, ROW_H - 6, exact,
				LABEL_W + exact * BAR_W / 100.0 + 4, y + 14, exact);
		if (base >= 0)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d33\" "
				"stroke-width=\"3\"><title>baseline %.2f%%</title></line>\n",
				LABEL_W + base * BAR_W / 100.0, y + 1, LABEL_W + base * BAR_W / 100.0,
				y + ROW_H - 1, base);
	}
	fputs("</svg>\n<p class=\"def\">blue: the model chose the kernel's CPU (exact%); red "
	      "mark: the baseline (stay on prev_cpu, the parent's CPU, no pull)</p>\n", f);
}

/*
 * The latency of each task group: the task's name without what tells its
 * instances apart (a "/..." suffix, trailing digits), with the share of its
 * wakeups in each decade of delay.
 */
static const char latency_sql[] =
	"WITH w AS ("
	" SELECT CASE WHEN instr(t.comm, '/') > 1 THEN substr(t.comm, 1, instr(t.comm, '/') - 1)"
	" ELSE coalesce(nullif(rtrim(t.comm, '0123456789-_.:'), ''), t.comm) END AS grp,"
	" w.delay FROM wakeup w JOIN task t ON t.run_id = w.run_id AND t.tid = w.tid"
	" WHERE w.run_id = :run),"
	" r AS (SELECT grp, delay, row_number() OVER (PARTITION BY grp ORDER BY delay) AS k,"
	" count(*) OVER (PARTITION BY grp) AS n FROM w)"
	" SELECT grp, max(n), avg(delay),"
	" min(CASE WHEN k * 100 >= n * 50 THEN delay END),"
	" min(CASE WHEN k * 100 >= n * 99 THEN delay END), max(delay),"
	" sum(delay < 10000), sum(delay >= 10000 AND delay < 100000),"
	" sum(delay >= 100000 AND delay < 1000000), sum(delay >= 1000000 AND delay < 10000000),"
	" sum(delay >= 10000000)"
	" FROM r GROUP BY grp ORDER BY max(n) DESC, grp LIMIT 24";

static const char *const decade[] = { "< 10 µs", "10-100 µs", "0.1-1 ms", "1-10 ms", "≥ 10 ms" };
static const char *const decade_fill[] = { "#3b8c3b", "#9ac23c", "#f2c230", "#ec7a24", "#c62828" };

static int latency_section(sqlite3 *db, long run, FILE *f)
{
	sqlite3_stmt *st = NULL;
	char grp[4 * SR_REPORT_GROUP_LEN];
	int rc, i, n = 0;

	fputs("<h2>scheduling latency per task group</h2>\n<p class=\"def\">the delay from a "
	      "sched_wakeup or sched_wakeup_new of a sleeping task to its next switch in, as perf "
	      "sched latency measures it (sql -Q latency has it per task); a group is the task "
	      "name without its instance suffix (kworker/1:1 and kworker/0:2 are kworker); bars: "
	      "the share of the group's wakeups in each decade of delay</p>\n", f);
	if (sqlite3_table_column_metadata(db, NULL, "sched_slice", "woken", NULL, NULL, NULL, NULL,
					  NULL) != SQLITE_OK) {
		fputs("<p>no slice tables in this database (written by an older schedreplay)</p>\n",
		      f);
		return 0;
	}
	if (sqlite3_prepare_v2(db, latency_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	/* the chart first, the table after: two passes over the rows */
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"role=\"img\" aria-label=\"latency per task group\">\n", LABEL_W + BAR_W + 20,
		26 * ROW_H + 30);
	for (i = 0; i < 5; i++) {
		fprintf(f, "<rect x=\"%d\" y=\"2\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"12\">", LABEL_W + i * BAR_W / 5, decade_fill[i],
			LABEL_W + i * BAR_W / 5 + 16);
		esc(f, decade[i]);
		fputs("</text>\n", f);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double total = (double)sqlite3_column_int64(st, 1), x = LABEL_W;
		int y = 24 + n * ROW_H;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6, y + 14);
		esc(f, sr_escape_buf(grp, sizeof(grp), (const char *)sqlite3_column_text(st, 0)));
		fprintf(f, " (%lld)</text>\n", (long long)sqlite3_column_int64(st, 1));
		for (i = 0; i < 5 && total > 0; i++) {
			double w = (double)sqlite3_column_int64(st, 6 + i) * BAR_W / total;

			if (w > 0) {
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
					"fill=\"%s\"><title>", x, y + 3, w, ROW_H - 6, decade_fill[i]);
				esc(f, decade[i]);
				fprintf(f, ": %lld</title></rect>\n",
					(long long)sqlite3_column_int64(st, 6 + i));
			}
			x += w;
		}
		n++;
	}
	fputs("</svg>\n", f);
	if (rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return -1;
	}
	if (!n) {
		fputs("<p>no wakeup that ran</p>\n", f);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_reset(st);
	fputs("<table>\n<tr><th>group</th><th>wakeups</th><th>avg µs</th><th>p50 µs</th>"
	      "<th>p99 µs</th><th>max µs</th>", f);
	for (i = 0; i < 5; i++) {
		fputs("<th>", f);
		esc(f, decade[i]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fputs("<tr><td class=\"k\">", f);
		esc(f, sr_escape_buf(grp, sizeof(grp), (const char *)sqlite3_column_text(st, 0)));
		fprintf(f, "</td><td>%lld</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>",
			(long long)sqlite3_column_int64(st, 1), sqlite3_column_double(st, 2) / 1000,
			sqlite3_column_double(st, 3) / 1000, sqlite3_column_double(st, 4) / 1000,
			sqlite3_column_double(st, 5) / 1000);
		for (i = 0; i < 5; i++)
			fprintf(f, "<td>%lld</td>", (long long)sqlite3_column_int64(st, 6 + i));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int sr_report_html_run(sqlite3 *db, const struct sr_report *r, long run, FILE *f)
{
	const struct sr_report_table *h = &r->header;
	int i;

	fprintf(f, "<h2>run %ld of ", run);
	esc(f, r->src[0].file);
	fputs("</h2>\n<table>\n", f);
	for (i = 0; i < h->nrows; i++) {
		fputs("<tr><td class=\"k\">", f);
		esc(f, h->rows[i].key[0]);
		fputs("</td><td class=\"k\">", f);
		cell(f, h->rows[i].val[0]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (!r->src[0].decisions) {
		fputs("<p>no decisions</p>\n", f);
	} else {
		table(f, &r->fidelity, "none");
		fidelity_chart(f, &r->fidelity);
		if (r->reconciled.nrows)
			table(f, &r->reconciled, "none");
		table(f, &r->reasons, "none");
		if (r->src[0].patches)
			table(f, &r->patch, "no divergent decisions");
		else
			fputs("<h2>patch pairs</h2>\n<p>no patch pairs in this run (replay -p PATCH "
			      "evaluates one)</p>\n", f);
	}
	return latency_section(db, run, f);
}
