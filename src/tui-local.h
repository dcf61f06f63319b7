/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TUI's private interfaces.  Views draw into a struct tui_grid (an
 * off-screen array of cells); only tui-tty.c touches curses and copies a
 * grid to the terminal, so every view can be dumped as text by
 * "schedreplay tui --dump VIEW" and checked by tests.  The query layer
 * (tui-query.c) turns a filter, a sort and a window into SQL text and a
 * list of bound parameters: filter values never enter the SQL text.
 *
 *   tui-grid.c    the cell grid
 *   tui-query.c   filter language, SQL + parameters, SQL display, and
 *                 every other statement the views run (tui_q())
 *   tui-view.c    the data of a run and the views (list, detail, summary,
 *                 help, sql) rendered into a grid
 *   tui-app.c     the browser's state and its keys
 *   tui-tty.c     curses: the terminal, keys, signals
 */
#ifndef SCHEDREPLAY_TUI_LOCAL_H
#define SCHEDREPLAY_TUI_LOCAL_H

#include <stdio.h>
#include <sqlite3.h>

/* ---- the grid ---------------------------------------------------------- */

enum {
	TUI_A_BOLD	= 1 << 0,
	TUI_A_REVERSE	= 1 << 1,
	TUI_A_UNDERLINE	= 1 << 2,
	TUI_A_DIM	= 1 << 3,
};

enum tui_color {
	TUI_C_DEFAULT, TUI_C_RED, TUI_C_GREEN, TUI_C_YELLOW, TUI_C_BLUE, TUI_C_MAGENTA,
	TUI_C_CYAN, TUI_C__COUNT
};

struct tui_cell {
	char ch;			/* printable ASCII; anything else is drawn as '?' */
	unsigned char attr;		/* TUI_A_* */
	unsigned char color;		/* enum tui_color */
};

struct tui_grid {
	int rows, cols;
	struct tui_cell *cell;		/* rows * cols */
};

int tui_grid_init(struct tui_grid *g, int rows, int cols);
void tui_grid_release(struct tui_grid *g);
void tui_grid_clear(struct tui_grid *g);
/* write @s at (@row, @col), clipped to the row; Return: the cells written */
int tui_grid_put(struct tui_grid *g, int row, int col, const char *s, unsigned attr,
		 unsigned color);
