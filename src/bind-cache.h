/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each parameter of a prepared statement holds, so that a value
 * already bound is not bound again.  SQLite keeps a statement's bindings
 * across sqlite3_reset(), and the database writer runs one INSERT of many
 * rows over and over whose run id, kind, skip reason, NULL columns and
 * small counts mostly repeat from one run of it to the next: a bind call
 * saved is a fifth of the writer's time saved (perf, the 1.14 M-event
 * bench trace).  Integers, NULLs and texts that stay put for the life of
 * the statement (static strings) are remembered.  A short text that lives
 * only until the statement is stepped (a task's name, a slice's state) is
 * kept once in the cache's table of texts when it has one (a one-byte text
 * in a constant of its own), and bound from there: a parameter that already holds the same bytes is not bound again
 * (most rows name the task and the state of the row before them).  Without
 * that table such a text is bound every time and forgets what the
 * parameter held.  Not thread-safe: one cache a statement, used by the
 * thread that steps it (the table may be shared by the caches of one
 * thread).
 */
#ifndef SCHEDREPLAY_BIND_CACHE_H
#define SCHEDREPLAY_BIND_CACHE_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

enum { SR_BC_NONE, SR_BC_INT, SR_BC_NULL, SR_BC_STATIC };

/* parameter i (1-based) of a statement of up to @n parameters */
struct sr_bind_cache {
	int n;
	unsigned char *tag;	/* SR_BC_* by parameter, [n + 1] */
	sqlite3_int64 *val;	/* the integer, or the static text's address */
	struct sr_strtab *texts;	/* the short texts met, or NULL: set by the owner */
};

/* room for @n parameters, none known; 0 or -1 (out of memory: then no cache, every value bound) */
static inline int sr_bc_init(struct sr_bind_cache *c, int n)
{
	c->tag = calloc((size_t)n + 1, sizeof(*c->tag));
	c->val = calloc((size_t)n + 1, sizeof(*c->val));
	c->n = c->tag && c->val ? n : 0;
	c->texts = NULL;
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

/*
 * @v (of @len bytes) stays put until the statement has been stepped.  With
 * a table of texts, the parameter is bound to the table's copy of @v,
 * which stays put as long as the table, so the table must outlive the
 * statement's last step.
 */
static inline void sr_bc_text(struct sr_bind_cache *c, sqlite3_stmt *q, int i, const char *v,
			      int len)
{
	/* one byte (a task state): its own constant, found without the table */
	static const char one[256][2] = {
#define SR_BC_ONE(b) [b] = { (char)(b), 0 }
#define SR_BC_ONE8(b) SR_BC_ONE(b), SR_BC_ONE(b + 1), SR_BC_ONE(b + 2), SR_BC_ONE(b + 3), \
		SR_BC_ONE(b + 4), SR_BC_ONE(b + 5), SR_BC_ONE(b + 6), SR_BC_ONE(b + 7)
		SR_BC_ONE8(0x20), SR_BC_ONE8(0x28), SR_BC_ONE8(0x30), SR_BC_ONE8(0x38),
		SR_BC_ONE8(0x40), SR_BC_ONE8(0x48), SR_BC_ONE8(0x50), SR_BC_ONE8(0x58),
		SR_BC_ONE8(0x60), SR_BC_ONE8(0x68), SR_BC_ONE8(0x70), SR_BC_ONE8(0x78),
#undef SR_BC_ONE8
#undef SR_BC_ONE
	};

	if (c && i <= c->n) {
		if (len == 1 && (unsigned char)v[0] >= 0x20 && (unsigned char)v[0] < 0x80) {
			sr_bc_static(c, q, i, one[(unsigned char)v[0]]);
			return;
		}
		if (c->texts) {
			const char *old = (const char *)(intptr_t)c->val[i];
			long k;

			/* @v has no NUL in its @len bytes: strncmp() stops where @old ends */
			if (c->tag[i] == SR_BC_STATIC && !strncmp(old, v, (size_t)len) && !old[len])
				return;
			k = sr_strtab_add(c->texts, v, (size_t)len, NULL);
			if (k >= 0) {
				v = sr_strtab_str(c->texts, k);
				c->tag[i] = SR_BC_STATIC;
				c->val[i] = (sqlite3_int64)(intptr_t)v;
				sqlite3_bind_text(q, i, v, len, SQLITE_STATIC);
				return;
			}
		}
		c->tag[i] = SR_BC_NONE;
	}
	sqlite3_bind_text(q, i, v, len, SQLITE_STATIC);
}

#endif
