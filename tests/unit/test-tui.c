// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the TUI without a terminal: the filter language, the SQL
 * and bound parameters a filter gives (a value that looks like SQL stays a
 * parameter), the grid, and the views rendered into a grid for a database
 * replayed here from a committed NUMA trace (run from the top of the tree).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "schedreplay/replay.h"
#include "schedreplay/store.h"
#include "tui-local.h"
#include "unit.h"

static const struct tui_param *param(const struct tui_sql *q, const char *name)
{
	int i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->p[i].name, name))
			return &q->p[i];
	return NULL;
}

static void test_filter(void)
{
	struct tui_filter f;
	char *cause = NULL, *s, expr[64];

	tui_filter_init(&f);
	CHECK(!tui_filter_parse("kind=wakeup comm=hackbench cpu=3 cross=node t=1.5-2.0 "
				"patch=wake-affine-equal", &f, &cause), "the issue's example parses");
	CHECK(f.kind && !strcmp(f.kind, "wakeup"), "kind");
	CHECK(f.comm && !strcmp(f.comm, "hackbench"), "comm");
	CHECK_EQ(f.cpu, 3, "cpu");
	CHECK_EQ(f.cross, TUI_CROSS_NODE, "cross");
	CHECK(f.has_t0 && f.has_t1 && f.t0 == 1500000000LL && f.t1 == 2000000000LL, "time range");
	CHECK(f.patch && !strcmp(f.patch, "wake-affine-equal"), "patch");
	s = tui_filter_format(&f);
	CHECK(s && !strcmp(s, "patch=wake-affine-equal kind=wakeup comm=hackbench cpu=3 "
			   "cross=node t=1.5-2"), "formatted back: %s", s ? s : "");
	free(s);

	CHECK(!tui_filter_parse("task=1567 \"sync, waker\"", &f, &cause), "task=PID, quoted text");
	CHECK_EQ(f.pid, 1567, "task=N is a pid");
	CHECK(!f.comm && f.text && !strcmp(f.text, "sync, waker"), "bare words are text");
	CHECK(!tui_filter_parse("task=init t=-2", &f, &cause), "task=NAME, open range");
	CHECK(f.comm && !strcmp(f.comm, "init") && !f.has_t0 && f.has_t1, "task=NAME is a comm");

	CHECK(tui_filter_parse("kind=exec", &f, &cause) < 0, "a bad kind is refused");
	CHECK(cause && !strcmp(cause, "filter 'kind=exec': expected wakeup, fork, balance_periodic, "
			       "balance_newidle, balance_nohz or newidle"), "%s", cause ? cause : "");
	free(cause);
	cause = NULL;
	CHECK(f.comm && !strcmp(f.comm, "init"), "a bad filter leaves the old one");
	/* every kind replay knows, from its table */
	{
		int k;

		for (k = 0; k < SR_DEC__COUNT; k++) {
			const char *name = sr_decision_kind_name((enum sr_decision_kind)k);

			snprintf(expr, sizeof(expr), "kind=%s", name);
			CHECK(!tui_filter_parse(expr, &f, &cause) && f.kind && !strcmp(f.kind, name),
			      "kind=%s is accepted", name);
		}
	}
	/* times: digits and up to nine fraction digits, nothing else, in range */
	CHECK(!tui_filter_parse("t=0.000000001-9223372036.854775807", &f, &cause) &&
	      f.t0 == 1 && f.t1 == 9223372036854775807LL, "nanoseconds to the int64 limit");
	s = tui_filter_format(&f);
	CHECK(s && !strcmp(s, "t=0.000000001-9223372036.854775807"), "formatted back exactly: %s",
	      s ? s : "");
	free(s);
	CHECK(!tui_filter_parse("t=12.250-", &f, &cause) && f.t0 == 12250000000LL && !f.has_t1,
	      "seconds with a fraction");
	{
		static const char *const bad[][2] = {
			{ "t=9223372036.854775808-", "out of range" },
			{ "t=9223372030000-", "out of range" },
			{ "t=99999999999999999999-", "out of range" },
			{ "t=1e308-", "expected seconds" },
			{ "t=0x10-", "expected seconds" },
			{ "t=inf-", "expected seconds" },
			{ "t=+1-", "expected seconds" },
			{ "t=1.0000000001-", "expected seconds" },
			{ "t=.-", "expected seconds" },
			{ "t=1-2-3", "expected seconds" },
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			CHECK(tui_filter_parse(bad[i][0], &f, &cause) < 0 && cause &&
			      strstr(cause, bad[i][1]), "%s is refused: %s", bad[i][0],
			      cause ? cause : "(accepted)");
			free(cause);
			cause = NULL;
		}
	}
	CHECK(tui_filter_parse("colour=red", &f, &cause) < 0, "an unknown key is refused");
	free(cause);
	cause = NULL;
	CHECK(tui_filter_parse("t=2-1", &f, &cause) < 0, "a backwards range is refused");
	free(cause);
	cause = NULL;
	CHECK(tui_filter_parse("cpu=-1", &f, &cause) < 0, "a negative CPU is refused");
	free(cause);
	cause = NULL;
	CHECK(!tui_filter_parse("", &f, &cause) && !f.comm && f.cpu < 0, "empty clears");
	tui_filter_release(&f);
}

