// SPDX-License-Identifier: GPL-2.0
/*
 * The load-balance surrogate (schedreplay-models(7) §6-§8): load_balance() with
 * find_busiest_group / find_busiest_queue on the reconstructed runqueues,
 * detach_tasks() over each CPU's cfs_tasks list from its least recently
 * run end, can_migrate_task() with affinity and the per-CPU kthread test,
 * the LBF_ALL_PINNED redo, the parent-group imbalance hint, should_we_balance,
 * newidle_balance, rebalance_domains and the nohz idle-balance pass, each
 * a member of struct sr_policy that a pair can replace, and the forms of
 * older kernels the v4.15 model uses.  Groups are classified in tasks, loads
 * are PELT load_avg (see include/schedreplay/balance.h); balance intervals,
 * nr_balance_failed, avg_idle and active balancing are not modelled: every
 * level is due, no task is cache-hot by failure count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/kgen.h"
#include "schedreplay/why.h"
#include <stdlib.h>
#include "banned.h"

/* sysctl_sched_migration_cost: task_hot() below it */
#define MIGRATION_COST_NS 500000ULL

void sr_lb_reason(struct sr_lb_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sr_eval_vreason(c->out, fmt, ap);
	va_end(ap);
}

/* ---- the state as this evaluation changed it ------------------------------ */

int sr_lb_nr_running(const struct sr_lb_ctx *c, int cpu)
{
	return c->nr[cpu];
}

int sr_lb_ttwu_pending(const struct sr_lb_ctx *c, int cpu)
{
	/* the arriving wakeup shows once the first busiest search is done */
	return cpu == c->in->cpu && c->in->arrival && c->rounds > 0;
}

int sr_lb_idle_cpu(const struct sr_lb_ctx *c, int cpu)
{
	const struct sr_rq *rq = &c->v->rq[cpu];

	/* a newly idle CPU still runs its blocking task: rq->curr != rq->idle */
	if (cpu == c->in->cpu && c->in->curr_leaving)
		return 0;
	if (c->nr[cpu] > 0 || sr_lb_ttwu_pending(c, cpu))
		return 0;
	return rq->curr == 0 || (rq->curr < 0 && !rq->known);
}

int sr_lb_nohz_idle(const struct sr_lb_ctx *c, int cpu)
{
	const struct sr_rq *rq = &c->v->rq[cpu];
	uint64_t tick = 1000000000ULL / (uint64_t)c->v->hz;

	/* tickless after about one tick of idleness (schedreplay-models(7) §7.7) */
	return sr_lb_idle_cpu(c, cpu) && (!rq->known || c->v->now >= rq->idle_stamp + tick);
}

int sr_lb_allowed(const struct sr_lb_ctx *c, const struct sr_task *p, int cpu)
{
	if (!sr_view_allowed(c->v, p, cpu))
		return 0;
	/*
	 * the inferred-affinity rule (state.c, aff_refused): learnt from newly
	 * idle balances, applied to them only (a mask widened later does not
	 * show in the trace; a periodic balance's pull is then the first sign)
	 */
	if (p && cpu < 64 && (p->aff_denied >> cpu & 1) && c->env &&
	    c->env->idle == SR_LB_NEWLY_IDLE) {
		c->out->lbf |= SR_LBO_INF_AFFINITY;
		return 0;
	}
	return 1;
}

size_t sr_per_cpu_prefix(const char *comm)
{
#define P(s) { s, sizeof(s) - 1 }
	static const struct { const char *s; size_t n; } smpboot[] = {
		P("ksoftirqd/"), P("migration/"), P("cpuhp/"), P("rcuc/"), P("watchdog/"),
		P("idle_inject/"), P("kworker/"),
	};
#undef P
	size_t i;

	for (i = 0; i < sizeof(smpboot) / sizeof(smpboot[0]); i++)
		if (!strncmp(comm, smpboot[i].s, smpboot[i].n))
			return smpboot[i].n;
	return 0;
}

int sr_lb_per_cpu_name(const char *comm)
{
	size_t n = sr_per_cpu_prefix(comm);

	/* kworker/3:1 is bound; kworker/u8:2 and kworker/R-wq are not */
	return n && comm[n] >= '0' && comm[n] <= '9';
}

static int moved_away(const struct sr_lb_ctx *c, int pid)
{
	int i;

	for (i = 0; i < c->nmoved; i++)
		if (c->moved[i].pid == pid)
			return 1;
	return 0;
}

/* ---- group-imbalance hints (sgc->imbalance), per model --------------------- */

static int imb_index(const struct sr_lb_ctx *c, int level, const uint64_t *span)
{
	int cpu;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++)
		if (sr_cpumask_test(span, cpu))
			break;
	return level * c->v->topo->ncpus + cpu;
}

static int imb_get(const struct sr_lb_ctx *c, int idx)
{
	int i;

	for (i = c->out->neffects - 1; i >= 0; i--)
		if (c->out->effect[i] >> 1 == idx)
			return c->out->effect[i] & 1;
	return c->in->sgc_imb ? c->in->sgc_imb[idx] : 0;
}

static void imb_put(struct sr_lb_ctx *c, int idx, int val)
{
	if (imb_get(c, idx) == val || c->out->neffects == SR_LB_MAX_EFFECTS)
		return;
	c->out->effect[c->out->neffects++] = idx << 1 | (val ? 1 : 0);
}

/* ---- groups ----------------------------------------------------------------- */

static size_t mask_words(const struct sr_lb_ctx *c)
{
	return ((size_t)c->v->topo->ncpus + 63) / 64;
}

static const uint64_t *group_span(const struct sr_lb_ctx *c, int level, int cpu, uint64_t *one)
{
	return sr_topology_group_span(c->v->topo, level, cpu, one);
}

static const char *const gnames[] = { "has spare", "fully busy", "imbalanced", "overloaded" };

static int mainline(const struct sr_lb_ctx *c)
{
	return c->m->sd_era == SR_ERA_MAINLINE;
}

enum sr_lb_group_type sr_group_classify(int nr, int weight, long cap, long util, long runnable,
					long pct, int imbalanced)
{
	int run_over = cap * pct < runnable * 100;

	if (nr > weight && (cap * 100 < util * pct || run_over))
		return SR_GROUP_OVERLOADED;
	if (imbalanced)
		return SR_GROUP_IMBALANCED;
	if (nr < weight || (!run_over && cap * 100 > util * pct))
		return SR_GROUP_HAS_SPARE;
	return SR_GROUP_FULLY_BUSY;
}

/* mainline's class of @g (sr_group_classify()) and its avg_load */
static void group_classify(struct sr_lb_ctx *c, const uint64_t *span, int level,
			   struct sr_lb_sg *g)
{
	g->type = sr_group_classify(g->nr, g->weight, g->capacity, g->util, g->runnable,
				    c->env->sd->imbalance_pct, imb_get(c, imb_index(c, level, span)));
	/* update_sg_lb_stats(): avg_load of an overloaded group only */
	if (g->type == SR_GROUP_OVERLOADED && g->capacity)
		g->avg_load = g->load_sum * SR_SCHED_CAPACITY / g->capacity;
}

