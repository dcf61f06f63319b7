// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI's terminal: the only file that includes curses.  It sets the
 * terminal up and restores it on every way out (a normal return, SIGINT,
 * SIGTERM, SIGHUP and the fatal signals: endwin, then the signal again with
 * its default action), copies a grid to the screen and turns curses keys
 * into TUI_KEY_* codes.  Colour is used when the terminal has it and NO_COLOR
 * is not set; otherwise bold, reverse and underline carry the highlights.
 */
#include "tui-local.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

static volatile sig_atomic_t tty_active;
static int use_color;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
				     SIGFPE, SIGABRT };
#define NSIGNALS (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction old_action[NSIGNALS];

static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < NSIGNALS; i++)
		sigaction(fatal_signals[i], &old_action[i], NULL);
}

/* endwin is not async-signal-safe, but the alternative is a dead terminal */
static void on_signal(int sig)
{
	if (tty_active) {
		tty_active = 0;
		endwin();
	}
	restore_signals();
	signal(sig, SIG_DFL);
	raise(sig);
}

int tui_tty_start(char **cause)
{
	struct sigaction sa;
	const char *nc = getenv("NO_COLOR");
	size_t i;

	if (!newterm(NULL, stdout, stdin)) {
		sr_cause_set(cause, "cannot use the terminal '%s'",
			     getenv("TERM") ? getenv("TERM") : "(TERM not set)");
		return -1;
	}
	tty_active = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSIGNALS; i++)
		sigaction(fatal_signals[i], &sa, &old_action[i]);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	use_color = (!nc || !*nc) && has_colors();
	if (use_color && start_color() == OK) {
		static const short map[TUI_C__COUNT] = {
			[TUI_C_RED] = COLOR_RED, [TUI_C_GREEN] = COLOR_GREEN,
			[TUI_C_YELLOW] = COLOR_YELLOW, [TUI_C_BLUE] = COLOR_BLUE,
			[TUI_C_MAGENTA] = COLOR_MAGENTA, [TUI_C_CYAN] = COLOR_CYAN,
		};
		short c;

		use_default_colors();
		for (c = 1; c < TUI_C__COUNT; c++)
			init_pair(c, map[c], -1);
	} else {
		use_color = 0;
	}
	return 0;
}

void tui_tty_stop(void)
{
	if (!tty_active)
		return;
	tty_active = 0;
	endwin();
	restore_signals();
}

void tui_tty_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

void tui_tty_draw(const struct tui_grid *g)
{
	int r, c, rows, cols;

	getmaxyx(stdscr, rows, cols);
	for (r = 0; r < g->rows && r < rows; r++) {
		for (c = 0; c < g->cols && c < cols; c++) {
			const struct tui_cell *cell = &g->cell[(size_t)r * (size_t)g->cols +
							      (size_t)c];
			chtype a = 0;

			if (cell->attr & TUI_A_BOLD)
				a |= A_BOLD;
			if (cell->attr & TUI_A_REVERSE)
				a |= A_REVERSE;
			if (cell->attr & TUI_A_UNDERLINE)
				a |= A_UNDERLINE;
			if (cell->attr & TUI_A_DIM)
				a |= A_DIM;
			if (use_color && cell->color)
				a |= COLOR_PAIR(cell->color);
			/* the last cell would scroll: curses writes it and says ERR */
			mvaddch(r, c, (chtype)(unsigned char)cell->ch | a);
		}
	}
	refresh();
}

int tui_tty_key(void)
{
	int k = getch();

	switch (k) {
	case ERR:
		return TUI_KEY_NONE;
	case KEY_UP:
		return TUI_KEY_UP;
	case KEY_DOWN:
		return TUI_KEY_DOWN;
	case KEY_LEFT:
		return TUI_KEY_LEFT;
	case KEY_RIGHT:
		return TUI_KEY_RIGHT;
	case KEY_PPAGE:
		return TUI_KEY_PGUP;
	case KEY_NPAGE:
		return TUI_KEY_PGDN;
	case KEY_HOME:
		return TUI_KEY_HOME;
	case KEY_END:
		return TUI_KEY_END;
	case KEY_ENTER: case '\n': case '\r':
		return TUI_KEY_ENTER;
	case 27:
		return TUI_KEY_ESC;
	case KEY_BACKSPACE: case 127: case 8:
		return TUI_KEY_BACKSPACE;
	case '\t':
		return TUI_KEY_TAB;
	case KEY_RESIZE:
		return TUI_KEY_RESIZE;
	default:
		return k >= 0 && k < 0x100 ? k : TUI_KEY_NONE;
	}
}

int tui_tty_cancel_key(void)
{
	int k;

	nodelay(stdscr, TRUE);
	k = getch();
	nodelay(stdscr, FALSE);
	if (k == ERR)
		return 0;
	if (k == 27)
		return 1;
	/* any other key stays for after the query */
	ungetch(k);
	return 0;
}
