// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 002: Preeti U Murthy's "sched: Improve load balancing in the
 * presence of idle CPUs" (v4.1, d4573c3e1c99; decision-model §7).
 *
 * run_rebalance_domains() on an idle CPU kicked to do the nohz idle
 * balance (the ILB):
 *
 *   original  (v4.0) rebalance_domains(ilb) first; if that pulled a task
 *             the ILB has need_resched set and nohz_idle_balance() breaks
 *             at its first CPU: the pass is abandoned.
 *   patched   (v4.1) nohz_idle_balance() first: every other tickless idle
 *             CPU, ascending from CPU 0, is balanced (pulls go to it), and
 *             the ILB balances itself last.
 *
 * The decision is the pass the trace shows (its first migration emitted on
 * the idle ILB for another CPU); each side gives the first pull it makes.
 * Mainline has the patched order with a later change (the pass starts at
 * ilb + 1 and wraps: the "mainline" base model).  Kicks, tickless state
 * and balance intervals are not traced: a CPU idle for a tick is taken as
 * tickless and every level as due.
 */
#include "schedreplay/balance.h"
#include "schedreplay/patch.h"

static int ilb_first(struct sr_lb_ctx *c, int ilb)
{
	int cpu;

	if (sr_lb_nohz_balance_cpu(c, ilb)) {
		sr_lb_reason(c, "ilb pulled: nohz pass abandoned");
		c->out->lbf |= SR_LBO_ABORT;
		return 1;
	}
	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++) {
		if (cpu == ilb || !sr_lb_nohz_idle(c, cpu))
			continue;
		if (sr_lb_nohz_balance_cpu(c, cpu))
			return 1;
	}
	return 0;
}

int sr_lb_nohz_first(struct sr_lb_ctx *c, int ilb)
{
	int cpu;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++) {
		if (cpu == ilb || !sr_lb_nohz_idle(c, cpu))
			continue;
		if (sr_lb_nohz_balance_cpu(c, cpu))
			return 1;
	}
	return sr_lb_nohz_balance_cpu(c, ilb);
}

static void nohz_original(struct sr_model *m)
{
	m->pol.idle_balance_softirq = ilb_first;
}

static void nohz_patched(struct sr_model *m)
{
	m->pol.idle_balance_softirq = sr_lb_nohz_first;
}

static const struct sr_patch nohz_first_pair = {
	.abi = SR_PATCH_ABI,
	.name = "nohz-first",
	.seed = "002",
	.summary = "run_rebalance_domains on a kicked idle CPU balances the other idle CPUs "
		   "before itself, instead of abandoning the nohz pass once it pulled",
	.function = "run_rebalance_domains",
	.scope = SR_SCOPE_BALANCE,
	.original = nohz_original,
	.patched = nohz_patched,
	.merged = "4.1",
};
SR_PATCH_REGISTER(nohz_first_pair)
