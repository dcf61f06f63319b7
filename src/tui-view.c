// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI's data and views.  A struct tui holds one database, the run shown,
 * the list's filter, sort and a window of rows around the screen (never the
 * whole list: a run may have millions of decisions), and renders the list,
 * the detail of one decision, the run summary, the help and the SQL of the
 * list into a grid.  Nothing here knows about the terminal.
 */
#include "tui-local.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "escape.h"
#include "schedreplay/fidelity.h"
#include "schedreplay/patch.h"
#include "banned.h"

/* the sides whose reasons a detail shows (a run has at most SR_MAX_MODELS) */
#define SR_SIDES_SHOWN 32

#define WINDOW_MARGIN	128	/* rows fetched either side of the one asked for */

static void set_error(struct tui *t, const char *what)
{
	snprintf(t->notice, sizeof(t->notice), "database error: %s: %s", what,
		 sqlite3_errmsg(t->db));
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return strdup(s ? s : "");
}

/* a text from the trace (a comm, the kernel string), escaped for the screen */
static char *col_dup_shown(sqlite3_stmt *st, int i)
{
	char *s = sr_escape_dup((const char *)sqlite3_column_text(st, i));

	return s ? s : strdup("");
}

static void col_copy(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	sr_escape_buf(dst, len, (const char *)sqlite3_column_text(st, i));
}

static int col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}

static long long query_ll(sqlite3 *db, const char *sql, long long arg, long long def)
{
	sqlite3_stmt *st = NULL;
	long long v = def;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, arg);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			v = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

static void free_window(struct tui *t)
{
	long i;

	for (i = 0; i < t->win_n; i++) {
		free(t->win[i].patch);
		free(t->win[i].reason[0]);
		free(t->win[i].reason[1]);
		free(t->win[i].model);
	}
	free(t->win);
	t->win = NULL;
	t->win_n = t->win_off = 0;
}

static void free_run_data(struct tui *t)
{
	int i;

	for (i = 0; i < TUI_MAX_BASE; i++) {
		free(t->base_names[i]);
		t->base_names[i] = NULL;
	}
	for (i = 0; i < t->npatches; i++)
		free(t->patch_names[i]);
	free(t->patch_names);
	t->patch_names = NULL;
	t->npatches = 0;
	free(t->cpu_llc);
	free(t->cpu_node);
	free(t->cpu_core);
	free(t->cpu_cap);
	t->cpu_llc = t->cpu_node = t->cpu_core = t->cpu_cap = NULL;
	t->ncpu = 0;
	t->slice_lo = t->slice_hi = t->slice_maxdelay = -1;
	free_window(t);
	t->page_valid = 0;
}

int tui_open(struct tui *t, sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	memset(t, 0, sizeof(*t));
	t->db = db;
	t->path = path;
	t->count = -1;
	t->detail_id = -1;
	t->detail_window = 500000;
	t->has_inputs = -1;
	t->slice_lo = t->slice_hi = t->slice_maxdelay = -1;
	tui_filter_init(&t->filter);
	if (sqlite3_prepare_v2(db, tui_q(TUI_Q_RUNS), -1, &st, NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot read '%s': %s", path, sqlite3_errmsg(db));
		return -1;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct tui_run *r = realloc(t->runs, (size_t)(n + 1) * sizeof(*r));

		if (!r)
			break;
		t->runs = r;
		r = &t->runs[n++];
		r->run_id = (long)sqlite3_column_int64(st, 0);
		r->trace = col_dup_shown(st, 1);
		r->kernel = col_dup_shown(st, 2);
		r->models = col_dup(st, 3);
		r->patches = col_dup(st, 4);
		r->first_ts = sqlite3_column_int64(st, 5);
		r->last_ts = sqlite3_column_int64(st, 6);
		r->decisions = sqlite3_column_int64(st, 7);
		r->events = sqlite3_column_int64(st, 8);
		r->migrations = sqlite3_column_int64(st, 9);
		r->lost = sqlite3_column_int64(st, 10);
		r->ncpus = sqlite3_column_int(st, 11);
	}
	sqlite3_finalize(st);
	t->nruns = n;
	if (!n) {
		sr_cause_set(cause, "'%s' holds no replay run: replay a trace into it first", path);
		return -1;
	}
	t->sort = TUI_COL_TIME;
	if (tui_select_run(t, 0))
		snprintf(t->notice, sizeof(t->notice), "cannot read run %ld", t->runs[0].run_id);
	return 0;
}

void tui_release(struct tui *t)
{
	int i;

	free_run_data(t);
	for (i = 0; i < t->nruns; i++) {
		free(t->runs[i].trace);
		free(t->runs[i].kernel);
		free(t->runs[i].models);
		free(t->runs[i].patches);
	}
	free(t->runs);
	free(t->search);
	free(t->detail_patch);
	free(t->detail_model);
	free(t->pending);
	tui_filter_release(&t->filter);
	tui_grid_release(&t->page);
	free(t->error);
	memset(t, 0, sizeof(*t));
}

static void reset_list(struct tui *t)
{
	free_window(t);
	t->count = -1;
	t->sel = t->top = 0;
	t->page_valid = 0;
}

int tui_select_run(struct tui *t, int i)
{
	sqlite3_stmt *st = NULL;
	struct tui_run *r;
	int n = 0, maxcpu = -1;

	if (i < 0 || i >= t->nruns)
		return -1;
	free_run_data(t);
	t->cur = i;
	r = &t->runs[i];
	memset(&t->scope, 0, sizeof(t->scope));
	t->scope.run_id = r->run_id;
	t->scope.first_ts = r->first_ts;
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_BASE_MODELS), -1, &st, NULL) != SQLITE_OK)
		goto db;
	sqlite3_bind_int64(st, 1, r->run_id);
	while (sqlite3_step(st) == SQLITE_ROW && n < TUI_MAX_BASE) {
		t->base_names[n] = col_dup(st, 0);
		t->scope.base[n] = t->base_names[n];
		n++;
	}
	sqlite3_finalize(st);
	t->scope.nbase = n;
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_PATCHES), -1, &st, NULL)
	    != SQLITE_OK)
		goto db;
	sqlite3_bind_int64(st, 1, r->run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **p = realloc(t->patch_names, (size_t)(t->npatches + 1) * sizeof(*p));

		if (!p)
			break;
		t->patch_names = p;
		p[t->npatches++] = col_dup(st, 0);
	}
	sqlite3_finalize(st);
	t->scope.patch = t->npatches ? t->patch_names[0] : NULL;
	maxcpu = (int)query_ll(t->db, tui_q(TUI_Q_MAX_CPU), r->run_id, -1);
	t->ncpu = maxcpu + 1;
	if (t->ncpu > 0) {
		t->cpu_llc = malloc((size_t)t->ncpu * sizeof(int));
		t->cpu_node = malloc((size_t)t->ncpu * sizeof(int));
		t->cpu_core = malloc((size_t)t->ncpu * sizeof(int));
		t->cpu_cap = malloc((size_t)t->ncpu * sizeof(int));
		if (!t->cpu_llc || !t->cpu_node || !t->cpu_core || !t->cpu_cap) {
			t->ncpu = 0;
			return -1;
		}
		for (n = 0; n < t->ncpu; n++) {
			t->cpu_llc[n] = t->cpu_node[n] = t->cpu_core[n] = -1;
			t->cpu_cap[n] = 1024;
		}
		if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_CPUS), -1, &st, NULL) != SQLITE_OK)
			goto db;
		sqlite3_bind_int64(st, 1, r->run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int c = sqlite3_column_int(st, 0);

			if (c < 0 || c >= t->ncpu)
				continue;
			t->cpu_core[c] = col_int(st, 1);
			t->cpu_llc[c] = col_int(st, 2);
			t->cpu_node[c] = col_int(st, 3);
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				t->cpu_cap[c] = col_int(st, 4);
		}
		sqlite3_finalize(st);
	}
	t->ndivergent = (long)query_ll(t->db, tui_q(TUI_Q_NDIVERGENT), r->run_id, 0);
	if (!t->ndivergent) {
		t->mode = TUI_ALL;
		snprintf(t->notice, sizeof(t->notice), "no divergent decisions in run %ld: showing "
			 "every decision", r->run_id);
	} else {
		t->mode = TUI_DIVERGENT;
	}
	reset_list(t);
	return 0;
db:
	sqlite3_finalize(st);
	set_error(t, "reading the run");
	return -1;
}

/*
 * Long queries (a count, a search, an export) tell the front end first, so
 * that the screen says what it is doing, and poll it while SQLite works, so
 * that a key can cancel them (SQLITE_INTERRUPT).  Without hooks (--dump)
 * they just run.
 */
static int on_progress(void *arg)
{
	struct tui *t = arg;

	/* a quiet query that turns out long says so now */
	if (t->busy_later && t->show_busy) {
		t->show_busy(t, t->busy_later);
		t->busy_later = NULL;
	}
	if (t->poll_cancel && t->poll_cancel(t)) {
		t->cancelled = 1;
		return 1;
	}
	return 0;
}

void tui_work_begin(struct tui *t, const char *what)
{
	t->cancelled = 0;
	t->busy_later = NULL;
	if (t->show_busy)
		t->show_busy(t, what);
	if (t->poll_cancel)
		sqlite3_progress_handler(t->db, 20000, on_progress, t);
}

/* the same for a query that is mostly quick: @what is shown once it runs long */
static void work_begin_quiet(struct tui *t, const char *what)
{
	t->cancelled = 0;
	t->busy_later = what;
	if (t->poll_cancel)
		sqlite3_progress_handler(t->db, 20000, on_progress, t);
}

void tui_work_end(struct tui *t)
{
	t->busy_later = NULL;
	if (t->poll_cancel)
		sqlite3_progress_handler(t->db, 0, NULL, NULL);
}

int tui_set_filter(struct tui *t, const char *expr)
{
	struct tui_filter old = t->filter, nf;
	long old_count = t->count;
	char *cause = NULL;

	tui_filter_init(&nf);
	if (tui_filter_parse(expr, &nf, &cause)) {
		snprintf(t->notice, sizeof(t->notice), "%s", cause ? cause : "bad filter");
		free(cause);
		return -1;
	}
	/* counted now, so that a cancelled count leaves the list as it was */
	t->filter = nf;
	reset_list(t);
	tui_refresh_count(t);
	if (t->cancelled) {
		tui_filter_release(&t->filter);
		t->filter = old;
		t->count = old_count;
		snprintf(t->notice, sizeof(t->notice), "filter cancelled: the list is as it was");
		return -1;
	}
	tui_filter_release(&old);
	return 0;
}

void tui_set_mode(struct tui *t, enum tui_mode m)
{
	enum tui_mode old = t->mode;
	long old_count = t->count;

	t->mode = m;
	reset_list(t);
	tui_refresh_count(t);
	if (t->cancelled) {
		t->mode = old;
		t->count = old_count;
		snprintf(t->notice, sizeof(t->notice), "cancelled: the list is as it was");
	}
}

void tui_set_sort(struct tui *t, enum tui_col c, int desc)
{
	long count = t->count;

	t->sort = c;
	t->desc = desc;
	reset_list(t);
	t->count = count;	/* the same rows in another order */
}

static void current_query(struct tui *t, struct tui_query *q)
{
	q->mode = t->mode;
	q->filter = &t->filter;
	q->sort = t->sort;
	q->desc = t->desc;
}

void tui_refresh_count(struct tui *t)
{
	struct tui_query q;
	struct tui_sql s;
	sqlite3_stmt *st;
	char *cause = NULL;

	if (t->count >= 0)
		return;
	current_query(t, &q);
	if (tui_sql_count(&s, &t->scope, &q))
		return;
	tui_work_begin(t, "counting...  (Esc cancels)");
	st = tui_sql_prepare(t->db, &s, &cause);
	if (st && sqlite3_step(st) == SQLITE_ROW)
		t->count = (long)sqlite3_column_int64(st, 0);
	else if (t->cancelled)
		snprintf(t->notice, sizeof(t->notice), "counting cancelled: f to change the filter");
	else
		set_error(t, "counting rows");
	sqlite3_finalize(st);
	tui_work_end(t);
	free(cause);
	tui_sql_release(&s);
	if (t->count < 0)
		t->count = 0;
}