static void test_sql(void)
{
	static const char evil[] = "x' OR 1=1; DROP TABLE decision; --";
	struct tui_scope sc = { .run_id = 7, .first_ts = 1000000000, .base = { "v4.15" },
				.nbase = 1, .patch = "wake-affine-equal" };
	struct tui_filter f;
	struct tui_query q = { TUI_DIVERGENT, &f, TUI_COL_TASK, 1 };
	struct tui_sql s;
	const struct tui_param *p;
	char *cause = NULL, expr[128];

	tui_filter_init(&f);
	snprintf(expr, sizeof(expr), "comm=\"%s\" t=0.5- kind=fork", evil);
	CHECK(!tui_filter_parse(expr, &f, &cause), "a value with quotes and SQL parses");
	CHECK(!tui_sql_rows(&s, &sc, &q, 50, 100), "rows SQL");
	CHECK(!strstr(s.text, "DROP") && !strstr(s.text, "1=1"), "the value is not in the SQL");
	CHECK(strstr(s.text, "comm = :comm") != NULL, "comm is a parameter");
	p = param(&s, ":comm");
	CHECK(p && p->is_text && !strcmp(p->s, evil), "bound to the whole value");
	p = param(&s, ":t0");
	CHECK(p && !p->is_text && p->i == 1500000000LL, "t0 is first_ts + 0.5 s");
	CHECK(!param(&s, ":t1"), "no t1");
	CHECK(param(&s, ":run") && param(&s, ":run")->i == 7, "run");
	CHECK(param(&s, ":limit")->i == 50 && param(&s, ":offset")->i == 100, "window");
	CHECK(strstr(s.text, "ORDER BY comm DESC, ts DESC, decision_id DESC, patch DESC") != NULL,
	      "sorted by task, reversed, ties by time");
	tui_sql_release(&s);

	q.mode = TUI_ALL;
	q.sort = TUI_COL_TIME;
	q.desc = 0;
	CHECK(!tui_sql_rows(&s, &sc, &q, 10, 0), "every decision: rows SQL");
	CHECK(strstr(s.text, "LIMIT :limit OFFSET :offset)\n") != NULL &&
	      strstr(s.text, "FROM w CROSS JOIN decision_row d") != NULL,
	      "the window is cut from the index before the evaluations are joined");
	CHECK(!strstr(s.text, "decision_runnable"),
	      "kind=fork leaves out the runnable wakeups' table");
	CHECK(param(&s, ":base0") && !strcmp(param(&s, ":base0")->s, "v4.15"), "base model");
	CHECK(param(&s, ":sides") && !strcmp(param(&s, ":sides")->s, "wake-affine-equal"),
	      "the first patch's sides are shown");
	tui_sql_release(&s);
	CHECK(!tui_filter_parse("comm=x", &f, &cause), "a filter of every kind");
	CHECK(!tui_sql_rows(&s, &sc, &q, 10, 0), "every decision: rows SQL of both tables");
	CHECK(strstr(s.text, "UNION ALL") && strstr(s.text, "FROM decision_runnable d") &&
	      strstr(s.text, "FROM w CROSS JOIN decision_runnable d") &&
	      !strstr(s.text, " decision d"), "both decision tables, never a join of their view");
	CHECK(strstr(s.text, "\nORDER BY ts, decision_id") != NULL,
	      "the compound is sorted by result columns");
	tui_sql_release(&s);
	CHECK(!tui_sql_count(&s, &sc, &q), "count SQL");
	CHECK(!strstr(s.text, "LEFT JOIN"), "counting needs no evaluations for this filter");
	tui_sql_release(&s);

	CHECK(!tui_filter_parse("patch=wake-affine-equal", &f, &cause), "a patch filter");
	CHECK(!tui_sql_count(&s, &sc, &q), "count SQL with a patch");
	CHECK(strstr(s.text, "FROM decision_row d") && !strstr(s.text, "decision_runnable"),
	      "a patch filter leaves out the runnable wakeups (never evaluated)");
	tui_sql_release(&s);

	CHECK(!tui_filter_parse("cpu=2 cross=llc text=idle", &f, &cause), "join filters");
	CHECK(!tui_sql_count(&s, &sc, &q), "count SQL with CPU and cross");
	CHECK(strstr(s.text, "LEFT JOIN eval_row xo") && strstr(s.text, ":cpu IN (") &&
	      strstr(s.text, "c.llc_id IS NOT p.llc_id"), "CPU and cross look at the evaluations");
	tui_sql_release(&s);
	CHECK(!tui_sql_search(&s, &sc, &q, evil, 5, -1), "search SQL");
	CHECK(!strstr(s.text, "DROP") && param(&s, ":search") &&
	      !strcmp(param(&s, ":search")->s, evil), "the search text is a parameter");
	CHECK(strstr(s.text, "rn < :from ORDER BY rn DESC") != NULL, "backwards");
	tui_sql_release(&s);
	tui_filter_release(&f);
}

