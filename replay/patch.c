// SPDX-License-Identifier: GPL-2.0
/*
 * The list of patch pairs (each registers itself from its own file, or
 * from a shared object loaded with --patch-file) and the making of a
 * side: a copy of the base model with the side's functions in place.
 */
#include "schedreplay/patch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

#define MAX_PATCHES 64

static const struct sr_patch *list[MAX_PATCHES];
static int nlist;

/* what the last refused pair was built with, for sr_patch_load's message */
static int refused_abi;

void sr_patch_register_layout(const struct sr_patch *p, unsigned long layout)
{
	int i, j;

	if (!p || !p->name || nlist == MAX_PATCHES || sr_patch_find(p->name))
		return;
	if (p->abi != SR_PATCH_ABI || layout != SR_PATCH_LAYOUT) {
		refused_abi = p->abi ? p->abi : -1;
		return;
	}
	/* keep the list sorted by name: --list-patches and tests see one order */
	for (i = 0; i < nlist && strcmp(list[i]->name, p->name) < 0; i++)
		;
	for (j = nlist; j > i; j--)
		list[j] = list[j - 1];
	list[i] = p;
	nlist++;
}

/* what pairs built before ABI 3 call: they are refused (the policy changed) */
void sr_patch_register(const struct sr_patch *p)
{
	refused_abi = p && p->abi ? p->abi : -1;
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

	refused_abi = 0;
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
	if (nlist == before && refused_abi) {
		sr_cause_set(cause, "patch file '%s' was built against other schedreplay "
			     "headers (ABI %d, or other structure sizes; this is ABI %d): rebuild "
			     "it (schedreplay-pairs(7))", path, refused_abi, SR_PATCH_ABI);
		dlclose(h);
		return -1;
	}
	if (nlist == before) {
		sr_cause_set(cause, "patch file '%s' registers no pair (SR_PATCH_REGISTER)",
			     path);
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

/* "6.12.117+deb12-amd64" as 6 * 1000 + 12; -1 without a leading X.Y */
static long release_number(const char *s)
{
	char *end;
	long major, minor;

	if (!s)
		return -1;
	major = strtol(s, &end, 10);
	if (end == s || *end != '.')
		return -1;
	s = end + 1;
	minor = strtol(s, &end, 10);
	if (end == s || major < 0 || minor < 0 || minor >= 1000)
		return -1;
	return major * 1000 + minor;
}

int sr_kernel_version_cmp(const char *kernel, const char *release)
{
	long k = release_number(kernel), r = release_number(release);

	if (k < 0 || r < 0)
		return 0;
	return k < r ? -1 : k > r;
}

int sr_patch_kernel_side(const struct sr_patch *p, const char *kernel)
{
	if (release_number(kernel) < 0)
		return -1;
	if (p->merged && sr_kernel_version_cmp(kernel, p->merged) >= 0)
		return 1;
	if (p->replaced && sr_kernel_version_cmp(kernel, p->replaced) >= 0)
		return -1;
	return 0;
}

const char *sr_patch_contained(const struct sr_patch *p, int side, char *buf, size_t len)
{
	if (side)
		snprintf(buf, len, "the patched side (in kernels since %s)", p->merged);
	else if (p->merged)
		snprintf(buf, len, "the original side (in kernels before %s)", p->merged);
	else if (p->replaced)
		snprintf(buf, len, "the original side (in kernels before %s; never merged)",
			 p->replaced);
	else
		snprintf(buf, len, "the original side (the patch was never merged)");
	return buf;
}

int sr_patch_check(const struct sr_patch *p, const char *kernel, long long divergent,
		   long long original_exact, long long patched_exact, char *buf, size_t len)
{
	int side = sr_patch_kernel_side(p, kernel);
	long long in = side ? patched_exact : original_exact;
	long long out = side ? original_exact : patched_exact;
	char what[160];

	if (side < 0 || divergent <= 0 || in >= out)
		return 0;
	snprintf(buf, len, "model error likely: the kernel (%s) runs %s, yet that side matches "
		 "it less often (%lld of %lld divergent decisions) than the other (%lld): the "
		 "model, not the patch, is what this measures here", kernel,
		 sr_patch_contained(p, side, what, sizeof(what)), in, divergent, out);
	return 1;
}
