// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder of the inputs that decided (include/schedreplay/why.h): the
 * base model's group comparisons, reported while the engine has set it.
 * Per thread, so that two engines in two threads do not mix their records.
 */
#include <stddef.h>
#include <stdlib.h>

#include "schedreplay/why.h"
#include "banned.h"

static __thread struct sr_why *rec;

void sr_why_record(struct sr_why *w)
{
	rec = w;
}

int sr_why_call(int fn)
{
	(void)fn;
	return rec ? rec->calls++ : -1;
}

void sr_why_group(const struct sr_why_group *g)
{
	if (!rec)
		return;
	if (rec->ngroups == rec->cap && rec->cap < SR_WHY_MAX_GROUPS) {
		int cap = rec->cap ? rec->cap * 2 : 8;
		struct sr_why_group *n = realloc(rec->g, sizeof(*n) * (size_t)cap);

		if (n) {
			rec->g = n;
			rec->cap = cap > SR_WHY_MAX_GROUPS ? SR_WHY_MAX_GROUPS : cap;
		}
	}
	if (rec->ngroups >= rec->cap) {
		rec->dropped++;
		return;
	}
	rec->g[rec->ngroups++] = *g;
}

void sr_why_pick(int call, int first)
{
	int i;

	if (!rec)
		return;
	for (i = 0; i < rec->ngroups; i++)
		if (rec->g[i].call == call && rec->g[i].first == first && !rec->g[i].local)
			rec->g[i].picked = 1;
}