static void test_grid(void)
{
	struct tui_grid g, h;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	CHECK(!tui_grid_init(&g, 3, 10), "grid");
	CHECK_EQ(tui_grid_put(&g, 0, 7, "abcdef", TUI_A_BOLD, TUI_C_RED), 3, "clipped at the edge");
	tui_grid_put(&g, 1, 0, "x\ty", 0, 0);
	tui_grid_put(&g, 5, 0, "nowhere", 0, 0);
	CHECK(g.cell[7].attr == TUI_A_BOLD && g.cell[7].color == TUI_C_RED, "attributes kept");
	CHECK(!tui_grid_init(&h, 2, 4), "second grid");
	tui_grid_put(&h, 0, 0, "zz", 0, 0);
	tui_grid_blit(&g, 2, &h, 0, 2);
	m = open_memstream(&buf, &len);
	tui_grid_dump(&g, m);
	fclose(m);
	CHECK(buf && !strcmp(buf, "       abc\nx?y\nzz\n"), "dump: three rows, clipped, '?' for a tab");
	free(buf);
	tui_grid_release(&g);
	tui_grid_release(&h);
}

static int render(struct tui *t, int rows, int cols, const char *want, char **text)
{
	struct tui_grid g;
	size_t len = 0;
	FILE *m;

	*text = NULL;
	if (tui_grid_init(&g, rows, cols))
		return 0;
	tui_render(t, &g);
	m = open_memstream(text, &len);
	tui_grid_dump(&g, m);
	fclose(m);
	tui_grid_release(&g);
	return *text && strstr(*text, want) != NULL;
}

static char busy_log[256];

static void record_busy(struct tui *t, const char *what)
{
	(void)t;
	snprintf(busy_log + strlen(busy_log), sizeof(busy_log) - strlen(busy_log), "%s|", what);
}

static int cancel_at_once(struct tui *t)
{
	(void)t;
	return 1;
}

static int never_cancel(struct tui *t)
{
	(void)t;
	return 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	return f && fputs(text, f) >= 0 && !fclose(f);
}

/* the first bytes of @path; Return: 1 when they are @text (@whole: and nothing more) */
static int file_has(const char *path, const char *text, int whole)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return whole ? !strcmp(buf, text) : !strncmp(buf, text, strlen(text));
}

/* @key's prompt, emptied, @text typed, Enter */
static void type_line(struct tui *t, int key, const char *text)
{
	tui_key(t, key, 24, 80);
	tui_key(t, 'U' & 0x1f, 24, 80);
	for (; *text; text++)
		tui_key(t, *text, 24, 80);
	tui_key(t, TUI_KEY_ENTER, 24, 80);
}

