// SPDX-License-Identifier: GPL-2.0
/*
 * SIS_UTIL's scan budget as the kernel keeps it (schedreplay-models(7) §5.6,
 * "5.6.1 SIS_UTIL"): sd_llc_shared->nr_idle_scan, which select_idle_cpu() reads, is
 * written by update_idle_cpu_scan() from update_sd_lb_stats() in a load
 * balance (kernel/sched/fair.c, v6.0 to v6.12, unchanged in 6.1 and 6.12):
 * only at the domain whose span is the LLC, never at a CPU_NEWLY_IDLE
 * balance, from the LLC's summed cpu_util_cfs() at that balance.  Between
 * two such balances it is stale.  With the balance probes, each of those
 * balances is in the trace (sr_idle_scan_balanced(), from the balance_rq
 * probe); without them the trace shows no balance that moved nothing, so
 * the engine infers them from the tick: rebalance_domains() at a jiffy on
 * a CPU whose tick runs, and the nohz pass for the tickless ones when a
 * busy CPU's tick would kick it.  The value lives in each CPU's
 * struct sr_rq (sis_nr); the models read it where it is known.
 *
 * The same tick, without the balance probes, times the periodic and nohz
 * balances at every domain level for the sgc->imbalance marks that the
 * fork and exec slow path reads (jiffy_marks()), with each CPU's balance
 * clock as rebalance_domains() keeps it (struct sr_lb_clock).
 */
#include "replay-local.h"

#include "banned.h"

#define NSEC_PER_SEC 1000000000ULL

/* msecs_to_jiffies(), rounding up as the kernel's does */
static uint64_t ms_to_jiffies(uint64_t ms, int hz)
{
	return (ms * (uint64_t)hz + 999) / 1000;
}

/*
 * get_sd_balance_interval() (6.1, 6.12) at the LLC domain, in jiffies:
 * sd->balance_interval, which sd_init() starts at the span weight (ms) and
 * load_balance() doubles at each balanced pass up to max_interval (twice
 * the weight), is taken at max_interval, the value of a balanced machine;
 * a busy CPU multiplies it by busy_factor and takes one jiffy off.
 */
static uint64_t llc_interval(const struct sr_domain *d, int busy, int hz)
{
	uint64_t ms = 2 * (uint64_t)d->span_weight, j;

	if (busy)
		ms *= (uint64_t)(d->busy_factor > 0 ? d->busy_factor : 16);
	j = ms_to_jiffies(ms, hz);
	if (busy && j > 1)
		j -= 1;
	return j ? j : 1;
}

/* idle_cpu() as the engine knows it */
static int cpu_idle(const struct sr_rq *rq)
{
	return (rq->curr == 0 || (rq->curr < 0 && !rq->known)) && rq->nr_running == 0 &&
	       !rq->ttwu_pending;
}

/*
 * update_idle_cpu_scan() (6.1, 6.12) for the LLC @d at @now, balanced by
 * @dst: x is the LLC's summed util over its weight, the budget
 * weight * (1024 - min(1024, x^2 * pct^2 / (10000 * 1024))) / 1024.  Each
 * CPU's cpu_util_cfs() (max of util_avg and util_est, at most its
 * capacity) as the balance reads it: the dst CPU's after
 * update_blocked_averages() (@fresh set: every CPU's, as after the nohz
 * pass's update_nohz_stats()), a ticking CPU's as of its own tick, each of
 * those without what cfs_rq->removed holds (update_cfs_rq_load_avg() takes
 * a dead task's averages out first); a tickless idle CPU's as of its last
 * update.
 */
static void update_idle_cpu_scan(struct sr_replay *r, const struct sr_domain *d, int dst,
				 const unsigned char *ticking, int fresh, uint64_t now)
{
	const struct sr_topology *t = r->topo;
	struct sr_view v;
	unsigned long long sum = 0, x, y;
	int cpu, pct = d->imbalance_pct;

	sr_replay_view(r, &v);
	v.now = now;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		unsigned long util, cap;

		if (!sr_cpumask_test(d->span, cpu))
			continue;
		if (cpu == dst || fresh || ticking[cpu]) {
			struct sr_pelt sa;

			/* the update takes cfs_rq->removed out first (a task died there) */
			sr_view_cpu_signal(&v, cpu, &sa);
			util = sa.util_avg > r->removed[cpu].util ?
			       sa.util_avg - r->removed[cpu].util : 0;
			if (r->rq[cpu].util_est > util)
				util = r->rq[cpu].util_est;
			cap = (unsigned long)sr_cpu_capacity(t, cpu);
			if (util > cap)
				util = cap;
		} else {
			cap = (unsigned long)sr_cpu_capacity(t, cpu);
			util = r->rq[cpu].cfs.util_avg;
			if (r->rq[cpu].util_est > util)
				util = r->rq[cpu].util_est;
			if (util > cap)
				util = cap;
		}
		sum += util;
	}
	x = sum / (unsigned long long)d->span_weight;
	y = x * x * (unsigned long long)pct * pct / (10000ULL * SR_SCHED_CAPACITY);
	if (y > SR_SCHED_CAPACITY)
		y = SR_SCHED_CAPACITY;
	y = (unsigned long long)d->span_weight * (SR_SCHED_CAPACITY - y) / SR_SCHED_CAPACITY;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		if (sr_cpumask_test(d->span, cpu))
			r->rq[cpu].sis_nr = (int)y + 1;
	r->stats.idle_scan_updates++;
}

