// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay tui DB": browse a replay database in the terminal, or, with
 * --dump VIEW, print one view as text (no terminal needed: what the tests and
 * the benchmark use).  Opening the database and every error that stops the
 * command happen before the terminal is touched, or after it is restored.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "schedreplay/store.h"
#include "tui-local.h"
#include "banned.h"

static const char tui_examples[] =
	"   schedreplay tui run.db\n"
	"   schedreplay tui --filter 'kind=wakeup cross=node' run.db\n"
	"   schedreplay tui --dump summary --size 100x50 run.db\n";

static const char tui_options[] =
	"       --dump VIEW      print VIEW as text and exit: list, detail, summary, help,\n"
	"                        sql (the list's SQL for sqlite3) or csv (the whole list)\n"
	"       --size COLSxROWS the size --dump renders at (default 80x24)\n"
	"   -o, --output FILE    write the --dump view to FILE, not standard output\n"
	"                        (an existing FILE only with --force)\n"
	"       --force          let --output replace an existing file\n"
	"       --filter EXPR    start with this filter (see '?' in the TUI, or the man page)\n"
	"       --all            list every decision, not only the divergent ones\n"
	"       --sort COLUMN    time, task, pid, kind, this, prev, actual, original,\n"
	"                        patched, patch or base\n"
	"       --reverse        reverse the sort\n"
	"       --run ID         start on this run (default: the first)\n"
	"       --select N       select the Nth row of the list (the detail shows it)\n"
	"       --decision WHAT  the detail shows this decision: an id (#N), a ts in ns\n"
	"                        (ts N) or seconds from the run's start (8.716743)\n"
	"   -h, --help           show this help\n";

static int tui_exec(int argc, char **argv);

const struct cmd_entry cmd_tui = {
	.name = "tui",
	.synopsis = "[--dump VIEW [--size COLSxROWS] [-o FILE [--force]]] [--filter EXPR] [--all] "
		    "[--sort COLUMN] [--reverse] [--run ID] [--select N | --decision WHAT] DB",
	.summary = "browse divergent decisions interactively",
	.options = tui_options,
	.examples = tui_examples,
	.exec = tui_exec,
};

enum { OPT_DUMP = 256, OPT_SIZE, OPT_FILTER, OPT_ALL, OPT_SORT, OPT_REVERSE, OPT_RUN,
       OPT_SELECT, OPT_FORCE, OPT_DECISION };