static void read_row(struct tui *t, sqlite3_stmt *st, struct tui_row *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->id = (long)sqlite3_column_int64(st, TUI_R_ID);
	r->ts = sqlite3_column_int64(st, TUI_R_TS);
	r->tid = col_int(st, TUI_R_TID);
	col_copy(st, TUI_R_COMM, r->comm, sizeof(r->comm));
	col_copy(st, TUI_R_KIND, r->kind, sizeof(r->kind));
	for (i = 0; i < 5; i++)
		r->cpu[i] = col_int(st, TUI_R_THIS + i);
	r->patch = col_dup(st, TUI_R_PATCH);
	r->reason[0] = col_dup(st, TUI_R_REASON_O);
	for (i = 0; i < TUI_MAX_BASE; i++)
		r->base[i] = -1;
	if (t->mode == TUI_DIVERGENT) {
		r->reason[1] = col_dup(st, TUI_R_REASON_P);
		r->model = col_dup(st, TUI_R_MODEL);
		r->miss = sqlite3_column_type(st, TUI_R_BASE_CPU) != SQLITE_NULL &&
			  col_int(st, TUI_R_BASE_CPU) != r->cpu[2];
		return;
	}
	r->reason[1] = strdup("");
	r->model = strdup(t->scope.nbase ? t->scope.base[0] : "");
	for (i = 0; i < t->scope.nbase && TUI_R_BASE0 + i < sqlite3_column_count(st); i++)
		r->base[i] = col_int(st, TUI_R_BASE0 + i);
	/* a skipped decision (no evaluation) is no miss */
	r->miss = sqlite3_column_type(st, TUI_R_BASE0) != SQLITE_NULL && r->base[0] != r->cpu[2];
}

/* fetch rows [off, off + n), from the far end in reverse when that is nearer */
static int fetch_window(struct tui *t, long off, long n)
{
	struct tui_query q;
	struct tui_sql s;
	sqlite3_stmt *st;
	struct tui_row *rows;
	long got = 0, qoff = off;
	int reverse = 0;
	char *cause = NULL;

	free_window(t);
	if (off + n > t->count)
		n = t->count - off;
	if (n <= 0)
		return 0;
	current_query(t, &q);
	/* OFFSET walks the rows it skips: near the end, walk from the end */
	if (off > t->count / 2) {
		reverse = 1;
		q.desc = !q.desc;
		qoff = t->count - off - n;
	}
	rows = calloc((size_t)n, sizeof(*rows));
	if (!rows || tui_sql_rows(&s, &t->scope, &q, n, qoff)) {
		free(rows);
		return -1;
	}
	st = tui_sql_prepare(t->db, &s, &cause);
	tui_sql_release(&s);
	free(cause);
	if (!st) {
		free(rows);
		set_error(t, "reading rows");
		return -1;
	}
	work_begin_quiet(t, "reading rows...  (Esc cancels)");
	while (got < n && sqlite3_step(st) == SQLITE_ROW) {
		read_row(t, st, &rows[reverse ? n - 1 - got : got]);
		got++;
	}
	sqlite3_finalize(st);
	tui_work_end(t);
	if (t->cancelled)
		snprintf(t->notice, sizeof(t->notice), "reading rows cancelled: f to change the "
			 "filter, s the sort");
	if (reverse && got < n) {
		/* the count was stale: keep what came, in order */
		memmove(rows, rows + (n - got), (size_t)got * sizeof(*rows));
	}
	t->win = rows;
	t->win_off = off;
	t->win_n = got;
	return 0;
}

const struct tui_row *tui_row_at(struct tui *t, long pos)
{
	tui_refresh_count(t);
	if (pos < 0 || pos >= t->count)
		return NULL;
	if (pos < t->win_off || pos >= t->win_off + t->win_n) {
		long off = pos > WINDOW_MARGIN ? pos - WINDOW_MARGIN : 0;

		if (fetch_window(t, off, 2 * WINDOW_MARGIN + 64))
			return NULL;
		if (pos < t->win_off || pos >= t->win_off + t->win_n)
			return NULL;
	}
	return &t->win[pos - t->win_off];
}

int tui_current_sql(struct tui *t, struct tui_sql *out, long limit, long offset)
{
	struct tui_query q;

	current_query(t, &q);
	return tui_sql_rows(out, &t->scope, &q, limit, offset);
}

char *tui_default_csv_name(struct tui *t)
{
	char *s = NULL;

	if (asprintf(&s, "schedreplay-run%ld-%s.csv", t->scope.run_id,
		     t->mode == TUI_ALL ? "decisions" : "divergent") < 0)
		return NULL;
	return s;
}

FILE *tui_create(const char *file, int overwrite, char **cause)
{
	/* "x": O_EXCL, so that nothing between the check and the write is lost */
	FILE *f = fopen(file, overwrite ? "w" : "wx");

	if (!f && errno == EEXIST)
		sr_cause_set(cause, "'%s' exists: not overwritten", file);
	else if (!f)
		sr_cause_set(cause, "cannot create '%s': %s", file, strerror(errno));
	return f;
}

long tui_export_csv(struct tui *t, const char *file, int overwrite, char **cause)
{
	struct tui_sql s;
	sqlite3_stmt *st;
	FILE *out;
	long n;
	int err;

	if (tui_current_sql(t, &s, -1, 0)) {
		sr_cause_set(cause, "out of memory");
		return -1;
	}
	st = tui_sql_prepare(t->db, &s, cause);
	tui_sql_release(&s);
	if (!st)
		return -1;
	out = file ? tui_create(file, overwrite, cause) : stdout;
	if (!out) {
		err = errno;
		sqlite3_finalize(st);
		return err == EEXIST ? -2 : -1;
	}
	tui_work_begin(t, "exporting...  (Esc cancels)");
	n = sr_csv_write(st, out, 1);
	tui_work_end(t);
	if (n < 0 && t->cancelled)
		sr_cause_set(cause, "export cancelled%s%s%s", file ? ": '" : "", file ? file : "",
			     file ? "' removed" : "");
	else if (n < 0 && !ferror(out))
		sr_cause_set(cause, "cannot read the rows: %s", sqlite3_errmsg(t->db));
	sqlite3_finalize(st);
	if (file && fclose(out) && n >= 0) {
		sr_cause_set(cause, "cannot write '%s': %s", file, strerror(errno));
		n = -1;
	}
	if (n < 0 && file && !t->cancelled && cause && !*cause)
		sr_cause_set(cause, "cannot write '%s'", file);
	/* a cancelled or failed export leaves no half file behind */
	if (n < 0 && file)
		unlink(file);
	return n;
}

/* ---- drawing helpers ------------------------------------------------------ */

static void fmt_secs(char *buf, size_t len, const struct tui *t, long long ts)
{
	long long d = ts - t->scope.first_ts;
	const char *sign = d < 0 ? "-" : "";

	if (d < 0)
		d = -d;
	snprintf(buf, len, "%s%lld.%06lld", sign, d / 1000000000LL, (d % 1000000000LL) / 1000);
}

/* '*' the CPU is on another node than prev_cpu, '+' in another LLC */
static char cross_mark(const struct tui *t, int cpu, int prev)
{
	if (cpu < 0 || prev < 0 || cpu >= t->ncpu || prev >= t->ncpu)
		return ' ';
	if (t->cpu_node[cpu] != t->cpu_node[prev])
		return '*';
	if (t->cpu_llc[cpu] != t->cpu_llc[prev])
		return '+';
	return ' ';
}

/*
 * A kind in few columns, when the list is short of room: the load-balance
 * kinds' abbreviations (names of replay's kinds, see the help's list).
 */
static const char *kind_short(const char *kind)
{
	static const struct {
		const char *kind, *s;
	} k[] = {
		{ "balance_periodic", "lbper" }, { "balance_newidle", "lbnew" },
		{ "balance_nohz", "lbnhz" }, { "newidle", "idle" },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(kind, k[i].kind))
			return k[i].s;
	return kind;
}

/* a CPU right-aligned in @w columns, its cross mark in the gap after it */
static void put_cpu(struct tui_grid *g, int row, int col, int w, const struct tui *t, int cpu,
		    int prev, int mark, unsigned attr)
{
	char buf[32];

	/* a column is never wider than a CPU number needs */
	w = w < 0 ? 0 : w > 12 ? 12 : w;
	if (cpu < 0)
		snprintf(buf, sizeof(buf), "%*s ", w, "-");
	else
		snprintf(buf, sizeof(buf), "%*d%c", w, cpu, mark ? cross_mark(t, cpu, prev) : ' ');
	tui_grid_put(g, row, col, buf, attr, TUI_C_DEFAULT);
}