/* the CPUs whose tick runs at @now: busy, or idle for less than a tick (§7.7) */
static void mark_ticking(const struct sr_replay *r, uint64_t now, unsigned char *ticking)
{
	uint64_t tick = NSEC_PER_SEC / (uint64_t)r->hz;
	int cpu;

	for (cpu = 0; cpu < r->topo->ncpus; cpu++) {
		const struct sr_rq *rq = &r->rq[cpu];

		ticking[cpu] = !cpu_idle(rq) || (rq->known && now < rq->idle_stamp + tick);
	}
}

/*
 * The balances of one jiffy at @now for the sgc->imbalance marks that fork
 * and exec placements read, in a trace without the balance probes
 * (sr_dec_lb_infer()): rebalance_domains() (6.1) / sched_balance_domains()
 * (6.12) on each CPU whose tick runs, once its rq->next_balance has come,
 * at the levels due by its clock (struct sr_lb_clock; busy when not idle);
 * and when a busy CPU's tick kicks the nohz pass (@kick),
 * _nohz_idle_balance() on each tickless idle CPU whose rq->next_balance has
 * come, as idle.  nohz.next_balance, the soonest of those, is not kept:
 * a CPU that enters idle asks for it anew (nohz_balance_enter_idle() sets
 * nohz.needs_update, and the next kick's NOHZ_NEXT_KICK recomputes it), so
 * each idle CPU is balanced when its own comes.  should_we_balance() is
 * the model's.
 */
static void jiffy_marks(struct sr_replay *r, uint64_t now, const unsigned char *ticking, int kick)
{
	const struct sr_topology *t = r->topo;
	unsigned due, done, walked, failed, pinned;
	int cpu, idle;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		struct sr_lb_clock *k = &r->lb_clk[cpu];

		if ((!ticking[cpu] && !kick) || now < k->next_balance)
			continue;
		/* a tickless CPU is idle (mark_ticking()) */
		idle = !ticking[cpu] || cpu_idle(&r->rq[cpu]);
		due = sr_lb_clock_due(k, &t->cpu[cpu], now, !idle, r->hz, t->ncpus);
		sr_dec_lb_infer(r, cpu, due, idle, now, &done, &failed, &pinned);
		/*
		 * the levels past should_we_balance()'s stop are neither
		 * balanced nor in rq->next_balance (sched_balance_domains())
		 */
		walked = ~0u;
		if ((due & ~done) && done)
			walked = (2u << (31 - __builtin_clz(done))) - 1;
		sr_lb_clock_done(k, &t->cpu[cpu], done, walked, !idle, now, r->hz, t->ncpus, 0,
				 failed, pinned);
	}
}

void sr_idle_scan_cpu_idle(struct sr_replay *r, int cpu)
{
	const struct sr_cpu_topo *ct = &r->topo->cpu[cpu];
	struct sr_lb_clock *k = &r->lb_clk[cpu];
	int l;

	if (!r->lb_infer)
		return;
	for (l = 0; l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS; l++) {
		uint64_t t = k->last_balance[l] == UINT64_MAX ? 0 :
			     k->last_balance[l] + sr_lb_clock_interval(k, ct, l, 0, r->hz,
								       r->topo->ncpus);

		if (t < k->next_balance)
			k->next_balance = t;
	}
}

/*
 * The balances of one jiffy @j (at @now): scheduler_tick() ->
 * trigger_load_balance() on every CPU whose tick runs (busy, or idle for
 * less than a tick: tickless after about one tick of idleness, as §7.7),
 * rebalance_domains() reaching the LLC domain once its interval since that
 * CPU's last balance there has passed; should_we_balance() passes at
 * every CPU where the LLC's groups are single CPUs (no SMT), and is taken
 * to pass with SMT too.  nohz_balancer_kick() (6.1, 6.12) kicks the pass
 * for the tickless CPUs when a ticking CPU runs two tasks or more, or its
 * LLC has more than one busy CPU (nr_busy_cpus).
 */