/*
 * update_sg_lb_stats() + group_classify(): mainline as the kernel's (util
 * and runnable, group_classify() above), v4.15 counting tasks
 */
void sr_lb_update_sg_lb_stats(struct sr_lb_ctx *c, const uint64_t *span, int level,
			      struct sr_lb_sg *g)
{
	const struct sr_topology *t = c->v->topo;
	int cpu;

	memset(g, 0, sizeof(*g));
	g->first = -1;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		if (!sr_cpumask_test(span, cpu))
			continue;
		if (g->first < 0)
			g->first = cpu;
		g->weight++;
		/* sgc->capacity: every CPU of the group */
		g->capacity += sr_cpu_capacity(t, cpu);
		if (!sr_cpumask_test(c->env->cpus, cpu))
			continue;
		g->nr += c->nr[cpu];
		g->cfs += c->cfs[cpu];
		g->load += c->load[cpu];
		if (mainline(c)) {
			g->util += c->util[cpu];
			g->runnable += c->run[cpu];
		}
		if (!c->nr[cpu] && sr_lb_idle_cpu(c, cpu))
			g->idle++;
	}
	g->load_sum = g->load;
	if (g->weight)
		g->load /= g->weight;
	if (mainline(c)) {
		group_classify(c, span, level, g);
		return;
	}
	if (g->nr > g->weight)
		g->type = SR_GROUP_OVERLOADED;
	else if (imb_get(c, imb_index(c, level, span)))
		g->type = SR_GROUP_IMBALANCED;
	else if (g->nr < g->weight)
		g->type = SR_GROUP_HAS_SPARE;
	else
		g->type = SR_GROUP_FULLY_BUSY;
}

/* update_sd_pick_busiest() */
int sr_lb_update_sd_pick_busiest(struct sr_lb_ctx *c, const struct sr_lb_sg *g,
				 const struct sr_lb_sg *b)
{
	if (!g->cfs)
		return 0;
	if (b->first < 0 || g->type > b->type)
		return 1;
	if (g->type < b->type)
		return 0;
	if (mainline(c) && (g->type == SR_GROUP_OVERLOADED || g->type == SR_GROUP_FULLY_BUSY)) {
		/*
		 * the higher avg_load; a fully busy group's is 0, so the first
		 * one found stays (6.1), or from v6.6 the last one unless the
		 * one found is of SMT siblings (update_sd_pick_busiest(), 6.12)
		 */
		if (g->avg_load != b->avg_load || g->type == SR_GROUP_OVERLOADED)
			return g->avg_load > b->avg_load;
		return sr_kgen_has(c->v->kgen, SR_KF_FULLY_BUSY_LAST) &&
		       !(b->first >= 0 && c->env->level > 0 &&
			 (c->v->topo->cpu[b->first].dom[c->env->level - 1].flags &
			  SR_SD_SHARE_CPUCAPACITY));
	}
	switch (g->type) {
	case SR_GROUP_OVERLOADED:
	case SR_GROUP_FULLY_BUSY:
		return g->load > b->load;
	case SR_GROUP_IMBALANCED:
		return 0;		/* the first one found */
	default:
		return g->idle < b->idle || (g->idle == b->idle && g->nr > b->nr);
	}
}

/* sds->prefer_sibling: the child domain's SD_PREFER_SIBLING (6.1; 6.12 reads it off the busiest group, the same flags) */
static int prefer_sibling(const struct sr_lb_ctx *c)
{
	const struct sr_lb_env *env = c->env;

	return env->level > 0 &&
	       (c->v->topo->cpu[env->dst_cpu].dom[env->level - 1].flags & SR_SD_PREFER_SIBLING);
}

/*
 * The tasks to spread between two groups of as many cores: 6.1's nr_diff
 * in calculate_imbalance() (busiest's sum_nr_running less local's, at
 * least 0), and 6.6+'s sibling_imbalance(), the same for groups of equal
 * cores but 0 for a busy CPU
 */
static int sibling_imbalance(const struct sr_lb_ctx *c, const struct sr_lb_sg *busiest,
			     const struct sr_lb_sg *local)
{
	if (c->env->idle == SR_LB_NOT_IDLE && sr_kgen_has(c->v->kgen, SR_KF_SIBLING_IMBALANCE))
		return 0;
	return busiest->nr > local->nr ? busiest->nr - local->nr : 0;
}

/*
 * migrate_load by load (calculate_imbalance(), detach_tasks(), 6.1 and
 * 6.12): where the engine keeps sd->nr_balance_failed, which relaxes it
 * (simulate), and at a newly idle balance, which leaves it as it was
 * (load_balance() raises it at failed balances of the other kinds only)
 * and finds it 0 at 370 of the 379 newly idle pulls the lb_task probe
 * showed on 16 guest recordings, against 155 of the 233 periodic pulls of
 * a busy CPU that migrated load.  Replay's periodic decisions are pulls the
 * trace shows, without the failed attempts before them: the surrogate
 * keeps its one task a pull there.
 */
/* (and where the lb_task probe shows the kernel's value: replay's in->nr_failed) */
static int lb_by_load(const struct sr_lb_ctx *c)
{
	return mainline(c) && (c->in->nr_failed || (c->env && c->env->idle == SR_LB_NEWLY_IDLE));
}

/*
 * calculate_imbalance() for a local group with spare capacity and no
 * migrate_util (6.1, 6.12): the tasks to move so that the groups run as
 * many (one CPU each, or prefer_sibling) or have as many idle CPUs
 */
static int spread_imbalance(const struct sr_lb_ctx *c, const struct sr_lb_sds *sds)
{
	const struct sr_lb_env *env = c->env;
	const struct sr_lb_sg *local = &sds->local, *busiest = &sds->busiest;
	int imb;

	if (busiest->weight == 1 || prefer_sibling(c)) {
		imb = sibling_imbalance(c, busiest, local);
	} else {
		imb = local->idle - busiest->idle;
		if (imb < 0)
			imb = 0;
	}
	/*
	 * adjust_numa_imbalance(imb, local sum_nr_running + 1,
	 * sd->imb_numa_nr) in calculate_imbalance() (6.1, 6.12): a small
	 * imbalance between nodes stays while the local node would run at
	 * most imb_numa_nr tasks
	 */
	if ((env->sd->flags & SR_SD_NUMA) &&
	    local->nr + 1 <= sr_topology_imb_numa_nr(c->v->topo, env->dst_cpu, env->level) &&
	    imb <= 2)
		imb = 0;
	return imb >> 1;
}

/*
 * calculate_imbalance() of 6.1 and 6.12 past its misfit, asym-packing
 * and SMT cases, on group_classify()'s groups: a local group with spare
 * capacity below the LLC fills it with util (migrate_util, or one task for
 * an idle CPU when none is spare), within the LLC it evens the tasks or
 * idle CPUs (migrate_task, adjust_numa_imbalance() across nodes); a busier
 * local group migrates load down to the domain's average (migrate_load,
 * sized by load where lb_by_load(), else one task)
 */