/* @s in @w columns: cut with a '~' at the end when it is longer */
static void put_cut(struct tui_grid *g, int row, int col, int w, const char *s, unsigned attr,
		    unsigned color)
{
	char buf[512];
	size_t n = strlen(s);

	if (w <= 0)
		return;
	if (n <= (size_t)w || w < 2) {
		tui_grid_printf(g, row, col, attr, color, "%-*.*s", w, w, s);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s~", w - 1, s);
	tui_grid_put(g, row, col, buf, attr, color);
}

static int contains_ci(const char *hay, const char *needle)
{
	return hay && needle && *needle && strcasestr(hay, needle);
}

static void title(struct tui *t, struct tui_grid *g, const char *what)
{
	const char *base = strrchr(t->path, '/');

	tui_grid_printf(g, 0, 0, TUI_A_REVERSE | TUI_A_BOLD, TUI_C_DEFAULT,
			" schedreplay tui  %s  run %ld (%d/%d)  %s", base ? base + 1 : t->path,
			t->scope.run_id, t->cur + 1, t->nruns, what);
	tui_grid_attr(g, 0, 0, -1, TUI_A_REVERSE | TUI_A_BOLD, 0);
}

static void status(struct tui *t, struct tui_grid *g, const char *right)
{
	int row = g->rows - 1;
	static const char *const label[] = { ['f'] = "filter: ", ['/'] = "search: ",
					     ['w'] = "export CSV to: ",
					     ['#'] = "go to (#id, ts NS or seconds): " };

	if (t->prompt == 'y') {
		tui_grid_printf(g, row, 0, TUI_A_BOLD, TUI_C_YELLOW, "'%s' exists: overwrite it? "
				"(y/n) ", t->pending ? t->pending : "");
		return;
	}
	if (t->prompt) {
		int n = tui_grid_put(g, row, 0, label[t->prompt], TUI_A_BOLD, TUI_C_DEFAULT);
		int over = (int)t->input_len + n + 1 - g->cols;

		tui_grid_put(g, row, n, t->input + (over > 0 ? over : 0), 0, TUI_C_DEFAULT);
		return;
	}
	if (t->notice[0]) {
		tui_grid_put(g, row, 0, t->notice, TUI_A_BOLD, TUI_C_YELLOW);
		return;
	}
	tui_grid_put(g, row, 0, right, TUI_A_REVERSE, TUI_C_DEFAULT);
	tui_grid_attr(g, row, 0, -1, TUI_A_REVERSE, 0);
}

void tui_status_put(struct tui_grid *g, const char *text)
{
	int row = g->rows - 1, c;

	for (c = 0; c < g->cols; c++)
		tui_grid_put(g, row, c, " ", 0, 0);
	tui_grid_put(g, row, 0, text, TUI_A_BOLD, TUI_C_YELLOW);
}

/* ---- the list ------------------------------------------------------------- */

/*
 * The list's columns.  Each has a natural width (its header, or the widest
 * value among the rows read around the screen); when the screen is too
 * narrow for all of them, the least important give way first: the reason
 * (it takes what is left, and goes when that is little), the patch name,
 * the kind (abbreviated), the task, the model names; past that the line is
 * clipped at the edge.  A CPU column's cross mark sits in the gap after it.
 */
enum lcol {
	LC_TIME, LC_TASK, LC_KIND, LC_MODEL, LC_THIS, LC_PREV, LC_ACT,
	LC_BASE, LC_ORIG = LC_BASE + TUI_MAX_BASE, LC_NEW, LC_PATCH, LC_REASON, LC__COUNT
};

struct list_layout {
	int x[LC__COUNT], w[LC__COUNT];		/* w 0: not shown */
	int short_kind;				/* kinds abbreviated */
};

static int digits(long long v)
{
	int n = 1;

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

/* shrink column @c towards @min by at most @excess; Return: what is left to take */
static int give_way(struct list_layout *l, enum lcol c, int min, int excess)
{
	int take = l->w[c] - min;

	if (excess <= 0 || take <= 0)
		return excess;
	if (take > excess)
		take = excess;
	l->w[c] -= take;
	return excess - take;
}

static void layout(const struct tui *t, int cols, struct list_layout *l)
{
	const struct tui_run *run = &t->runs[t->cur];
	int nbase = t->scope.nbase ? t->scope.nbase : 1, all = t->mode == TUI_ALL;
	int cpu_w = digits(t->ncpu > 0 ? t->ncpu - 1 : 0), i, x, excess, kind_w = 4, short_w = 5;
	char buf[32];
	long j;

	memset(l, 0, sizeof(*l));
	if (cpu_w < 4)
		cpu_w = 4;
	fmt_secs(buf, sizeof(buf), t, run->last_ts);
	l->w[LC_TIME] = (int)strlen(buf) > 8 ? (int)strlen(buf) : 8;
	l->w[LC_TASK] = 10;			/* "task/pid" and two sort arrows */
	l->w[LC_KIND] = 5;
	l->w[LC_PATCH] = all ? 9 : 6;		/* "diverged" or "patch", and an arrow */
	/* the rows read around the screen give the text columns their width */
	for (j = 0; j < t->win_n; j++) {
		const struct tui_row *r = &t->win[j];
		int n = (int)strlen(r->comm) + 1 + digits(r->tid < 0 ? 0 : r->tid);

		if (n > l->w[LC_TASK])
			l->w[LC_TASK] = n;
		n = (int)strlen(r->kind);
		if (n > kind_w)
			kind_w = n;
		n = (int)strlen(kind_short(r->kind));
		if (n > short_w)
			short_w = n;
		n = r->patch ? (int)strlen(r->patch) : 0;
		if (n > l->w[LC_PATCH])
			l->w[LC_PATCH] = n;
	}
	if (l->w[LC_TASK] > 40)
		l->w[LC_TASK] = 40;
	if (kind_w > l->w[LC_KIND])
		l->w[LC_KIND] = kind_w;
	/* the model of a divergent row, when the run has more than one */
	if (!all && t->scope.nbase > 1)
		for (i = 0; i < t->scope.nbase; i++)
			if ((int)strlen(t->scope.base[i]) > l->w[LC_MODEL])
				l->w[LC_MODEL] = (int)strlen(t->scope.base[i]);
	if (l->w[LC_MODEL] && l->w[LC_MODEL] < 5)
		l->w[LC_MODEL] = 5;
	l->w[LC_THIS] = l->w[LC_PREV] = l->w[LC_ACT] = cpu_w;
	for (i = 0; all && i < nbase; i++) {
		int n = t->scope.nbase ? (int)strlen(t->scope.base[i]) : 4;

		l->w[LC_BASE + i] = (n > cpu_w ? n : cpu_w) + (i == 0);	/* a sort arrow */
	}
	/* a list of every decision of a run without patch pairs has no sides */
	if (!all || t->npatches) {
		l->w[LC_ORIG] = l->w[LC_NEW] = cpu_w;
	} else {
		l->w[LC_PATCH] = 0;
	}

	for (x = 0, i = 0; i < LC_REASON; i++)
		x += l->w[i] ? l->w[i] + 1 : 0;
	excess = x - cols;
	if (excess > 0 && l->w[LC_PATCH])
		excess = give_way(l, LC_PATCH, 8, excess);
	if (excess > 0 && l->w[LC_KIND] > short_w) {
		l->short_kind = 1;
		excess = give_way(l, LC_KIND, short_w, excess);
	}
	excess = give_way(l, LC_TASK, 12, excess);
	if (l->w[LC_MODEL])
		excess = give_way(l, LC_MODEL, 5, excess);
	for (i = 0; all && i < nbase; i++)
		excess = give_way(l, LC_BASE + i, cpu_w, excess);
	(void)excess;		/* what is still too wide is clipped at the edge */

	for (x = 0, i = 0; i < LC_REASON; i++) {
		l->x[i] = x;
		x += l->w[i] ? l->w[i] + 1 : 0;
	}
	/* the reason takes the rest, when the rest is worth it */
	l->x[LC_REASON] = x;
	l->w[LC_REASON] = cols - x >= 16 ? cols - x : 0;
}

static const char *sort_arrow(const struct tui *t, enum tui_col c)
{
	return t->sort == c ? (t->desc ? "v" : "^") : "";
}

static void list_header(struct tui *t, struct tui_grid *g, int row, const struct list_layout *l)
{
	const unsigned a = TUI_A_UNDERLINE | TUI_A_BOLD;
	char buf[96];
	int i;

	tui_grid_attr(g, row, 0, -1, a, 0);
	/* numbers are right-aligned under a right-aligned heading */
#define RIGHT(c, name, sort)							\
	do {									\
		snprintf(buf, sizeof(buf), "%s%s", (name), sort_arrow(t, (sort)));	\
		/* a sort arrow may take the gap after the column */	\
		if ((int)strlen(buf) > l->w[c] + 1)				\
			put_cut(g, row, l->x[c], l->w[c], buf, a, 0);		\
		else								\
			tui_grid_printf(g, row, l->x[c], a, 0, "%*s", l->w[c], buf); \
	} while (0)
#define LEFT(c, name, sort)							\
	do {									\
		snprintf(buf, sizeof(buf), "%s%s", (name), sort_arrow(t, (sort)));	\
		put_cut(g, row, l->x[c], l->w[c], buf, a, 0);			\
	} while (0)
	RIGHT(LC_TIME, "time(s)", TUI_COL_TIME);
	snprintf(buf, sizeof(buf), "task/pid%s%s", sort_arrow(t, TUI_COL_TASK),
		 sort_arrow(t, TUI_COL_PID));
	put_cut(g, row, l->x[LC_TASK], l->w[LC_TASK], buf, a, 0);
	LEFT(LC_KIND, "kind", TUI_COL_KIND);
	if (l->w[LC_MODEL])
		put_cut(g, row, l->x[LC_MODEL], l->w[LC_MODEL], "model", a, 0);
	RIGHT(LC_THIS, "this", TUI_COL_THIS);
	RIGHT(LC_PREV, "prev", TUI_COL_PREV);
	RIGHT(LC_ACT, "act", TUI_COL_ACTUAL);
	for (i = 0; i < TUI_MAX_BASE; i++)
		if (l->w[LC_BASE + i])
			RIGHT(LC_BASE + i, t->scope.nbase ? t->scope.base[i] : "base",
			      i ? TUI_COL__COUNT : TUI_COL_BASE);
	if (l->w[LC_ORIG]) {
		RIGHT(LC_ORIG, "orig", TUI_COL_ORIGINAL);
		RIGHT(LC_NEW, "new", TUI_COL_PATCHED);
	}
	if (l->w[LC_PATCH])
		LEFT(LC_PATCH, t->mode == TUI_ALL ? "diverged" : "patch", TUI_COL_PATCH);
	if (l->w[LC_REASON])
		put_cut(g, row, l->x[LC_REASON], l->w[LC_REASON], t->mode == TUI_ALL ?
			"base model's reason" : "patched side's reason", a, 0);
#undef RIGHT
#undef LEFT
}

static void list_row(struct tui *t, struct tui_grid *g, int row, const struct list_layout *l,
		     const struct tui_row *r, int selected)
{
	char buf[128];
	int i, prev = r->cpu[1], match;
	unsigned a = selected ? TUI_A_REVERSE : 0;

	fmt_secs(buf, sizeof(buf), t, r->ts);
	tui_grid_printf(g, row, l->x[LC_TIME], a, 0, "%*s", l->w[LC_TIME], buf);
	snprintf(buf, sizeof(buf), "%s/%d", r->comm, r->tid);
	match = t->search && (contains_ci(r->comm, t->search) ||
			      contains_ci(r->reason[0], t->search) ||
			      contains_ci(r->reason[1], t->search));
	put_cut(g, row, l->x[LC_TASK], l->w[LC_TASK], buf, a | (match ? TUI_A_BOLD : 0),
		match ? TUI_C_YELLOW : 0);
	put_cut(g, row, l->x[LC_KIND], l->w[LC_KIND], l->short_kind ? kind_short(r->kind) : r->kind,
		a, 0);
	if (l->w[LC_MODEL])
		put_cut(g, row, l->x[LC_MODEL], l->w[LC_MODEL], r->model ? r->model : "", a, 0);
	put_cpu(g, row, l->x[LC_THIS], l->w[LC_THIS], t, r->cpu[0], prev, 0, a);
	put_cpu(g, row, l->x[LC_PREV], l->w[LC_PREV], t, r->cpu[1], prev, 0, a);
	put_cpu(g, row, l->x[LC_ACT], l->w[LC_ACT], t, r->cpu[2], prev, 1, a);
	for (i = 0; i < TUI_MAX_BASE; i++)
		if (l->w[LC_BASE + i])
			put_cpu(g, row, l->x[LC_BASE + i], l->w[LC_BASE + i], t, r->base[i], prev, 1,
				a);
	if (l->w[LC_ORIG]) {
		put_cpu(g, row, l->x[LC_ORIG], l->w[LC_ORIG], t, r->cpu[3], prev, 1, a);
		put_cpu(g, row, l->x[LC_NEW], l->w[LC_NEW], t, r->cpu[4], prev, 1, a);
	}
	if (l->w[LC_PATCH])
		put_cut(g, row, l->x[LC_PATCH], l->w[LC_PATCH], r->patch ? r->patch : "", a,
			t->mode == TUI_ALL && r->patch && r->patch[0] ? TUI_C_RED : 0);
	if (l->w[LC_REASON])
		tui_grid_put(g, row, l->x[LC_REASON], t->mode == TUI_ALL ? r->reason[0] :
			     r->reason[1], a, 0);
	if (selected)
		tui_grid_attr(g, row, 0, -1, TUI_A_REVERSE, 0);
	if (l->w[LC_ORIG] && r->cpu[3] >= 0 && r->cpu[4] >= 0 && r->cpu[3] != r->cpu[4])
		tui_grid_attr(g, row, l->x[LC_ORIG], l->x[LC_NEW] + l->w[LC_NEW] + 1 - l->x[LC_ORIG],
			      TUI_A_BOLD, TUI_C_MAGENTA);
	/* a miss: the kernel's CPU in red, and each base model's that is not it */
	if (r->miss)
		tui_grid_attr(g, row, l->x[LC_ACT], l->w[LC_ACT], TUI_A_BOLD, TUI_C_RED);
	for (i = 0; i < TUI_MAX_BASE; i++)
		if (l->w[LC_BASE + i] && r->base[i] >= 0 && r->base[i] != r->cpu[2])
			tui_grid_attr(g, row, l->x[LC_BASE + i], l->w[LC_BASE + i], TUI_A_BOLD,
				      TUI_C_RED);
}

int tui_list_rows(int screen_rows);
int tui_list_rows(int screen_rows)
{
	return screen_rows > 4 ? screen_rows - 4 : 1;
}

static void render_list(struct tui *t, struct tui_grid *g)
{
	struct list_layout l;
	char *fs, buf[256];
	int h = tui_list_rows(g->rows), i;

	tui_refresh_count(t);
	title(t, g, t->mode == TUI_ALL ? "every decision" : "divergent decisions");
	fs = tui_filter_format(&t->filter);
	if (t->mode == TUI_ALL && t->scope.patch)
		snprintf(buf, sizeof(buf), "filter: %s   orig/new: %s", fs && *fs ? fs : "none",
			 t->filter.patch ? t->filter.patch : t->scope.patch);
	else
		snprintf(buf, sizeof(buf), "filter: %s", fs && *fs ? fs : "none");
	free(fs);
	tui_grid_put(g, 1, 0, buf, 0, TUI_C_CYAN);
	if (t->sel >= t->count)
		t->sel = t->count ? t->count - 1 : 0;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top < 0)
		t->top = 0;
	/* the rows around the screen first: their widths lay the columns out */
	t->cancelled = 0;
	tui_row_at(t, t->top);
	if (!t->cancelled && t->top + h - 1 < t->count)
		tui_row_at(t, t->top + h - 1);
	layout(t, g->cols, &l);
	list_header(t, g, 2, &l);
	if (!t->count) {
		tui_grid_put(g, 4, 2, t->mode == TUI_ALL ?
			     (t->filter.patch || t->filter.kind || t->filter.comm ||
			      t->filter.pid >= 0 || t->filter.cpu >= 0 || t->filter.text ||
			      t->filter.cross || t->filter.has_t0 || t->filter.has_t1 ?
			      "no decision matches the filter" : "this run has no decisions") :
			     "no divergent decision matches the filter", TUI_A_BOLD, 0);
		tui_grid_put(g, 5, 2, "(f to change the filter, a to toggle divergent/all, Tab "
			     "for the summary)", 0, 0);
	}
	for (i = 0; i < h && !t->cancelled; i++) {
		const struct tui_row *r = tui_row_at(t, t->top + i);

		/* a cancelled read is not tried again before the next key */
		if (!r)
			break;
		list_row(t, g, 3 + i, &l, r, t->top + i == t->sel);
	}
	snprintf(buf, sizeof(buf), " %ld/%ld  sort: %s%s  %s  ?:help f:filter a:%s Enter:detail "
		 "Tab:summary q:quit", t->count ? t->sel + 1 : 0, t->count, tui_col_name(t->sort),
		 t->desc ? " (reversed)" : "", t->search ? t->search : "",
		 t->mode == TUI_ALL ? "divergent" : "all");
	status(t, g, buf);
}

/* ---- pages: text taller than the screen ------------------------------------ */

struct page {
	struct tui_grid *g;
	int row;
};

static void page_grow(struct page *p, int need)
{
	struct tui_grid n;

	if (p->row + need <= p->g->rows)
		return;
	if (tui_grid_init(&n, (p->row + need) * 2, p->g->cols))
		return;
	tui_grid_blit(&n, 0, p->g, 0, p->g->rows);
	tui_grid_release(p->g);
	*p->g = n;
}

static void line(struct page *p, int col, unsigned attr, unsigned color, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void line(struct page *p, int col, unsigned attr, unsigned color, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	page_grow(p, 1);
	tui_grid_put(p->g, p->row++, col, buf, attr, color);
}

/* @s from column @col, wrapped at blanks, continuation lines at @indent */
static void wrapped(struct page *p, int col, int indent, unsigned attr, const char *s)
{
	int w;

	while (*s) {
		size_t n = strlen(s), cut;

		w = p->g->cols - col;
		if (w < 10)
			w = 10;
		cut = n;
		if ((int)n > w) {
			cut = (size_t)w;
			/* at a blank, or after the | of a list of flags */
			while (cut > (size_t)w / 2 && s[cut] != ' ' && s[cut - 1] != '|')
				cut--;
			if (s[cut] != ' ' && s[cut - 1] != '|')
				cut = (size_t)w;
		}
		page_grow(p, 1);
		{
			char buf[1024];

			snprintf(buf, sizeof(buf), "%.*s", (int)(cut < sizeof(buf) ? cut :
								 sizeof(buf) - 1), s);
			tui_grid_put(p->g, p->row++, col, buf, attr, 0);
		}
		s += cut;
		while (*s == ' ')
			s++;
		col = indent;
	}
}

/* a formatted line, wrapped at blanks (continuation at @indent), in @color */
static void wline(struct page *p, int col, int indent, unsigned attr, unsigned color,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void wline(struct page *p, int col, int indent, unsigned attr, unsigned color,
		  const char *fmt, ...)
{
	char buf[1024];
	int from = p->row;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	wrapped(p, col, indent, attr, buf);
	for (; color && from < p->row; from++)
		tui_grid_attr(p->g, from, col < indent ? col : indent, -1, attr, color);
}

static void page_start(struct tui *t, int cols)
{
	tui_grid_release(&t->page);
	tui_grid_init(&t->page, 64, cols);
	t->page_valid = 1;
}

static void page_finish(struct tui *t, struct page *p)
{
	/* keep the rows written, so that the scroll stops at the end */
	struct tui_grid n;

	if (p->row < 1)
		p->row = 1;
	if (tui_grid_init(&n, p->row, t->page.cols))
		return;
	tui_grid_blit(&n, 0, &t->page, 0, p->row);
	tui_grid_release(&t->page);
	t->page = n;
}

/* ---- the detail of one decision ----------------------------------------------- */

enum { ROLE_T, ROLE_P, ROLE_A, ROLE_B, ROLE_O, ROLE_N, NROLES };
static const char role_letter[NROLES] = { 'T', 'P', 'A', 'B', 'O', 'N' };
static const unsigned role_color[NROLES] = { TUI_C_CYAN, TUI_C_BLUE, TUI_C_GREEN, TUI_C_RED,
					     TUI_C_YELLOW, TUI_C_MAGENTA };

struct cpu_state_row {
	int have, nr, cfs, tid, idle;
	long long load, util;
	char comm[68];			/* escaped */
};

/* the run's sched_slice rows: their rowid range and longest delay, read once a run */
static int slice_range(struct tui *t)
{
	sqlite3_stmt *st = NULL;

	if (t->slice_lo >= 0)
		return t->slice_lo > 0 ? 0 : -1;
	t->slice_lo = 0;
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_SLICE_RANGE), -1, &st, NULL) != SQLITE_OK)
		return -1;		/* a database written before the slice tables */
	sqlite3_bind_int64(st, 1, t->scope.run_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		t->slice_lo = sqlite3_column_int64(st, 0);
		t->slice_hi = sqlite3_column_int64(st, 1);
		t->slice_maxdelay = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return t->slice_lo > 0 ? 0 : -1;
}

/*
 * The first sched_slice row of the run that ends at or after @from.  Replay
 * writes a slice when it ends (src/slices.c), so the rows are in the order
 * of their end: a binary search on the rowid finds it without an index.
 */
static long long slice_first_ending(struct tui *t, long long from)
{
	long long lo = t->slice_lo, hi = t->slice_hi + 1;
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_SLICE_END), -1, &st, NULL) != SQLITE_OK)
		return t->slice_lo;
	while (lo < hi) {
		long long mid = lo + (hi - lo) / 2, end = LLONG_MAX, row = hi;

		sqlite3_bind_int64(st, 1, mid);
		if (sqlite3_step(st) == SQLITE_ROW) {
			row = sqlite3_column_int64(st, 0);
			end = sqlite3_column_int64(st, 1);
		}
		sqlite3_reset(st);
		if (row > t->slice_hi || end >= from)
			hi = mid;
		else
			lo = row + 1;
	}
	sqlite3_finalize(st);
	return lo;
}