static void test_views(void)
{
	char dir[] = "/tmp/schedreplay-test-tui.XXXXXX", path[64], *argv[16], *cause = NULL;
	char csv[96];
	char *text;
	int argc = 0, ok_;
	struct tui t;
	sqlite3 *db;
	const struct tui_row *r;

	if (!mkdtemp(dir)) {
		CHECK(0, "temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/forks.db", dir);
	argv[argc++] = "replay";
	argv[argc++] = "-q";
	argv[argc++] = "-o";
	argv[argc++] = path;
	argv[argc++] = "-m";
	argv[argc++] = "v4.15";
	argv[argc++] = "-t";
	argv[argc++] = "tests/fixtures/tracedat/numa/numa-6.12-forks.topo";
	argv[argc++] = "-p";
	argv[argc++] = "wake-affine-equal";
	argv[argc++] = "-p";
	argv[argc++] = "exit-sync-mel";
	argv[argc++] = "tests/fixtures/tracedat/numa/numa-6.12-forks.dat";
	argv[argc] = NULL;
	CHECK_EQ(cmd_replay.exec(argc, argv), EXIT_OK, "replay the NUMA forks trace");
	db = sr_db_open(path, 0, &cause);
	CHECK(db != NULL, "open it: %s", cause ? cause : "");
	free(cause);
	if (!db)
		goto out;
	CHECK(!tui_open(&t, db, path, &cause), "tui_open");

	CHECK_EQ(t.mode, TUI_DIVERGENT, "opens on the divergent decisions");
	tui_refresh_count(&t);
	CHECK_EQ(t.count, 2, "two divergent rows");
	r = tui_row_at(&t, 0);
	CHECK(r && r->id == 4 && !strcmp(r->comm, "rcu_preempt") && r->cpu[3] == 2 &&
	      r->cpu[4] == 1 && !strcmp(r->patch, "wake-affine-equal"), "first row");
	ok_ = render(&t, 24, 80, "\n0.018008 rcu_preempt/18 wakeup    2    1    1    2*   1 "
		     "wake-affine-equal\n", &text);
	CHECK(ok_, "the list shows it, * on the other node");
	if (!ok_)
		printf("# %s\n", text ? text : "");
	free(text);
	CHECK(render(&t, 24, 80, " 1/2  sort: time", &text), "position and sort");
	free(text);

	CHECK(!tui_set_filter(&t, "patch=exit-sync-mel"), "filter by patch");
	tui_refresh_count(&t);
	CHECK_EQ(t.count, 1, "one row");
	tui_open_detail(&t);
	CHECK_EQ(t.view, TUI_V_DETAIL, "Enter opens the detail");
	CHECK(render(&t, 150, 80, "decision 6320: wakeup", &text), "detail title");
	CHECK(strstr(text, "cpu   0 T  BO  nr  1") != NULL, "CPU 0: this, base and original, state");
	CHECK(strstr(text, "cpu   2  PA  N idle") != NULL, "CPU 2: prev, actual, patched, idle");
	CHECK(strstr(text, "\nmodel v4.15 chose 0, the kernel 2: a MISS\n") != NULL, "the miss said");
	CHECK(strstr(text, "\ninputs that decided (as v4.15 read them)\n") != NULL, "the inputs");
	CHECK(strstr(text, "v4.15 exit-sync-mel patched -> cpu 2") != NULL, "each side's reason");
	CHECK(strstr(text, "inferred inputs: exiting,pelt_warmup,topology") != NULL, "inferred");
	CHECK(strstr(text, "cpu   2 ") && strstr(text, "@"), "the timeline marks the decision");
	free(text);

	t.view = TUI_V_LIST;
	tui_set_filter(&t, "");
	tui_set_mode(&t, TUI_ALL);
	tui_refresh_count(&t);
	CHECK_EQ(t.count, 6330, "every decision");
	t.sel = 6313;
	r = tui_row_at(&t, 6313);
	CHECK(r && r->id == 6313, "the last row, read from the end");
	t.sel = 1;
	tui_open_detail(&t);
	CHECK(render(&t, 40, 80, "no per-CPU state stored", &text),
	      "a decision without cpu_state says so");
	CHECK(strstr(text, "this_nr 1   prev_nr 1   actual_nr 0   idle CPUs 2") != NULL,
	      "... and shows the decision row's counts");
	free(text);

	t.view = TUI_V_SUMMARY;
	t.page_valid = 0;
	CHECK(render(&t, 40, 90, "decisions 6330, 2 divergences (a decision once per pair", &text), "summary");
	CHECK(strstr(text, "exit-sync-mel") && strstr(text, "fidelity of the base models"),
	      "patch pairs and fidelity");
	free(text);
	t.view = TUI_V_HELP;
	t.page_valid = 0;
	CHECK(render(&t, 40, 80, "PgUp PgDn", &text), "help lists the keys");
	free(text);

	/* the keys, without a terminal */
	t.view = TUI_V_LIST;
	tui_key(&t, 'a', 24, 80);
	CHECK_EQ(t.mode, TUI_DIVERGENT, "a toggles back");
	tui_key(&t, 'f', 24, 80);
	tui_key(&t, 'k', 24, 80);
	tui_key(&t, 'i', 24, 80);
	tui_key(&t, 'n', 24, 80);
	tui_key(&t, 'd', 24, 80);
	tui_key(&t, '=', 24, 80);
	tui_key(&t, 'x', 24, 80);
	tui_key(&t, TUI_KEY_ENTER, 24, 80);
	CHECK(strstr(t.notice, "expected wakeup, fork,") != NULL, "a bad filter typed: %s",
	      t.notice);
	/* an out-of-range time typed: the status line says so, the list keeps its filter */
	tui_key(&t, 'f', 24, 80);
	tui_key(&t, 'U' & 0x1f, 24, 80);
	{
		const char *k;

		for (k = "t=9223372030000-"; *k; k++)
			tui_key(&t, *k, 24, 80);
	}
	tui_key(&t, TUI_KEY_ENTER, 24, 80);
	CHECK(strstr(t.notice, "out of range") != NULL, "an overflowing time typed: %s", t.notice);
	CHECK(render(&t, 24, 80, "\nfilter 't=9223372030000-': out of range", &text),
	      "... shown on the status line");
	free(text);

	/* the export asks before it replaces a file */
	snprintf(csv, sizeof(csv), "%s/list.csv", dir);
	CHECK(write_file(csv, "keep\n"), "a file to keep");
	type_line(&t, 'w', csv);
	CHECK_EQ(t.prompt, 'y', "an existing file: the export asks");
	CHECK(render(&t, 24, 100, "exists: overwrite it? (y/n)", &text), "... on the status line");
	free(text);
	CHECK(file_has(csv, "keep\n", 1), "... and has not touched it yet");
	tui_key(&t, 'n', 24, 80);
	CHECK(!t.prompt && strstr(t.notice, "not overwritten") && file_has(csv, "keep\n", 1),
	      "n keeps the file: %s", t.notice);
	type_line(&t, 'w', csv);
	tui_key(&t, 'y', 24, 80);
	CHECK(strstr(t.notice, "wrote 2 rows to") != NULL, "y replaces it: %s", t.notice);
	CHECK(file_has(csv, "decision_id,ts,tid,comm,kind,", 0), "... with the CSV");
	unlink(csv);
	type_line(&t, 'w', csv);
	CHECK(!t.prompt && strstr(t.notice, "wrote 2 rows to"), "a new file is written at once");
	unlink(csv);

	/* long queries: the status line says so first, a key cancels them */
	CHECK(!tui_set_filter(&t, "cpu=1"), "a filter that looks at every evaluation");
	CHECK_EQ(t.count, 1, "... one divergent row");
	t.show_busy = record_busy;
	t.poll_cancel = cancel_at_once;
	busy_log[0] = '\0';
	tui_set_mode(&t, TUI_ALL);
	CHECK(strstr(busy_log, "counting...") != NULL, "counting is announced: %s", busy_log);
	CHECK(t.cancelled && t.mode == TUI_DIVERGENT && t.count == 1,
	      "a cancelled count leaves the list as it was");
	CHECK(strstr(t.notice, "cancelled") != NULL, "... and says so: %s", t.notice);
	t.poll_cancel = never_cancel;
	tui_set_filter(&t, "");
	tui_set_mode(&t, TUI_ALL);
	CHECK(!t.cancelled && t.count == 6330, "not cancelled: every decision counted");
	t.poll_cancel = cancel_at_once;
	CHECK(tui_set_filter(&t, "text=nothing-matches-this") < 0, "a cancelled filter fails");
	CHECK(!t.filter.text && t.count == 6330, "... and the old filter and count stay");
	busy_log[0] = '\0';
	free(t.search);
	t.search = strdup("sis: prev");
	tui_key(&t, 'n', 24, 80);
	CHECK(strstr(busy_log, "searching...") && strstr(t.notice, "search cancelled"),
	      "a search: announced and cancelled: %s / %s", busy_log, t.notice);
	busy_log[0] = '\0';
	CHECK_EQ(tui_export_csv(&t, csv, 0, &cause), -1, "a cancelled export fails");
	CHECK(strstr(busy_log, "exporting...") && cause && strstr(cause, "export cancelled") &&
	      access(csv, F_OK) < 0, "... announced, and removes its file: %s", cause ? cause : "");
	free(cause);
	cause = NULL;
	t.show_busy = NULL;
	t.poll_cancel = NULL;

	tui_key(&t, 'q', 24, 80);
	CHECK(t.quit, "q on the list quits");

	tui_release(&t);
	sqlite3_close(db);
out:
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_filter();
	test_sql();
	test_grid();
	test_views();
	return unit_done();
}
