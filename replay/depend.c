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

unsigned sr_dep_diff(const struct sr_model *side, const struct sr_model *base)
{
	const struct sr_policy *p = &side->pol, *q = &base->pol;
	struct sr_model a, b;
	unsigned d = 0;

	/* the base model's own members (sr_base()) are the same only over the same base */
	if ((side->base ? side->base : side) != base || base->base)
		return SR_DEP_ALL;
	if (p->select_task_rq != q->select_task_rq)
		d |= SR_DEP_SELECT_TASK_RQ;
	if (p->wake_wide != q->wake_wide)
		d |= SR_DEP_WAKE_WIDE;
	if (p->wake_affine != q->wake_affine)
		d |= SR_DEP_WAKE_AFFINE;
	if (p->wake_affine_idle != q->wake_affine_idle)
		d |= SR_DEP_WAKE_AFFINE_IDLE;
	if (p->wake_affine_weight != q->wake_affine_weight)
		d |= SR_DEP_WAKE_AFFINE_WEIGHT;
	if (p->select_idle_sibling != q->select_idle_sibling)
		d |= SR_DEP_SELECT_IDLE_SIBLING;
	if (p->select_idle_cpu != q->select_idle_cpu)
		d |= SR_DEP_SELECT_IDLE_CPU;
	if (p->find_idlest_cpu != q->find_idlest_cpu)
		d |= SR_DEP_FIND_IDLEST_CPU;
	if (p->find_idlest_group != q->find_idlest_group)
		d |= SR_DEP_FIND_IDLEST_GROUP;
	if (p->find_idlest_group_cpu != q->find_idlest_group_cpu)
		d |= SR_DEP_FIND_IDLEST_GROUP_CPU;
	if (side->mask_exiting_sync != base->mask_exiting_sync)
		d |= SR_DEP_MASK_EXITING_SYNC;
	/*
	 * Anything else that differs is not traced: the other flags, and any
	 * member or field this file does not know yet.  The balance members
	 * take a struct sr_lb_ctx, which no placement function has.
	 */
	memcpy(&a, side, sizeof(a));
	memcpy(&b, base, sizeof(b));
	a.name = b.name;
	a.summary = b.summary;
	a.base = b.base;
	a.patch = b.patch;
	a.variant = b.variant;
	a.mask_exiting_sync = b.mask_exiting_sync;
	a.pol.select_task_rq = b.pol.select_task_rq;
	a.pol.wake_wide = b.pol.wake_wide;
	a.pol.wake_affine = b.pol.wake_affine;
	a.pol.wake_affine_idle = b.pol.wake_affine_idle;
	a.pol.wake_affine_weight = b.pol.wake_affine_weight;
	a.pol.select_idle_sibling = b.pol.select_idle_sibling;
	a.pol.select_idle_cpu = b.pol.select_idle_cpu;
	a.pol.find_idlest_cpu = b.pol.find_idlest_cpu;
	a.pol.find_idlest_group = b.pol.find_idlest_group;
	a.pol.find_idlest_group_cpu = b.pol.find_idlest_group_cpu;
	a.pol.kthread_is_per_cpu = b.pol.kthread_is_per_cpu;
	a.pol.task_hot = b.pol.task_hot;
	a.pol.can_migrate_task = b.pol.can_migrate_task;
	a.pol.detach_tasks = b.pol.detach_tasks;
	a.pol.should_we_balance = b.pol.should_we_balance;
	a.pol.update_sg_lb_stats = b.pol.update_sg_lb_stats;
	a.pol.update_sd_pick_busiest = b.pol.update_sd_pick_busiest;
	a.pol.find_busiest_group = b.pol.find_busiest_group;
	a.pol.calculate_imbalance = b.pol.calculate_imbalance;
	a.pol.find_busiest_queue = b.pol.find_busiest_queue;
	a.pol.load_balance = b.pol.load_balance;
	a.pol.rebalance_domains = b.pol.rebalance_domains;
	a.pol.newidle_balance = b.pol.newidle_balance;
	a.pol.nohz_idle_balance = b.pol.nohz_idle_balance;
	a.pol.run_rebalance_domains = b.pol.run_rebalance_domains;
	/* (padding that differs, too: then the side is evaluated, as before) */
	return memcmp(&a, &b, sizeof(a)) ? SR_DEP_ALL : d;
}
