// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay sql DB [QUERY]": one SQL statement against a results
 * database, printed as an aligned table, CSV or JSON.  The canned queries
 * (the .sql files of reports/, compiled in) run with --query NAME.  Parameters are bound
 * by name with sqlite3_bind_*, never pasted into the text.  Text from the
 * trace is escaped for the terminal in the table and in CSV (escape.h, the
 * one CSV writer); JSON quoting is SQLite's json_object, applied row by row
 * by a second statement the values are bound to.  The database is opened
 * read-only unless --write.
 */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "schedreplay/store.h"
#include "escape.h"
#include "schedreplay/sql-reports.h"
#include "banned.h"

#define MAX_PARAMS	32
#define MAX_RPARAMS	16

enum sql_format { FMT_TABLE, FMT_CSV, FMT_JSON };

/* a -P NAME=VALUE */
struct param {
	const char *name;
	size_t namelen;
	const char *value;	/* empty: NULL */
	int used;
};

/*
 * A "-- param :NAME TYPE  description (default: VALUE)" line of a canned
 * query; TYPE is "text", "integer" or "integer>=N".
 */
struct rparam {
	const char *name, *desc, *def, *type;
	int namelen, desclen, deflen;	/* deflen < 0: required */
	int typelen;
	int integer;			/* the value must be a whole number ... */
	long long min;			/* ... at least this */
};

struct rheader {
	const char *desc;
	int desclen;
	struct rparam p[MAX_RPARAMS];
	int np;
};

/* the header comment of a canned query: first line, then its parameters */
static void parse_header(const char *text, struct rheader *h)
{
	const char *line = text;

	memset(h, 0, sizeof(*h));
	while (!strncmp(line, "--", 2)) {
		const char *end = strchr(line, '\n'), *s = line + 2;

		if (!end)
			end = line + strlen(line);
		while (s < end && *s == ' ')
			s++;
		if (!h->desc) {
			h->desc = s;
			h->desclen = (int)(end - s);
		} else if (!strncmp(s, "param :", 7) && h->np < MAX_RPARAMS) {
			struct rparam *p = &h->p[h->np++];
			const char *d;

			p->name = s + 7;
			for (d = p->name; d < end && *d != ' '; d++)
				;
			p->namelen = (int)(d - p->name);
			while (d < end && *d == ' ')
				d++;
			p->min = LLONG_MIN;
			if (!strncmp(d, "integer", 7) || !strncmp(d, "text", 4)) {
				p->type = d;
				p->integer = *d == 'i';
				while (d < end && *d != ' ')
					d++;
				p->typelen = (int)(d - p->type);
				if (p->integer && !strncmp(p->type + 7, ">=", 2))
					p->min = strtoll(p->type + 9, NULL, 10);
				while (d < end && *d == ' ')
					d++;
			}
			p->desc = d;
			p->desclen = (int)(end - d);
			p->deflen = -1;
			d = memmem(d, (size_t)(end - d), "(default: ", 10);
			if (d) {
				const char *close = end;

				while (close > d && close[-1] != ')')
					close--;
				p->def = d + 10;
				p->deflen = close > p->def ? (int)(close - 1 - p->def) : 0;
			}
		}
		if (!*end)
			break;
		line = end + 1;
	}
}

static void list_reports(void)
{
	const struct sr_sql_report *r;
	int w = 0, i;

	for (r = sr_sql_reports; r->name; r++)
		if ((int)strlen(r->name) > w)
			w = (int)strlen(r->name);
	for (r = sr_sql_reports; r->name; r++) {
		struct rheader h;

		parse_header(r->text, &h);
		printf("%-*s  %.*s\n", w, r->name, h.desclen, h.desc ? h.desc : "");
		for (i = 0; i < h.np; i++)
			printf("%-*s    :%.*s %.*s  %.*s\n", w, "", h.p[i].namelen, h.p[i].name,
			       h.p[i].typelen, h.p[i].type ? h.p[i].type : "", h.p[i].desclen,
			       h.p[i].desc);
	}
}

