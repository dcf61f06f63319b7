// SPDX-License-Identifier: GPL-2.0
/*
 * The view a model reads (struct sr_view, include/schedreplay/replay.h):
 * what the helpers below compute from its runqueues and topology alone.
 * Nothing here knows the engine; a view filled by hand (tests/unit) or by
 * a simulator gives the same answers as one the engine fills.
 */
#include "schedreplay/replay.h"
#include "banned.h"

int sr_view_idle_cpu(const struct sr_view *v, int cpu)
{
	const struct sr_rq *rq = &v->rq[cpu];

	/* a CPU never seen switching is taken as idle: it had nothing to do */
	return (rq->curr == 0 || (rq->curr < 0 && !rq->known)) && rq->nr_running == 0 &&
	       !rq->ttwu_pending;
}

void sr_view_cpu_signal(const struct sr_view *v, int cpu, struct sr_pelt *out)
{
	const struct sr_rq *rq = &v->rq[cpu];

	/* decay to the decision time on a copy: models never change state */
	*out = rq->cfs;
	if (out->last_update && v->now > out->last_update)
		sr_pelt_update(out, v->now, rq->cfs_weight, rq->cfs_nr, rq->curr_cfs, 1);
}

/*
 * A CPU's averages as another CPU reads them (schedreplay-models(7) §3.4).
 * update_sg_wakeup_stats() and find_idlest_group_cpu() read each CPU's
 * cfs_rq->avg as last updated: nothing on the placement path brings
 * another CPU's signal to now (find_idlest_group(), 6.1;
 * sched_balance_find_dst_group(), 6.12).  A CPU running a task updates it
 * at its own events and at every tick (task_tick_fair() -> entity_tick()
 * -> update_load_avg()); an idle CPU's blocked averages are brought to now
 * by update_blocked_averages() at its own tick while that still runs
 * (run_rebalance_domains(), 6.1; sched_balance_softirq(), 6.12) and at the
 * nohz idle balances a busy CPU's tick kicks (nohz_balancer_kick() ->
 * _nohz_idle_balance() -> update_nohz_stats()).  The tick's phase is not
 * traced: the last update is taken half a tick before the decision, busy
 * or idle.  (Reading an idle CPU as of LOAD_AVG_PERIOD before, the
 * nohz.next_blocked bound, put the engine's idle CPUs' load 3 to 179 above
 * the kernel's on average on 12 guest recordings with the rqstat probe,
 * past the trace's warm-up; half a tick, with their removals applied a
 * tick after (removed_due()), 0 to 66, and the mean |difference| of load
 * and util lower on each.)
 */
void sr_view_cpu_signal_read(const struct sr_view *v, int cpu, struct sr_pelt *out)
{
	const struct sr_rq *rq = &v->rq[cpu];
	uint64_t now = v->now, tick = 1000000000ull / (uint64_t)(v->hz > 0 ? v->hz : 250);
	uint64_t back = tick / 2;

	*out = rq->cfs;
	if (now > back && out->last_update && now - back > out->last_update)
		sr_pelt_update(out, now - back, rq->cfs_weight, rq->cfs_nr, rq->curr_cfs, 1);
}

long sr_view_cpu_load(const struct sr_view *v, int cpu, int runnable_only)
{
	struct sr_pelt s;

	if (runnable_only)
		return v->rq[cpu].runnable_load;
	sr_view_cpu_signal(v, cpu, &s);
	return (long)s.load_avg;
}

long sr_view_affine_load(const struct sr_view *v, int cpu, int runnable_only)
{
	if (runnable_only || !v->tg || cpu < 0 || cpu >= v->tg->ncpus)
		return sr_view_cpu_load(v, cpu, runnable_only);
	return v->tg->root_load[cpu];
}

long sr_view_group_load(const struct sr_view *v, int cpu, long flat)
{
	if (!v->tg || cpu < 0 || cpu >= v->tg->ncpus)
		return flat;
	return (flat > v->tg->grq_sum[cpu] ? flat - v->tg->grq_sum[cpu] : 0) + v->tg->se_sum[cpu];
}

uint64_t sr_view_h_load_jiffy(const struct sr_view *v)
{
	if (v->hz <= 0)
		return 0;
	return v->now / (1000000000ULL / (uint64_t)v->hz) + 1;
}

/*
 * task_h_load() of a task in the root task group (6.1, 6.12,
 * CONFIG_FAIR_GROUP_SCHED): load_avg * h_load / (cpu_load() + 1), where
 * update_cfs_rq_h_load() takes the root's h_load = cpu_load() at the
 * first call of each jiffy and keeps it for the rest of that jiffy
 */
static long flat_h_load(const struct sr_view *v, const struct sr_task *t)
{
	const struct sr_rq *rq;
	unsigned long long h;
	long cl;

	if (t->cpu < 0 || t->cpu >= v->topo->ncpus || !v->hz)
		return (long)t->pelt.load_avg;
	rq = &v->rq[t->cpu];
	cl = sr_view_cpu_load(v, t->cpu, 0);
	if (cl < 0)
		cl = 0;
	h = rq->h_load_jiffy && rq->h_load_jiffy == sr_view_h_load_jiffy(v) && rq->h_load >= 0 ?
	    (unsigned long long)rq->h_load : (unsigned long long)cl;
	return (long)(t->pelt.load_avg * h / ((unsigned long long)cl + 1));
}

long sr_view_task_h_load(const struct sr_view *v, const struct sr_task *t, int runnable_only)
{
	const struct sr_tg_cpu *x;
	unsigned long long h, root;

	if (!t)
		return 0;
	if (runnable_only)
		return (long)t->pelt.load_avg;
	if (!v->tg || t->tg <= 0 || t->tg > v->tg->n || t->cpu < 0 || t->cpu >= v->tg->ncpus)
		return v->tg ? (long)t->pelt.load_avg : flat_h_load(v, t);
	/* update_cfs_rq_h_load() from the root down one level, then task_h_load() */
	x = &v->tg->cpu[(size_t)(t->tg - 1) * (size_t)v->tg->ncpus + (size_t)t->cpu];
	root = v->tg->root_load[t->cpu] > 0 ? (unsigned long long)v->tg->root_load[t->cpu] : 0;
	h = root * x->se_load / (root + 1);
	return (long)(t->pelt.load_avg * h / (x->grq_load + 1));
}

unsigned long sr_view_cpu_util(const struct sr_view *v, int cpu, int util_est)
{
	struct sr_pelt s;
	unsigned long util, cap = (unsigned long)sr_cpu_capacity(v->topo, cpu);

	sr_view_cpu_signal(v, cpu, &s);
	util = s.util_avg;
	if (util_est && v->rq[cpu].util_est > util)
		util = v->rq[cpu].util_est;
	return util > cap ? cap : util;
}

int sr_view_allowed(const struct sr_view *v, const struct sr_task *p, int cpu)
{
	(void)v;
	if (!p)
		return 1;
	if (p->allowed_known && cpu < 64)
		return (int)(p->allowed >> cpu & 1);
	return p->bound_cpu < 0 || p->bound_cpu == cpu;
}