static void calculate_imbalance_util(struct sr_lb_ctx *c, struct sr_lb_sds *sds)
{
	struct sr_lb_env *env = c->env;
	const struct sr_domain *sd = env->sd;
	const struct sr_lb_sg *local = &sds->local;
	const struct sr_lb_sg *busiest = &sds->busiest;
	long imb, local_avg;

	env->flags &= ~(SR_LBF_MIGRATE_LOAD | SR_LBF_MIGRATE_UTIL);
	if (busiest->type == SR_GROUP_IMBALANCED) {
		env->imbalance = 1;
		return;
	}
	if (local->type == SR_GROUP_HAS_SPARE) {
		if (busiest->type > SR_GROUP_FULLY_BUSY && !(sd->flags & SR_SD_SHARE_LLC)) {
			long cap = local->capacity > local->util ? local->capacity : local->util;

			env->imbalance = cap - local->util;
			if (env->idle != SR_LB_NOT_IDLE && env->imbalance == 0)
				env->imbalance = 1;
			else
				env->flags |= SR_LBF_MIGRATE_UTIL;
			return;
		}
		env->imbalance = spread_imbalance(c, sds);
		return;
	}
	local_avg = local->capacity ? local->load_sum * SR_SCHED_CAPACITY / local->capacity : 0;
	if (local->type < SR_GROUP_OVERLOADED &&
	    (local_avg >= busiest->avg_load || local_avg >= sds->avg_load)) {
		env->imbalance = 0;
		return;
	}
	env->flags |= SR_LBF_MIGRATE_LOAD;
	if (!lb_by_load(c)) {
		env->imbalance = 1;
		return;
	}
	imb = (busiest->avg_load - sds->avg_load) * busiest->capacity;
	if ((sds->avg_load - local_avg) * local->capacity < imb)
		imb = (sds->avg_load - local_avg) * local->capacity;
	env->imbalance = imb / SR_SCHED_CAPACITY;
}

/* calculate_imbalance(): mainline's above, v4.15's in tasks */
void sr_lb_calculate_imbalance(struct sr_lb_ctx *c, struct sr_lb_sds *sds)
{
	struct sr_lb_env *env = c->env;
	const struct sr_domain *sd = env->sd;
	const struct sr_lb_sg *local = &sds->local, *busiest = &sds->busiest;
	int imb;

	if (mainline(c)) {
		calculate_imbalance_util(c, sds);
		return;
	}
	env->flags &= ~SR_LBF_MIGRATE_LOAD;
	if (busiest->type == SR_GROUP_IMBALANCED) {
		imb = 1;
	} else if (local->type == SR_GROUP_HAS_SPARE) {
		if (busiest->type > SR_GROUP_FULLY_BUSY && !(sd->flags & SR_SD_SHARE_LLC)) {
			/* migrate_util: fill local's spare capacity */
			imb = local->idle > 0 ? local->idle : (env->idle != SR_LB_NOT_IDLE);
		} else {
			imb = spread_imbalance(c, sds);
		}
	} else {
		imb = 1;	/* migrate_load: one task at a time */
		env->flags |= SR_LBF_MIGRATE_LOAD;
	}
	env->imbalance = imb;
}

/* find_busiest_group(): the busiest group of env's domain, if worth a pull */
/* what find_busiest_group() compared of one group, for the why-view (why.h) */
static void why_lb_group(int call, const struct sr_lb_ctx *c, const struct sr_lb_sg *sg,
			 int local)
{
	const struct sr_lb_env *env = c->env;
	static const char *const tname[] = { "has_spare", "fully_busy", "imbalanced",
					     "overloaded" };
	struct sr_why_group g = {
		.fn = 1, .call = call, .cpu = env->dst_cpu, .level = env->level,
		.first = sg->first, .local = local, .weight = sg->weight, .nr = sg->nr,
		.idle = sg->idle, .cfs = sg->cfs, .load = sg->load, .avg_load = -1,
		.util = -1, .runnable = -1,
	};

	if (mainline(c)) {
		g.avg_load = sg->avg_load;
		g.util = sg->util;
		g.runnable = sg->runnable;
	}

	if (call < 0)
		return;
	g.type = (unsigned)sg->type < 4 ? tname[sg->type] : "?";
	sr_why_group(&g);
}

int sr_lb_find_busiest_group(struct sr_lb_ctx *c, struct sr_lb_sds *sds)
{
	struct sr_lb_env *env = c->env;
	const struct sr_topology *t = c->v->topo;
	const struct sr_domain *sd = env->sd;
	uint64_t *one = c->masks + 2 * mask_words(c), *other = c->masks + 3 * mask_words(c);
	struct sr_lb_sg *local = &sds->local, *busiest = &sds->busiest, g;
	int gcpu, cpu, level = env->level, call = sr_why_call(1);

	long total_load, total_weight;

	c->pol->update_sg_lb_stats(c, group_span(c, level, env->dst_cpu, one), level, local);
	why_lb_group(call, c, local, 1);
	memset(busiest, 0, sizeof(*busiest));
	busiest->first = -1;
	total_load = local->load * local->weight;
	total_weight = local->weight;
	sds->total_load = local->load_sum;
	sds->total_capacity = local->capacity;
	for (gcpu = 0; gcpu < t->ncpus; gcpu++) {
		const uint64_t *span;

		if (!sr_cpumask_test(sd->span, gcpu))
			continue;
		span = group_span(c, level, gcpu, other);
		if (sr_cpumask_test(span, env->dst_cpu))
			continue;
		/* each group once, at its first CPU */
		for (cpu = 0; cpu < gcpu; cpu++)
			if (sr_cpumask_test(span, cpu) && sr_cpumask_test(sd->span, cpu))
				break;
		if (cpu < gcpu)
			continue;
		c->pol->update_sg_lb_stats(c, span, level, &g);
		why_lb_group(call, c, &g, 0);
		total_load += g.load * g.weight;
		total_weight += g.weight;
		sds->total_load += g.load_sum;
		sds->total_capacity += g.capacity;
		if (c->pol->update_sd_pick_busiest(c, &g, busiest))
			*busiest = g;
	}
	if (busiest->first >= 0)
		sr_why_pick(call, busiest->first);
	if (busiest->first < 0) {
		sr_lb_reason(c, "%s: no busiest", sd->name);
		return 0;
	}
	sds->avg_load = total_weight ? total_load / total_weight : 0;
	/* mainline: sds->avg_load over the domain's capacity */
	if (mainline(c))
		sds->avg_load = sds->total_capacity ?
				sds->total_load * SR_SCHED_CAPACITY / sds->total_capacity : 0;
	if (busiest->type != SR_GROUP_IMBALANCED) {
		if (local->type > busiest->type)
			goto balanced;
		if (local->type == SR_GROUP_OVERLOADED && mainline(c)) {
			if (local->avg_load >= busiest->avg_load || local->avg_load >= sds->avg_load ||
			    100 * busiest->avg_load <= (long)sd->imbalance_pct * local->avg_load)
				goto balanced;
		} else if (local->type == SR_GROUP_OVERLOADED) {
			if (local->load >= busiest->load ||
			    100 * busiest->load <= (long)sd->imbalance_pct * local->load)
				goto balanced;
		}
		/*
		 * prefer_sibling (find_busiest_group(), the child domain's
		 * SD_PREFER_SIBLING): a local group with spare capacity takes
		 * tasks while the busiest runs more than one task more (6.1:
		 * sum_nr_running > local's + 1; 6.6+: sibling_imbalance() > 1,
		 * which is 0 for a busy CPU)
		 */
		if (prefer_sibling(c) && local->type == SR_GROUP_HAS_SPARE &&
		    sibling_imbalance(c, busiest, local) > 1)
			goto force;
		if (busiest->type != SR_GROUP_OVERLOADED) {
			if (env->idle == SR_LB_NOT_IDLE)
				goto balanced;
			if (busiest->weight > 1 && local->idle <= busiest->idle + 1)
				goto balanced;
			if (busiest->cfs == 1)
				goto balanced;
		}
	}
force:
	c->pol->calculate_imbalance(c, sds);
	/* the migration type, as the lb_task probe shows the kernel's (its first, per level) */
	if (level < SR_MAX_DOMAIN_LEVELS && !c->out->lb_mt[level])
		c->out->lb_mt[level] = (unsigned char)(1 + ((env->flags & SR_LBF_MIGRATE_UTIL) ? 1 :
							   (env->flags & SR_LBF_MIGRATE_LOAD) ? 0 : 2));
	if (env->imbalance > 0)
		return 1;
balanced:
	sr_lb_reason(c, "%s: balanced", sd->name);
	return 0;
}