/* an integer value binds as an integer, an empty one as NULL, else text */
static int bind_text_value(sqlite3_stmt *st, int i, const char *v, size_t len)
{
	char buf[32], *end;
	long long n;

	if (!len)
		return sqlite3_bind_null(st, i);
	if (len < sizeof(buf) && (isdigit((unsigned char)v[0]) ||
				  (v[0] == '-' && len > 1 && isdigit((unsigned char)v[1])))) {
		memcpy(buf, v, len);
		buf[len] = '\0';
		errno = 0;
		n = strtoll(buf, &end, 10);
		if (!*end && !errno)
			return sqlite3_bind_int64(st, i, n);
	}
	return sqlite3_bind_text(st, i, v, (int)len, SQLITE_TRANSIENT);
}

/* the default text of a canned query's parameter: "NULL" (or "NULL, why") binds NULL */
static int bind_default(sqlite3_stmt *st, int i, const struct rparam *p)
{
	if (p->deflen >= 4 && !strncmp(p->def, "NULL", 4) &&
	    (p->deflen == 4 || p->def[4] == ','))
		return sqlite3_bind_null(st, i);
	return bind_text_value(st, i, p->def, (size_t)p->deflen);
}

/* the parameters the statement names, comma-separated, for an error line */
static char *param_names(sqlite3_stmt *st)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	int i, n = sqlite3_bind_parameter_count(st);

	for (i = 1; i <= n; i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);

		sqlite3_str_appendf(s, "%s%s", i > 1 ? ", " : "", name ? name : "?");
	}
	return sqlite3_str_finish(s);
}

/*
 * A -P value for a canned query's parameter @p, checked against its
 * declared type: 0, or -1 after the error line.  An empty value (NULL) is
 * "no filter", for the parameters whose default is NULL only.
 */
static int check_value(const struct rparam *p, const char *query, const char *v)
{
	char *end;
	long long n;

	if (!*v) {
		if (p->deflen >= 4 && !strncmp(p->def, "NULL", 4))
			return 0;
		sr_error("sql: -P %.*s= is empty: query '%s' needs a value for :%.*s: %.*s",
			 p->namelen, p->name, query, p->namelen, p->name, p->desclen, p->desc);
		return -1;
	}
	if (!p->integer)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno == ERANGE) {
		sr_error("sql: -P %.*s=%s is out of range: query '%s' takes a whole number "
			 "for :%.*s: %.*s", p->namelen, p->name, v, query, p->namelen, p->name,
			 p->desclen, p->desc);
		return -1;
	}
	if (end == v || *end || n < p->min) {
		if (p->min != LLONG_MIN)
			sr_error("sql: -P %.*s=%s: query '%s' takes a whole number >= %lld for "
				 ":%.*s: %.*s", p->namelen, p->name, v, query, p->min, p->namelen,
				 p->name, p->desclen, p->desc);
		else
			sr_error("sql: -P %.*s=%s: query '%s' takes a whole number for :%.*s: %.*s",
				 p->namelen, p->name, v, query, p->namelen, p->name, p->desclen,
				 p->desc);
		return -1;
	}
	return 0;
}

