// SPDX-License-Identifier: GPL-2.0
/*
 * What a placement evaluation depended on (depend-local.h): the traced
 * copy of a base model, whose placement members record their call and
 * hand over to the model's own, and the difference of a patch side from
 * its base model in the same terms.
 */
#include <stddef.h>
#include <string.h>

#include "depend-local.h"
#include "banned.h"

static __thread unsigned *rec;

void sr_dep_begin(unsigned *used)
{
	*used = 0;
	rec = used;
}

void sr_dep_end(void)
{
	rec = NULL;
}

void sr_dep_read(unsigned what)
{
	if (rec)
		*rec |= what;
}

/* the model a traced copy stands for: the members reach their own through it */
static const struct sr_policy *real(const struct sr_wake_ctx *c)
{
	return &((const struct sr_dep_model *)c->m)->real->pol;
}

static int t_select_task_rq(struct sr_wake_ctx *c)
{
	sr_dep_read(SR_DEP_SELECT_TASK_RQ);
	return real(c)->select_task_rq(c);
}

static int t_wake_wide(struct sr_wake_ctx *c)
{
	sr_dep_read(SR_DEP_WAKE_WIDE);
	return real(c)->wake_wide(c);
}

static int t_wake_affine(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
			 int prev_cpu, int sync)
{
	sr_dep_read(SR_DEP_WAKE_AFFINE);
	return real(c)->wake_affine(c, sd, this_cpu, prev_cpu, sync);
}

static int t_wake_affine_idle(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync)
{
	sr_dep_read(SR_DEP_WAKE_AFFINE_IDLE);
	return real(c)->wake_affine_idle(c, this_cpu, prev_cpu, sync);
}

static int t_wake_affine_weight(struct sr_wake_ctx *c, const struct sr_domain *sd,
				int this_cpu, int prev_cpu, int sync)
{
	sr_dep_read(SR_DEP_WAKE_AFFINE_WEIGHT);
	return real(c)->wake_affine_weight(c, sd, this_cpu, prev_cpu, sync);
}

static int t_select_idle_sibling(struct sr_wake_ctx *c, int prev, int target)
{
	sr_dep_read(SR_DEP_SELECT_IDLE_SIBLING);
	return real(c)->select_idle_sibling(c, prev, target);
}

static int t_select_idle_cpu(struct sr_wake_ctx *c, const struct sr_domain *llc, int target,
			     int has_idle_core)
{
	sr_dep_read(SR_DEP_SELECT_IDLE_CPU);
	return real(c)->select_idle_cpu(c, llc, target, has_idle_core);
}

static int t_find_idlest_cpu(struct sr_wake_ctx *c, int level, int this_cpu, int prev_cpu)
{
	sr_dep_read(SR_DEP_FIND_IDLEST_CPU);
	return real(c)->find_idlest_cpu(c, level, this_cpu, prev_cpu);
}

static int t_find_idlest_group(struct sr_wake_ctx *c, int level, int cpu)
{
	sr_dep_read(SR_DEP_FIND_IDLEST_GROUP);
	return real(c)->find_idlest_group(c, level, cpu);
}

static int t_find_idlest_group_cpu(struct sr_wake_ctx *c, const uint64_t *span, int fallback)
{
	sr_dep_read(SR_DEP_FIND_IDLEST_GROUP_CPU);
	return real(c)->find_idlest_group_cpu(c, span, fallback);
}

void sr_dep_model_init(struct sr_dep_model *t, const struct sr_model *base)
{
	struct sr_policy *p = &t->m.pol;

	t->m = *base;
	t->real = base;
	p->select_task_rq = t_select_task_rq;
	p->wake_wide = t_wake_wide;
	p->wake_affine = t_wake_affine;
	p->wake_affine_idle = t_wake_affine_idle;
	p->wake_affine_weight = t_wake_affine_weight;
	p->select_idle_sibling = t_select_idle_sibling;
	p->select_idle_cpu = t_select_idle_cpu;
	p->find_idlest_cpu = t_find_idlest_cpu;
	p->find_idlest_group = t_find_idlest_group;
	p->find_idlest_group_cpu = t_find_idlest_group_cpu;
}

/*
 * The policy's members by what an evaluation depends on: the placement
 * members, each with its SR_DEP_*, and the balance members (0), which take
 * a struct sr_lb_ctx that no placement function has
 */
#define MEMBER(name, dep) { offsetof(struct sr_policy, name), \
			    sizeof(((struct sr_policy *)0)->name), dep }
static const struct {
	size_t off, len;
	unsigned dep;
} members[] = {
	MEMBER(select_task_rq, SR_DEP_SELECT_TASK_RQ),
	MEMBER(wake_wide, SR_DEP_WAKE_WIDE),
	MEMBER(wake_affine, SR_DEP_WAKE_AFFINE),
	MEMBER(wake_affine_idle, SR_DEP_WAKE_AFFINE_IDLE),
	MEMBER(wake_affine_weight, SR_DEP_WAKE_AFFINE_WEIGHT),
	MEMBER(select_idle_sibling, SR_DEP_SELECT_IDLE_SIBLING),
	MEMBER(select_idle_cpu, SR_DEP_SELECT_IDLE_CPU),
	MEMBER(find_idlest_cpu, SR_DEP_FIND_IDLEST_CPU),
	MEMBER(find_idlest_group, SR_DEP_FIND_IDLEST_GROUP),
	MEMBER(find_idlest_group_cpu, SR_DEP_FIND_IDLEST_GROUP_CPU),
	MEMBER(kthread_is_per_cpu, 0),
	MEMBER(task_hot, 0),
	MEMBER(can_migrate_task, 0),
	MEMBER(detach_tasks, 0),
	MEMBER(should_we_balance, 0),
	MEMBER(update_sg_lb_stats, 0),
	MEMBER(update_sd_pick_busiest, 0),
	MEMBER(find_busiest_group, 0),
	MEMBER(calculate_imbalance, 0),
	MEMBER(find_busiest_queue, 0),
	MEMBER(load_balance, 0),
	MEMBER(rebalance_domains, 0),
	MEMBER(newidle_balance, 0),
	MEMBER(nohz_idle_balance, 0),
	MEMBER(run_rebalance_domains, 0),
};

unsigned sr_dep_diff(const struct sr_model *side, const struct sr_model *base)
{
	struct sr_model a, b;
	unsigned d = 0;
	size_t i;

	/* the base model's own members (sr_base()) are the same only over the same base */
	if ((side->base ? side->base : side) != base || base->base)
		return SR_DEP_ALL;
	if (side->mask_exiting_sync != base->mask_exiting_sync)
		d |= SR_DEP_MASK_EXITING_SYNC;
	/*
	 * Anything else that differs is not traced: the other flags, and any
	 * member or field this file does not know yet
	 */
	memcpy(&a, side, sizeof(a));
	memcpy(&b, base, sizeof(b));
	a.name = b.name;
	a.summary = b.summary;
	a.base = b.base;
	a.patch = b.patch;
	a.variant = b.variant;
	a.mask_exiting_sync = b.mask_exiting_sync;
	for (i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		char *x = (char *)&a.pol + members[i].off;
		const char *y = (const char *)&b.pol + members[i].off;

		if (members[i].dep && memcmp(x, y, members[i].len))
			d |= members[i].dep;
		memcpy(x, y, members[i].len);
	}
	/* (padding that differs, too: then the side is evaluated, as before) */
	return memcmp(&a, &b, sizeof(a)) ? SR_DEP_ALL : d;
}
