// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI's keys: what each key does to the state in struct tui (the view,
 * the selection, the filter, the sort, prompts).  Keys arrive as ASCII or
 * TUI_KEY_* codes from tui-tty.c, so this file needs no terminal either.
 */
#include "tui-local.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

int tui_list_rows(int screen_rows);

static void start_prompt(struct tui *t, int kind, const char *init)
{
	t->prompt = kind;
	snprintf(t->input, sizeof(t->input), "%s", init ? init : "");
	t->input_len = strlen(t->input);
}

static void search(struct tui *t, int dir)
{
	struct tui_query q = { t->mode, &t->filter, t->sort, t->desc };
	struct tui_sql s;
	sqlite3_stmt *st;
	char *cause = NULL;
	long pos = -1;
	int pass;

	if (!t->search || !*t->search) {
		snprintf(t->notice, sizeof(t->notice), "no search: / to search");
		return;
	}
	/* from the selection on, then around the end */
	tui_work_begin(t, "searching...  (Esc cancels)");
	for (pass = 0; pass < 2 && pos < 0 && !t->cancelled; pass++) {
		long from = pass ? (dir > 0 ? -1 : t->count) : t->sel;

		if (tui_sql_search(&s, &t->scope, &q, t->search, from, dir))
			break;
		st = tui_sql_prepare(t->db, &s, &cause);
		tui_sql_release(&s);
		if (!st) {
			snprintf(t->notice, sizeof(t->notice), "%s", cause ? cause : "search failed");
			free(cause);
			tui_work_end(t);
			return;
		}
		if (sqlite3_step(st) == SQLITE_ROW)
			pos = (long)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	tui_work_end(t);
	if (t->cancelled) {
		snprintf(t->notice, sizeof(t->notice), "search cancelled");
		return;
	}
	if (pos < 0) {
		snprintf(t->notice, sizeof(t->notice), "not found: %s", t->search);
		return;
	}
	if (pos == t->sel)
		snprintf(t->notice, sizeof(t->notice), "the only match: %s", t->search);
	t->sel = pos;
}

static void export(struct tui *t, const char *file, int overwrite);

static void finish_prompt(struct tui *t)
{
	int kind = t->prompt;

	t->prompt = 0;
	switch (kind) {
	case 'f':
		tui_set_filter(t, t->input);
		break;
	case '/':
		free(t->search);
		t->search = t->input_len ? strdup(t->input) : NULL;
		if (t->search)
			search(t, 1);
		break;
	case '#':
		if (t->input_len)
			tui_goto(t, t->input);
		break;
	case 'w':
		if (!t->input_len) {
			snprintf(t->notice, sizeof(t->notice), "no file name: nothing written");
			break;
		}
		export(t, t->input, 0);
		break;
	}
}

/* write the list to @file; an existing file is asked about first (the 'y' prompt) */
static void export(struct tui *t, const char *file, int overwrite)
{
	char *cause = NULL, *name = strdup(file);
	long n;

	if (!name) {
		snprintf(t->notice, sizeof(t->notice), "out of memory");
		return;
	}
	n = tui_export_csv(t, name, overwrite, &cause);
	if (n == -2) {
		free(t->pending);
		t->pending = name;
		t->prompt = 'y';
		free(cause);
		return;
	}
	if (n < 0)
		snprintf(t->notice, sizeof(t->notice), "%s", cause ? cause : "export failed");
	else
		snprintf(t->notice, sizeof(t->notice), "wrote %ld rows to %s", n, name);
	free(cause);
	free(name);
}

static void prompt_key(struct tui *t, int key)
{
	if (t->prompt == 'y') {
		char *file = t->pending;

		t->pending = NULL;
		t->prompt = 0;
		if (key == 'y' || key == 'Y')
			export(t, file, 1);
		else
			snprintf(t->notice, sizeof(t->notice), "'%s' not overwritten: nothing written",
				 file ? file : "");
		free(file);
		return;
	}
	switch (key) {
	case TUI_KEY_ENTER:
		finish_prompt(t);
		return;
	case TUI_KEY_ESC:
		t->prompt = 0;
		return;
	case TUI_KEY_BACKSPACE:
		if (t->input_len)
			t->input[--t->input_len] = '\0';
		return;
	case 'U' & 0x1f:
		t->input_len = 0;
		t->input[0] = '\0';
		return;
	default:
		if (key >= 0x20 && key < 0x7f && t->input_len + 1 < sizeof(t->input)) {
			t->input[t->input_len++] = (char)key;
			t->input[t->input_len] = '\0';
		}
	}
}

static void next_sort(struct tui *t, int dir)
{
	int c = (int)t->sort;

	do {
		c = (c + dir + TUI_COL__COUNT) % TUI_COL__COUNT;
	} while (t->mode == TUI_DIVERGENT && c == TUI_COL_BASE);
	tui_set_sort(t, (enum tui_col)c, t->desc);
}

static void list_key(struct tui *t, int key, int rows)
{
	int h = tui_list_rows(rows);
	long count;
	char *s;

	tui_refresh_count(t);
	count = t->count;
	switch (key) {
	case 'j': case TUI_KEY_DOWN:
		t->sel++;
		break;
	case 'k': case TUI_KEY_UP:
		t->sel--;
		break;
	case TUI_KEY_PGDN: case 'F' & 0x1f: case ' ':
		t->sel += h;
		t->top += h;
		break;
	case TUI_KEY_PGUP: case 'B' & 0x1f:
		t->sel -= h;
		t->top -= h;
		break;
	case 'g': case TUI_KEY_HOME:
		t->sel = 0;
		break;
	case 'G': case TUI_KEY_END:
		t->sel = count - 1;
		break;
	case TUI_KEY_ENTER: case '2':
		tui_open_detail(t);
		return;
	case 'q':
		t->quit = 1;
		return;
	case 'a':
		tui_set_mode(t, t->mode == TUI_ALL ? TUI_DIVERGENT : TUI_ALL);
		return;
	case 'f':
		s = tui_filter_format(&t->filter);
		start_prompt(t, 'f', s);
		free(s);
		return;
	case '/':
		start_prompt(t, '/', t->search);
		return;
	case '#':
		start_prompt(t, '#', "");
		return;
	case 'n':
		search(t, 1);
		break;
	case 'N':
		search(t, -1);
		break;
	case 's': case '>': case 'l': case TUI_KEY_RIGHT:
		next_sort(t, 1);
		return;
	case 'S': case '<': case 'h': case TUI_KEY_LEFT:
		next_sort(t, -1);
		return;
	case 'r':
		tui_set_sort(t, t->sort, !t->desc);
		return;
	case 'w': case 'x':
		s = tui_default_csv_name(t);
		start_prompt(t, 'w', s);
		free(s);
		return;
	}
	if (t->sel >= count)
		t->sel = count - 1;
	if (t->sel < 0)
		t->sel = 0;
	if (t->top > t->sel)
		t->top = t->sel;
	if (t->top < 0)
		t->top = 0;
}

static void page_key(struct tui *t, int key, int rows)
{
	int h = rows > 3 ? rows - 2 : 1;

	switch (key) {
	case 'j': case TUI_KEY_DOWN:
		t->scroll++;
		break;
	case 'k': case TUI_KEY_UP:
		t->scroll--;
		break;
	case TUI_KEY_PGDN: case 'F' & 0x1f: case ' ':
		t->scroll += h;
		break;
	case TUI_KEY_PGUP: case 'B' & 0x1f:
		t->scroll -= h;
		break;
	case 'g': case TUI_KEY_HOME:
		t->scroll = 0;
		break;
	case 'G': case TUI_KEY_END:
		t->scroll = 1 << 30;
		break;
	case '+':
		if (t->view == TUI_V_DETAIL && t->detail_window < 60000000000LL) {
			t->detail_window *= 2;
			t->page_valid = 0;
		}
		break;
	case '-':
		if (t->view == TUI_V_DETAIL && t->detail_window > 2000) {
			t->detail_window /= 2;
			t->page_valid = 0;
		}
		break;
	case 'n': case 'p':
		if (t->view == TUI_V_DETAIL)
			tui_detail_step(t, key == 'n' ? 1 : -1);
		break;
	case '#':
		if (t->view == TUI_V_DETAIL)
			start_prompt(t, '#', "");
		break;
	case 'q': case TUI_KEY_ESC:
		t->view = t->view == TUI_V_HELP || t->view == TUI_V_SQL ? t->back : TUI_V_LIST;
		if (t->view != TUI_V_LIST)
			t->page_valid = 0;
		break;
	}
}

void tui_key(struct tui *t, int key, int rows, int cols)
{
	if (key == TUI_KEY_RESIZE || key == TUI_KEY_NONE)
		return;
	if (t->prompt) {
		prompt_key(t, key);
		return;
	}
	t->notice[0] = '\0';
	/* keys every view knows */
	switch (key) {
	case '?':
		if (t->view != TUI_V_HELP) {
			t->back = t->view == TUI_V_SQL ? t->back : t->view;
			t->view = TUI_V_HELP;
			t->page_valid = 0;
			t->scroll = 0;
		}
		return;
	case 'y': case ':':
		if (t->view == TUI_V_LIST || t->view == TUI_V_SUMMARY) {
			t->back = t->view;
			t->view = TUI_V_SQL;
			t->page_valid = 0;
			t->scroll = 0;
			return;
		}
		break;
	case TUI_KEY_TAB: case '3':
		if (t->view == TUI_V_SUMMARY && key == TUI_KEY_TAB) {
			t->view = TUI_V_LIST;
		} else {
			t->view = TUI_V_SUMMARY;
			t->page_valid = 0;
			t->scroll = 0;
		}
		return;
	case '1':
		t->view = TUI_V_LIST;
		return;
	case '[': case ']': {
		int i = t->cur + (key == ']' ? 1 : -1);

		if (i < 0 || i >= t->nruns) {
			snprintf(t->notice, sizeof(t->notice), t->nruns > 1 ?
				 "no %s run" : "this database holds one run",
				 key == ']' ? "next" : "previous");
			return;
		}
		tui_select_run(t, i);
		if (t->view == TUI_V_DETAIL)
			t->view = TUI_V_LIST;
		t->page_valid = 0;
		return;
	}
	}
	if (t->view == TUI_V_LIST)
		list_key(t, key, rows);
	else if (t->view == TUI_V_DETAIL && key == '2')
		return;
	else
		page_key(t, key, rows);
	(void)cols;
}