/* bind every parameter of @st; 0, or an EXIT_* code after the error line */
static int bind_params(sqlite3_stmt *st, struct param *params, int nparams,
		       const struct rheader *h, const char *query)
{
	int i, j, k, n = sqlite3_bind_parameter_count(st);

	for (i = 1; i <= n; i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);
		size_t len;
		int done = 0;

		if (!name) {
			sr_error("sql: parameter %d of the query has no name: write :NAME and "
				 "give -P NAME=VALUE", i);
			return EXIT_FAIL;
		}
		name++;		/* the ':', '@' or '$' */
		len = strlen(name);
		for (j = 0; j < nparams; j++) {
			if (params[j].namelen != len || memcmp(params[j].name, name, len))
				continue;
			params[j].used = 1;
			for (k = 0; !done && h && k < h->np; k++)
				if ((size_t)h->p[k].namelen == len &&
				    !memcmp(h->p[k].name, name, len) &&
				    check_value(&h->p[k], query, params[j].value))
					return EXIT_USAGE;
			if (!done && bind_text_value(st, i, params[j].value,
						     strlen(params[j].value)) != SQLITE_OK) {
				sr_error("sql: cannot bind :%s: %s", name,
					 sqlite3_errmsg(sqlite3_db_handle(st)));
				return EXIT_FAIL;
			}
			done = 1;
		}
		for (j = 0; !done && h && j < h->np; j++) {
			if ((size_t)h->p[j].namelen != len || memcmp(h->p[j].name, name, len) ||
			    h->p[j].deflen < 0)
				continue;
			if (bind_default(st, i, &h->p[j]) != SQLITE_OK) {
				sr_error("sql: cannot bind :%s: %s", name,
					 sqlite3_errmsg(sqlite3_db_handle(st)));
				return EXIT_FAIL;
			}
			done = 1;
		}
		if (!done) {
			sr_error("sql: missing parameter :%s (give -P %s=VALUE)", name, name);
			return EXIT_USAGE;
		}
	}
	for (j = 0; j < nparams; j++) {
		if (!params[j].used) {
			char *names = param_names(st);

			sr_error("sql: unknown parameter '%.*s': the query takes %s",
				 (int)params[j].namelen, params[j].name,
				 names && *names ? names : "no parameters");
			sqlite3_free(names);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* ---- output ---------------------------------------------------------------- */

/*
 * JSON: a statement over ?1..?N (the row's values) and ?N+1..?2N (the
 * column names) that returns the row as one object, quoted by SQLite.
 */
static sqlite3_stmt *json_formatter(sqlite3 *db, int ncols)
{
	sqlite3_str *s = sqlite3_str_new(db);
	sqlite3_stmt *st = NULL;
	char *sql;
	int i;

	sqlite3_str_appendall(s, "SELECT json_object(");
	/* JSON holds no blobs: hex */
	for (i = 1; i <= ncols; i++)
		sqlite3_str_appendf(s, "%s?%d, CASE WHEN typeof(?%d) = 'blob' THEN hex(?%d) "
				    "ELSE ?%d END", i > 1 ? ", " : "", ncols + i, i, i, i);
	sqlite3_str_appendall(s, ")");
	sql = sqlite3_str_finish(s);
	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sr_error("sql: cannot prepare the output: %s", sqlite3_errmsg(db));
		st = NULL;
	}
	sqlite3_free(sql);
	return st;
}

static int step_error(sqlite3_stmt *st)
{
	sr_error("sql: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
	return EXIT_FAIL;
}

/* CSV: the writer every CSV of schedreplay shares (escape.h) */
static int print_csv(sqlite3_stmt *st, int header)
{
	if (!sqlite3_column_count(st))
		return sqlite3_step(st) == SQLITE_DONE ? EXIT_OK : step_error(st);
	if (sr_csv_write(st, stdout, header) < 0)
		return ferror(stdout) ? EXIT_FAIL : step_error(st);
	return EXIT_OK;
}

static int print_json(sqlite3_stmt *st)
{
	int ncols = sqlite3_column_count(st), i, rc, rows = 0;
	sqlite3_stmt *f;
	int ret = EXIT_OK;

	/* a statement without columns (--write): run it, print nothing */
	if (!ncols)
		return sqlite3_step(st) == SQLITE_DONE ? EXIT_OK : step_error(st);
	f = json_formatter(sqlite3_db_handle(st), ncols);
	if (!f)
		return EXIT_FAIL;
	for (i = 0; i < ncols; i++)
		sqlite3_bind_text(f, ncols + i + 1, sqlite3_column_name(st, i), -1,
				  SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncols; i++)
			sqlite3_bind_value(f, i + 1, sqlite3_column_value(st, i));
		if (sqlite3_step(f) != SQLITE_ROW) {
			sr_error("sql: cannot format a row: %s",
				 sqlite3_errmsg(sqlite3_db_handle(f)));
			ret = EXIT_FAIL;
			break;
		}
		fputs(rows ? ",\n  " : "[\n  ", stdout);
		sr_json_fputs((const char *)sqlite3_column_text(f, 0), stdout);
		sqlite3_reset(f);
		rows++;
	}
	if (ret == EXIT_OK && rc != SQLITE_DONE)
		ret = step_error(st);
	if (ret == EXIT_OK)
		fputs(rows ? "\n]\n" : "[]\n", stdout);
	sqlite3_finalize(f);
	return ret;
}

/* a cell of the table: its text as shown (escape.h) */
struct cell {
	char *text;
	int width;
};

static int utf8_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* the rows whose widths set the columns; later rows are printed as they come */
#define TABLE_BLOCK 1000

static void print_cell(const char *t, int w, int width, int numeric, int first, int last)
{
	int pad = width - w;

	if (pad < 0)
		pad = 0;
	if (numeric > 0)
		printf("%s%*s%s", first ? "" : "  ", pad, "", t);
	else
		printf("%s%s%*s", first ? "" : "  ", t, last ? 0 : pad, "");
}

/*
 * The table streams: the first TABLE_BLOCK rows are held to size the
 * columns (and to tell the columns that hold only numbers), then printed,
 * and every later row is printed as soon as SQLite gives it, in those
 * widths (a longer value widens its own row only).  Memory stays at one
 * block whatever the query returns.
 */
static int print_table(sqlite3_stmt *st, int header)
{
	int ncols = sqlite3_column_count(st), i, rc, ret = EXIT_OK;
	size_t nrows = 0, r;
	struct cell *cells;
	int *width, *numeric;	/* numeric: 1 while every value is a number */

	if (!ncols)
		return sqlite3_step(st) == SQLITE_DONE ? EXIT_OK : step_error(st);
	width = calloc((size_t)ncols, sizeof(*width));
	numeric = calloc((size_t)ncols, sizeof(*numeric));
	cells = calloc((size_t)TABLE_BLOCK * (size_t)ncols, sizeof(*cells));
	if (!width || !numeric || !cells) {
		free(width);
		free(numeric);
		free(cells);
		sr_error("sql: out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < ncols; i++) {
		width[i] = header ? utf8_width(sqlite3_column_name(st, i)) : 0;
		numeric[i] = -1;	/* no value yet */
	}
	while (nrows < TABLE_BLOCK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncols; i++) {
			struct cell *c = &cells[nrows * (size_t)ncols + (size_t)i];
			int type = sqlite3_column_type(st, i);

			c->text = sr_escape_dup((const char *)sqlite3_column_text(st, i));
			if (!c->text) {
				ret = EXIT_FAIL;
				break;
			}
			c->width = utf8_width(c->text);
			if (c->width > width[i])
				width[i] = c->width;
			if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
				numeric[i] = numeric[i] != 0;
			else if (type != SQLITE_NULL)
				numeric[i] = 0;
		}
		nrows++;
		if (ret != EXIT_OK)
			break;
	}
	if (ret != EXIT_OK) {
		sr_error("sql: out of memory");
	} else if (nrows < TABLE_BLOCK && rc != SQLITE_DONE) {
		ret = step_error(st);
	} else if (header) {
		for (i = 0; i < ncols; i++) {
			const char *name = sqlite3_column_name(st, i);

			print_cell(name, utf8_width(name), width[i], numeric[i], !i, i + 1 == ncols);
		}
		fputc('\n', stdout);
		for (i = 0; i < ncols; i++) {
			printf("%s", i ? "  " : "");
			for (rc = 0; rc < width[i]; rc++)
				fputc('-', stdout);
		}
		fputc('\n', stdout);
	}
	for (r = 0; r < nrows; r++) {
		for (i = 0; i < ncols; i++) {
			struct cell *c = &cells[r * (size_t)ncols + (size_t)i];

			if (ret == EXIT_OK)
				print_cell(c->text ? c->text : "", c->width, width[i], numeric[i], !i,
					   i + 1 == ncols);
			free(c->text);
		}
		if (ret == EXIT_OK)
			fputc('\n', stdout);
	}
	free(cells);
	/* the rest as it comes */
	if (ret == EXIT_OK && nrows == TABLE_BLOCK) {
		fflush(stdout);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			for (i = 0; i < ncols; i++) {
				const char *v = (const char *)sqlite3_column_text(st, i);
				char buf[256], *e = NULL;
				const char *t;

				if (!v)
					t = "";
				else if (!sr_escape_needed(v))
					t = v;
				else if (strlen(v) * 4 < sizeof(buf))
					t = sr_escape_buf(buf, sizeof(buf), v);
				else
					t = e = sr_escape_dup(v);
				if (!t) {
					ret = EXIT_FAIL;
					sr_error("sql: out of memory");
					break;
				}
				print_cell(t, utf8_width(t), width[i], numeric[i], !i, i + 1 == ncols);
				free(e);
			}
			if (ret != EXIT_OK)
				break;
			fputc('\n', stdout);
		}
		if (ret == EXIT_OK && rc != SQLITE_DONE)
			ret = step_error(st);
	}
	free(width);
	free(numeric);
	return ret;
}