/* a column's running time, waiting tasks and whether the decision's task ran */
struct tl_cell {
	long long run;
	int wait, self;
};

/*
 * Each CPU's run and wait slices in [from, to] (sched_slice): a row ends a
 * running slice on cpu and, when it waited, a wait on queue_cpu that ended at
 * its ts.  Rows are read in the order they ended, from the first that ends in
 * the window, until every CPU has shown one that began after the window (and
 * after its longest wait): later rows of that CPU begin later still.
 */
static int timeline_slices(struct tui *t, struct tl_cell *cell, int width, long long from,
			   long long to, long long step, int tid)
{
	long long start, horizon;
	sqlite3_stmt *st = NULL;
	int *done, ndone = 0, rows = 0;

	if (slice_range(t))
		return -1;
	done = calloc((size_t)t->ncpu, sizeof(*done));
	if (!done)
		return -1;
	horizon = to + t->slice_maxdelay;
	start = slice_first_ending(t, from);
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_SLICE_SCAN), -1, &st, NULL) != SQLITE_OK) {
		free(done);
		return -1;
	}
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, t->slice_hi);
	while (ndone < t->ncpu && rows < 200000 && sqlite3_step(st) == SQLITE_ROW) {
		long long ts = sqlite3_column_int64(st, 0), end, a, b, col;
		int cpu = col_int(st, 2), q = col_int(st, 5);

		rows++;
		end = sqlite3_column_type(st, 1) == SQLITE_NULL ? to :
		      ts + sqlite3_column_int64(st, 1);
		if (cpu < 0 || cpu >= t->ncpu)
			continue;
		if (ts >= horizon && !done[cpu]) {
			done[cpu] = 1;
			ndone++;
		}
		/* the running slice, cut to the window */
		a = ts > from ? ts : from;
		b = end < to ? end : to;
		for (col = (a - from) / step; a < b && col < width && from + col * step < b; col++) {
			long long c0 = from + col * step, c1 = c0 + step;
			long long x = (a > c0 ? a : c0), y = (b < c1 ? b : c1);
			struct tl_cell *c = &cell[(size_t)cpu * (size_t)width + (size_t)col];

			if (y > x) {
				c->run += y - x;
				c->self |= col_int(st, 3) == tid;
			}
		}
		/* the wait before it, on the CPU it was queued on */
		if (sqlite3_column_type(st, 4) != SQLITE_NULL && q >= 0 && q < t->ncpu) {
			a = ts - sqlite3_column_int64(st, 4);
			b = ts;
			if (a < from)
				a = from;
			if (b > to)
				b = to;
			for (col = (a - from) / step; a < b && col < width && from + col * step < b;
			     col++)
				cell[(size_t)q * (size_t)width + (size_t)col].wait++;
		}
	}
	sqlite3_finalize(st);
	free(done);
	return 0;
}

static void detail_timeline(struct tui *t, struct page *p, long long ts, int actual, int tid)
{
	long long w = t->detail_window, from = ts - w, to = ts + w, step;
	int width = p->g->cols - 12, c, col, slices;
	struct tl_cell *cell;
	sqlite3_stmt *st = NULL;
	char *strip;

	if (width < 10 || t->ncpu <= 0)
		return;
	if (width > 101)
		width = 101;
	if (!(width & 1))
		width--;
	step = (2 * w) / width + 1;
	strip = malloc((size_t)t->ncpu * (size_t)(width + 1));
	cell = calloc((size_t)t->ncpu * (size_t)width, sizeof(*cell));
	if (!strip || !cell) {
		free(strip);
		free(cell);
		return;
	}
	for (c = 0; c < t->ncpu; c++) {
		memset(strip + (size_t)c * (size_t)(width + 1), '.', (size_t)width);
		strip[(size_t)c * (size_t)(width + 1) + (size_t)width] = '\0';
	}
#define CELL(cpu, tsv) (strip + (size_t)(cpu) * (size_t)(width + 1) + \
			(size_t)(((tsv) - from) / step < width ? ((tsv) - from) / step : width - 1))
#define MARK(cpu, tsv, ch) do {							\
		if ((cpu) >= 0 && (cpu) < t->ncpu && (tsv) >= from && (tsv) <= to) {	\
			char *x_ = CELL(cpu, tsv);					\
			*x_ = *x_ == '.' || *x_ == (ch) ? (ch) : '#';			\
		}								\
	} while (0)
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_TIMELINE_DECISIONS), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, t->scope.run_id);
		sqlite3_bind_int64(st, 2, from);
		sqlite3_bind_int64(st, 3, to);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(st, 2);

			MARK(col_int(st, 1), sqlite3_column_int64(st, 0),
			     k && !strcmp(k, "fork") ? 'f' : 'w');
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_TIMELINE_MIGRATIONS), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, t->scope.run_id);
		sqlite3_bind_int64(st, 2, from);
		sqlite3_bind_int64(st, 3, to);
		while (sqlite3_step(st) == SQLITE_ROW) {
			long long mts = sqlite3_column_int64(st, 0);

			MARK(col_int(st, 1), mts, '>');
			MARK(col_int(st, 2), mts, '<');
		}
	}
	sqlite3_finalize(st);
	if (actual >= 0 && actual < t->ncpu)
		*CELL(actual, ts) = '@';
#undef MARK
#undef CELL
	slices = !timeline_slices(t, cell, width, from, to, step, tid);
	line(p, 0, TUI_A_BOLD, 0, "timeline: %lld us either side, %lld us a column (+/- to zoom)",
	     w / 1000, step / 1000 ? step / 1000 : 1);
	wline(p, 2, 4, TUI_A_DIM, 0, "%s", "w wakeup or f fork placed on the CPU, > migrated "
	      "away, < migrated in, # several, @ this decision");
	if (slices)
		wline(p, 2, 4, TUI_A_DIM, 0, "%s", "run: = a task ran all the column, - part of it, "
		      "* this decision's task ran, blank idle; wait: tasks waiting there (+: over 9)");
	else
		wline(p, 2, 4, TUI_A_DIM, 0, "%s", "(no run and wait slices in this database: "
		      "replay it again for them)");
	page_grow(p, 1);
	col = 10 + width / 2;
	tui_grid_printf(p->g, p->row, 10, 0, 0, "-%lldus", w / 1000);
	tui_grid_put(p->g, p->row, col, "|", TUI_A_BOLD, 0);
	tui_grid_printf(p->g, p->row, 10 + width - 8, 0, 0, "%+8lldus", w / 1000);
	p->row++;
	for (c = 0; c < t->ncpu; c++) {
		const char *s = strip + (size_t)c * (size_t)(width + 1);
		char run[128], wait[128];
		int i, any_wait = 0;

		page_grow(p, 3);
		tui_grid_printf(p->g, p->row, 2, 0, 0, "cpu %3d", c);
		tui_grid_put(p->g, p->row, 10, s, 0, 0);
		for (i = 0; i < width; i++)
			if (s[i] != '.')
				tui_grid_attr(p->g, p->row, 10 + i, 1, TUI_A_BOLD,
					      s[i] == '@' ? TUI_C_RED :
					      s[i] == '<' || s[i] == '>' ? TUI_C_CYAN : TUI_C_GREEN);
		p->row++;
		if (!slices)
			continue;
		for (i = 0; i < width; i++) {
			const struct tl_cell *x = &cell[(size_t)c * (size_t)width + (size_t)i];

			run[i] = x->self ? '*' : x->run * 10 >= step * 9 ? '=' : x->run ? '-' : ' ';
			wait[i] = !x->wait ? '.' : x->wait > 9 ? '+' : (char)('0' + x->wait);
			any_wait |= x->wait;
		}
		run[width] = wait[width] = '\0';
		tui_grid_put(p->g, p->row, 5, "run", TUI_A_DIM, 0);
		tui_grid_put(p->g, p->row, 10, run, 0, 0);
		for (i = 0; i < width; i++)
			if (run[i] == '*')
				tui_grid_attr(p->g, p->row, 10 + i, 1, TUI_A_BOLD, TUI_C_YELLOW);
		p->row++;
		if (any_wait) {
			tui_grid_put(p->g, p->row, 5, "wait", TUI_A_DIM, 0);
			tui_grid_put(p->g, p->row, 10, wait, 0, 0);
			for (i = 0; i < width; i++)
				if (wait[i] != '.')
					tui_grid_attr(p->g, p->row, 10 + i, 1, TUI_A_BOLD, TUI_C_RED);
			p->row++;
		}
	}
	free(strip);
	free(cell);
}

