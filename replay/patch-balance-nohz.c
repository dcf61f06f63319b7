// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 002: Preeti U Murthy's "sched: Improve load balancing in the
 * presence of idle CPUs" (v4.1, d4573c3e1c99; schedreplay-models(7) §7).
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
#include "schedreplay/patch.h"

/* v4.0: the ILB balances itself first and abandons the pass once it pulled */
static int rrd_v40(struct sr_lb_ctx *c, int ilb)
{
	if (sr_lb_nohz_balance_cpu(c, ilb)) {
		sr_lb_reason(c, "ilb pulled: nohz pass abandoned");
		c->out->lbf |= SR_LBO_ABORT;
		return 1;
	}
	return c->pol->nohz_idle_balance(c, ilb);
}

/* both sides walk the idle CPUs as v4.x did, from CPU 0, whatever the base */
static void nohz_original(struct sr_model *m)
{
	m->pol.nohz_idle_balance = sr_lb_nohz_idle_balance_v4;
	m->pol.run_rebalance_domains = rrd_v40;
}

static void nohz_patched(struct sr_model *m)
{
	m->pol.nohz_idle_balance = sr_lb_nohz_idle_balance_v4;
	m->pol.run_rebalance_domains = sr_lb_run_rebalance_domains_v41;
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
