/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each parameter of a prepared statement holds, so that a value
 * already bound is not bound again.  SQLite keeps a statement's bindings
 * across sqlite3_reset(), and the database writer runs one INSERT of many
 * rows over and over whose run id, kind, skip reason, NULL columns and
 * small counts mostly repeat from one run of it to the next: a bind call
 * saved is a fifth of the writer's time saved (perf, the 1.14 M-event
 * bench trace).  Integers, NULLs and texts that stay put for the life of
 * the statement (static strings) are remembered; any other text is bound
 * every time and forgets what the parameter held.  Not thread-safe: one
 * cache a statement, used by the thread that steps it.
 */
#ifndef SCHEDREPLAY_BIND_CACHE_H
#define SCHEDREPLAY_BIND_CACHE_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SR_BC_NONE, SR_BC_INT, SR_BC_NULL, SR_BC_STATIC };

/* parameter i (1-based) of a statement of up to @n parameters */
struct sr_bind_cache {
	int n;
	unsigned char *tag;	/* SR_BC_* by parameter, [n + 1] */
	sqlite3_int64 *val;	/* the integer, or the static text's address */
};

/* room for @n parameters, none known; 0 or -1 (out of memory: then no cache, every value bound) */
static inline int sr_bc_init(struct sr_bind_cache *c, int n)
{
	c->tag = calloc((size_t)n + 1, sizeof(*c->tag));
	c->val = calloc((size_t)n + 1, sizeof(*c->val));
	c->n = c->tag && c->val ? n : 0;
	return c->n ? 0 : -1;
}

static inline void sr_bc_release(struct sr_bind_cache *c)
{
	free(c->tag);
	free(c->val);
	c->tag = NULL;
	c->val = NULL;
	c->n = 0;
}

static inline void sr_bc_int(struct sr_bind_cache *c, sqlite3_stmt *q, int i, sqlite3_int64 v)
{
	if (c && i <= c->n) {
		if (c->tag[i] == SR_BC_INT && c->val[i] == v)
			return;
		c->tag[i] = SR_BC_INT;
		c->val[i] = v;
	}
	sqlite3_bind_int64(q, i, v);
}

static inline void sr_bc_null(struct sr_bind_cache *c, sqlite3_stmt *q, int i)
{
	if (c && i <= c->n) {
		if (c->tag[i] == SR_BC_NULL)
			return;
		c->tag[i] = SR_BC_NULL;
	}
	sqlite3_bind_null(q, i);
}

/* @v stays put as long as the statement lives (a string constant, a table's text); NULL: NULL */
static inline void sr_bc_static(struct sr_bind_cache *c, sqlite3_stmt *q, int i, const char *v)
{
	if (!v) {
		sr_bc_null(c, q, i);
		return;
	}
	if (c && i <= c->n) {
		if (c->tag[i] == SR_BC_STATIC && c->val[i] == (sqlite3_int64)(intptr_t)v)
			return;
		c->tag[i] = SR_BC_STATIC;
		c->val[i] = (sqlite3_int64)(intptr_t)v;
	}
	sqlite3_bind_text(q, i, v, (int)strlen(v), SQLITE_STATIC);
}

/* @v (of @len bytes) stays put until the statement has been stepped */
static inline void sr_bc_text(struct sr_bind_cache *c, sqlite3_stmt *q, int i, const char *v,
			      int len)
{
	if (c && i <= c->n)
		c->tag[i] = SR_BC_NONE;
	sqlite3_bind_text(q, i, v, len, SQLITE_STATIC);
}

#endif