/* the patch pair's sides a detail shows, and their choices */
struct detail_sides {
	char *patch, *model;		/* NULL: the decision has no patch side */
};

/*
 * The sides of the patch and base model the list row named, else the first
 * that the decision has (a list of every decision names the first base model).
 */
static void detail_sides(struct tui *t, struct detail_sides *ds, int *orig, int *patched)
{
	sqlite3_stmt *st = NULL;

	memset(ds, 0, sizeof(*ds));
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_SIDES), -1, &st,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, t->detail_id);
	sqlite3_bind_text(st, 2, t->detail_patch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->detail_model, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *pt = (const char *)sqlite3_column_text(st, 0);
		const char *mo = (const char *)sqlite3_column_text(st, 1);
		const char *var = (const char *)sqlite3_column_text(st, 2);

		if (!ds->patch) {
			ds->patch = strdup(pt ? pt : "");
			ds->model = strdup(mo ? mo : "");
			if (!ds->patch || !ds->model)
				break;
		}
		if (!pt || strcmp(pt, ds->patch) || !mo || strcmp(mo, ds->model))
			break;
		if (var && !strcmp(var, "original"))
			*orig = col_int(st, 3);
		else if (var && !strcmp(var, "patched"))
			*patched = col_int(st, 3);
	}
	sqlite3_finalize(st);
	if (!ds->patch || !ds->model) {
		free(ds->patch);
		free(ds->model);
		ds->patch = ds->model = NULL;
	}
}

/* wake_flags in the 6.x layout (sched.h WF_*), as "0x18 (TTWU|SYNC)" */
static void wake_flags_text(char *buf, size_t len, long long wf)
{
	static const char *const names[8] = { NULL, "EXEC", "FORK", "TTWU", "SYNC", "MIGRATED",
					      "CURRENT_CPU", "RQ_SELECTED" };
	size_t o;
	int i, any = 0;

	o = (size_t)snprintf(buf, len, "0x%llx (", wf);
	for (i = 0; i < 8; i++)
		if (wf >> i & 1) {
			o += (size_t)snprintf(buf + (o < len ? o : len), o < len ? len - o : 0,
					      "%s%s", any ? "|" : "", names[i] ? names[i] : "0x1");
			any = 1;
		}
	if (wf >> 8)
		o += (size_t)snprintf(buf + (o < len ? o : len), o < len ? len - o : 0,
				      "%s0x%llx", any ? "|" : "", wf & ~0xffLL);
	snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, "%s)", wf ? "" : "none");
}

/* what the first base model read (decision_input), as the why-view shows it */
struct inputs {
	int have;
	long long wakee_flips, waker_flips, factor, task_load, task_util, task_runnable;
	long long waker_load, this_load, prev_load, dropped;
	int null_waker_flips, null_waker_load, null_this, null_prev, null_flips;
	char flips_src[24], pelt_src[24], prev_src[24], model[32];
};

static long long col_ll(sqlite3_stmt *st, int i, int *null)
{
	*null = sqlite3_column_type(st, i) == SQLITE_NULL;
	return sqlite3_column_int64(st, i);
}

static void read_inputs(struct tui *t, struct inputs *in)
{
	sqlite3_stmt *st = NULL;
	int n;

	memset(in, 0, sizeof(*in));
	if (t->has_inputs <= 0 ||
	    sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_INPUT), -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, t->detail_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		in->have = 1;
		in->wakee_flips = col_ll(st, 0, &in->null_flips);
		in->waker_flips = col_ll(st, 1, &in->null_waker_flips);
		in->factor = col_ll(st, 2, &n);
		col_copy(st, 3, in->flips_src, sizeof(in->flips_src));
		in->task_load = col_ll(st, 4, &n);
		in->task_util = col_ll(st, 5, &n);
		in->task_runnable = col_ll(st, 6, &n);
		col_copy(st, 7, in->pelt_src, sizeof(in->pelt_src));
		in->waker_load = col_ll(st, 8, &in->null_waker_load);
		in->this_load = col_ll(st, 9, &in->null_this);
		in->prev_load = col_ll(st, 10, &in->null_prev);
		col_copy(st, 11, in->prev_src, sizeof(in->prev_src));
		in->dropped = col_ll(st, 12, &n);
		col_copy(st, 13, in->model, sizeof(in->model));
	}
	sqlite3_finalize(st);
}

/* a domain of @cpu: by level (@name NULL) or by name; Return: 1 when found */
struct domain_row {
	int level, imbalance_pct, span_weight, imb_numa_nr;
	long long flags;
	char name[16], flag_names[256], span[128];
};

static int find_domain(struct tui *t, int cpu, int level, const char *name, struct domain_row *d)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (t->has_inputs <= 0 ||
	    sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DOMAINS), -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, t->scope.run_id);
	sqlite3_bind_int(st, 2, cpu);
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		memset(d, 0, sizeof(*d));
		d->level = col_int(st, 0);
		col_copy(st, 1, d->name, sizeof(d->name));
		d->flags = sqlite3_column_int64(st, 2);
		col_copy(st, 3, d->flag_names, sizeof(d->flag_names));
		d->imbalance_pct = col_int(st, 4);
		d->span_weight = col_int(st, 5);
		col_copy(st, 6, d->span, sizeof(d->span));
		d->imb_numa_nr = col_int(st, 7);
		found = name ? !strcmp(d->name, name) : d->level == level;
	}
	sqlite3_finalize(st);
	return found;
}

/* every domain of @cpu, one line each */
static void domains_lines(struct tui *t, struct page *p, int cpu)
{
	struct domain_row d;
	int l;

	for (l = 0; l < 16 && find_domain(t, cpu, l, NULL, &d); l++)
		wline(p, 4, 9, 0, 0, "%-4s level %d  cpus %s (%d)  imbalance_pct %d  flags 0x%llx "
		      "%s", d.name, d.level, d.span, d.span_weight, d.imbalance_pct, d.flags,
		      d.flag_names);
}

/* the groups find_idlest_group / find_busiest_group compared (group_stat) */
static void groups_lines(struct tui *t, struct page *p)
{
	sqlite3_stmt *st = NULL;
	int call = -1, any = 0;

	if (t->has_inputs <= 0 ||
	    sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_GROUPS), -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, t->detail_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *fn = (const char *)sqlite3_column_text(st, 1);
		int busiest = fn && !strcmp(fn, "find_busiest_group");
		struct domain_row d;
		char buf[256], span[128];
		size_t o;

		if (col_int(st, 0) != call) {
			call = col_int(st, 0);
			if (!find_domain(t, col_int(st, 2), col_int(st, 3), NULL, &d))
				snprintf(d.name, sizeof(d.name), "level %d", col_int(st, 3));
			wline(p, 2, 6, TUI_A_BOLD, 0, "%s on cpu %d, %s (imbalance_pct %d): %s", fn ? fn : "?",
			     col_int(st, 2), d.name, d.imbalance_pct,
			     busiest ? "load = queued CFS weight per CPU (nice 0 = 1024)" :
			     sqlite3_column_type(st, 14) == SQLITE_NULL ?
			     "v4.15: load = runnable load per CPU, avg = full load per CPU" :
			     "load = sum of cpu_load(), avg = load per 1024 capacity (busy groups), "
			     "util/runnable = PELT sums (1024 = one CPU)");
			any = 1;
		}
		/* a group of level L spans a domain of level L - 1 (its child) */
		if (col_int(st, 3) > 0 && find_domain(t, col_int(st, 4), col_int(st, 3) - 1, NULL, &d))
			snprintf(span, sizeof(span), "%s", d.span);
		else
			snprintf(span, sizeof(span), "%d", col_int(st, 4));
		o = (size_t)snprintf(buf, sizeof(buf), "%-7s cpus %-5s %-10s nr %d",
				     col_int(st, 5) ? "local" : col_int(st, 6) ?
				     (busiest ? "BUSIEST" : "IDLEST") : "group", span,
				     sqlite3_column_text(st, 7) ? (const char *)sqlite3_column_text(st, 7) : "-",
				     col_int(st, 9));
		if (busiest)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " cfs %d", col_int(st, 10));
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "  idle %d  load %lld", col_int(st, 11),
				      (long long)sqlite3_column_int64(st, 12));
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "  avg %lld",
					      (long long)sqlite3_column_int64(st, 13));
		if (sqlite3_column_type(st, 14) != SQLITE_NULL)
			snprintf(buf + o, sizeof(buf) - o, "  util %lld  runnable %lld",
				 (long long)sqlite3_column_int64(st, 14),
				 (long long)sqlite3_column_int64(st, 15));
		wline(p, 4, 8, col_int(st, 6) ? TUI_A_BOLD : 0, col_int(st, 6) ? TUI_C_GREEN : 0, "%s", buf);
	}
	sqlite3_finalize(st);
	if (!any)
		wline(p, 2, 6, TUI_A_DIM, 0, "%s", "no group was compared (no fork slow path, no "
		     "find_busiest_group call)");
}

/*
 * The numbers of a "weight: this X > prev Y" token: wake_affine_weight()
 * (schedreplay-models(7) §5.5) compares
 *   this_eff = (cpu_load(this) [- waker's load, sync] + task load) * 100 * capacity(prev)
 *   prev_eff = (cpu_load(prev) - task load) * (100 + (imbalance_pct - 100) / 2) * capacity(this)
 * Shown with the first base model's inputs, and checked against the token.
 */
static void explain_weight(struct tui *t, struct page *p, const char *reason,
			   const struct inputs *in, int this_cpu, int prev_cpu, int sync)
{
	const char *w = strstr(reason, "weight: this ");
	long long x = 0, y = 0, tx, ty, cap_this = 1024, cap_prev = 1024;
	char op[3] = "";
	struct domain_row d;
	const char *dom;
	long long waker;
	int pct = 0, half, strict;

	if (!w || sscanf(w, "weight: this %lld %2s prev %lld", &x, op, &y) != 3)
		return;
	wline(p, 8, 10, TUI_A_DIM, 0, "%s", "weight: this and prev are cpu_load() (PELT load, a "
	      "nice-0 task always runnable = 1024) scaled by 100 and by the other CPU's capacity "
	      "(1024 = one full CPU)");
	if (!in->have || in->null_this || in->null_prev)
		return;
	/* the affine domain named earlier in the path ("affine NUMA") */
	dom = strstr(reason, "affine ");
	if (dom) {
		char name[16] = "";

		sscanf(dom + 7, "%15[A-Za-z]", name);
		if (find_domain(t, this_cpu, 0, name, &d))
			pct = d.imbalance_pct;
	}
	if (this_cpu >= 0 && this_cpu < t->ncpu && t->cpu_cap)
		cap_this = t->cpu_cap[this_cpu];
	if (prev_cpu >= 0 && prev_cpu < t->ncpu && t->cpu_cap)
		cap_prev = t->cpu_cap[prev_cpu];
	half = pct ? 100 + (pct - 100) / 2 : 0;
	/*
	 * a side may not take the wakeup as sync (an exiting waker, change 1(d)):
	 * the form whose numbers the token shows is the one explained
	 */
	waker = !in->null_waker_load ? in->waker_load : 0;
	tx = (in->this_load - waker + in->task_load) * 100 * cap_prev;
	if (!sync || tx != x) {
		tx = (in->this_load + in->task_load) * 100 * cap_prev;
		if (tx == x || !sync)
			sync = 0;
		else
			tx = (in->this_load - waker + in->task_load) * 100 * cap_prev;
	}
	/* the strict comparisons (`<`, mainline) come with the sync bias (change 1(c)) */
	strict = !strcmp(op, "<") || !strcmp(op, ">=");
	ty = (in->prev_load - in->task_load) * half * cap_this + (sync && strict);
	if (sync)
		wline(p, 8, 10, 0, 0, "this %lld = (cpu_load(%d) %lld - waker load %lld + task load "
		      "%lld) x 100 x capacity(%d) %lld", x, this_cpu, in->this_load, waker,
		      in->task_load, prev_cpu, cap_prev);
	else
		wline(p, 8, 10, 0, 0, "this %lld = (cpu_load(%d) %lld + task load %lld) x 100 x "
		      "capacity(%d) %lld", x, this_cpu, in->this_load, in->task_load, prev_cpu,
		      cap_prev);
	if (pct)
		wline(p, 8, 10, 0, 0, "prev %lld = (cpu_load(%d) %lld - task load %lld) x (100 + "
		      "(imbalance_pct %d - 100) / 2 = %d) x capacity(%d) %lld%s", y, prev_cpu,
		      in->prev_load, in->task_load, pct, half, this_cpu, cap_this,
		      sync && strict ? " + 1 (sync)" : "");
	if (tx == x && (!pct || ty == y))
		wline(p, 8, 10, TUI_A_DIM, 0, "(%s, as the stored inputs give them: %s's reads)",
		      sync ? "a sync wakeup" : "not taken as sync", in->model);
	else
		wline(p, 8, 10, TUI_A_DIM, 0, "(the stored inputs, %s's, give %lld and %lld: this "
		      "side's model reads other loads)", in->model, tx, pct ? ty : 0);
}