/*
 * find_busiest_queue() (6.1, 6.12) of a CPU with CFS tasks: migrate_load
 * the highest cpu_load() (not a CPU of one task whose load is past the
 * imbalance), migrate_util the highest util of a CPU running more than one
 * task (v6.5+: boosted by runnable_avg, both capped at the capacity), else
 * the most CFS tasks (migrate_task; v4.15 always)
 */
static long busiest_queue_value(const struct sr_lb_ctx *c, int cpu)
{
	const struct sr_lb_env *env = c->env;

	if (env->flags & SR_LBF_MIGRATE_UTIL) {
		long u = c->util[cpu], cap = sr_cpu_capacity(c->v->topo, cpu);

		if (c->nr[cpu] <= 1)
			return 0;
		if (sr_kgen_has(c->v->kgen, SR_KF_LB_RUNNABLE_BOOST) && c->run[cpu] > u)
			u = c->run[cpu] < cap ? c->run[cpu] : cap;
		return u;
	}
	if (c->cfs[cpu] == 1 && c->load[cpu] > env->imbalance)
		return 0;
	return c->load[cpu];
}

int sr_lb_find_busiest_queue(struct sr_lb_ctx *c, const struct sr_lb_sg *busiest)
{
	struct sr_lb_env *env = c->env;
	const uint64_t *bspan = group_span(c, env->level, busiest->first,
					   c->masks + 3 * mask_words(c));
	int cpu, best = -1, best_nr = 0, by_value = mainline(c) &&
		((env->flags & SR_LBF_MIGRATE_UTIL) ||
		 ((env->flags & SR_LBF_MIGRATE_LOAD) && lb_by_load(c)));
	long best_val = 0;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++) {
		if (!sr_cpumask_test(bspan, cpu) || !sr_cpumask_test(env->cpus, cpu))
			continue;
		if (by_value) {
			long val = c->cfs[cpu] ? busiest_queue_value(c, cpu) : 0;

			if (val > best_val) {
				best_val = val;
				best = cpu;
			}
			continue;
		}
		if (c->cfs[cpu] > best_nr) {
			best_nr = c->cfs[cpu];
			best = cpu;
		}
	}
	return best;
}

/* ---- can_migrate_task / detach_tasks ------------------------------------------- */

/*
 * What a pull moves from one CPU's load to the other's: the task's PELT
 * load_avg (detach/attach_entity_load_avg(), 5.x to 6.12: cpu_load() is the
 * root cfs_rq's load_avg), or its weight for the v4.15 model's queued load
 */
static long task_load(const struct sr_model *m, const struct sr_task *p)
{
	return m->sd_era == SR_ERA_MAINLINE ? (long)p->pelt.load_avg : (long)p->weight;
}

int sr_lb_task_hot(struct sr_lb_ctx *c, const struct sr_task *p)
{
	if (p->prio < 100 || (c->env->sd->flags & SR_SD_SHARE_CPUCAPACITY) || !p->exec_start)
		return 0;
	return c->v->now < p->exec_start + MIGRATION_COST_NS;
}

/* can_migrate_task() at v5.16 (schedreplay-models(7) §6.2) with the model's kthread_is_per_cpu */
int sr_lb_can_migrate_task(struct sr_lb_ctx *c, const struct sr_task *p, int src)
{
	struct sr_lb_env *env = c->env;
	int cpu;

	/*
	 * A delayed task (6.12+) is on cfs_tasks and may be moved; from 6.14
	 * ("sched/fair: Do not try to migrate delayed dequeue task") only
	 * when the balance migrates load
	 */
	if (p->delayed && sr_kgen_has(c->v->kgen, SR_KF_LB_SKIP_DELAYED) &&
	    !(env->flags & SR_LBF_MIGRATE_LOAD)) {
		sr_lb_reason(c, "delayed %d skipped", p->pid);
		return 0;
	}
	if (c->pol->kthread_is_per_cpu(c, p)) {
		sr_lb_reason(c, "per-cpu kthread %d skipped", p->pid);
		return 0;
	}
	if (!sr_lb_allowed(c, p, env->dst_cpu)) {
		env->flags |= SR_LBF_SOME_PINNED;
		if (env->idle == SR_LB_NEWLY_IDLE || (env->flags & SR_LBF_DST_PINNED))
			return 0;
		for (cpu = 0; cpu < c->v->topo->ncpus; cpu++)
			if (sr_cpumask_test(env->dst_grpmask, cpu) &&
			    sr_cpumask_test(env->cpus, cpu) && sr_lb_allowed(c, p, cpu)) {
				env->flags |= SR_LBF_DST_PINNED;
				env->new_dst_cpu = cpu;
				break;
			}
		return 0;
	}
	env->flags &= ~SR_LBF_ALL_PINNED;
	if (c->v->rq[src].curr == p->pid)
		return 0;
	/* too many balance attempts have failed: a hot task moves too */
	if (c->pol->task_hot(c, p) && env->nr_failed <= env->sd->cache_nice_tries)
		return 0;
	return 1;
}

/*
 * task_util_est() (6.1, 6.12): max(util_avg, util_est), util_est before
 * v6.8 being max(ewma, enqueued)
 */
static long task_util_est(const struct sr_lb_ctx *c, const struct sr_task *p)
{
	unsigned long u = p->pelt.util_avg > p->util_est ? p->pelt.util_avg : p->util_est;

	if (!sr_kgen_has(c->v->kgen, SR_KF_UTIL_EST_EWMA) && p->util_est_enq > u)
		u = p->util_est_enq;
	return (long)u;
}

