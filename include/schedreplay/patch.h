/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patches: a named pair of decision functions, the original and the
 * patched one, applied over a base model.  Replay evaluates both sides at
 * every decision the patch can touch and keeps both choices and reasons;
 * where they differ is a divergence.
 *
 * Adding a pair takes one new file under replay/ (or a shared object
 * loaded with --patch-file): define a struct sr_patch whose two apply
 * functions replace what the patch changes in a copy of the base model,
 * and register it with SR_PATCH_REGISTER().  The side functions read the
 * engine's state through the model's view, like every decision function,
 * and append reason tokens with sr_reason().  A side that leaves the copy
 * as it is (NULL apply) is the base model's own function.
 */
#ifndef SCHEDREPLAY_PATCH_H
#define SCHEDREPLAY_PATCH_H

#include "schedreplay/model.h"

#define SR_PATCH_ABI 1

/* which decisions a patch can change */
enum sr_patch_scope {
	SR_SCOPE_WAKEUP		= 1 << 0,	/* select_task_rq_fair on wakeup */
	SR_SCOPE_FORK		= 1 << 1,	/* select_task_rq_fair on fork */
	SR_SCOPE_BALANCE	= 1 << 2,	/* load balancing (periodic, newidle, nohz) */
};

struct sr_patch {
	int abi;			/* SR_PATCH_ABI */
	const char *name;		/* for --patch, e.g. "wake-affine-equal" */
	const char *seed;		/* where it comes from, e.g. "004 3/4" */
	const char *summary;		/* one line: what it changes */
	const char *function;		/* the kernel function it replaces */
	unsigned scope;			/* enum sr_patch_scope; 0: changes no decision */
	/* make each side from a copy of the base model */
	void (*original)(struct sr_model *m);
	void (*patched)(struct sr_model *m);
};

/* add @p to the list (from a constructor; see SR_PATCH_REGISTER) */
void sr_patch_register(const struct sr_patch *p);

#define SR_PATCH_REGISTER(p)                                                   \
	static void __attribute__((constructor)) sr_patch_register_##p(void) \
	{                                                                      \
		sr_patch_register(&(p));                                       \
	}

const struct sr_patch *sr_patch_find(const char *name);
int sr_patch_count(void);
const struct sr_patch *sr_patch_at(int i);

/**
 * sr_patch_load - dlopen a shared object whose constructors register pairs
 * Return: 0, or -1 with @cause.
 */
int sr_patch_load(const char *path, char **cause);

/**
 * sr_patch_side - a model for one side of @p over @base ("original" or
 * "patched"); free it with free().
 * Return: NULL when out of memory.
 */
struct sr_model *sr_patch_side(const struct sr_patch *p, const struct sr_model *base,
			       int patched);

/* the decision kinds of @scope: does @p touch decision kind @kind? */
int sr_patch_touches(const struct sr_patch *p, enum sr_decision_kind kind);

#endif