/* the token where two reason paths part (0-based), -1 when they are equal */
static int split_token(const char *a, const char *b, const char **ta, const char **tb)
{
	int n = 0;

	*ta = a;
	*tb = b;
	while (*a || *b) {
		const char *ea = strstr(a, " > "), *eb = strstr(b, " > ");
		size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);

		if (la != lb || strncmp(a, b, la)) {
			*ta = a;
			*tb = b;
			return n;
		}
		a += la + (ea ? 3 : 0);
		b += lb + (eb ? 3 : 0);
		n++;
	}
	return -1;
}

/* the token @s starts with, cut at the next " > " */
static void token_of(const char *s, char *buf, size_t len)
{
	const char *e = strstr(s, " > ");
	size_t n = e ? (size_t)(e - s) : strlen(s);

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

struct side_reason {
	char model[32], patch[64], variant[16];
	int cpu;
	char *reason;
};

static void render_inputs(struct tui *t, struct page *p, const struct inputs *in, const char *kind,
			  int this_cpu, int skipped, int sync)
{
	int wake = kind && !strcmp(kind, "wakeup"), fork = kind && !strcmp(kind, "fork");

	line(p, 0, 0, 0, "%s", "");
	if (t->has_inputs <= 0) {
		wline(p, 0, 4, TUI_A_BOLD, 0, "%s", "inputs that decided: not in this database");
		wrapped(p, 2, 2, TUI_A_DIM, "it was written before replay stored them: replay the "
			"trace again with -o for wake_wide's flips, the task's PELT signal, the "
			"domains and the groups compared");
		return;
	}
	if (!in->have) {
		wline(p, 0, 4, TUI_A_BOLD, 0, "%s", "inputs that decided: not stored for this decision");
		wrapped(p, 2, 2, TUI_A_DIM, skipped ? "a skipped decision was not evaluated" :
			"replay stores them where a base model missed the kernel's choice or a "
			"patch pair's sides diverged; here neither happened");
		if (this_cpu >= 0) {
			wline(p, 2, 6, 0, 0, "sched domains of cpu %d:", this_cpu);
			domains_lines(t, p, this_cpu);
		}
		return;
	}
	wline(p, 0, 4, TUI_A_BOLD, 0, "inputs that decided (as %s read them)", in->model);
	if (wake) {
		long long m = in->null_waker_flips ? 0 : in->waker_flips, s = in->wakee_flips, x;
		int ww;

		if (m < s) {
			x = m;
			m = s;
			s = x;
		}
		ww = s >= in->factor && m >= s * in->factor;
		wline(p, 2, 6, 0, 0, "wake_wide: wakee_flips %lld (%s), waker_flips %s%lld, factor "
		     "(sd_llc_size of cpu %d) %lld", in->wakee_flips, in->flips_src,
		     in->null_waker_flips ? "- (no waker: " : "", in->null_waker_flips ? 0LL :
		     in->waker_flips, this_cpu, in->factor);
		wline(p, 4, 8, 0, ww ? TUI_C_YELLOW : 0, "smaller %lld %s factor %lld, larger %lld %s "
		     "%lld x %lld: %s", s, s >= in->factor ? ">=" : "<", in->factor, m,
		     m >= s * in->factor ? ">=" : "<", s, in->factor, ww ? "wide (no affine "
		     "wakeup)" : "not wide");
	}
	if (wake || fork)
		wline(p, 2, 6, 0, 0, "task PELT (%s): load %lld, util %lld, runnable %lld  "
		     "(load: nice-0 always runnable = 1024; util, runnable: one CPU = 1024)",
		     in->pelt_src, in->task_load, in->task_util, in->task_runnable);
	if (wake && !in->null_this && !in->null_prev)
		wline(p, 2, 6, 0, 0, "cpu_load: this (cpu %d) %lld, prev %lld (%s)", this_cpu,
		     in->this_load, in->prev_load, in->prev_src);
	if (wake && !in->null_waker_load)
		wline(p, 4, 8, 0, 0, "waker load %lld (%s)", in->waker_load,
		      sync ? "taken off this_cpu by a sync wakeup" :
		      "not a sync wakeup: it stays on this_cpu");
	if (this_cpu >= 0) {
		wline(p, 2, 6, 0, 0, "sched domains of cpu %d:", this_cpu);
		domains_lines(t, p, this_cpu);
	}
	if (!wake)
		groups_lines(t, p);
	if (in->dropped)
		wline(p, 2, 6, TUI_A_DIM, 0, "(%lld more groups were compared and not kept)", in->dropped);
}

static void render_detail_page(struct tui *t, int cols)
{
	struct page p = { &t->page, 0 };
	sqlite3_stmt *st = NULL;
	int cpus[NROLES] = { -1, -1, -1, -1, -1, -1 };
	struct cpu_state_row *cs = NULL;
	struct side_reason sr[SR_SIDES_SHOWN];
	struct inputs in;
	long long ts = 0;
	int nstate = 0, c, node, llc, this_nr = -1, prev_nr = -1, actual_nr = -1, idle_cpus = -1;
	int tid = -1, sync = 0, skipped = 0, nsr = 0, i, orig_i = -1, patched_i = -1, base_i = -1;
	int simulated = 0;
	struct detail_sides sides = { NULL, NULL };
	char buf[64], kind[24] = "";

	page_start(t, cols);
	if (t->has_inputs < 0)
		t->has_inputs = (int)query_ll(t->db, tui_q(TUI_Q_HAS_INPUTS), 0, 0) == 3;
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_DECISION), -1, &st, NULL) != SQLITE_OK) {
		set_error(t, "reading the decision");
		return;
	}
	sqlite3_bind_int64(st, 1, t->detail_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		line(&p, 0, TUI_A_BOLD, 0, "decision %ld is not in the database", t->detail_id);
		sqlite3_finalize(st);
		page_finish(t, &p);
		return;
	}
	ts = sqlite3_column_int64(st, 1);
	col_copy(st, 0, kind, sizeof(kind));
	fmt_secs(buf, sizeof(buf), t, ts);
	detail_sides(t, &sides, &cpus[ROLE_O], &cpus[ROLE_N]);
	{
		char head[512];

		if (sides.patch)
			snprintf(head, sizeof(head), "decision %ld: %s at %s s (ts %lld), model %s, "
				 "patch %s", t->detail_id, kind, buf, ts, sides.model, sides.patch);
		else
			snprintf(head, sizeof(head), "decision %ld: %s at %s s (ts %lld)",
				 t->detail_id, kind, buf, ts);
		wrapped(&p, 0, 2, TUI_A_BOLD, head);
	}
	{
		char task[68], waker[68], wf[96];

		col_copy(st, 3, task, sizeof(task));
		col_copy(st, 5, waker, sizeof(waker));
		if (sqlite3_column_type(st, 11) != SQLITE_NULL)
			wake_flags_text(wf, sizeof(wf), sqlite3_column_int64(st, 11));
		else
			snprintf(wf, sizeof(wf), "- (no probe)");
		tid = col_int(st, 2);
		sync = col_int(st, 10);
		/* a balance decision has no waker, wake flags nor select_task_rq_fair() */
		if (strcmp(kind, "wakeup") && strcmp(kind, "fork")) {
			line(&p, 0, 0, 0, "task %s/%d (%s)",
			     sqlite3_column_type(st, 3) != SQLITE_NULL ? task : "?", tid,
			     !strcmp(kind, "newidle") ? "switched out as the CPU went newly idle" :
			     "the task the kernel pulled");
		} else {
			line(&p, 0, 0, 0, "task %s/%d   waker %s/%d   sync %d   waker exiting %d",
			     sqlite3_column_type(st, 3) != SQLITE_NULL ? task : "?", tid,
			     sqlite3_column_type(st, 5) != SQLITE_NULL ? waker : "-", col_int(st, 4),
			     sync, col_int(st, 12));
			line(&p, 0, 0, 0, "wake_flags %s   kernel's select_task_rq_fair returned %s",
			     wf, sqlite3_column_type(st, 9) != SQLITE_NULL ?
			     (const char *)sqlite3_column_text(st, 9) : "- (no probe)");
		}
	}
	cpus[ROLE_T] = col_int(st, 6);
	cpus[ROLE_P] = col_int(st, 7);
	cpus[ROLE_A] = col_int(st, 8);
	if (sqlite3_column_type(st, 13) != SQLITE_NULL) {
		skipped = 1;
		line(&p, 0, 0, TUI_C_YELLOW, "not a placement the models are held to: %s",
		     sqlite3_column_text(st, 13));
	}
	line(&p, 0, 0, 0, "inferred inputs: %s",
	     sqlite3_column_text(st, 14) && *sqlite3_column_text(st, 14) ?
	     (const char *)sqlite3_column_text(st, 14) : "none");
	this_nr = col_int(st, 15);
	prev_nr = col_int(st, 16);
	actual_nr = col_int(st, 17);
	idle_cpus = col_int(st, 18);
	sqlite3_finalize(st);

	/* every side's answer, read once: the base model's CPU is a role */
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_REASONS), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, t->detail_id);
		while (nsr < SR_SIDES_SHOWN && sqlite3_step(st) == SQLITE_ROW) {
			struct side_reason *r = &sr[nsr];

			col_copy(st, 0, r->model, sizeof(r->model));
			col_copy(st, 1, r->patch, sizeof(r->patch));
			col_copy(st, 2, r->variant, sizeof(r->variant));
			r->cpu = col_int(st, 3);
			r->reason = col_dup(st, 4);
			if (!strcmp(r->variant, "base") && base_i < 0 &&
			    (!sides.model || !strcmp(r->model, sides.model)))
				base_i = nsr;
			if (sides.patch && !strcmp(r->patch, sides.patch) &&
			    !strcmp(r->model, sides.model))
				*(!strcmp(r->variant, "original") ? &orig_i : &patched_i) = nsr;
			nsr++;
		}
	}
	sqlite3_finalize(st);
	if (base_i >= 0)
		cpus[ROLE_B] = sr[base_i].cpu;

	/* a simulated run's actual CPU is the simulator's own choice, not the kernel's */
	st = NULL;
	if (base_i >= 0 && sqlite3_prepare_v2(t->db, tui_q(TUI_Q_KIND), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, t->scope.run_id);
		simulated = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (base_i >= 0 && simulated) {
		if (strcmp(kind, "wakeup") && strcmp(kind, "fork") && cpus[ROLE_B] < 0)
			line(&p, 0, TUI_A_BOLD, 0, "model %s pulled nothing (a simulated run: the "
			     "simulated machine's own choice, not the kernel's)", sr[base_i].model);
		else if (strcmp(kind, "wakeup") && strcmp(kind, "fork"))
			line(&p, 0, TUI_A_BOLD, 0, "model %s pulled to %d (a simulated run: the "
			     "simulated machine's own choice, not the kernel's)", sr[base_i].model,
			     cpus[ROLE_B]);
		else
			line(&p, 0, TUI_A_BOLD, 0, "model %s chose %d (a simulated run: the "
			     "simulated machine's own choice, not the kernel's)", sr[base_i].model,
			     cpus[ROLE_B]);
	} else if (base_i >= 0 && strcmp(kind, "wakeup") && strcmp(kind, "fork")) {
		/* a balance decision: the CPU that receives the first task pulled, -1 none */
		char mb[32], kb[32];

		snprintf(mb, sizeof(mb), cpus[ROLE_B] < 0 ? "pulled nothing" : "pulled to %d",
			 cpus[ROLE_B]);
		snprintf(kb, sizeof(kb), cpus[ROLE_A] < 0 ? "pulled nothing" : "pulled to %d",
			 cpus[ROLE_A]);
		line(&p, 0, TUI_A_BOLD, cpus[ROLE_B] == cpus[ROLE_A] ? TUI_C_GREEN : TUI_C_RED,
		     "model %s %s, the kernel %s: %s", sr[base_i].model, mb, kb,
		     cpus[ROLE_B] == cpus[ROLE_A] ? "a match" : "a MISS");
	} else if (base_i >= 0)
		line(&p, 0, TUI_A_BOLD, cpus[ROLE_B] == cpus[ROLE_A] ? TUI_C_GREEN : TUI_C_RED,
		     "model %s chose %d, the kernel %d: %s", sr[base_i].model, cpus[ROLE_B],
		     cpus[ROLE_A], cpus[ROLE_B] == cpus[ROLE_A] ? "a match" : "a MISS");
	if (sides.patch)
		line(&p, 0, 0, 0, "patch %s on model %s: original chose %d, patched chose %d",
		     sides.patch, sides.model, cpus[ROLE_O], cpus[ROLE_N]);
	page_grow(&p, 1);
	{
		int col = 0, r;

		for (r = 0; r < NROLES; r++) {
			static const char *const rname[NROLES] = { "this", "prev", "actual", "base",
								   "original", "patched" };

			if (cpus[r] < 0 && r >= ROLE_B)
				continue;
			col += tui_grid_printf(p.g, p.row, col, TUI_A_BOLD, role_color[r], "%c",
					       role_letter[r]);
			col += tui_grid_printf(p.g, p.row, col, 0, 0, " %s=%d   ", rname[r],
					       cpus[r]);
		}
		p.row++;
	}

	/* every CPU's state */
	if (t->ncpu > 0)
		cs = calloc((size_t)t->ncpu, sizeof(*cs));
	if (cs && sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_CPU_STATE), -1,
				     &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, t->detail_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			c = sqlite3_column_int(st, 0);
			if (c < 0 || c >= t->ncpu)
				continue;
			cs[c].have = 1;
			cs[c].nr = col_int(st, 1);
			cs[c].cfs = col_int(st, 2);
			cs[c].tid = col_int(st, 3);
			col_copy(st, 4, cs[c].comm, sizeof(cs[c].comm));
			cs[c].idle = col_int(st, 5);
			cs[c].load = sqlite3_column_int64(st, 6);
			cs[c].util = sqlite3_column_int64(st, 7);
			nstate++;
		}
		sqlite3_finalize(st);
	}
	line(&p, 0, 0, 0, "%s", "");
	if (nstate)
		line(&p, 0, TUI_A_BOLD, 0, "CPUs at this instant (load and util: simulated PELT)");
	else {
		line(&p, 0, TUI_A_BOLD, 0, "CPUs (no per-CPU state stored for this decision)");
		wrapped(&p, 2, 2, TUI_A_DIM, "replay keeps every CPU's state only at divergent "
			"decisions, or at every decision with --snapshots all; the decision row has:");
		line(&p, 2, 0, 0, "this_nr %d   prev_nr %d   actual_nr %d   idle CPUs %d", this_nr,
		     prev_nr, actual_nr, idle_cpus);
	}
	/* grouped by node, then LLC: both lists come from the cpu table */
	for (node = -1; node < t->ncpu; node++) {
		int any = 0;

		for (c = 0; c < t->ncpu; c++)
			any |= t->cpu_node[c] == node;
		if (!any)
			continue;
		line(&p, 1, TUI_A_BOLD, 0, node >= 0 ? "node %d" : "node ?", node);
		for (llc = -1; llc < t->ncpu; llc++) {
			any = 0;
			for (c = 0; c < t->ncpu; c++)
				any |= t->cpu_node[c] == node && t->cpu_llc[c] == llc;
			if (!any)
				continue;
			line(&p, 3, 0, 0, "llc %d", llc);
			for (c = 0; c < t->ncpu; c++) {
				int r, col;

				if (t->cpu_node[c] != node || t->cpu_llc[c] != llc)
					continue;
				page_grow(&p, 1);
				col = tui_grid_printf(p.g, p.row, 5, 0, 0, "cpu %3d ", c) + 5;
				for (r = 0; r < NROLES; r++) {
					if (cpus[r] == c)
						tui_grid_printf(p.g, p.row, col, TUI_A_BOLD |
								TUI_A_REVERSE, role_color[r], "%c",
								role_letter[r]);
					col++;
				}
				col++;
				if (cs && cs[c].have) {
					if (cs[c].idle > 0 && cs[c].nr <= 0)
						tui_grid_printf(p.g, p.row, col, TUI_A_DIM, 0,
								"idle           load %6lld  util %4lld",
								cs[c].load, cs[c].util);
					else
						tui_grid_printf(p.g, p.row, col, 0, 0,
								"nr %2d cfs %2d  load %6lld  util "
								"%4lld  curr %s/%d", cs[c].nr,
								cs[c].cfs, cs[c].load, cs[c].util,
								cs[c].comm[0] ? cs[c].comm : "?",
								cs[c].tid);
				}
				p.row++;
			}
		}
	}
	free(cs);

	read_inputs(t, &in);
	render_inputs(t, &p, &in, kind, cpus[ROLE_T], skipped, sync);

	/* every side's reason; where the pair's two paths part */
	line(&p, 0, 0, 0, "%s", "");
	line(&p, 0, TUI_A_BOLD, 0, "reasons (every side evaluated at this decision)");
	for (i = 0; i < nsr; i++) {
		const struct side_reason *r = &sr[i];
		char head[160];

		snprintf(head, sizeof(head), "%s %s%s%s -> cpu %d%c%s", r->model, r->patch,
			 r->patch[0] ? " " : "", r->variant, r->cpu, cross_mark(t, r->cpu, cpus[ROLE_P]),
			 r->cpu == cpus[ROLE_A] ? "" : "   (not the kernel's)");
		line(&p, 2, TUI_A_BOLD, r->cpu == cpus[ROLE_A] ? TUI_C_GREEN : TUI_C_RED, "%s", head);
		wrapped(&p, 6, 6, 0, r->reason ? r->reason : "(no reason)");
		if (r->reason && i == patched_i && orig_i >= 0 && sr[orig_i].reason) {
			const char *a, *b;
			char ta[96], tb[96];
			int n = split_token(sr[orig_i].reason, r->reason, &a, &b);

			if (n >= 0) {
				token_of(a, ta, sizeof(ta));
				token_of(b, tb, sizeof(tb));
				wline(&p, 6, 8, TUI_A_BOLD, TUI_C_YELLOW, "^ the paths split at token "
				     "%d: original \"%s\", patched \"%s\"", n + 1, ta[0] ? ta : "(end)",
				     tb[0] ? tb : "(end)");
			}
		}
		if (r->reason)
			explain_weight(t, &p, r->reason, &in, cpus[ROLE_T], cpus[ROLE_P], sync);
	}
	if (!nsr)
		line(&p, 2, TUI_A_DIM, 0, "no evaluation stored (the decision was skipped)");
	for (i = 0; i < nsr; i++)
		free(sr[i].reason);
	line(&p, 0, TUI_A_DIM, 0, "%s", "(* another node than prev, + another LLC; green: the "
	     "kernel's choice, red: not)");
	line(&p, 0, 0, 0, "%s", "");
	detail_timeline(t, &p, ts, cpus[ROLE_A], tid);
	page_finish(t, &p);
	free(sides.patch);
	free(sides.model);
}