/*
 * A pulled task's util and runnable leave src for dst
 * (detach_entity_load_avg(), attach_entity_load_avg()); its util_est goes
 * with it (util_est_dequeue(), util_est_enqueue())
 */
static void move_util(struct sr_lb_ctx *c, const struct sr_task *p, int src, int dst)
{
	long u = (long)p->pelt.util_avg, rn = (long)p->pelt.runnable_avg;

	if (p->util_est_queued && (long)p->util_est > u)
		u = (long)p->util_est;
	c->util[src] = c->util[src] > u ? c->util[src] - u : 0;
	c->util[dst] += u;
	c->run[src] = c->run[src] > rn ? c->run[src] - rn : 0;
	c->run[dst] += rn;
}

/* detach_tasks() from the least recently run end of src's cfs_tasks */
int sr_lb_detach_tasks(struct sr_lb_ctx *c, int src)
{
	struct sr_lb_env *env = c->env;
	const struct sr_task *p;
	int loop = 0, loop_max = c->nr[src] < 32 ? c->nr[src] : 32, detached = 0;

	for (p = c->v->cfs_tail ? c->v->cfs_tail[src] : NULL; p; p = p->lb_prev) {
		if (moved_away(c, p->pid))
			continue;
		if (env->idle != SR_LB_NOT_IDLE && c->nr[src] <= 1)
			break;
		if (++loop > loop_max)
			break;
		if (!c->pol->can_migrate_task(c, p, src))
			continue;
		if (env->flags & SR_LBF_MIGRATE_UTIL) {
			/* migrate_util: task_util_est() within the spare, shr_bound() too */
			long u = task_util_est(c, p);

			if ((env->nr_failed < 63 ? u >> env->nr_failed : 0) > env->imbalance)
				continue;
			env->imbalance -= u;
		} else if ((env->flags & SR_LBF_MIGRATE_LOAD) && lb_by_load(c)) {
			/* migrate_load: no more load than the imbalance (LB_MIN is off) */
			long l = task_load(c->m, p) > 1 ? task_load(c->m, p) : 1;

			if ((env->nr_failed < 63 ? l >> env->nr_failed : 0) > env->imbalance)
				continue;
			env->imbalance -= l;
		} else {
			env->imbalance--;
		}
		c->nr[src]--;
		c->nr[env->dst_cpu]++;
		if (p->prio >= 100) {
			c->cfs[src]--;
			c->cfs[env->dst_cpu]++;
			long l = task_load(c->m, p);

			c->load[src] = c->load[src] > l ? c->load[src] - l : 0;
			c->load[env->dst_cpu] += l;
			if (mainline(c))
				move_util(c, p, src, env->dst_cpu);
		}
		if (c->nmoved < SR_LB_MAX_MOVED) {
			c->moved[c->nmoved].pid = p->pid;
			c->moved[c->nmoved].from = src;
			c->moved[c->nmoved++].to = env->dst_cpu;
		}
		if (c->out->cpu < 0) {
			c->out->cpu = env->dst_cpu;
			c->out->src_cpu = src;
			c->out->task = p->pid;
		}
		sr_lb_reason(c, "pull %d from %d to %d", p->pid, src, env->dst_cpu);
		detached++;
		/* CONFIG_PREEMPTION: a newly idle CPU takes one task */
		if (env->idle == SR_LB_NEWLY_IDLE || env->imbalance <= 0)
			break;
	}
	return detached;
}

/* ---- should_we_balance / load_balance -------------------------------------------- */

int sr_lb_should_we_balance_busy(struct sr_lb_ctx *c)
{
	struct sr_lb_env *env = c->env;
	int cpu, first = -1;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++) {
		if (!sr_cpumask_test(env->dst_grpmask, cpu) || !sr_cpumask_test(env->cpus, cpu))
			continue;
		if (first < 0)
			first = cpu;
		if (sr_lb_idle_cpu(c, cpu))
			return cpu == env->dst_cpu;
	}
	return first == env->dst_cpu;
}


static int subset(const uint64_t *a, const uint64_t *b, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (a[i] & ~b[i])
			return 0;
	return 1;
}

/* load_balance() at v5.16 (schedreplay-models(7) §6.4) */
int sr_lb_load_balance(struct sr_lb_ctx *c, int dst, int level, int idle)
{
	const struct sr_topology *t = c->v->topo;
	const struct sr_domain *sd = &t->cpu[dst].dom[level];
	size_t words = mask_words(c);
	uint64_t *cpus = c->masks, *grp = c->masks + words;
	struct sr_lb_env env = {
		.dst_cpu = dst,
		.level = level,
		.sd = sd,
		.idle = (enum sr_lb_idle)idle,
		.new_dst_cpu = -1,
		.cpus = cpus,
		.dst_grpmask = grp,
	};
	struct sr_lb_env *saved = c->env;
	struct sr_lb_sds sds;
	int parent = level + 1 < t->cpu[dst].ndomains, moved = 0, src, hint = -1, n, found;

	int fbit = level * t->ncpus + dst;

	if (c->in->nr_failed)
		env.nr_failed = c->in->nr_failed[fbit];
	memcpy(cpus, sd->span, words * sizeof(uint64_t));
	memcpy(grp, group_span(c, level, dst, c->masks + 2 * words), words * sizeof(uint64_t));
	if (parent)
		hint = imb_index(c, level + 1, sd->span);
	c->env = &env;
redo:
	if (!c->pol->should_we_balance(c)) {
		c->stop = 1;
		goto out_balanced;
	}
	env.rounds++;
	found = c->pol->find_busiest_group(c, &sds);
	src = found ? c->pol->find_busiest_queue(c, &sds.busiest) : -1;
	c->rounds++;
	if (!found)
		goto out_balanced;
	if (src < 0) {
		sr_lb_reason(c, "%s: balanced", sd->name);
		goto out_balanced;
	}
	sr_lb_reason(c, "%s: busiest cpu %d (nr %d, %s)", sd->name, src, c->nr[src],
		     gnames[sds.busiest.type]);
	env.flags |= SR_LBF_ALL_PINNED;
	if (c->nr[src] > 1) {
more_balance:
		n = c->pol->detach_tasks(c, src);
		moved += n;
		if (!n && !(env.flags & SR_LBF_ALL_PINNED))
			sr_lb_reason(c, "none movable");
		if ((env.flags & SR_LBF_DST_PINNED) && env.imbalance > 0) {
			cpus[env.dst_cpu / 64] &= ~(1ULL << (env.dst_cpu % 64));
			env.dst_cpu = env.new_dst_cpu;
			env.flags &= ~SR_LBF_DST_PINNED;
			sr_lb_reason(c, "dst pinned, to %d", env.dst_cpu);
			goto more_balance;
		}
		if (parent && (env.flags & SR_LBF_SOME_PINNED) && env.imbalance > 0) {
			imb_put(c, hint, 1);
			c->out->lbf |= SR_LBO_HINT_SET;
			sr_lb_reason(c, "some pinned: parent group imbalanced");
		}
		if (env.flags & SR_LBF_ALL_PINNED) {
			cpus[src / 64] &= ~(1ULL << (src % 64));
			if (!subset(cpus, grp, words)) {
				c->out->lbf |= SR_LBO_REDO;
				sr_lb_reason(c, "all pinned, redo");
				goto redo;
			}
			sr_lb_reason(c, "all pinned");
			goto out_all_pinned;
		}
	}
	if (env.flags & SR_LBF_SOME_PINNED)
		c->out->lbf |= SR_LBO_SOME_PINNED;
	/* load_balance(): !ld_moved, nr_balance_failed++ (not newly idle); else 0 */
	if (fbit < 64 && moved)
		c->out->lb_reset |= 1ULL << fbit;
	else if (fbit < 64 && env.idle != SR_LB_NEWLY_IDLE)
		c->out->lb_failed |= 1ULL << fbit;
	c->env = saved;
	return moved;
out_balanced:
	if (parent && !(env.flags & SR_LBF_ALL_PINNED))
		imb_put(c, hint, 0);
out_all_pinned:
	if (env.flags & SR_LBF_SOME_PINNED)
		c->out->lbf |= SR_LBO_SOME_PINNED;
	if (fbit < 64)
		c->out->lb_reset |= 1ULL << fbit;
	if (fbit < 64 && (env.flags & SR_LBF_ALL_PINNED))
		c->out->lb_pinned |= 1ULL << fbit;
	c->env = saved;
	return 0;
}

