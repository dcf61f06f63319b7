// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 003: Josh Don's "sched: Allow newidle balancing to bail out of
 * load_balance" (v5.19/6.0, 792b9f65a568; schedreplay-models(7) §8).
 *
 * should_we_balance() for a newly idle CPU:
 *
 *   original  always 1: load_balance() goes on, through every
 *             LBF_ALL_PINNED redo, even when a task or a wakeup has
 *             arrived for the CPU meanwhile.
 *   patched   0 when the destination has a task (nr_running > 0) or a
 *             wakeup pending (ttwu_pending): load_balance() goes to
 *             out_balanced; after an ALL_PINNED round the parent's group
 *             imbalance hint is then kept, not cleared.
 *
 * In the trace, a wakeup arrives during a newidle balance when its
 * sched_waking ran on another CPU between the CPU's last event and its
 * switch to idle (the blocking task's own wakeup among them), or when a
 * remote wakeup was enqueued on the CPU in that gap; the arrival shows
 * after the first find_busiest round.  Both sides run the outer
 * newidle_balance() loop, which stops between domains once work arrived.
 * Each side handles the newly idle case and leaves the rest (the busy
 * CPUs' first-idle-CPU rule) to the base model's should_we_balance().
 */
#include "schedreplay/patch.h"

static int swb_original(struct sr_lb_ctx *c)
{
	if (c->env->idle == SR_LB_NEWLY_IDLE && sr_cpumask_test(c->env->cpus, c->env->dst_cpu))
		return 1;
	return sr_base(c->m)->should_we_balance(c);
}

static int swb_patched(struct sr_lb_ctx *c)
{
	int dst = c->env->dst_cpu;

	if (c->env->idle == SR_LB_NEWLY_IDLE && sr_cpumask_test(c->env->cpus, dst) &&
	    (sr_lb_nr_running(c, dst) > 0 || sr_lb_ttwu_pending(c, dst))) {
		sr_lb_reason(c, "bail: %s", sr_lb_nr_running(c, dst) > 0 ? "nr_running" : "ttwu_pending");
		c->out->lbf |= SR_LBO_BAIL;
		return 0;
	}
	return sr_base(c->m)->should_we_balance(c);
}

static void newidle_original(struct sr_model *m)
{
	m->pol.should_we_balance = swb_original;
}

static void newidle_patched(struct sr_model *m)
{
	m->pol.should_we_balance = swb_patched;
}

static const struct sr_patch newidle_bail = {
	.abi = SR_PATCH_ABI,
	.name = "newidle-bail",
	.seed = "003",
	.summary = "should_we_balance stops a newly-idle load_balance (and its ALL_PINNED "
		   "redo) once the CPU has a task or a pending wakeup",
	.function = "should_we_balance",
	.scope = SR_SCOPE_BALANCE,
	.original = newidle_original,
	.patched = newidle_patched,
	.merged = "6.0",
};
SR_PATCH_REGISTER(newidle_bail)