/* ---- the summary ------------------------------------------------------------- */

static double pct(long long a, long long b)
{
	return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

/* @a of @b in percent with @prec decimals, or "n/a" when @b is 0 */
static void pct_text(char *buf, size_t len, int prec, long long a, long long b)
{
	if (b > 0)
		snprintf(buf, len, "%.*f%%", prec, 100.0 * (double)a / (double)b);
	else
		snprintf(buf, len, "n/a");
}

/* a note under the figure it is about: why that figure is no verdict */
static void summary_note(struct page *p, const char *note)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "^ %s", note);
	wrapped(p, 4, 6, TUI_A_BOLD, buf);
}

static void render_summary_page(struct tui *t, int cols)
{
	struct page p = { &t->page, 0 };
	struct tui_run *r = &t->runs[t->cur];
	sqlite3_stmt *st = NULL;
	long long span = r->last_ts - r->first_ts;
	int nodes = 0, llcs = 0, i, any;
	char note[512] = "(not recorded)";

	page_start(t, cols);
	for (i = 0; i < t->ncpu; i++) {
		if (t->cpu_node[i] + 1 > nodes)
			nodes = t->cpu_node[i] + 1;
	}
	llcs = (int)query_ll(t->db, tui_q(TUI_Q_NLLC),
			     r->run_id, 0);
	line(&p, 0, TUI_A_BOLD, 0, "run %ld (%d of %d)", r->run_id, t->cur + 1, t->nruns);
	line(&p, 2, 0, 0, "trace     %s", r->trace);
	/* a simulated run (schedreplay simulate -o): its choices are the simulator's */
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_KIND), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->run_id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			char variant[64], fair[64];

			col_copy(st, 0, variant, sizeof(variant));
			col_copy(st, 2, fair, sizeof(fair));
			line(&p, 2, TUI_A_BOLD, 0, "simulated %s side, seed %lld, %s: not the kernel's",
			     variant, sqlite3_column_int64(st, 1), fair);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	line(&p, 2, 0, 0, "kernel    %s", r->kernel[0] ? r->kernel : "(not recorded)");
	line(&p, 2, 0, 0, "CPUs      %d (%d node%s, %d LLC%s)", r->ncpus, nodes,
	     nodes == 1 ? "" : "s", llcs, llcs == 1 ? "" : "s");
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_TOPOLOGY), -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->run_id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			sr_strlcpy(note, (const char *)sqlite3_column_text(st, 0), sizeof(note));
	}
	sqlite3_finalize(st);
	st = NULL;
	line(&p, 2, !strncmp(note, "flat", 4) ? TUI_A_BOLD : 0, 0, "topology  %s", note);
	line(&p, 2, 0, 0, "models    %s", r->models);
	line(&p, 2, 0, 0, "patches   %s", r->patches[0] ? r->patches : "none");
	line(&p, 2, 0, 0, "events    %lld over %lld.%03lld s, %lld migrations, %lld lost",
	     r->events, span / 1000000000LL, (span % 1000000000LL) / 1000000, r->migrations,
	     r->lost);
	line(&p, 2, 0, 0, "decisions %lld, %ld divergences (a decision once per pair whose sides "
	     "differ)", r->decisions, t->ndivergent);
	line(&p, 0, 0, 0, "%s", "");
	line(&p, 0, TUI_A_BOLD, 0, "patch pairs (original: the function as it is; patched: with "
	     "the patch)");
	line(&p, 2, TUI_A_UNDERLINE, 0, "%-18s %-8s %-16s %9s %9s %7s %7s %7s", "patch", "model",
	     "kind", "decisions", "divergent", "rate", "orig=A", "new=A");
	any = 0;
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_PATCH_SUMMARY), -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			long long n = sqlite3_column_int64(st, 3);
			long long ndiv = sqlite3_column_int64(st, 4);
			char rate[16], orig[16], patched[16];
			const struct sr_patch *pp;

			/* a share of nothing is no figure: n/a, as report prints it */
			pct_text(rate, sizeof(rate), 2, sqlite3_column_int64(st, 4), n);
			pct_text(orig, sizeof(orig), 1, sqlite3_column_int64(st, 5), ndiv);
			pct_text(patched, sizeof(patched), 1, sqlite3_column_int64(st, 6), ndiv);
			line(&p, 2, 0, ndiv ? TUI_C_MAGENTA : 0,
			     "%-18.18s %-8.8s %-16.16s %9lld %9lld %7s %7s %7s",
			     sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
			     sqlite3_column_text(st, 2), n, ndiv, rate, orig, patched);
			pp = sr_patch_find((const char *)sqlite3_column_text(st, 0));
			if (pp && sr_patch_check(pp, r->kernel, sqlite3_column_int64(st, 4),
						 sqlite3_column_int64(st, 5),
						 sqlite3_column_int64(st, 6), note, sizeof(note)))
				summary_note(&p, note);
			any = 1;
		}
	}
	sqlite3_finalize(st);
	if (!any)
		line(&p, 2, TUI_A_DIM, 0, "no patch pair in this run (replay -p PATCH)");
	line(&p, 2, TUI_A_DIM, 0, "(orig=A, new=A: of the divergent decisions, how often that side chose the kernel's CPU)");
	line(&p, 0, 0, 0, "%s", "");
	line(&p, 0, TUI_A_BOLD, 0, "fidelity of the base models (the kernel's CPU = A)");
	line(&p, 2, TUI_A_UNDERLINE, 0, "%-10s %-16s %9s %7s %8s %9s %9s", "model", "kind", "n",
	     "exact", "same LLC", "same node", "baseline");
	if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_FIDELITY), -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			long long n = sqlite3_column_int64(st, 2);

			line(&p, 2, 0, 0, "%-10.10s %-16.16s %9lld %6.1f%% %7.1f%% %8.1f%% %8.1f%%",
			     sqlite3_column_text(st, 0), sqlite3_column_text(st, 1), n,
			     pct(sqlite3_column_int64(st, 3), n), pct(sqlite3_column_int64(st, 4), n),
			     pct(sqlite3_column_int64(st, 5), n), pct(sqlite3_column_int64(st, 6), n));
			if (sr_fidelity_check((const char *)sqlite3_column_text(st, 1), (uint64_t)n,
					      (uint64_t)sqlite3_column_int64(st, 3),
					      (uint64_t)sqlite3_column_int64(st, 6), note,
					      sizeof(note)))
				summary_note(&p, note);
		}
	}
	sqlite3_finalize(st);
	line(&p, 2, TUI_A_DIM, 0, "(baseline: prev_cpu, the choice of doing nothing)");
	if (t->nruns > 1) {
		line(&p, 0, 0, 0, "%s", "");
		line(&p, 0, TUI_A_BOLD, 0, "runs in this file ([ and ] switch)");
		for (i = 0; i < t->nruns; i++) {
			const char *b = strrchr(t->runs[i].trace, '/');
			char sim[96] = "";

			/* a simulated run's side tells runs of one simulate -o apart */
			if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_KIND), -1, &st, NULL) == SQLITE_OK) {
				sqlite3_bind_int64(st, 1, t->runs[i].run_id);
				if (sqlite3_step(st) == SQLITE_ROW)
					snprintf(sim, sizeof(sim), "   simulated %s side%s%s",
						 sqlite3_column_text(st, 0) ?
						 (const char *)sqlite3_column_text(st, 0) : "?",
						 t->runs[i].patches[0] ? " of " : "",
						 t->runs[i].patches);
			}
			sqlite3_finalize(st);
			st = NULL;
			line(&p, 2, i == t->cur ? TUI_A_REVERSE : 0, 0, "%c run %-3ld %-32.32s %-16.16s "
			     "%lld decisions%s", i == t->cur ? '>' : ' ', t->runs[i].run_id,
			     b ? b + 1 : t->runs[i].trace, t->runs[i].models,
			     t->runs[i].decisions, sim);
		}
	}
	page_finish(t, &p);
}