/* ---- the callers: rebalance_domains, newidle_balance, the nohz pass ------------- */

/*
 * rebalance_domains() (6.1) / sched_balance_domains() (6.12): a level is
 * balanced only when time_after_eq(jiffies, sd->last_balance + interval);
 * the engine that keeps the clocks (simulate) says which levels are due,
 * or the balance probes show which were balanced (replay, in->pass); the
 * others are passed over without ending the walk
 */
int sr_lb_rebalance_domains(struct sr_lb_ctx *c, int cpu, int idle)
{
	const struct sr_cpu_topo *ct = &c->v->topo->cpu[cpu];
	unsigned due = c->in->due ? c->in->due[cpu] : ~0u;
	int level, pulled;

	c->stop = 0;
	for (level = 0; level < ct->ndomains; level++) {
		if (!(due >> level & 1))
			continue;
		if (c->in->pass && !(c->in->pass >> level & 1)) {
			sr_lb_reason(c, "%s: not due (probe)", ct->dom[level].name);
			continue;
		}
		pulled = c->pol->load_balance(c, cpu, level, idle);
		if (pulled)
			return pulled;
		if (c->stop)
			break;
	}
	return 0;
}

static int rd_overloaded(const struct sr_lb_ctx *c)
{
	int cpu;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++)
		if (c->nr[cpu] >= 2)
			return 1;
	return 0;
}

/*
 * What a level's load_balance() changes in an evaluation, so that a level
 * the kernel's draw is taken to have passed over can be undone
 */
struct lb_saved {
	int nmoved, rounds, stop;
	struct sr_eval out;
};

/* the state of @c into @s and the ctx's saved arrays */
static void lb_save(const struct sr_lb_ctx *c, struct lb_saved *s)
{
	size_t n = (size_t)c->v->topo->ncpus;

	s->nmoved = c->nmoved;
	s->rounds = c->rounds;
	s->stop = c->stop;
	s->out = *c->out;
	memcpy(c->nr_saved, c->nr, n * sizeof(*c->nr));
	memcpy(c->cfs_saved, c->cfs, n * sizeof(*c->cfs));
	memcpy(c->load_saved, c->load, n * sizeof(*c->load));
	memcpy(c->util_saved, c->util, n * sizeof(*c->util));
	memcpy(c->run_saved, c->run, n * sizeof(*c->run));
}

/* put the evaluation back as lb_save() found it */
static void lb_restore(struct sr_lb_ctx *c, const struct lb_saved *s)
{
	size_t n = (size_t)c->v->topo->ncpus;

	c->nmoved = s->nmoved;
	c->rounds = s->rounds;
	c->stop = s->stop;
	*c->out = s->out;
	memcpy(c->nr, c->nr_saved, n * sizeof(*c->nr));
	memcpy(c->cfs, c->cfs_saved, n * sizeof(*c->cfs));
	memcpy(c->load, c->load_saved, n * sizeof(*c->load));
	memcpy(c->util, c->util_saved, n * sizeof(*c->util));
	memcpy(c->run, c->run_saved, n * sizeof(*c->run));
}

/*
 * newidle_balance() at v5.19 (schedreplay-models(7) §8.2); avg_idle and the lb
 * cost are not seen.  Where the balance probes show the levels the kernel
 * balanced at (in->levels), the others are passed over: in
 * sched_balance_newidle() of Debian 6.1.192 and 6.12.117 (and v6.19)
 * NI_RANDOM's draw skips a level ("continue") and avg_idle below
 * curr_cost + max_newidle_lb_cost ends the walk, neither of them traced.
 */
int sr_lb_newidle_balance(struct sr_lb_ctx *c, int cpu)
{
	const struct sr_cpu_topo *ct = &c->v->topo->cpu[cpu];
	int level, pulled;

	if (!rd_overloaded(c)) {
		sr_lb_reason(c, "no overload");
		return 0;
	}
	for (level = 0; level < ct->ndomains; level++) {
		struct lb_saved saved;
		int drawn;

		if (!(ct->dom[level].flags & SR_SD_BALANCE_NEWIDLE))
			continue;
		if (c->in->levels && !(c->in->levels >> level & 1)) {
			sr_lb_reason(c, "%s: not tried (probe)", ct->dom[level].name);
			continue;
		}
		/*
		 * NI_RANDOM's draw (sched_balance_newidle(), Debian 6.1.192 and
		 * 6.12.117): the kernel balances here only when sched_rng() %
		 * 1024 <= 1 + sd->newidle_ratio, and skips the level
		 * ("continue") otherwise.  No trace shows the draw, but the
		 * trace shows that the kernel pulled nothing at this level (a
		 * switch without a pull, or a level below the one that
		 * pulled): where the model's balance of the level would pull,
		 * its own state leaves the draw's skip as the only reading of
		 * that, unless the draw cannot skip (the engine's estimate of
		 * its chance to run, ni_run, is 1024), so the level is passed
		 * over and the decision marked (not in the v4.15 model's
		 * kernels)
		 */
		drawn = c->in->ni_random && c->m->sd_era == SR_ERA_MAINLINE &&
			c->in->ni_run[level] < 1024;
		if (drawn) {
			int task, src;

			lb_save(c, &saved);
			pulled = c->pol->load_balance(c, cpu, level, SR_LB_NEWLY_IDLE);
			task = c->out->task;
			src = c->out->src_cpu;
			if (pulled) {
				lb_restore(c, &saved);
				sr_lb_reason(c, "%s: NI_RANDOM skip (would pull %d from %d)",
					     ct->dom[level].name, task, src);
				c->out->lbf |= SR_LBO_NI_RANDOM;
				c->out->ni_skip |= 1u << level;
				continue;
			}
		} else {
			pulled = c->pol->load_balance(c, cpu, level, SR_LB_NEWLY_IDLE);
			if (pulled)
				return pulled;
		}
		if (sr_lb_nr_running(c, cpu) > 0 || sr_lb_ttwu_pending(c, cpu)) {
			sr_lb_reason(c, "stop: work arrived");
			break;
		}
	}
	return 0;
}

