// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI's off-screen grid: rows x cols cells of one ASCII character with
 * attributes.  Views write here; tui-tty.c copies a grid to the terminal and
 * tui_grid_dump() prints it as text for --dump and the tests.
 */
#include "tui-local.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

int tui_grid_init(struct tui_grid *g, int rows, int cols)
{
	if (rows < 1)
		rows = 1;
	if (cols < 1)
		cols = 1;
	g->cell = calloc((size_t)rows * (size_t)cols, sizeof(*g->cell));
	if (!g->cell) {
		g->rows = g->cols = 0;
		return -1;
	}
	g->rows = rows;
	g->cols = cols;
	tui_grid_clear(g);
	return 0;
}

void tui_grid_release(struct tui_grid *g)
{
	free(g->cell);
	g->cell = NULL;
	g->rows = g->cols = 0;
}

void tui_grid_clear(struct tui_grid *g)
{
	size_t i, n = (size_t)g->rows * (size_t)g->cols;

	for (i = 0; i < n; i++) {
		g->cell[i].ch = ' ';
		g->cell[i].attr = 0;
		g->cell[i].color = TUI_C_DEFAULT;
	}
}

int tui_grid_put(struct tui_grid *g, int row, int col, const char *s, unsigned attr,
		 unsigned color)
{
	struct tui_cell *c;
	int n = 0;

	if (row < 0 || row >= g->rows || !s)
		return 0;
	for (; *s && col < g->cols; s++, col++) {
		unsigned char ch = (unsigned char)*s;

		if (col < 0)
			continue;
		c = &g->cell[(size_t)row * (size_t)g->cols + (size_t)col];
		c->ch = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		c->attr = (unsigned char)attr;
		c->color = (unsigned char)color;
		n++;
	}
	return n;
}

int tui_grid_printf(struct tui_grid *g, int row, int col, unsigned attr, unsigned color,
		    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_grid_put(g, row, col, buf, attr, color);
}

void tui_grid_attr(struct tui_grid *g, int row, int col, int n, unsigned attr, unsigned color)
{
	int end;

	if (row < 0 || row >= g->rows)
		return;
	if (col < 0)
		col = 0;
	end = n < 0 || col + n > g->cols ? g->cols : col + n;
	for (; col < end; col++) {
		struct tui_cell *c = &g->cell[(size_t)row * (size_t)g->cols + (size_t)col];

		c->attr |= (unsigned char)attr;
		if (color)
			c->color = (unsigned char)color;
	}
}

void tui_grid_blit(struct tui_grid *dst, int to, const struct tui_grid *src, int from, int n)
{
	int r, w = dst->cols < src->cols ? dst->cols : src->cols;

	for (r = 0; r < n; r++) {
		if (to + r < 0 || to + r >= dst->rows || from + r < 0 || from + r >= src->rows)
			continue;
		memcpy(&dst->cell[(size_t)(to + r) * (size_t)dst->cols],
		       &src->cell[(size_t)(from + r) * (size_t)src->cols],
		       (size_t)w * sizeof(*dst->cell));
	}
}

void tui_grid_dump(const struct tui_grid *g, FILE *out)
{
	int r, c, end;

	for (r = 0; r < g->rows; r++) {
		const struct tui_cell *row = &g->cell[(size_t)r * (size_t)g->cols];

		for (end = g->cols; end > 0 && row[end - 1].ch == ' '; end--)
			;
		for (c = 0; c < end; c++)
			fputc(row[c].ch, out);
		fputc('\n', out);
	}
}