/* ---- help and SQL ------------------------------------------------------------ */

static const char *const help_text[] = {
	"keys",
	"  j k, Up Down        move one row (one line in the other views)",
	"  PgUp PgDn, ^B ^F    move one screen",
	"  g G, Home End       first row, last row",
	"  Enter, 2            the detail of the selected decision",
	"  Tab, 3              the run summary (Tab again: back to the list)",
	"  1                   the list",
	"  a                   toggle divergent decisions / every decision",
	"  f                   filter (see below; empty clears)",
	"  /                   search comm and reasons; n N next and previous match",
	"  s > l Right         sort by the next column; S < h Left the previous one",
	"  r                   reverse the sort",
	"  [ ]                 previous and next run in the database",
	"  y :                 show the SQL of the list, with its parameters",
	"  w x                 export the whole list as CSV (asks for a file name, and",
	"                      before it replaces a file)",
	"  + -                 in the detail: widen or narrow the timeline",
	"  n p                 in the detail: the next and the previous decision (of",
	"                      the list; after a go-to, of the run in time)",
	"  #                   go to a decision: an id (#N), a ts in ns (ts N) or",
	"                      seconds like 8.716743, as sql and the list print them",
	"  ?                   this help",
	"  q Esc               back; q on the list quits",
	"  Esc                 cancel a count, search or export that takes long",
	"",
	"filter: words separated by blanks, all must hold",
	"  patch=NAME  kind=KIND  comm=NAME (or a glob: comm=hack*)  pid=N",
	NULL,	/* the decision kinds, from replay's table */
	"  task=NAME|PID  cpu=N (this, prev, actual, base, original or patched CPU)",
	"  cross=llc|node|none (a choice leaves prev_cpu's LLC or node)",
	"  miss=yes|no (the base model's CPU is not the kernel's; red in the list)",
	"  div=yes|no (a patch pair's sides diverged)",
	"  t=FROM-TO (seconds from the start of the run, up to 9 digits after the",
	"    point: t=1.5-2.000250; either may be left out)",
	"  text=WORD or a bare WORD: in comm or a reason; quote values with blanks",
	"  example: kind=wakeup comm=hackbench cpu=3 cross=node t=1.5-2.0",
	"",
	"list columns",
	"  time(s) from the run's first event; this (waker's CPU), prev, act (the",
	"  kernel's CPU); base model(s); orig and new: the patch pair's original and",
	"  patched sides.  After a CPU: * on another node than prev, + another LLC.",
	"",
	"detail letters: T this, P prev, A actual, B base model, O original,",
	"  N patched (new)",
};

static void render_help_page(struct tui *t, int cols)
{
	struct page p = { &t->page, 0 };
	size_t i;

	page_start(t, cols);
	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++) {
		if (!help_text[i]) {
			char *kinds = tui_kind_list(" ", " "), buf[512];

			snprintf(buf, sizeof(buf), "(KIND: %s)", kinds ? kinds : "?");
			wrapped(&p, 2, 4, 0, buf);
			free(kinds);
			continue;
		}
		line(&p, 0, help_text[i][0] && help_text[i][0] != ' ' ? TUI_A_BOLD : 0, 0, "%s",
		     help_text[i]);
	}
	page_finish(t, &p);
}

static void render_sql_page(struct tui *t, int cols)
{
	struct page p = { &t->page, 0 };
	struct tui_sql s;
	char *buf = NULL, *ln, *save = NULL;
	size_t len = 0;
	FILE *m;

	page_start(t, cols);
	line(&p, 0, TUI_A_BOLD, 0, "%s", "the list's SQL, as input for sqlite3 (the parameters "
	     "first):");
	if (tui_current_sql(t, &s, -1, 0))
		return;
	m = open_memstream(&buf, &len);
	if (m) {
		tui_sql_print(&s, t->db, m);
		fclose(m);
	}
	tui_sql_release(&s);
	for (ln = buf ? strtok_r(buf, "\n", &save) : NULL; ln; ln = strtok_r(NULL, "\n", &save))
		wrapped(&p, 0, 4, 0, ln);
	free(buf);
	page_finish(t, &p);
}

void tui_open_detail(struct tui *t)
{
	const struct tui_row *r = tui_row_at(t, t->sel);

	if (!r) {
		snprintf(t->notice, sizeof(t->notice), "no decision selected");
		return;
	}
	t->detail_id = r->id;
	free(t->detail_patch);
	t->detail_patch = strdup(t->mode == TUI_DIVERGENT ? (r->patch ? r->patch : "") :
				 t->filter.patch ? t->filter.patch : "");
	free(t->detail_model);
	t->detail_model = strdup(r->model ? r->model : "");
	t->view = TUI_V_DETAIL;
	t->detail_in_list = 1;
	t->page_valid = 0;
	t->scroll = 0;
}

/* the detail of decision @id, not found through the list */
static void open_decision(struct tui *t, long id)
{
	t->detail_id = id;
	free(t->detail_patch);
	t->detail_patch = strdup(t->filter.patch ? t->filter.patch : "");
	free(t->detail_model);
	t->detail_model = strdup("");
	t->view = TUI_V_DETAIL;
	t->detail_in_list = 0;
	t->page_valid = 0;
	t->scroll = 0;
}

/* a decimal integer, all of @s */
static int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int tui_goto(struct tui *t, const char *what)
{
	const char *s = what ? what : "";
	sqlite3_stmt *st = NULL;
	long long v = 0, ts = -1;
	long id = -1;
	int i, by_id = 0, by_ts = 0;

	while (*s == ' ')
		s++;
	if (*s == '#') {
		by_id = 1;
		s++;
	} else if (!strncmp(s, "id ", 3) || !strncmp(s, "id=", 3)) {
		by_id = 1;
		s += 3;
	} else if (!strncmp(s, "ts ", 3) || !strncmp(s, "ts=", 3)) {
		by_ts = 1;
		s += 3;
	}
	while (*s == ' ')
		s++;
	if (!by_id && !by_ts && strchr(s, '.')) {
		/* seconds from the run's first event, as the list writes them */
		struct tui_filter f;
		char expr[300], *cause = NULL;

		tui_filter_init(&f);
		snprintf(expr, sizeof(expr), "t=%s-", s);
		if (tui_filter_parse(expr, &f, &cause)) {
			snprintf(t->notice, sizeof(t->notice), "go to '%s': expected a decision id, "
				 "a timestamp in ns or seconds like 1.5", what);
			free(cause);
			return -1;
		}
		ts = t->scope.first_ts + f.t0;
		tui_filter_release(&f);
	} else if (parse_ll(s, &v)) {
		snprintf(t->notice, sizeof(t->notice), "go to '%s': expected a decision id (#N), a "
			 "timestamp in ns (ts N) or seconds like 1.5", what);
		return -1;
	} else if (!by_ts) {
		/* a decision id, when it is one (of any run) */
		if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_FIND_ID), -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, v);
			if (sqlite3_step(st) == SQLITE_ROW) {
				long run = (long)sqlite3_column_int64(st, 0);

				for (i = 0; i < t->nruns && t->runs[i].run_id != run; i++)
					;
				if (i < t->nruns && i != t->cur)
					tui_select_run(t, i);
				id = (long)v;
			}
		}
		sqlite3_finalize(st);
		if (id < 0 && by_id) {
			snprintf(t->notice, sizeof(t->notice), "no decision %lld in this database", v);
			return -1;
		}
		if (id < 0)
			ts = v;
	} else {
		ts = v;
	}
	if (id < 0) {
		if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_FIND_TS), -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, t->scope.run_id);
			sqlite3_bind_int64(st, 2, ts);
			if (sqlite3_step(st) == SQLITE_ROW)
				id = (long)sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (id < 0) {
			snprintf(t->notice, sizeof(t->notice), "no decision of run %ld at or after ts "
				 "%lld", t->scope.run_id, ts);
			return -1;
		}
	}
	open_decision(t, id);
	return 0;
}

void tui_detail_step(struct tui *t, int dir)
{
	sqlite3_stmt *st = NULL;
	long id = -1;

	if (t->detail_in_list) {
		tui_refresh_count(t);
		if (t->sel + dir < 0 || t->sel + dir >= t->count) {
			snprintf(t->notice, sizeof(t->notice), "no %s decision in the list",
				 dir > 0 ? "next" : "previous");
			return;
		}
		t->sel += dir;
		if (t->top > t->sel)
			t->top = t->sel;
		tui_open_detail(t);
		return;
	}
	/* by time among every decision of the run */
	if (sqlite3_prepare_v2(t->db, tui_q(dir > 0 ? TUI_Q_NEXT_DECISION : TUI_Q_PREV_DECISION),
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_stmt *q = NULL;
		long long ts = 0;

		if (sqlite3_prepare_v2(t->db, tui_q(TUI_Q_DETAIL_DECISION), -1, &q, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(q, 1, t->detail_id);
			if (sqlite3_step(q) == SQLITE_ROW)
				ts = sqlite3_column_int64(q, 1);
		}
		sqlite3_finalize(q);
		sqlite3_bind_int64(st, 1, t->scope.run_id);
		sqlite3_bind_int64(st, 2, ts);
		sqlite3_bind_int64(st, 3, t->detail_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = (long)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (id < 0) {
		snprintf(t->notice, sizeof(t->notice), "no %s decision in run %ld",
			 dir > 0 ? "next" : "previous", t->scope.run_id);
		return;
	}
	open_decision(t, id);
}

void tui_render(struct tui *t, struct tui_grid *g)
{
	static const char *const names[] = {
		[TUI_V_DETAIL] = "decision", [TUI_V_SUMMARY] = "summary",
		[TUI_V_HELP] = "help", [TUI_V_SQL] = "SQL",
	};
	int h = g->rows - 2;

	tui_grid_clear(g);
	if (t->view == TUI_V_LIST) {
		render_list(t, g);
		return;
	}
	if (!t->page_valid || t->page.cols != g->cols) {
		switch (t->view) {
		case TUI_V_DETAIL:
			render_detail_page(t, g->cols);
			break;
		case TUI_V_SUMMARY:
			render_summary_page(t, g->cols);
			break;
		case TUI_V_SQL:
			render_sql_page(t, g->cols);
			break;
		default:
			render_help_page(t, g->cols);
			break;
		}
	}
	if (t->scroll > t->page.rows - h)
		t->scroll = t->page.rows - h;
	if (t->scroll < 0)
		t->scroll = 0;
	title(t, g, names[t->view]);
	tui_grid_blit(g, 1, &t->page, t->scroll, h < t->page.rows - t->scroll ? h :
		      t->page.rows - t->scroll);
	{
		char buf[160];

		snprintf(buf, sizeof(buf), " lines %d-%d of %d  j/k scroll  q:back  ?:help%s",
			 t->page.rows ? t->scroll + 1 : 0,
			 t->scroll + h < t->page.rows ? t->scroll + h : t->page.rows, t->page.rows,
			 t->view == TUI_V_DETAIL ? "  +/-:timeline n/p:next/prev #:go to" :
			 t->view == TUI_V_SUMMARY && t->nruns > 1 ? "  [ ]:run" : "");
		status(t, g, buf);
	}
}
