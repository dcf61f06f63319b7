// SPDX-License-Identifier: GPL-2.0
/*
 * The list of patch pairs (each registers itself from its own file, or
 * from a shared object loaded with --patch-file) and the making of a
 * side: a copy of the base model with the side's functions in place.
 */
#include "schedreplay/patch.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

#define MAX_PATCHES 64

static const struct sr_patch *list[MAX_PATCHES];
static int nlist;

void sr_patch_register(const struct sr_patch *p)
{
	int i, j;

	if (!p || p->abi != SR_PATCH_ABI || !p->name || nlist == MAX_PATCHES ||
	    sr_patch_find(p->name))
		return;
	/* keep the list sorted by name: --list-patches and tests see one order */
	for (i = 0; i < nlist && strcmp(list[i]->name, p->name) < 0; i++)
		;
	for (j = nlist; j > i; j--)
		list[j] = list[j - 1];
	list[i] = p;
	nlist++;
}

const struct sr_patch *sr_patch_find(const char *name)
{
	int i;

	for (i = 0; i < nlist; i++)
		if (!strcmp(list[i]->name, name))
			return list[i];
	return NULL;
}

int sr_patch_count(void)
{
	return nlist;
}

const struct sr_patch *sr_patch_at(int i)
{
	return i >= 0 && i < nlist ? list[i] : NULL;
}

int sr_patch_load(const char *path, char **cause)
{
	int before = nlist;
	void *h;

	/* a path without a slash would be looked up in the library path */
	if (!strchr(path, '/')) {
		sr_cause_set(cause, "cannot load patch file '%s': give a path (./%s)", path, path);
		return -1;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		sr_cause_set(cause, "cannot load patch file '%s': %s", path, dlerror());
		return -1;
	}
	if (nlist == before) {
		sr_cause_set(cause, "patch file '%s' registers no pair of ABI %d (SR_PATCH_REGISTER)",
			     path, SR_PATCH_ABI);
		dlclose(h);
		return -1;
	}
	/* the handle stays open: the pairs live in it */
	return 0;
}

struct sr_model *sr_patch_side(const struct sr_patch *p, const struct sr_model *base,
			       int patched)
{
	struct sr_model *m = malloc(sizeof(*m));
	void (*apply)(struct sr_model *) = patched ? p->patched : p->original;

	if (!m)
		return NULL;
	*m = *base;
	m->base = base;
	m->patch = p->name;
	m->variant = patched ? "patched" : "original";
	if (apply)
		apply(m);
	return m;
}

int sr_patch_touches(const struct sr_patch *p, enum sr_decision_kind kind)
{
	switch (kind) {
	case SR_DEC_WAKEUP:
		return !!(p->scope & SR_SCOPE_WAKEUP);
	case SR_DEC_FORK:
		return !!(p->scope & SR_SCOPE_FORK);
	case SR_DEC_LB_PERIODIC:
	case SR_DEC_LB_NEWIDLE:
	case SR_DEC_LB_NOHZ:
	case SR_DEC_NEWIDLE:
		return !!(p->scope & SR_SCOPE_BALANCE);
	case SR_DEC__COUNT:
		break;
	}
	return 0;
}
