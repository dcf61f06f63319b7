/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a placement evaluation depended on (replay/depend.c): the members
 * of its model's policy that were called and the model flags that were
 * read.  A patch side differs from its base model in a few members and
 * flags; at a decision where the base model's evaluation called none of
 * those members and read none of those flags, the side runs the same
 * functions on the same view and inputs, so it answers what the base
 * model answered (CPU, reason path, what it read), and the engine copies
 * that answer instead of evaluating the side (replay/decision.c).  The
 * base model is evaluated through a traced copy whose members record
 * their call and hand over to the model's own.
 */
#ifndef SCHEDREPLAY_DEPEND_LOCAL_H
#define SCHEDREPLAY_DEPEND_LOCAL_H

#include "schedreplay/model.h"

/* what an evaluation depends on, besides the view and its inputs */
enum sr_dep {
	SR_DEP_SELECT_TASK_RQ		= 1u << 0,
	SR_DEP_WAKE_WIDE		= 1u << 1,
	SR_DEP_WAKE_AFFINE		= 1u << 2,
	SR_DEP_WAKE_AFFINE_IDLE		= 1u << 3,
	SR_DEP_WAKE_AFFINE_WEIGHT	= 1u << 4,
	SR_DEP_SELECT_IDLE_SIBLING	= 1u << 5,
	SR_DEP_SELECT_IDLE_CPU		= 1u << 6,
	SR_DEP_FIND_IDLEST_CPU		= 1u << 7,
	SR_DEP_FIND_IDLEST_GROUP	= 1u << 8,
	SR_DEP_FIND_IDLEST_GROUP_CPU	= 1u << 9,
	/* the flag mask_exiting_sync (the flags besides it are not traced) */
	SR_DEP_MASK_EXITING_SYNC	= 1u << 10,
};
/* a side that differs in what is not traced: evaluated every time */
#define SR_DEP_ALL (~0u)

/* a base model whose placement members record their calls */
struct sr_dep_model {
	struct sr_model m;		/* first: the members find the rest from c->m */
	const struct sr_model *real;
};

/* make @t the traced copy of the base model @base */
void sr_dep_model_init(struct sr_dep_model *t, const struct sr_model *base);

/*
 * sr_dep_diff - the SR_DEP_* in which the side @side's placement differs
 * from @base's; SR_DEP_ALL when it differs in a flag that is not traced
 */
unsigned sr_dep_diff(const struct sr_model *side, const struct sr_model *base);

/* record into @used (emptied) what the evaluations until sr_dep_end() depend on */
void sr_dep_begin(unsigned *used);
void sr_dep_end(void);

/*
 * sr_dep_read - the evaluation under way reads @what (a flag); the model
 * code calls it where it reads a traced flag
 */
void sr_dep_read(unsigned what);

#endif