/* one view as text to @file (NULL: stdout), which is replaced only with @force */
static int dump(struct tui *t, const char *view, int rows, int cols, const char *file, int force,
		const char *decision)
{
	struct tui_grid g;
	char *cause = NULL;
	FILE *out = stdout;
	int ret = EXIT_OK;

	if (!strcmp(view, "csv")) {
		long n = tui_export_csv(t, file, force, &cause);

		if (n < 0) {
			sr_error("tui: %s%s", cause ? cause : "cannot export",
				 n == -2 ? " (--force replaces it)" : "");
			free(cause);
			return EXIT_FAIL;
		}
		return EXIT_OK;
	}
	if (!strcmp(view, "detail") && decision) {
		if (tui_goto(t, decision)) {
			sr_error("tui: '%s': %s", t->path, t->notice);
			return EXIT_FAIL;
		}
		t->notice[0] = '\0';
	} else if (!strcmp(view, "detail")) {
		tui_open_detail(t);
		if (t->view != TUI_V_DETAIL) {
			sr_error("tui: '%s': no decision at row %ld of the list", t->path,
				 t->sel + 1);
			return EXIT_FAIL;
		}
		t->notice[0] = '\0';
	}
	if (file) {
		out = tui_create(file, force, &cause);
		if (!out) {
			sr_error("tui: %s%s", cause, errno == EEXIST ? " (--force replaces it)" : "");
			free(cause);
			return EXIT_FAIL;
		}
	}
	if (!strcmp(view, "sql")) {
		struct tui_sql s;

		if (tui_current_sql(t, &s, -1, 0)) {
			ret = EXIT_FAIL;
		} else {
			tui_sql_print(&s, t->db, out);
			tui_sql_release(&s);
		}
	} else {
		if (!strcmp(view, "list"))
			t->view = TUI_V_LIST;
		else if (!strcmp(view, "summary"))
			t->view = TUI_V_SUMMARY;
		else if (!strcmp(view, "help"))
			t->view = TUI_V_HELP;
		if (tui_grid_init(&g, rows, cols)) {
			ret = EXIT_FAIL;
		} else {
			tui_render(t, &g);
			tui_grid_dump(&g, out);
			tui_grid_release(&g);
		}
	}
	if (file && fclose(out) && ret == EXIT_OK) {
		sr_error("tui: cannot write '%s': %s", file, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}

/* the interactive front end's hooks for long queries */
static void show_busy(struct tui *t, const char *what)
{
	struct tui_grid *g = t->front;

	if (!g || !g->rows)
		return;
	tui_status_put(g, what);
	tui_tty_draw(g);
}

static int poll_cancel(struct tui *t)
{
	(void)t;
	return tui_tty_cancel_key();
}

static int interactive(struct tui *t)
{
	struct tui_grid g = { 0 };
	char *cause = NULL;
	int rows, cols, key;

	if (tui_tty_start(&cause)) {
		sr_error("tui: %s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	t->front = &g;
	t->show_busy = show_busy;
	t->poll_cancel = poll_cancel;
	while (!t->quit) {
		tui_tty_size(&rows, &cols);
		if (g.rows != rows || g.cols != cols) {
			tui_grid_release(&g);
			if (tui_grid_init(&g, rows, cols)) {
				tui_tty_stop();
				sr_error("tui: out of memory");
				return EXIT_FAIL;
			}
			t->page_valid = 0;
		}
		tui_render(t, &g);
		tui_tty_draw(&g);
		key = tui_tty_key();
		tui_key(t, key, rows, cols);
	}
	tui_tty_stop();
	t->front = NULL;
	t->show_busy = NULL;
	t->poll_cancel = NULL;
	tui_grid_release(&g);
	return EXIT_OK;
}

static int tui_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", required_argument, NULL, OPT_DUMP },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "reverse", no_argument, NULL, OPT_REVERSE },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "select", required_argument, NULL, OPT_SELECT },
		{ "decision", required_argument, NULL, OPT_DECISION },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *view = NULL, *filter = NULL, *path, *output = NULL, *decision = NULL;
	int opt, rows = 24, cols = 80, all = 0, sort = TUI_COL_TIME, reverse = 0, ret, i, force = 0;
	long run = -1, select = 1;
	char *cause = NULL, *end;
	struct tui t;
	sqlite3 *db;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_DUMP:
			view = optarg;
			if (strcmp(view, "list") && strcmp(view, "detail") && strcmp(view, "summary") &&
			    strcmp(view, "help") && strcmp(view, "sql") && strcmp(view, "csv")) {
				sr_error("tui: unknown view '%s': expected list, detail, summary, help, "
					 "sql or csv", view);
				return EXIT_USAGE;
			}
			break;
		case OPT_SIZE:
			if (sscanf(optarg, "%dx%d", &cols, &rows) != 2 || cols < 20 || rows < 5 ||
			    cols > 1000 || rows > 1000) {
				sr_error("tui: bad size '%s': expected COLSxROWS, at least 20x5",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_FILTER:
			filter = optarg;
			break;
		case OPT_ALL:
			all = 1;
			break;
		case OPT_SORT:
			sort = tui_col_find(optarg);
			if (sort < 0) {
				sr_error("tui: unknown column '%s': expected time, task, pid, kind, "
					 "this, prev, actual, original, patched, patch or base", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_REVERSE:
			reverse = 1;
			break;
		case OPT_RUN:
			run = strtol(optarg, &end, 10);
			if (*end || end == optarg) {
				sr_error("tui: bad run '%s': expected a run id", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_SELECT:
			select = strtol(optarg, &end, 10);
			if (*end || end == optarg || select < 1) {
				sr_error("tui: bad row '%s': expected a number from 1", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_DECISION:
			decision = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case 'h':
			cmd_usage(&cmd_tui, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_tui, argv[optind - 1]);
		}
	}
	if (argc - optind != 1) {
		sr_error("tui: expected one DB argument, got %d", argc - optind);
		cmd_usage(&cmd_tui, stderr);
		return EXIT_USAGE;
	}
	if ((output || force) && !view) {
		sr_error("tui: %s goes with --dump VIEW", output ? "--output" : "--force");
		return EXIT_USAGE;
	}
	path = argv[optind];
	db = sr_db_open(path, 0, &cause);
	if (!db) {
		sr_error("%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	if (!view && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		sqlite3_close(db);
		sr_error("tui: not a terminal: use --dump VIEW to print a view");
		return EXIT_USAGE;
	}
	if (tui_open(&t, db, path, &cause)) {
		sr_error("%s", cause);
		free(cause);
		tui_release(&t);
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	ret = EXIT_OK;
	if (run >= 0) {
		for (i = 0; i < t.nruns && t.runs[i].run_id != run; i++)
			;
		if (i == t.nruns) {
			sr_error("tui: '%s' has no run %ld", path, run);
			ret = EXIT_FAIL;
			goto out;
		}
		tui_select_run(&t, i);
	}
	/* the mode first: the filter's rows are counted once, in the list shown */
	if (all)
		tui_set_mode(&t, TUI_ALL);
	if (filter && tui_set_filter(&t, filter)) {
		sr_error("tui: %s", t.notice);
		ret = EXIT_USAGE;
		goto out;
	}
	tui_set_sort(&t, (enum tui_col)sort, reverse);
	t.sel = select - 1;
	if (view) {
		tui_refresh_count(&t);
		if (t.sel >= t.count && strcmp(view, "detail"))
			t.sel = t.count ? t.count - 1 : 0;
		if (t.sel >= (24 > rows ? rows : 24))
			t.top = t.sel;
		ret = dump(&t, view, rows, cols, output, force, decision);
	} else {
		if (decision && tui_goto(&t, decision)) {
			sr_error("tui: '%s': %s", path, t.notice);
			ret = EXIT_FAIL;
			goto out;
		}
		ret = interactive(&t);
	}
out:
	tui_release(&t);
	sqlite3_close(db);
	return ret;
}