int sr_lb_nohz_balance_cpu(struct sr_lb_ctx *c, int cpu)
{
	size_t len = strlen(c->out->reason);
	int pulled;

	sr_lb_reason(c, "for %d", cpu);
	pulled = c->pol->rebalance_domains(c, cpu, SR_LB_IDLE);
	/* the CPUs that pull nothing leave no tokens: the path stays readable */
	if (!pulled && len < SR_REASON_LEN)
		c->out->reason[len] = '\0';
	return pulled;
}

/* mainline _nohz_idle_balance(): from ilb + 1 round, the ILB itself last */
int sr_lb_nohz_idle_balance(struct sr_lb_ctx *c, int ilb)
{
	int n = c->v->topo->ncpus, i;

	for (i = 1; i <= n; i++) {
		int cpu = (ilb + i) % n;

		if (cpu != ilb && !sr_lb_nohz_idle(c, cpu))
			continue;
		if (sr_lb_nohz_balance_cpu(c, cpu))
			return 1;
	}
	return 0;
}

/* v4.x nohz_idle_balance(): the other idle CPUs, ascending from CPU 0 */
int sr_lb_nohz_idle_balance_v4(struct sr_lb_ctx *c, int ilb)
{
	int cpu;

	for (cpu = 0; cpu < c->v->topo->ncpus; cpu++) {
		if (cpu == ilb || !sr_lb_nohz_idle(c, cpu))
			continue;
		if (sr_lb_nohz_balance_cpu(c, cpu))
			return 1;
	}
	return 0;
}

/* mainline run_rebalance_domains() on a kick: the pass balances the ILB too */
int sr_lb_run_rebalance_domains(struct sr_lb_ctx *c, int ilb)
{
	return c->pol->nohz_idle_balance(c, ilb);
}

/* v4.1 (d4573c3e1c99) run_rebalance_domains(): the nohz pass, then the ILB */
int sr_lb_run_rebalance_domains_v41(struct sr_lb_ctx *c, int ilb)
{
	if (c->pol->nohz_idle_balance(c, ilb))
		return 1;
	return sr_lb_nohz_balance_cpu(c, ilb);
}

/* mainline: KTHREAD_IS_PER_CPU, seen through smpboot and bound-kworker names */
int sr_lb_kthread_per_cpu_name(struct sr_lb_ctx *c, const struct sr_task *p)
{
	(void)c;
	return p->kthread == 1 && sr_lb_per_cpu_name(p->comm);
}

/* before v5.11 (2f5f4cce496e) can_migrate_task() had no kthread test */
int sr_lb_kthread_per_cpu_none(struct sr_lb_ctx *c, const struct sr_task *p)
{
	(void)c;
	(void)p;
	return 0;
}

/* should_we_balance() before 6.0: a newly idle CPU always balances */
int sr_lb_should_we_balance_v5(struct sr_lb_ctx *c)
{
	struct sr_lb_env *env = c->env;

	if (!sr_cpumask_test(env->cpus, env->dst_cpu))
		return 0;
	if (env->idle == SR_LB_NEWLY_IDLE)
		return 1;
	return sr_lb_should_we_balance_busy(c);
}

/* should_we_balance() since 6.0 (792b9f65a568): a newly idle CPU that has
 * work (a task, a pending wakeup) bails */
int sr_lb_should_we_balance_v60(struct sr_lb_ctx *c)
{
	struct sr_lb_env *env = c->env;

	if (sr_cpumask_test(env->cpus, env->dst_cpu) && env->idle == SR_LB_NEWLY_IDLE &&
	    (sr_lb_nr_running(c, env->dst_cpu) > 0 || sr_lb_ttwu_pending(c, env->dst_cpu))) {
		sr_lb_reason(c, "bail: %s", sr_lb_nr_running(c, env->dst_cpu) > 0 ?
			     "nr_running" : "ttwu_pending");
		c->out->lbf |= SR_LBO_BAIL;
		return 0;
	}
	return sr_lb_should_we_balance_v5(c);
}

struct sr_lb_scratch {
	int ncpus;
	int *nr, *cfs, *nr_saved, *cfs_saved;
	long *load, *load_saved, *util, *run, *util_saved, *run_saved;
	uint64_t *masks;
};

struct sr_lb_scratch *sr_lb_scratch_new(int ncpus)
{
	struct sr_lb_scratch *s = calloc(1, sizeof(*s));
	size_t n = ncpus > 0 ? (size_t)ncpus : 1;

	if (!s)
		return NULL;
	s->ncpus = (int)n;
	s->nr = calloc(n, sizeof(*s->nr));
	s->cfs = calloc(n, sizeof(*s->cfs));
	s->load = calloc(n, sizeof(*s->load));
	s->nr_saved = calloc(n, sizeof(*s->nr_saved));
	s->cfs_saved = calloc(n, sizeof(*s->cfs_saved));
	s->load_saved = calloc(n, sizeof(*s->load_saved));
	s->util = calloc(n, sizeof(*s->util));
	s->run = calloc(n, sizeof(*s->run));
	s->util_saved = calloc(n, sizeof(*s->util_saved));
	s->run_saved = calloc(n, sizeof(*s->run_saved));
	s->masks = calloc(4 * ((n + 63) / 64), sizeof(*s->masks));
	if (!s->nr || !s->cfs || !s->load || !s->nr_saved || !s->cfs_saved || !s->load_saved ||
	    !s->util || !s->run || !s->util_saved || !s->run_saved || !s->masks) {
		sr_lb_scratch_free(s);
		return NULL;
	}
	return s;
}

void sr_lb_scratch_free(struct sr_lb_scratch *s)
{
	if (!s)
		return;
	free(s->nr);
	free(s->cfs);
	free(s->load);
	free(s->util);
	free(s->run);
	free(s->util_saved);
	free(s->run_saved);
	free(s->nr_saved);
	free(s->cfs_saved);
	free(s->load_saved);
	free(s->masks);
	free(s);
}

