// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 000: Yihao Wu's "sched/fair: Again ignore percpu threads for
 * imbalance pulls" (Dec 2021, not merged; schedreplay-models(7) §6).
 *
 * can_migrate_task() skips a per-CPU kernel thread before its affinity
 * test, silently: no LBF_SOME_PINNED, no LBF_DST_PINNED, and therefore no
 * parent-level group imbalance hint (sgc->imbalance) when imbalance
 * remains.  Which threads are per-CPU:
 *
 *   original  kthread_is_per_cpu(): the KTHREAD_IS_PER_CPU bit smpboot and
 *             the bound workqueue pools set.  The bit is not exported; the
 *             tool sees it through the names (ksoftirqd/N, cpuhp/N,
 *             migration/N, rcuc/N, watchdog/N, idle_inject/N, bound
 *             kworker/N:M) of kernel threads.
 *   patched   PF_KTHREAD && nr_cpus_allowed == 1: every kernel thread pinned
 *             to one CPU, also kernel_thread() children with no struct
 *             kthread, single-CPU irq threads, kthread_bind()'d threads.
 *
 * The two sides differ only where a kernel thread pinned to one CPU whose
 * name is not a per-CPU one is considered for a pull: the original sets
 * LBF_SOME_PINNED (and the parent's hint if imbalance is left), the
 * patched skips it.  Later balance decisions of each side then read its own
 * hints.  Only the load-balance consumer is modelled (Peter Zijlstra's
 * objection: is_cpu_allowed() and hotplug use the predicate too); the
 * hint's effect on fork placement (find_idlest_group) is not modelled.
 */
#include "schedreplay/patch.h"

static int pinned_kthread(struct sr_lb_ctx *c, const struct sr_task *p)
{
	(void)c;
	return p->kthread == 1 && p->bound_cpu >= 0;
}

static void kthread_original(struct sr_model *m)
{
	m->pol.kthread_is_per_cpu = sr_lb_kthread_per_cpu_name;
}

static void kthread_patched(struct sr_model *m)
{
	m->pol.kthread_is_per_cpu = pinned_kthread;
}

static const struct sr_patch kthread_per_cpu = {
	.abi = SR_PATCH_ABI,
	.name = "kthread-per-cpu",
	.seed = "000",
	.summary = "can_migrate_task skips every kernel thread pinned to one CPU "
		   "(PF_KTHREAD && nr_cpus_allowed == 1), not only smpboot/bound-kworker "
		   "threads: no SOME_PINNED, no parent imbalance hint",
	.function = "kthread_is_per_cpu",
	.scope = SR_SCOPE_BALANCE,
	.original = kthread_original,
	.patched = kthread_patched,
	.merged = NULL,		/* not merged */
};
SR_PATCH_REGISTER(kthread_per_cpu)