/* ---- the command ------------------------------------------------------------- */

/* --attach NAME=DB: checked like the main database, attached under NAME */
static int attach(sqlite3 *db, const char *arg, int writable)
{
	const char *eq = strchr(arg, '=');
	sqlite3_stmt *st = NULL;
	char *cause = NULL, *sql;
	sqlite3 *other;
	int rc;

	other = sr_db_open(eq + 1, writable, &cause);
	if (!other) {
		sr_error("%s", cause ? cause : "out of memory");
		free(cause);
		return -1;
	}
	sqlite3_close(other);
	sql = sqlite3_mprintf("ATTACH ?1 AS \"%.*w\"", (int)(eq - arg), arg);
	rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, eq + 1, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	if (rc != SQLITE_OK)
		sr_error("sql: cannot attach '%s' as '%.*s': %s", eq + 1, (int)(eq - arg), arg,
			 sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}

/* the SQLite error of a failed prepare, with where in the query it is */
static void prepare_error(sqlite3 *db, const char *what)
{
	int off = sqlite3_error_offset(db);

	if (off >= 0)
		sr_error("sql: %s%s (query offset %d)", what, sqlite3_errmsg(db), off);
	else
		sr_error("sql: %s%s", what, sqlite3_errmsg(db));
}

static const char sql_examples[] =
	"   schedreplay sql --list\n"
	"   schedreplay sql -Q top-tasks -P comm='kworker*' -P limit=5 run.db\n"
	"   schedreplay sql -Q timeline -P ts=32746529931 -r 1 run.db\n"
	"   schedreplay sql -F json run.db \"SELECT kind, count(*) FROM decision GROUP BY kind\"\n";

static const char sql_options[] =
	"   -F, --format FMT     table, csv or json (default: table on a terminal,\n"
	"                        else csv)\n"
	"   -Q, --query NAME     run the canned query NAME instead of QUERY\n"
	"   -P, --param N=V      bind the query's parameter :N to V (repeatable;\n"
	"                        an integer binds as an integer, an empty V as NULL)\n"
	"   -r, --run ID         the same as -P run=ID\n"
	"   -A, --attach N=DB    attach the database DB as schema N (repeatable)\n"
	"   -l, --list           list the canned queries and their parameters\n"
	"       --no-header      no header line (table and csv)\n"
	"   -w, --write          open the database read-write (default: read-only)\n"
	"   -h, --help           show this help\n";

/*
 * A run asked of a canned query (-r ID, -P run=ID) that the database does not
 * hold: say so, as report, tui and export do, rather than print an empty
 * result (an own query's :run may name a run of an attached database).
 * Return: 0 when the run is there (or none was asked for, or the database
 * has no run table), -1 after the message.
 */
static int check_run(sqlite3 *db, const char *file, const struct param *params, int nparams)
{
	sqlite3_stmt *st = NULL;
	long long run = 0, lo = 0, hi = 0, found = 1;
	int i;

	for (i = 0; i < nparams; i++) {
		char *end;

		if (params[i].namelen != 3 || strncmp(params[i].name, "run", 3))
			continue;
		errno = 0;
		run = strtoll(params[i].value, &end, 10);
		if (errno || end == params[i].value || *end)
			run = 0;
	}
	if (run <= 0 || sqlite3_prepare_v2(db, "SELECT count(*) FILTER (WHERE run_id = ?), "
					   "min(run_id), max(run_id) FROM run", -1, &st,
					   NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = sqlite3_column_int64(st, 0);
		lo = sqlite3_column_int64(st, 1);
		hi = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (found)
		return 0;
	if (hi)
		sr_error("sql: '%s' has no run %lld (runs %lld to %lld)", file, run, lo, hi);
	else
		sr_error("sql: '%s' has no run %lld (it holds no run)", file, run);
	return -1;
}

static int sql_exec(int argc, char **argv);

const struct cmd_entry cmd_sql = {
	.name = "sql",
	.synopsis = "[-F table|csv|json] [--no-header] [-w] [-r ID] [-P NAME=VALUE]... [-A NAME=DB]... [-l] DB [QUERY | -Q NAME]",
	.summary = "run one SQL query, or a canned one, on a replay database",
	.options = sql_options,
	.examples = sql_examples,
	.exec = sql_exec,
};

static int sql_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format",	required_argument,	NULL, 'F' },
		{ "query",	required_argument,	NULL, 'Q' },
		{ "param",	required_argument,	NULL, 'P' },
		{ "run",	required_argument,	NULL, 'r' },
		{ "attach",	required_argument,	NULL, 'A' },
		{ "list",	no_argument,		NULL, 'l' },
		{ "no-header",	no_argument,		NULL, 'H' },
		{ "write",	no_argument,		NULL, 'w' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct param params[MAX_PARAMS];
	const char *attached[MAX_PARAMS];
	int nattached = 0, i, npos = 0, nextra = 0, nargs;
	const char *pos[2] = { NULL, NULL };
	int nparams = 0, header = 1, writable = 0, list = 0, opt, ret = EXIT_FAIL;
	enum sql_format fmt = isatty(STDOUT_FILENO) ? FMT_TABLE : FMT_CSV;
	const struct sr_sql_report *report = NULL;
	const char *query_name = NULL, *sql, *tail = NULL;
	struct rheader h;
	sqlite3_stmt *st = NULL, *next = NULL;
	sqlite3 *db;
	char *cause = NULL, what[160] = "";

	optind = 1;
	opterr = 0;
	/*
	 * Options may come before, between or after DB and QUERY, but a query
	 * may begin with a dash (every canned report begins with "-- ..."):
	 * an argument is an option only if it looks like one and is not "--"
	 * followed by a blank; after a lone "--", everything is an argument.
	 */
	for (;;) {
		const char *a = optind < argc ? argv[optind] : NULL;

		if (!a)
			break;
		if (!strcmp(a, "--")) {
			while (++optind < argc && npos < 2)
				pos[npos++] = argv[optind];
			nextra += argc - optind;
			break;
		}
		if (a[0] != '-' || !a[1] || (a[1] == '-' && isspace((unsigned char)a[2]))) {
			if (npos < 2)
				pos[npos++] = a;
			else
				nextra++;
			optind++;
			continue;
		}
		opt = getopt_long(argc, argv, "+F:Q:P:r:A:lwh", longopts, NULL);
		if (opt == -1)
			break;
		switch (opt) {
		case 'F':
			if (!strcmp(optarg, "table")) {
				fmt = FMT_TABLE;
			} else if (!strcmp(optarg, "csv")) {
				fmt = FMT_CSV;
			} else if (!strcmp(optarg, "json")) {
				fmt = FMT_JSON;
			} else {
				sr_error("sql: unknown format '%s' (table, csv or json)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'Q':
			query_name = optarg;
			break;
		case 'P':
		case 'r': {
			const char *eq = opt == 'P' ? strchr(optarg, '=') : NULL;

			if (opt == 'P' && (!eq || eq == optarg)) {
				sr_error("sql: -P takes NAME=VALUE, not '%s'", optarg);
				return EXIT_USAGE;
			}
			if (nparams == MAX_PARAMS) {
				sr_error("sql: at most %d parameters", MAX_PARAMS);
				return EXIT_USAGE;
			}
			params[nparams].name = opt == 'P' ? optarg : "run";
			params[nparams].namelen = opt == 'P' ? (size_t)(eq - optarg) : 3;
			params[nparams].value = opt == 'P' ? eq + 1 : optarg;
			params[nparams].used = 0;
			nparams++;
			break;
		}
		case 'A':
			if (!strchr(optarg, '=') || optarg[0] == '=' || nattached == MAX_PARAMS) {
				sr_error("sql: --attach takes NAME=DB, not '%s'", optarg);
				return EXIT_USAGE;
			}
			attached[nattached++] = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 'H':
			header = 0;
			break;
		case 'w':
			writable = 1;
			break;
		default:
			return cmd_bad_option(&cmd_sql, argv[optind - 1]);
		}
	}
	if (list) {
		list_reports();
		return EXIT_OK;
	}
	nargs = npos + nextra;
	if (nargs != (query_name ? 1 : 2)) {
		if (query_name && nargs == 2)
			sr_error("sql: give a QUERY or --query NAME, not both");
		else if (nargs == 1)
			sr_error("sql: expected a QUERY or --query NAME after the database");
		else
			sr_error("sql: expected DB and a QUERY (or --query NAME), got %d arguments",
				 nargs);
		cmd_usage(&cmd_sql, stderr);
		return EXIT_USAGE;
	}
	if (query_name) {
		report = sr_sql_report_find(query_name);
		if (!report) {
			sr_error("sql: unknown query '%s' (see 'schedreplay sql --list')",
				 query_name);
			return EXIT_USAGE;
		}
		parse_header(report->text, &h);
		sql = report->text;
		snprintf(what, sizeof(what), "query '%s': ", report->name);
	} else {
		sql = pos[1];
	}

	/* "sql QUERY DB": name the order rather than fail to open the query */
	if (!query_name && access(pos[0], F_OK) && !access(pos[1], F_OK)) {
		sr_error("sql: cannot open '%s': no such file; the database comes first "
			 "(schedreplay sql '%s' QUERY)", pos[0], pos[1]);
		return EXIT_USAGE;
	}
	db = sr_db_open(pos[0], writable, &cause);
	if (!db) {
		sr_error("%s", cause ? cause : "out of memory");
		free(cause);
		return EXIT_FAIL;
	}
	/* what --write creates in a schema 3 file may name schema 4's tables */
	if (writable) {
		int up = sr_db_upgrade(db, pos[0], &cause);

		if (up < 0) {
			sr_error("sql: %s", cause ? cause : "out of memory");
			free(cause);
			sqlite3_close(db);
			return EXIT_FAIL;
		}
		if (up)
			cmd_warn_migrated("sql", pos[0], "for --write");
	}
	for (i = 0; i < nattached; i++)
		if (attach(db, attached[i], writable) < 0)
			goto out;
	if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
		prepare_error(db, what);
		goto out;
	}
	if (!st) {
		sr_error("sql: %sthe query is empty", what);
		goto out;
	}
	/* one statement: what follows may only be white space and comments */
	if (sqlite3_prepare_v2(db, tail, -1, &next, NULL) != SQLITE_OK || next) {
		sr_error("sql: %sone statement at a time (a second one starts at query offset %d)",
			 what, (int)(tail - sql) + (int)strspn(tail, " \t\r\n;"));
		goto out;
	}
	if (!writable && !sqlite3_stmt_readonly(st)) {
		sr_error("sql: %sthe statement would change the database, which sql opens "
			 "read-only (see --write)", what);
		goto out;
	}
	ret = bind_params(st, params, nparams, report ? &h : NULL, report ? report->name : NULL);
	if (ret)
		goto out;
	if (report && check_run(db, pos[0], params, nparams)) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (fmt == FMT_TABLE)
		ret = print_table(st, header);
	else if (fmt == FMT_CSV)
		ret = print_csv(st, header);
	else
		ret = print_json(st);
out:
	sqlite3_finalize(next);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