int sr_model_balance(const struct sr_model *m, const struct sr_view *v,
		     const struct sr_lb_input *in, struct sr_lb_scratch *scratch,
		     struct sr_eval *out)
{
	struct sr_lb_scratch *own = NULL;
	struct sr_lb_ctx c = {
		.v = v,
		.m = m,
		.pol = &m->pol,
		.in = in,
		.out = out,
	};
	int cpu;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->src_cpu = -1;
	if (!scratch || scratch->ncpus < v->topo->ncpus) {
		scratch = own = sr_lb_scratch_new(v->topo->ncpus);
		if (!own)
			return -1;
	}
	c.nr = scratch->nr;
	c.cfs = scratch->cfs;
	c.load = scratch->load;
	c.masks = scratch->masks;
	c.nr_saved = scratch->nr_saved;
	c.cfs_saved = scratch->cfs_saved;
	c.load_saved = scratch->load_saved;
	c.util = scratch->util;
	c.run = scratch->run;
	c.util_saved = scratch->util_saved;
	c.run_saved = scratch->run_saved;
	for (cpu = 0; cpu < v->topo->ncpus; cpu++) {
		c.nr[cpu] = v->rq[cpu].nr_running;
		/*
		 * sum_h_nr_running and find_busiest_queue() count
		 * h_nr_queued, delayed tasks in, until 6.14 made them
		 * h_nr_runnable (not in 6.12.y)
		 */
		c.cfs[cpu] = v->rq[cpu].cfs_nr - (sr_kgen_has(v->kgen, SR_KF_LB_RUNNABLE) ?
						   v->rq[cpu].nr_delayed : 0);
		/*
		 * update_sg_lb_stats() sums cpu_load() (the root cfs_rq's
		 * load_avg, blocked load in), cpu_util_cfs() (max(util_avg,
		 * util_est), capped at the capacity) and cpu_runnable(), one
		 * read of the signal (6.1, 6.12); the blocking task's util_est
		 * is off the newly idle CPU (util_est_dequeue()), its util_avg
		 * stays as blocked util.  The v4.15 model keeps the queued weight.
		 */
		if (m->sd_era == SR_ERA_MAINLINE) {
			struct sr_pelt sig;
			long cap = sr_cpu_capacity(v->topo, cpu);
			long ue = (long)v->rq[cpu].util_est, util;

			sr_view_cpu_signal(v, cpu, &sig);
			c.load[cpu] = (long)sig.load_avg;
			util = (long)sig.util_avg;
			if (cpu == in->cpu)
				ue = ue > in->util_est_sub ? ue - in->util_est_sub : 0;
			if (m->util_est && ue > util)
				util = ue;
			c.util[cpu] = util > cap ? cap : util;
			c.run[cpu] = (long)sig.runnable_avg;
		} else {
			c.load[cpu] = (long)v->rq[cpu].cfs_weight;
		}
	}
	c.nr[in->cpu] -= in->nr_sub;
	c.cfs[in->cpu] -= in->cfs_sub;
	/*
	 * a task that blocks leaves its load_avg on the cfs_rq as blocked
	 * load (dequeue_entity() detaches it only for a migration, 6.1 and
	 * 6.12): the newly idle CPU keeps it; queued weight does not
	 */
	if (m->sd_era != SR_ERA_MAINLINE)
		c.load[in->cpu] -= in->load_sub;
	if (c.nr[in->cpu] < 0)
		c.nr[in->cpu] = 0;
	if (c.cfs[in->cpu] < 0)
		c.cfs[in->cpu] = 0;
	if (c.load[in->cpu] < 0)
		c.load[in->cpu] = 0;

	switch (in->kind) {
	case SR_DEC_LB_NEWIDLE:
	case SR_DEC_NEWIDLE:
		sr_lb_reason(&c, "newidle");
		c.pol->newidle_balance(&c, in->cpu);
		break;
	case SR_DEC_LB_NOHZ:
		sr_lb_reason(&c, "nohz ilb %d", in->cpu);
		c.pol->run_rebalance_domains(&c, in->cpu);
		break;
	default:
		sr_lb_reason(&c, in->idle == SR_LB_IDLE ? "periodic, idle" : "periodic, busy");
		c.pol->rebalance_domains(&c, in->cpu, in->idle);
		break;
	}
	if (out->cpu < 0)
		sr_lb_reason(&c, "no pull");
	sr_lb_scratch_free(own);
	return 0;
}

/* ---- the periodic balance's clock (struct sr_lb_clock) -------------------------- */

/* load_balance(): the interval of a balance that met only pinned tasks, ms */
#define MAX_PINNED_INTERVAL 512

void sr_lb_clock_init(struct sr_lb_clock *k, uint64_t now)
{
	int l;

	memset(k, 0, sizeof(*k));
	k->next_balance = now;
	for (l = 0; l < SR_MAX_DOMAIN_LEVELS; l++)
		k->last_balance[l] = UINT64_MAX;
}

uint64_t sr_lb_clock_interval(const struct sr_lb_clock *k, const struct sr_cpu_topo *ct,
			      int level, int busy, int hz, int ncpus)
{
	uint64_t ms, j, jmax = (uint64_t)hz * (uint64_t)ncpus / 10;

	if (level >= ct->ndomains || level >= SR_MAX_DOMAIN_LEVELS || hz <= 0)
		return UINT64_MAX / 4;
	ms = k->interval_ms[level] ? k->interval_ms[level] : (uint64_t)ct->dom[level].span_weight;
	if (busy && ct->dom[level].busy_factor > 0)
		ms *= (uint64_t)ct->dom[level].busy_factor;
	/* msecs_to_jiffies() rounds up */
	j = (ms * (uint64_t)hz + 999) / 1000;
	if (busy && j > 1)
		j--;
	if (j < 1)
		j = 1;
	if (jmax >= 1 && j > jmax)
		j = jmax;
	return j * (1000000000ULL / (uint64_t)hz);
}

unsigned sr_lb_clock_due(const struct sr_lb_clock *k, const struct sr_cpu_topo *ct, uint64_t now,
			 int busy, int hz, int ncpus)
{
	unsigned due = 0;
	int l;

	for (l = 0; l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS; l++)
		if (k->last_balance[l] == UINT64_MAX ||
		    now >= k->last_balance[l] + sr_lb_clock_interval(k, ct, l, busy, hz, ncpus))
			due |= 1u << l;
	return due;
}

void sr_lb_clock_done(struct sr_lb_clock *k, const struct sr_cpu_topo *ct, unsigned due,
		      unsigned walked, int busy, uint64_t now, int hz, int ncpus, unsigned pulled,
		      unsigned failed, unsigned pinned)
{
	uint64_t next = UINT64_MAX, t;
	int l;

	for (l = 0; l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS; l++) {
		if (due >> l & 1) {
			unsigned min = (unsigned)ct->dom[l].span_weight;
			unsigned cur = k->interval_ms[l] ? k->interval_ms[l] : min;

			k->last_balance[l] = now;
			if ((pulled | failed) >> l & 1)
				cur = min;
			else if (((pinned >> l & 1) && cur < MAX_PINNED_INTERVAL) || cur < 2 * min)
				cur *= 2;
			k->interval_ms[l] = cur;
		}
		if (!(walked >> l & 1))
			continue;
		if (k->last_balance[l] == UINT64_MAX)
			t = now;
		else
			t = k->last_balance[l] + sr_lb_clock_interval(k, ct, l, busy, hz, ncpus);
		if (t < next)
			next = t;
	}
	k->next_balance = next == UINT64_MAX ? now + UINT64_MAX / 4 : next;
}
