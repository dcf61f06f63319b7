// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay report DB [DB2]": a results database as text tables, or two
 * runs side by side in the style of mmtests' compare-kernels (a label
 * column, one value column per database, the delta in parentheses), or the
 * same content as one JSON document built by SQLite's json_object().  The
 * queries and the tables are in reports/report.c; this file is the options
 * and the printing.
 */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "schedreplay/error.h"
#include "schedreplay/report.h"
#include "schedreplay/store.h"
#include "escape.h"
#include "report-html.h"
#include "banned.h"

/* ---- text ------------------------------------------------------------------ */

static void cell_str(const struct sr_cell *c, char *buf, size_t len)
{
	if (!c) {
		snprintf(buf, len, "-");
		return;
	}
	switch (c->type) {
	case SR_CELL_INT:
		snprintf(buf, len, "%lld", c->i);
		break;
	case SR_CELL_PCT:
		snprintf(buf, len, "%.2f", c->d);
		break;
	case SR_CELL_TEXT:
		snprintf(buf, len, "%s", c->s);
		break;
	default:
		snprintf(buf, len, "n/a");
		break;
	}
}

/* the change from @a to @b: relative for counts, in points for percentages */
static int delta(const struct sr_cell *a, const struct sr_cell *b, double *d)
{
	if (!a || !b || a->type != b->type)
		return 0;
	if (a->type == SR_CELL_PCT) {
		*d = b->d - a->d;
		return 1;
	}
	if (a->type != SR_CELL_INT || !a->i)
		return 0;
	*d = 100.0 * (double)(b->i - a->i) / (double)llabs(a->i);
	return 1;
}

static void delta_str(const struct sr_cell *a, const struct sr_cell *b, char *buf, size_t len)
{
	double d;

	buf[0] = '\0';
	if (delta(a, b, &d)) {
		/* no "-0.00": an unchanged value has no sign */
		if (fabs(d) < 0.005)
			snprintf(buf, len, a->type == SR_CELL_PCT ? "0.00pt" : "0.00%%");
		else
			snprintf(buf, len, a->type == SR_CELL_PCT ? "%+.2fpt" : "%+.2f%%", d);
	} else if (a && b && a->type == SR_CELL_INT && b->type == SR_CELL_INT) {
		snprintf(buf, len, b->i ? "new" : "0.00%%");
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static int table_empty(const struct sr_report_table *t)
{
	return t->nrows == 0;
}

#define CELL 512

/*
 * The columns a text takes: one per UTF-8 character, not per byte (a task
 * name is escaped to valid UTF-8 before it gets here), as sql's table counts
 */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* @s in @w columns, left- or right-aligned */
static void put_padded(FILE *f, const char *s, int w, int left)
{
	int pad = w - text_width(s);

	if (!left)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
	fputs(s, f);
	if (left)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
}

/* one source: keys and values as columns, one row per key */
static void print_wide(const struct sr_report_table *t, FILE *f)
{
	int w[SR_REPORT_MAX_KEYS + 16] = { 0 };
	char buf[CELL];
	int i, k, c;

	for (k = 0; k < t->nkeys; k++)
		w[k] = text_width(t->keys[k]);
	for (c = 0; c < t->ncols; c++)
		w[t->nkeys + c] = text_width(t->cols[c]);
	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < t->nkeys; k++)
			if (text_width(t->rows[i].key[k]) > w[k])
				w[k] = text_width(t->rows[i].key[k]);
		for (c = 0; c < t->ncols; c++) {
			cell_str(t->rows[i].val[0] ? &t->rows[i].val[0][c] : NULL, buf, sizeof(buf));
			if (text_width(buf) > w[t->nkeys + c])
				w[t->nkeys + c] = text_width(buf);
		}
	}
	for (i = -1; i < t->nrows; i++) {
		const struct sr_report_row *row = i >= 0 ? &t->rows[i] : NULL;
		int pass;

		fputs(" ", f);
		/* keys first, or values first when the keys are long texts */
		for (pass = 0; pass < 2; pass++) {
			if ((pass == 0) != !t->key_last) {
				for (c = 0; c < t->ncols; c++) {
					if (row)
						cell_str(row->val[0] ? &row->val[0][c] : NULL, buf,
							 sizeof(buf));
					fputc(' ', f);
					put_padded(f, row ? buf : t->cols[c], w[t->nkeys + c], 0);
				}
			} else {
				for (k = 0; k < t->nkeys; k++) {
					const char *s = row ? row->key[k] : t->keys[k];
					int last = t->key_last && k == t->nkeys - 1;

					fputc(' ', f);
					put_padded(f, s, last ? 0 : w[k], 1);
				}
			}
		}
		if (row && row->note[0])
			fprintf(f, "  <- note %d", row->note[0]);
		fputc('\n', f);
	}
}