int tui_grid_printf(struct tui_grid *g, int row, int col, unsigned attr, unsigned color,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* or @attr into cells [@col, @col + @n) of @row (n < 0: to the end) */
void tui_grid_attr(struct tui_grid *g, int row, int col, int n, unsigned attr, unsigned color);
/* copy rows [@from, @from + @n) of @src to @dst starting at row @to */
void tui_grid_blit(struct tui_grid *dst, int to, const struct tui_grid *src, int from, int n);
/* the grid as text, trailing blanks of each row removed */
void tui_grid_dump(const struct tui_grid *g, FILE *out);

/* ---- filters and SQL ---------------------------------------------------- */

enum tui_mode { TUI_DIVERGENT, TUI_ALL };

enum tui_cross { TUI_CROSS_ANY, TUI_CROSS_LLC, TUI_CROSS_NODE, TUI_CROSS_NONE };

struct tui_filter {
	char *patch, *kind, *comm, *text;
	long pid;			/* -1: any */
	int cpu;			/* -1: any */
	enum tui_cross cross;
	int has_t0, has_t1;
	long long t0, t1;		/* ns from the run's first_ts */
	int miss;			/* the base model's CPU is not the kernel's: 1, 0; -1 any */
	int div;			/* a patch pair's sides diverged: 1, 0; -1 any */
};

void tui_filter_init(struct tui_filter *f);
void tui_filter_release(struct tui_filter *f);
/*
 * tui_filter_parse - "kind=wakeup comm=hackbench cpu=3 cross=node t=1.5-2.0
 * patch=NAME pid=N task=COMM|PID text=WORD"; a word without '=' is free text;
 * kind is any decision kind, t= seconds with up to nine fraction digits.
 * Return: 0, or -1 with @cause (caller frees) and @f unchanged.
 */
int tui_filter_parse(const char *expr, struct tui_filter *f, char **cause);
/* Return: the filter in the language above (caller frees) */
char *tui_filter_format(const struct tui_filter *f);
/* Return: the decision kind called @name (enum sr_decision_kind), or -1 */
int tui_kind_find(const char *name);
/* Return: every decision kind, @sep between, @last before the last (caller frees) */
char *tui_kind_list(const char *sep, const char *last);

/* the sort columns */
enum tui_col {
	TUI_COL_TIME, TUI_COL_TASK, TUI_COL_PID, TUI_COL_KIND, TUI_COL_THIS, TUI_COL_PREV,
	TUI_COL_ACTUAL, TUI_COL_ORIGINAL, TUI_COL_PATCHED, TUI_COL_PATCH, TUI_COL_BASE,
	TUI_COL__COUNT
};
const char *tui_col_name(enum tui_col c);
/* Return: the column called @name, or -1 */
int tui_col_find(const char *name);

#define TUI_MAX_PARAMS	24
#define TUI_MAX_BASE	4

struct tui_param {
	const char *name;		/* ":run", static */
	int is_text;
	long long i;
	char *s;
};

struct tui_sql {
	char *text;
	struct tui_param p[TUI_MAX_PARAMS];
	int n;
};

/* what a query needs to know about the run */
struct tui_scope {
	long run_id;
	long long first_ts;
	const char *base[TUI_MAX_BASE];	/* base models, in side order */
	int nbase;
	const char *patch;		/* the patch whose sides the "all" list shows */
};

struct tui_query {
	enum tui_mode mode;
	const struct tui_filter *filter;
	enum tui_col sort;
	int desc;
};

/*
 * The columns of a rows query, in order.  The divergent list ends with the
 * patched side's reason and the base model; the list of every decision
 * has the patches that diverged in TUI_R_PATCH, the first base model's
 * reason in TUI_R_REASON_O, then each base model's CPU.
 */
enum {
	TUI_R_ID, TUI_R_TS, TUI_R_TID, TUI_R_COMM, TUI_R_KIND, TUI_R_THIS, TUI_R_PREV,
	TUI_R_ACTUAL, TUI_R_ORIGINAL, TUI_R_PATCHED, TUI_R_PATCH, TUI_R_REASON_O,
	TUI_R_REASON_P, TUI_R_MODEL, TUI_R_BASE_CPU,	/* divergent */
	TUI_R_BASE0 = TUI_R_REASON_P,		/* every decision */
};

/*
 * The fixed queries of the views (tui-view.c): every statement the TUI runs
 * is written here, in the query layer, the views only bind and read them.
 */
enum tui_q {
	TUI_Q_RUNS,	/* the runs, in order: what the summary and the title show */
	TUI_Q_BASE_MODELS,	/* a run's base models, in side order */
	TUI_Q_PATCHES,	/* a run's patch pairs, in side order */
	TUI_Q_MAX_CPU,	/* a run's highest CPU number */
	TUI_Q_CPUS,	/* a run's topology */
	TUI_Q_NDIVERGENT,	/* a run's divergent rows */
	TUI_Q_TIMELINE_DECISIONS,	/* the detail's timeline: decisions in a window */
	TUI_Q_TIMELINE_MIGRATIONS,	/* ... and migrations */
	/* the patch sides of a decision, the list's pair (?2 patch, ?3 model) first */
	TUI_Q_DETAIL_SIDES,
	TUI_Q_DETAIL_DECISION,	/* one decision */
	TUI_Q_DETAIL_CPU_STATE,	/* every CPU's state at a decision */
	TUI_Q_DETAIL_REASONS,	/* every side's answer at a decision */
	TUI_Q_NLLC,	/* a run's LLCs */
	TUI_Q_TOPOLOGY,	/* where a run's topology came from */
	TUI_Q_KIND,	/* a simulated run's side, seed and rules (a replay: none) */
	TUI_Q_PATCH_SUMMARY,	/* a run's patch summary */
	TUI_Q_FIDELITY,	/* a run's fidelity totals per base model */
	TUI_Q_HAS_INPUTS,	/* the database has the why-view's tables */
	TUI_Q_DETAIL_INPUT,	/* what the first base model read at a decision */
	TUI_Q_DETAIL_GROUPS,	/* the groups it compared */
	TUI_Q_DOMAINS,	/* a CPU's sched domains */
	TUI_Q_SLICE_RANGE,	/* a run's sched_slice rows and their longest delay */
	TUI_Q_SLICE_END,	/* the end of the first slice row at or after a rowid */
	TUI_Q_SLICE_SCAN,	/* slice rows from a rowid, in the order they ended */
	TUI_Q_NEXT_DECISION,	/* the next decision of a run in time */
	TUI_Q_PREV_DECISION,	/* the previous one */
	TUI_Q_FIND_ID,	/* a decision by its id: its run */
	TUI_Q_FIND_TS,	/* the first decision of a run at or after a time */
	TUI_Q__COUNT
};
/* Return: the SQL text of query @q (static) */
const char *tui_q(enum tui_q q);

void tui_sql_release(struct tui_sql *q);
/* the rows of @q, @limit from @offset (@limit < 0: all of them) */
int tui_sql_rows(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *q,
		 long limit, long offset);
int tui_sql_count(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *q);
/* the position of the next (@dir > 0) or previous row after @from matching @text */
int tui_sql_search(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *q,
		   const char *text, long from, int dir);
/* Return: a prepared statement with every parameter bound, or NULL with @cause */
sqlite3_stmt *tui_sql_prepare(sqlite3 *db, const struct tui_sql *q, char **cause);
/* the SQL and its parameters as sqlite3 shell input (.parameter set lines) */
void tui_sql_print(const struct tui_sql *q, sqlite3 *db, FILE *out);

/* ---- the data and the views --------------------------------------------- */

struct tui_run {
	long run_id;
	char *trace, *kernel, *models, *patches;
	long long first_ts, last_ts, decisions, events, migrations, lost;
	int ncpus;
};

struct tui_row {
	long id;
	long long ts;
	int tid;
	char comm[68];			/* escaped (escape.h): 16 bytes, 4 each at most */
	char kind[20];
	int cpu[5];			/* this, prev, actual, original, patched; -1 NULL */
	char *patch;			/* the patch (divergent) or the diverging ones (all) */
	char *reason[2];		/* original, patched (divergent) or base (all) */
	char *model;			/* the base model of the pair's sides */
	int base[TUI_MAX_BASE];		/* every decision: each base model's CPU */
	int miss;			/* the (first) base model's CPU is not the kernel's */
};

enum tui_view { TUI_V_LIST, TUI_V_DETAIL, TUI_V_SUMMARY, TUI_V_HELP, TUI_V_SQL };

struct tui {
	sqlite3 *db;
	const char *path;
	struct tui_run *runs;
	int nruns, cur;			/* runs[cur] is shown */
	/* the current run */
	struct tui_scope scope;
	char *base_names[TUI_MAX_BASE];
	char **patch_names;
	int npatches;
	int *cpu_llc, *cpu_node, *cpu_core, ncpu;	/* by cpu number */
	int *cpu_cap;			/* capacity by cpu number (1024 when not known) */
	long ndivergent;		/* in the whole run */
	/* the list */
	enum tui_mode mode;
	struct tui_filter filter;
	enum tui_col sort;
	int desc;
	long count;			/* rows of the current filter, -1 unknown */
	long sel, top;			/* selected row, first row on screen */
	struct tui_row *win;		/* rows [win_off, win_off + win_n) */
	long win_off, win_n;
	char *search;
	/* the detail */
	long detail_id;
	char *detail_patch;		/* the patch whose sides the detail shows */
	char *detail_model;		/* ... on this base model */
	long long detail_window;	/* ns either side */
	int detail_in_list;		/* opened from the list: n/p walk the list */
	int has_inputs;			/* the why-view's tables are in the file (-1 unknown) */
	/* the run's sched_slice rows (rowid range) and longest delay; -1 unknown */
	long long slice_lo, slice_hi, slice_maxdelay;
	struct tui_grid page;		/* detail, summary, help or sql, taller than the screen */
	int page_valid, scroll;
	/* the screen */
	enum tui_view view, back;
	char notice[400];		/* one line shown until the next key */
	/* a prompt on the last line */
	int prompt;			/* 0, 'f', '/', 'w', 'y' (overwrite?) */
	char *pending;			/* the file the 'y' prompt is about */
	char input[256];
	size_t input_len;
	int quit;
	char *error;			/* a database error; the caller prints it */
	/* the front end's hooks for long queries (NULL with --dump) */
	void (*show_busy)(struct tui *t, const char *what);	/* say it now */
	int (*poll_cancel)(struct tui *t);	/* 1: the user asked to stop */
	int cancelled;			/* the last long query was cancelled */
	const char *busy_later;		/* shown if the query runs long */
	void *front;			/* the front end's own data */
};

/* Return: 0, or -1 with @cause: the database has no run etc. */
int tui_open(struct tui *t, sqlite3 *db, const char *path, char **cause);
void tui_release(struct tui *t);
int tui_select_run(struct tui *t, int i);
/* apply a filter expression and count its rows; Return: 0, or -1 with a
 * notice (a bad filter, or the count cancelled: the old filter is kept) */
int tui_set_filter(struct tui *t, const char *expr);
/* the list of divergent decisions or of every one; counted now (see cancelled) */
void tui_set_mode(struct tui *t, enum tui_mode m);
/*
 * around a query that may take long: say @what on the status line (through
 * show_busy) and let poll_cancel interrupt it; t->cancelled tells afterwards
 */
void tui_work_begin(struct tui *t, const char *what);
void tui_work_end(struct tui *t);
/* the same rows in another order: the count is kept */
void tui_set_sort(struct tui *t, enum tui_col c, int desc);
void tui_refresh_count(struct tui *t);
/* the row at list position @pos (fetched through the window), or NULL */
const struct tui_row *tui_row_at(struct tui *t, long pos);
void tui_open_detail(struct tui *t);
/*
 * tui_goto - the detail of a decision named as one is copied from "sql":
 * "#N" or "id N" a decision id, "ts N" or an integer that is no decision id
 * of the run a trace timestamp in ns, "S.F" seconds from the run's first
 * event (as the list shows them), a bare integer a decision id when the run
 * has one; a time opens the first decision at or after it.  Return: 0, or
 * -1 with t->notice set
 */
int tui_goto(struct tui *t, const char *what);
/* the detail of the next (@dir > 0) or previous decision: in the list when
 * the detail was opened from it, else in the run by time */
void tui_detail_step(struct tui *t, int dir);
/* the current list query (for SQL display and export) */
int tui_current_sql(struct tui *t, struct tui_sql *out, long limit, long offset);
/*
 * tui_create - open @file for writing; an existing file only when @overwrite
 * Return: the stream, or NULL with @cause (errno EEXIST: the file exists)
 */
FILE *tui_create(const char *file, int overwrite, char **cause);
/*
 * tui_export_csv - the whole list as CSV to @file (NULL: stdout); an
 * existing file is replaced only when @overwrite.  Return: the rows, -2 when
 * the file exists, or -1 with @cause (a cancelled or failed export removes
 * the file)
 */
long tui_export_csv(struct tui *t, const char *file, int overwrite, char **cause);
/* @text on the status line of @g, in place of what is there */
void tui_status_put(struct tui_grid *g, const char *text);
char *tui_default_csv_name(struct tui *t);
/* draw the current view into @g (sized to the screen) */
void tui_render(struct tui *t, struct tui_grid *g);

/* keys: ASCII or one of these */
enum {
	TUI_KEY_UP = 0x100, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_PGUP,
	TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_ENTER, TUI_KEY_ESC, TUI_KEY_BACKSPACE,
	TUI_KEY_TAB, TUI_KEY_RESIZE, TUI_KEY_NONE
};
/* handle one key for a screen of @rows x @cols; t->quit is set on quit */
void tui_key(struct tui *t, int key, int rows, int cols);

/* ---- the terminal (tui-tty.c, the only file that includes curses) ------- */

/* Return: 0, or -1 with @cause when the terminal cannot be set up */
int tui_tty_start(char **cause);
void tui_tty_stop(void);
void tui_tty_size(int *rows, int *cols);
void tui_tty_draw(const struct tui_grid *g);
/* Return: a TUI_KEY_* or ASCII key */
int tui_tty_key(void);
/* Return: 1 when Esc was pressed; another key pressed is kept for tui_tty_key */
int tui_tty_cancel_key(void);

#endif