static void jiffy(struct sr_replay *r, uint64_t j, uint64_t now, unsigned char *ticking)
{
	const struct sr_topology *t = r->topo;
	int cpu, kick = 0;

	mark_ticking(r, now, ticking);
	for (cpu = 0; cpu < t->ncpus && !kick; cpu++) {
		const struct sr_domain *d;
		int c, busy = 0;

		if (!ticking[cpu] || cpu_idle(&r->rq[cpu]))
			continue;
		if (r->rq[cpu].nr_running >= 2) {
			kick = 1;
			break;
		}
		d = sr_topology_llc(t, cpu);
		for (c = 0; d && c < t->ncpus; c++)
			if (sr_cpumask_test(d->span, c) && ticking[c])
				busy++;
		kick = busy > 1;
	}
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		const struct sr_domain *d = sr_topology_llc(t, cpu);
		int busy = !cpu_idle(&r->rq[cpu]);

		if (!d || d->span_weight < 2 || (!ticking[cpu] && !kick))
			continue;
		if (r->lb_llc_last[cpu] && j < r->lb_llc_last[cpu] + llc_interval(d, busy, r->hz))
			continue;
		r->lb_llc_last[cpu] = j;
		update_idle_cpu_scan(r, d, cpu, ticking, !ticking[cpu], now);
	}
	if (r->lb_infer)
		jiffy_marks(r, now, ticking, kick);
}

/* at most this many of the jiffies before an event are replayed: the state is the same */
#define JIFFIES_BACK 64

/*
 * The rank of sd->level @level among the levels the trace's balance_rq
 * events showed (lb_ranks() in decision.c): the index of the domain in
 * @cpu's list once every level has been seen, else -1
 */
static int level_rank(const struct sr_replay *r, int cpu, int level)
{
	unsigned seen = r->lb_levels_seen;

	if (level < 0 || level >= 31 || !(seen >> level & 1) ||
	    __builtin_popcount(seen) != r->topo->cpu[cpu].ndomains)
		return -1;
	return __builtin_popcount(seen & ((1u << level) - 1));
}

void sr_idle_scan_balanced(struct sr_replay *r, int cpu, int level, int fresh, uint64_t now)
{
	const struct sr_domain *d = r->topo && cpu >= 0 && cpu < r->topo->ncpus ?
					    sr_topology_llc(r->topo, cpu) : NULL;
	int rank = level_rank(r, cpu, level);

	if (!r->ticking || !d || d->span_weight < 2 || rank < 0 ||
	    &r->topo->cpu[cpu].dom[rank] != d)
		return;
	mark_ticking(r, now, r->ticking);
	update_idle_cpu_scan(r, d, cpu, r->ticking, fresh, now);
	r->stats.idle_scan_updates--;
	r->stats.idle_scan_probed++;
}

void sr_idle_scan_advance(struct sr_replay *r, uint64_t now)
{
	uint64_t tick = NSEC_PER_SEC / (uint64_t)r->hz, j = now / tick, b;

	if (!r->ticking)
		return;
	/* the balance probes show each LLC-level balance (sr_idle_scan_balanced()) */
	if (r->balance_probes && r->lb_levels_seen &&
	    __builtin_popcount(r->lb_levels_seen) == r->topo->cpu[0].ndomains)
		return;
	if (!r->jiffy_seen) {
		int cpu;

		r->jiffy_seen = j;
		/* the marks live in a parent domain's groups */
		for (cpu = 0; !r->balance_probes && cpu < r->topo->ncpus; cpu++)
			if (r->topo->cpu[cpu].ndomains > 1)
				r->lb_infer = 1;
		/*
		 * where each CPU's clock stood before the trace is unknown: as
		 * if every level had balanced at its first jiffy at
		 * min_interval, so that the CPUs do not all balance at once
		 * there
		 */
		for (cpu = 0; r->lb_infer && cpu < r->topo->ncpus; cpu++) {
			sr_lb_clock_init(&r->lb_clk[cpu], j * tick);
			sr_lb_clock_done(&r->lb_clk[cpu], &r->topo->cpu[cpu], ~0u, ~0u,
					 !cpu_idle(&r->rq[cpu]), j * tick, r->hz, r->topo->ncpus, 0,
					 ~0u, 0);
		}
		return;
	}
	if (j <= r->jiffy_seen)
		return;
	b = r->jiffy_seen + 1;
	if (j - b > JIFFIES_BACK)
		b = j - JIFFIES_BACK;
	for (; b <= j; b++)
		jiffy(r, b, b * tick, r->ticking);
	r->jiffy_seen = j;
}