/* two sources: one row per key and column, values side by side, the delta */
#define TEXT_W 24

static void print_long(const struct sr_report *r, const struct sr_report_table *t, FILE *f)
{
	int kw = 0, mw = 0, lw, vw[2] = { 0, 0 }, dw = 0, i, k, c, s;
	char buf[CELL], lab[CELL], head[2][2][CELL];
	int multi = t->ncols > 1;

	for (i = 0; i < t->nrows; i++) {
		int n = -1;

		for (k = 0; k < t->nkeys; k++)
			n += (int)strlen(t->rows[i].key[k]) + 1;
		if (n > kw)
			kw = n;
	}
	for (c = 0; multi && c < t->ncols; c++)
		if ((int)strlen(t->cols[c]) > mw)
			mw = (int)strlen(t->cols[c]);
	lw = kw + (multi ? mw + 2 : 0);
	for (s = 0; s < 2; s++) {
		snprintf(head[s][0], CELL, "%s", base_name(r->src[s].file));
		snprintf(head[s][1], CELL, "run %ld", r->src[s].run);
		vw[s] = (int)strlen(head[s][0]);
		if ((int)strlen(head[s][1]) > vw[s])
			vw[s] = (int)strlen(head[s][1]);
	}
	/*
	 * the columns are as wide as the numbers and short texts: a text value
	 * longer than TEXT_W (a generation, a path) puts the second run's on a line of its
	 * own instead of pushing every number of the table to the right
	 */
	for (i = 0; i < t->nrows; i++)
		for (c = 0; c < t->ncols; c++) {
			for (s = 0; s < 2; s++) {
				const struct sr_cell *v = t->rows[i].val[s] ? &t->rows[i].val[s][c] :
							  NULL;

				cell_str(v, buf, sizeof(buf));
				if (v && v->type == SR_CELL_TEXT && strlen(buf) > TEXT_W)
					continue;
				if ((int)strlen(buf) > vw[s])
					vw[s] = (int)strlen(buf);
			}
			delta_str(t->rows[i].val[0] ? &t->rows[i].val[0][c] : NULL,
				  t->rows[i].val[1] ? &t->rows[i].val[1][c] : NULL, buf, sizeof(buf));
			if ((int)strlen(buf) > dw)
				dw = (int)strlen(buf);
		}
	for (k = 0; k < 2; k++)
		fprintf(f, "  %-*s %*s %*s\n", lw, "", vw[0], head[0][k], vw[1], head[1][k]);
	for (i = 0; i < t->nrows; i++) {
		const struct sr_report_row *row = &t->rows[i];
		size_t o = 0;

		lab[0] = '\0';
		for (k = 0; k < t->nkeys; k++)
			o += (size_t)snprintf(lab + o, o < sizeof(lab) ? sizeof(lab) - o : 0, "%s%s",
					      k ? " " : "", row->key[k]);
		for (c = 0; c < t->ncols; c++) {
			const struct sr_cell *a = row->val[0] ? &row->val[0][c] : NULL;
			const struct sr_cell *b = row->val[1] ? &row->val[1][c] : NULL;
			int text = (a && a->type == SR_CELL_TEXT) || (b && b->type == SR_CELL_TEXT);
			char va[CELL], vb[CELL], d[64];

			cell_str(a, va, sizeof(va));
			cell_str(b, vb, sizeof(vb));
			delta_str(a, b, d, sizeof(d));
			if (multi)
				fprintf(f, "  %-*s  %-*s", kw, lab, mw, t->cols[c]);
			else
				fprintf(f, "  %-*s", lw, lab);
			if (text && (int)strlen(va) > vw[0])
				fprintf(f, " %s\n  %-*s %s\n", va, lw, "", vb);
			else if (text)
				fprintf(f, " %-*s %s\n", vw[0], va, vb);
			else if (dw && *d)
				fprintf(f, " %*s %*s (%*s)\n", vw[0], va, vw[1], vb, dw, d);
			else
				fprintf(f, " %*s %*s\n", vw[0], va, vw[1], vb);
		}
	}
}

static void print_header_one(const struct sr_report *r, FILE *f)
{
	const struct sr_report_table *t = &r->header;
	char buf[CELL];
	int i;

	fprintf(f, "run %ld of %s\n", r->src[0].run, r->src[0].file);
	for (i = 0; i < t->nrows; i++) {
		cell_str(t->rows[i].val[0], buf, sizeof(buf));
		fprintf(f, "  %-12s %s\n", t->rows[i].key[0], buf);
	}
}

/* @text after @first, wrapped to lines of at most 96 columns that continue under it */
static void print_wrapped(FILE *f, const char *first, const char *text)
{
	const char *s = text;
	int indent = (int)strlen(first), width = 96 - indent;

	fputs(first, f);
	while (*s) {
		int n = (int)strlen(s), cut = n;

		if (n > width) {
			for (cut = width; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = width;
		}
		fprintf(f, "%.*s\n", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		if (*s)
			fprintf(f, "%*s", indent, "");
	}
}

/* what a table's counts are, under its title */
static void print_def(const struct sr_report_table *t, FILE *f)
{
	if (t->def)
		print_wrapped(f, "  ", t->def);
}

/* the notes on a table's figures: they say when a figure is no verdict */
static void print_notes(const struct sr_report *r, const struct sr_report_table *t, FILE *f)
{
	char head[CELL];
	int i;

	for (i = 0; i < t->nnotes; i++) {
		const struct sr_report_note *n = &t->notes[i];

		if (r->nsrc > 1)
			snprintf(head, sizeof(head), "  note %d (%s run %ld): ", i + 1,
				 base_name(r->src[n->src].file), r->src[n->src].run);
		else
			snprintf(head, sizeof(head), "  note %d: ", i + 1);
		print_wrapped(f, head, n->text);
	}
}

/* the unexplained share of the migrations, per source */
static void print_unexplained(const struct sr_report *r, FILE *f)
{
	const struct sr_report_table *m = &r->migration;
	int i, s;

	for (i = 0; i < m->nrows; i++) {
		if (strcmp(m->rows[i].key[0], "unexplained"))
			continue;
		fputs("  unexplained share:", f);
		for (s = 0; s < r->nsrc; s++) {
			const struct sr_cell *c = m->rows[i].val[s] ? &m->rows[i].val[s][1] : NULL;

			if (c && c->type == SR_CELL_PCT)
				fprintf(f, "%s %.2f%%", s ? "," : "", c->d);
			else
				fprintf(f, "%s -", s ? "," : "");
		}
		fputc('\n', f);
	}
}

/* one text of the report escaped in place (escape.h); 0 or -1 without memory */
static int escape_in_place(char **s)
{
	char *e;

	if (!*s || !sr_escape_needed(*s))
		return 0;
	e = sr_escape_dup(*s);
	if (!e)
		return -1;
	free(*s);
	*s = e;
	return 0;
}

/*
 * Task names, the kernel and host strings come from the trace: for the text
 * output every key and text cell is escaped before the widths are measured
 * (the JSON output is escaped by SQLite).
 */
static int escape_texts(struct sr_report *r)
{
	const struct sr_report_table *ct;
	int i, j, k, s, c, err = 0;

	for (i = 0; (ct = sr_report_table_at(r, i)); i++) {
		/* the report's own tables: not const to their owner */
		struct sr_report_table *t = (struct sr_report_table *)ct;

		for (j = 0; j < t->nrows; j++) {
			for (k = 0; k < t->nkeys; k++)
				err |= escape_in_place(&t->rows[j].key[k]);
			for (s = 0; s < r->nsrc; s++)
				for (c = 0; t->rows[j].val[s] && c < t->ncols; c++)
					if (t->rows[j].val[s][c].type == SR_CELL_TEXT)
						err |= escape_in_place(&t->rows[j].val[s][c].s);
		}
	}
	return err ? -1 : 0;
}

static void print_text(const struct sr_report *r, FILE *f)
{
	const struct sr_report_table *t;
	int i, s, decisions = 0, patches = 0;

	for (s = 0; s < r->nsrc; s++) {
		decisions |= r->src[s].decisions > 0;
		patches |= r->src[s].patches;
	}
	if (r->nsrc == 1) {
		print_header_one(r, f);
	} else {
		fprintf(f, "runs compared: %s run %ld, %s run %ld\n", r->src[0].file, r->src[0].run,
			r->src[1].file, r->src[1].run);
		print_long(r, &r->header, f);
	}
	for (s = 0; s < r->nsrc; s++)
		if (!r->src[s].decisions)
			fprintf(f, "\n%s run %ld: no decisions\n", r->src[s].file, r->src[s].run);
	if (!decisions)
		return;
	for (i = 1; (t = sr_report_table_at(r, i)); i++) {
		int divergence = t == &r->patch || t == &r->tasks || t == &r->cpus;

		if (divergence && !patches) {
			if (t == &r->patch)
				fprintf(f, "\nno patch pairs in %s: no divergence tables (replay -p "
					"PATCH evaluates one)\n", r->nsrc == 1 ? "this run" :
					"these runs");
			continue;
		}
		fprintf(f, "\n%s\n", t->title);
		print_def(t, f);
		if (table_empty(t)) {
			fprintf(f, "  %s\n", divergence ? "no divergent decisions" : "none");
			continue;
		}
		if (r->nsrc == 1)
			print_wide(t, f);
		else
			print_long(r, t, f);
		if (t == &r->migration)
			print_unexplained(r, f);
		print_notes(r, t, f);
	}
}

/* ---- JSON, escaped and formatted by SQLite ------------------------------- */

enum jkind { J_CELL, J_RAW, J_TEXT, J_INT, J_BOOL };

struct jv {
	const char *name;
	enum jkind kind;
	const struct sr_cell *cell;
	const char *s;
	long long i;
	int delta;		/* J_CELL: the value is a delta (a double or null) */
	double d;
};

static double round4(double d)
{
	return round(d * 10000.0) / 10000.0;
}

/* json_object(name, value, ...) of @n pairs; NULL on error (caller frees) */
static char *json_object_of(sqlite3 *db, const struct jv *v, int n)
{
	sqlite3_stmt *st = NULL;
	char *sql = NULL, *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int i;

	if (!m)
		return NULL;
	fputs("SELECT json_object(", m);
	for (i = 0; i < n; i++)
		fprintf(m, "%s?, %s", i ? ", " : "", v[i].kind == J_RAW || v[i].kind == J_BOOL ?
			"json(?)" : "?");
	fputs(")", m);
	if (fclose(m) || !sql)
		return NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		int p = 2 * i + 1;

		sqlite3_bind_text(st, p, v[i].name, -1, SQLITE_STATIC);
		switch (v[i].kind) {
		case J_RAW:
			sqlite3_bind_text(st, p + 1, v[i].s, -1, SQLITE_STATIC);
			break;
		case J_BOOL:
			sqlite3_bind_text(st, p + 1, v[i].i ? "true" : "false", -1, SQLITE_STATIC);
			break;
		case J_TEXT:
			if (v[i].s)
				sqlite3_bind_text(st, p + 1, v[i].s, -1, SQLITE_STATIC);
			break;
		case J_INT:
			sqlite3_bind_int64(st, p + 1, v[i].i);
			break;
		case J_CELL:
			if (v[i].delta) {
				sqlite3_bind_double(st, p + 1, round4(v[i].d));
				break;
			}
			if (!v[i].cell)
				break;
			if (v[i].cell->type == SR_CELL_INT)
				sqlite3_bind_int64(st, p + 1, v[i].cell->i);
			else if (v[i].cell->type == SR_CELL_PCT)
				sqlite3_bind_double(st, p + 1, round4(v[i].cell->d));
			else if (v[i].cell->type == SR_CELL_TEXT)
				sqlite3_bind_text(st, p + 1, v[i].cell->s, -1, SQLITE_STATIC);
			break;
		}
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
out:
	sqlite3_finalize(st);
	free(sql);
	return out;
}

#define MAXJV (SR_REPORT_MAX_KEYS + 16)

/* one source's values of a row, or its deltas: an object, or NULL on error */
static char *json_values(sqlite3 *db, const struct sr_report_table *t,
			 const struct sr_report_row *row, int src, int deltas)
{
	struct jv v[MAXJV];
	int c, n = 0;

	for (c = 0; c < t->ncols && n < MAXJV; c++) {
		const struct sr_cell *a = row->val[0] ? &row->val[0][c] : NULL;
		const struct sr_cell *b = row->val[1] ? &row->val[1][c] : NULL;

		memset(&v[n], 0, sizeof(v[n]));
		v[n].name = t->json_cols[c];
		v[n].kind = J_CELL;
		if (deltas) {
			if (a && a->type == SR_CELL_TEXT)
				continue;
			v[n].delta = delta(a, b, &v[n].d);
		} else {
			v[n].cell = row->val[src] ? &row->val[src][c] : NULL;
		}
		n++;
	}
	return json_object_of(db, v, n);
}

/* a table as an array of row objects: keys, "values" per source, "delta" */
static int json_table(sqlite3 *db, const struct sr_report *r, const struct sr_report_table *t,
		      FILE *m)
{
	int i, k, s;

	fputc('[', m);
	for (i = 0; i < t->nrows; i++) {
		const struct sr_report_row *row = &t->rows[i];
		struct jv v[MAXJV];
		char *vals[SR_REPORT_MAX_SOURCES] = { NULL }, *arr = NULL, *d = NULL, *obj;
		size_t alen = 0;
		FILE *am;
		int n = 0, err = 0;

		memset(v, 0, sizeof(v));
		for (k = 0; k < t->nkeys; k++) {
			const char *kv = row->key[k];
			char *end = NULL;
			long long num = 0;

			v[n].name = t->keys[k];
			v[n].kind = J_TEXT;
			v[n].s = kv;
			/* a task or CPU number is a JSON number, as in sql -F json */
			if (kv && *kv && (!strcmp(t->keys[k], "tid") || !strcmp(t->keys[k], "cpu"))) {
				errno = 0;
				num = strtoll(kv, &end, 10);
				if (!errno && end && !*end) {
					v[n].kind = J_INT;
					v[n].i = num;
				}
			}
			n++;
		}
		am = open_memstream(&arr, &alen);
		if (!am)
			return -1;
		fputc('[', am);
		for (s = 0; s < r->nsrc; s++) {
			if (row->val[s]) {
				vals[s] = json_values(db, t, row, s, 0);
				err |= !vals[s];
			}
			fprintf(am, "%s%s", s ? "," : "", vals[s] ? vals[s] : "null");
		}
		fputc(']', am);
		if (fclose(am) || !arr)
			err = 1;
		v[n].name = "values";
		v[n].kind = J_RAW;
		v[n++].s = arr;
		if (r->nsrc == 2) {
			d = json_values(db, t, row, 0, 1);
			err |= !d;
			v[n].name = "delta";
			v[n].kind = J_RAW;
			v[n++].s = d;
		}
		obj = err ? NULL : json_object_of(db, v, n);
		for (s = 0; s < r->nsrc; s++)
			free(vals[s]);
		free(arr);
		free(d);
		if (!obj)
			return -1;
		fprintf(m, "%s%s", i ? "," : "", obj);
		free(obj);
	}
	fputc(']', m);
	return 0;
}

/* the header of each source as one flat object */
static char *json_header(sqlite3 *db, const struct sr_report *r, int s)
{
	const struct sr_report_table *t = &r->header;
	struct jv v[MAXJV + 8];
	char names[MAXJV + 8][32];
	int i, n = 0;

	memset(v, 0, sizeof(v));
	v[n].name = "file";
	v[n].kind = J_TEXT;
	v[n++].s = r->src[s].file;
	v[n].name = "run";
	v[n].kind = J_INT;
	v[n++].i = r->src[s].run;
	v[n].name = "has_patches";
	v[n].kind = J_BOOL;
	v[n++].i = r->src[s].patches;
	for (i = 0; i < t->nrows && n < MAXJV + 8; i++) {
		char *p;

		/* "lost events" is lost_events */
		snprintf(names[n], sizeof(names[n]), "%s", t->rows[i].key[0]);
		for (p = names[n]; *p; p++)
			*p = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
		v[n].name = names[n];
		v[n].kind = J_CELL;
		v[n++].cell = t->rows[i].val[s];
	}
	return json_object_of(db, v, n);
}

/* one report: its sources and every table */
static int print_json_report(sqlite3 *db, const struct sr_report *r, FILE *f)
{
	const struct sr_report_table *t;
	char *buf = NULL, *h;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int i, s, err = 0;

	if (!m)
		return -1;
	fputs("{\"sources\":[", m);
	for (s = 0; s < r->nsrc; s++) {
		h = json_header(db, r, s);
		err |= !h;
		fprintf(m, "%s%s", s ? "," : "", h ? h : "null");
		free(h);
	}
	fputc(']', m);
	for (i = 1; (t = sr_report_table_at(r, i)); i++) {
		fprintf(m, ",\"%s\":", t->name);
		err |= json_table(db, r, t, m);
	}
	/* what the text prints under the tables: where a figure is no verdict */
	fputs(",\"notes\":[", m);
	for (i = 1, s = 0; (t = sr_report_table_at(r, i)); i++) {
		int k;

		for (k = 0; k < t->nnotes; k++) {
			struct jv v[3] = {
				{ .name = "table", .kind = J_TEXT, .s = t->name },
				{ .name = "source", .kind = J_INT, .i = t->notes[k].src },
				{ .name = "text", .kind = J_TEXT, .s = t->notes[k].text },
			};

			h = json_object_of(db, v, 3);
			err |= !h;
			fprintf(m, "%s%s", s++ ? "," : "", h ? h : "null");
			free(h);
		}
	}
	fputs("]}", m);
	if (fclose(m) || !buf)
		err = 1;
	/* SQLite checks what it is given */
	if (!err) {
		sqlite3_stmt *st = NULL;

		err = sqlite3_prepare_v2(db, "SELECT json(?)", -1, &st, NULL) != SQLITE_OK;
		if (!err) {
			sqlite3_bind_text(st, 1, buf, -1, SQLITE_STATIC);
			err = sqlite3_step(st) != SQLITE_ROW;
			if (!err)
				sr_json_fputs((const char *)sqlite3_column_text(st, 0), f);
		}
		sqlite3_finalize(st);
	}
	free(buf);
	return err ? -1 : 0;
}

/* ---- the command ------------------------------------------------------------ */

static const char report_examples[] =
	"   schedreplay report run.db\n"
	"   schedreplay report --run 2 --top 5 run.db\n"
	"   schedreplay report a.db b.db              two runs side by side, with deltas\n"
	"   schedreplay report --json a.db b.db > cmp.json\n";

static const char report_options[] =
	"   -r, --run N        report run N of DB (default: every run of DB, one after\n"
	"                      another; with DB2, the last run of DB)\n"
	"       --run2 N       the run of DB2 to compare with (default: its last run)\n"
	"   -n, --top N        rows of the top tasks, top CPUs and latency tables (default 10)\n"
	"       --reasons N    reason paths of wakeup_moved per base model (default 5)\n"
	"       --json         print one JSON document with the same content\n"
	"       --html FILE    write one self-contained HTML page (inline SVG charts) to\n"
	"                      FILE instead: fidelity, patch pairs, latency per task group\n"
	"       --print-sql    print the SQL statements the report runs (parameters\n"
	"                      :run, :top, :limit, :reasons) and exit\n"
	"   -h, --help         show this help\n";

const struct cmd_entry cmd_report;

static int parse_count(const char *opt, const char *s, long min, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *end || *v < min) {
		sr_error("report: %s wants a whole number >= %ld, not '%s'", opt, min, s);
		cmd_usage(&cmd_report, stderr);
		return -1;
	}
	return 0;
}

static void print_sql(FILE *f)
{
	const char *sql, *name;
	int i;

	fputs("-- schedreplay report: the statements it runs, per run; bind :run (the run\n"
	      "-- id), :top and :limit (--top) and :reasons (--reasons), e.g. in sqlite3:\n"
	      "--   .parameter set :run 1\n", f);
	for (i = 0; (sql = sr_report_sql(i, &name)); i++)
		fprintf(f, "-- %s\n%s;\n", name, sql);
}

static int open_db(const char *path, sqlite3 **db, long **runs, int *nruns)
{
	char *cause = NULL;

	*db = sr_db_open(path, 0, &cause);
	if (!*db) {
		sr_error("%s", cause ? cause : sr_strerror(-SR_E_IO));
		free(cause);
		return -1;
	}
	*nruns = sr_report_runs(*db, path, runs, &cause);
	if (*nruns < 0 || !*nruns) {
		if (*nruns < 0)
			sr_error("%s", cause ? cause : sr_strerror(*nruns));
		else
			sr_error("'%s' holds no run", path);
		free(cause);
		return -1;
	}
	return 0;
}

/* the two paths name one file (the same device and inode) */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int has_run(const long *runs, int n, long run)
{
	int i;

	for (i = 0; i < n; i++)
		if (runs[i] == run)
			return 1;
	return 0;
}

static int report_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "run",	required_argument,	NULL, 'r' },
		{ "run2",	required_argument,	NULL, 'R' },
		{ "top",	required_argument,	NULL, 'n' },
		{ "reasons",	required_argument,	NULL, 'e' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "html",	required_argument,	NULL, 'H' },
		{ "print-sql",	no_argument,		NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sr_report_opts o = { .top = 10, .reasons = 5 };
	sqlite3 *db[2] = { NULL, NULL };
	long *runs[2] = { NULL, NULL }, run = 0, run2 = 0;
	int nruns[2] = { 0, 0 }, json = 0, sql = 0, opt, ndb, i, ret = EXIT_FAIL;
	const char *file[2] = { NULL, NULL }, *html = NULL;
	char *cause = NULL, *tmp = NULL;
	FILE *out = stdout;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "r:n:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (parse_count("--run", optarg, 1, &run))
				return EXIT_USAGE;
			break;
		case 'R':
			if (parse_count("--run2", optarg, 1, &run2))
				return EXIT_USAGE;
			break;
		case 'n':
			if (parse_count("--top", optarg, 0, &o.top))
				return EXIT_USAGE;
			break;
		case 'e':
			if (parse_count("--reasons", optarg, 0, &o.reasons))
				return EXIT_USAGE;
			break;
		case 'j':
			json = 1;
			break;
		case 'H':
			html = optarg;
			break;
		case 'S':
			sql = 1;
			break;
		case 'h':
			cmd_usage(&cmd_report, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_report, argv[optind - 1]);
		}
	}
	ndb = argc - optind;
	if (sql) {
		if (ndb || json) {
			sr_error("report: --print-sql takes no DB and no --json");
			cmd_usage(&cmd_report, stderr);
			return EXIT_USAGE;
		}
		print_sql(stdout);
		return EXIT_OK;
	}
	if (ndb < 1 || ndb > 2) {
		sr_error("report: expected DB [DB2], got %d arguments", ndb);
		cmd_usage(&cmd_report, stderr);
		return EXIT_USAGE;
	}
	if (html && (ndb != 1 || json)) {
		sr_error("report: --html writes the runs of one DB, without --json");
		cmd_usage(&cmd_report, stderr);
		return EXIT_USAGE;
	}
	if (run2 && ndb == 1) {
		sr_error("report: --run2 needs a second database (give DB twice to compare two "
			 "runs of one file)");
		cmd_usage(&cmd_report, stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < ndb; i++) {
		file[i] = argv[optind + i];
		if (open_db(file[i], &db[i], &runs[i], &nruns[i]))
			goto out;
	}
	if (run && !has_run(runs[0], nruns[0], run)) {
		sr_error("'%s' has no run %ld (runs 1 to %ld)", file[0], run,
			 runs[0][nruns[0] - 1]);
		goto out;
	}
	if (run2 && !has_run(runs[1], nruns[1], run2)) {
		sr_error("'%s' has no run %ld (runs 1 to %ld)", file[1], run2,
			 runs[1][nruns[1] - 1]);
		goto out;
	}
	/* two DBs: the runs compared, by default the last of each */
	if (ndb == 2) {
		if (!run)
			run = runs[0][nruns[0] - 1];
		if (!run2)
			run2 = runs[1][nruns[1] - 1];
		if (same_file(file[0], file[1]) && run == run2)
			sr_warn("report: both sides are run %ld of '%s': every delta is 0 (-r N "
				"and --run2 M pick two runs of one file)", run, file[0]);
	}
	if (html) {
		/* the page appears whole or not at all */
		if (asprintf(&tmp, "%s.tmp-%d", html, (int)getpid()) < 0) {
			tmp = NULL;
			sr_error("%s", sr_strerror(-SR_E_NOMEM));
			goto out;
		}
		out = fopen(tmp, "w");
		if (!out) {
			out = stdout;
			sr_error("cannot create '%s' (written as '%s' first): %s", html, tmp,
				 strerror(errno));
			goto out;
		}
		sr_report_html_begin(out, "schedreplay report");
	}
	if (json)
		fputs("{\"reports\":[", stdout);
	/* one DB: each run in turn; two: one comparison */
	for (i = 0; i < (ndb == 1 && !run ? nruns[0] : 1); i++) {
		struct sr_report *r = sr_report_new();
		int err;

		if (!r) {
			sr_error("%s", sr_strerror(-SR_E_NOMEM));
			goto out;
		}
		err = sr_report_add(r, db[0], file[0], run ? run : runs[0][i], &o, &cause);
		if (!err && ndb == 2)
			err = sr_report_add(r, db[1], file[1], run2, &o, &cause);
		if (err) {
			sr_error("%s", cause ? cause : sr_strerror(err));
			sr_report_free(r);
			goto out;
		}
		if (json) {
			if (i)
				fputc(',', stdout);
			err = print_json_report(db[0], r, stdout);
		} else if (html) {
			err = escape_texts(r);
			if (!err)
				err = sr_report_html_run(db[0], r, r->src[0].run, out);
		} else {
			if (i)
				fputs("\n\n", stdout);
			err = escape_texts(r);
			if (err) {
				sr_error("%s", sr_strerror(-SR_E_NOMEM));
				sr_report_free(r);
				goto out;
			}
			print_text(r, stdout);
		}
		sr_report_free(r);
		if (err) {
			sr_error("cannot build the %s of '%s': %s", html ? "page" : "JSON document",
				 file[0], sqlite3_errmsg(db[0]));
			goto out;
		}
	}
	if (json)
		fputs("]}\n", stdout);
	if (html) {
		sr_report_html_end(out);
		i = ferror(out);
		if (fclose(out) || i) {
			out = stdout;
			sr_error("cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
		out = stdout;
		if (rename(tmp, html) < 0) {
			sr_error("cannot create '%s': %s", html, strerror(errno));
			goto out;
		}
		free(tmp);
		tmp = NULL;
	}
	ret = EXIT_OK;
out:
	if (out != stdout)
		fclose(out);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(cause);
	for (i = 0; i < 2; i++) {
		free(runs[i]);
		sqlite3_close(db[i]);
	}
	return ret;
}

const struct cmd_entry cmd_report = {
	.name = "report",
	.synopsis = "[-r N] [--run2 N] [-n N] [--reasons N] [--json | --html FILE] DB [DB2] | "
		    "--print-sql",
	.summary = "summarize a replay database as comparison tables",
	.options = report_options,
	.examples = report_examples,
	.exec = report_exec,
};
