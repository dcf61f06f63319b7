// SPDX-License-Identifier: GPL-2.0
/*
 * CFS placement decision functions (schedreplay-models(7) §5) for the base models:
 * "mainline" (select_task_rq_fair as of 2025: wake_wide, wake_affine idle
 * then weight on cpu_load, select_idle_sibling with prev / target /
 * recent_used_cpu, idle cores, SIS_UTIL; fork slow path) and "v4.15" (bool
 * wake_affine, weighted_cpuload, `<=`, no recent_used_cpu, SIS_PROP).
 * Each function appends reason tokens; none changes the engine's state.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/why.h"
#include "depend-local.h"
#include "banned.h"

/*
 * The reason texts are formatted at every evaluation, so the conversions
 * they use (%d, %ld, %u, %lu, %s, %%) are done here without vsnprintf (a
 * third of a model's time went to it), in one pass over the format; a
 * format with anything else goes to vsnprintf.  The text is the same
 * either way, cut the same way at @room - 1 bytes.  Return: 0, or -1 when
 * the format needs vsnprintf (then @ap is as it was: the pass reads a copy).
 */
static int fast_format(char *dst, size_t room, const char *fmt, va_list ap)
{
	char num[24];
	size_t o = 0, cap = room ? room - 1 : 0;
	const char *f = fmt;
	va_list aq;

	va_copy(aq, ap);
	while (*f && o < cap) {
		const char *piece = f;
		size_t n;

		if (*f != '%') {
			n = (size_t)(strchrnul(f, '%') - f);
			f += n;
		} else {
			int lng = f[1] == 'l';
			unsigned long u;
			int i = (int)sizeof(num), neg = 0;

			f += 1 + lng;
			switch (*f++) {
			case 'd': {
				long v = lng ? va_arg(aq, long) : va_arg(aq, int);

				neg = v < 0;
				u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
				goto digits;
			}
			case 'u':
				u = lng ? va_arg(aq, unsigned long) : va_arg(aq, unsigned);
digits:
				do {
					num[--i] = (char)('0' + u % 10);
					u /= 10;
				} while (u);
				if (neg)
					num[--i] = '-';
				piece = num + i;
				n = sizeof(num) - (size_t)i;
				break;
			case 's':
				if (lng)
					goto slow;
				piece = va_arg(aq, const char *);
				if (!piece)
					piece = "(null)";
				n = strlen(piece);
				break;
			case '%':
				if (lng)
					goto slow;
				piece = "%";
				n = 1;
				break;
			default:
				goto slow;
			}
		}
		if (n > cap - o)
			n = cap - o;
		memcpy(dst + o, piece, n);
		o += n;
	}
	va_end(aq);
	if (room)
		dst[o] = '\0';
	return 0;
slow:
	va_end(aq);
	return -1;
}

void sr_eval_vreason(struct sr_eval *out, const char *fmt, va_list ap)
{
	char *buf = out->reason;
	size_t len = strlen(buf);

	if (len + 4 >= SR_REASON_LEN)
		return;
	if (len) {
		memcpy(buf + len, " > ", 4);
		len += 3;
	}
	if (fast_format(buf + len, SR_REASON_LEN - len, fmt, ap) < 0)
		vsnprintf(buf + len, SR_REASON_LEN - len, fmt, ap);
}

void sr_reason(struct sr_wake_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sr_eval_vreason(c->out, fmt, ap);
	va_end(ap);
}

/* ---- shared helpers ---------------------------------------------------------- */

static int idle(const struct sr_wake_ctx *c, int cpu)
{
	return sr_view_idle_cpu(c->v, cpu);
}

int sr_ctx_idle(const struct sr_wake_ctx *c, int cpu)
{
	return idle(c, cpu);
}

static int allowed(const struct sr_wake_ctx *c, int cpu)
{
	/* a wakee's mask inferred from its wakeups (schedreplay-models(7) §9.2) */
	if (!c->fork && !c->exec && c->p->aff_wake && cpu >= 0 && cpu < 64 && !(c->p->wake_seen >> cpu & 1))
		return 0;
	/* a CPU another task's sched_setaffinity() moved it off (§9, affinity) */
	if (!c->fork && cpu >= 0 && cpu < 64 && (c->p->aff_off >> cpu & 1))
		return 0;
	return sr_view_allowed(c->v, c->p, cpu);
}

int sr_ctx_allowed(const struct sr_wake_ctx *c, int cpu)
{
	return allowed(c, cpu);
}

static int share_cache(const struct sr_wake_ctx *c, int a, int b)
{
	return sr_cpus_share_cache(c->v->topo, a, b);
}

int sr_ctx_share_cache(const struct sr_wake_ctx *c, int a, int b)
{
	return share_cache(c, a, b);
}

static long load_of(const struct sr_wake_ctx *c, int cpu)
{
	return sr_view_cpu_load(c->v, cpu, c->m->runnable_load);
}

long sr_ctx_cpu_load(const struct sr_wake_ctx *c, int cpu)
{
	return load_of(c, cpu);
}

/*
 * task_h_load() (fair.c, 6.1 - 6.18): the task's own, possibly stale,
 * load_avg (schedreplay-models(7) §3.4), scaled by its task group's share
 * of the root where the view has groups (§3.5), by the root's h_load that
 * update_cfs_rq_h_load() keeps for a jiffy over its cpu_load() + 1 where
 * it has none (sr_view_task_h_load()); v4.15's era (runnable load) keeps
 * the flat hierarchy.  The CPUs it reads go to out->h_load_read.
 */
static long task_h_load(const struct sr_wake_ctx *c, const struct sr_task *t)
{
	/* update_cfs_rq_h_load() ran on task_cpu(t)'s root: the engine's cache follows */
	if (t && !c->m->runnable_load && !c->v->tg && t->cpu >= 0 && t->cpu < 64 && c->out)
		c->out->h_load_read |= 1ULL << t->cpu;
	return sr_view_task_h_load(c->v, t, c->m->runnable_load);
}

/* cpu_load() as wake_affine_weight() reads it: the root cfs_rq over the groups (§3.5) */
static long affine_load(const struct sr_wake_ctx *c, int cpu)
{
	return sr_view_affine_load(c->v, cpu, c->m->runnable_load);
}

static const struct sr_domain *llc_domain(const struct sr_wake_ctx *c, int cpu)
{
	return sr_topology_llc(c->v->topo, cpu);
}

const struct sr_domain *sr_ctx_llc(const struct sr_wake_ctx *c, int cpu)
{
	return llc_domain(c, cpu);
}

/* ---- wake_wide (schedreplay-models(7) §5.2) --------------------------------------- */

static int wake_wide(struct sr_wake_ctx *c)
{
	unsigned master = c->cur ? c->cur->wakee_flips : 0;
	unsigned slave = c->p->wakee_flips;
	unsigned factor = (unsigned)sr_topology_llc_size(c->v->topo, c->this_cpu);

	if (master < slave) {
		unsigned tmp = master;

		master = slave;
		slave = tmp;
	}
	return slave >= factor && master >= slave * factor;
}

/* ---- wake_affine (schedreplay-models(7) §5.3 - §5.5) ------------------------------ */

static int wake_affine_idle_mainline(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync)
{
	if (idle(c, this_cpu) && share_cache(c, this_cpu, prev_cpu)) {
		sr_reason(c, "this idle, shares LLC");
		return idle(c, prev_cpu) ? prev_cpu : this_cpu;
	}
	/*
	 * rq->nr_running counts delayed tasks (6.12); wake_affine_idle() leaves
	 * them out from 6.16 and 6.12.37 ("Fixup wake_up_sync() vs DELAYED_DEQUEUE")
	 */
	if (sync && c->v->rq[this_cpu].nr_running -
		    (sr_kgen_has(c->v->kgen, SR_KF_SYNC_NOT_DELAYED) ?
		     c->v->rq[this_cpu].nr_delayed : 0) == 1) {
		sr_reason(c, "sync, waker alone");
		return this_cpu;
	}
	if (idle(c, prev_cpu)) {
		sr_reason(c, "prev idle");
		return prev_cpu;
	}
	return SR_NONE;
}

static int wake_affine_idle_v415(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync)
{
	if (idle(c, this_cpu) && share_cache(c, this_cpu, prev_cpu)) {
		sr_reason(c, "this idle, shares LLC");
		return this_cpu;
	}
	if (sync && c->v->rq[this_cpu].nr_running == 1) {
		sr_reason(c, "sync, waker alone");
		return this_cpu;
	}
	return SR_NONE;
}

/*
 * A comparison of PELT signals @a against @b decided the path: keep its
 * relative margin, per mille of the larger, if it is the smallest yet
 * (sr_eval.margin, SR_INF_NEAR)
 */
static void margin(const struct sr_wake_ctx *c, long long a, long long b)
{
	__int128 x = a < 0 ? -(__int128)a : a, y = b < 0 ? -(__int128)b : b;
	__int128 d = a > b ? (__int128)a - b : (__int128)b - a, big = x > y ? x : y;
	unsigned m;

	/* v4.15's slow path compares runnable and full loads with margins of its own */
	if (c->m->runnable_load || big <= 0)
		return;
	m = (unsigned)(d * 1000 / big);
	if (m < c->out->margin)
		c->out->margin = m;
}

/*
 * The weight comparison with the variants of change 1(c): @strict is `<`
 * (patched, mainline) against `<=` (v4.15, v4.16-rc1); @sync_bias adds 1 to
 * prev's side on sync wakeups.
 */
int sr_affine_weight(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
		     int prev_cpu, int sync, int strict, int sync_bias)
{
	const struct sr_topology *t = c->v->topo;
	long this_eff, prev_eff, tl;

	this_eff = affine_load(c, this_cpu);
	if (sync) {
		long cl = task_h_load(c, c->cur);

		if (cl > this_eff) {
			sr_reason(c, "sync, waker load %ld > this load %ld", cl, this_eff);
			return this_cpu;
		}
		this_eff -= cl;
	}
	tl = task_h_load(c, c->p);
	this_eff += tl;
	this_eff *= 100;
	this_eff *= t->cpu[prev_cpu].capacity;

	prev_eff = affine_load(c, prev_cpu);
	prev_eff -= tl;
	prev_eff *= 100 + (sd->imbalance_pct - 100) / 2;
	prev_eff *= t->cpu[this_cpu].capacity;
	if (sync && sync_bias)
		prev_eff += 1;

	if (strict)
		margin(c, this_eff, prev_eff);
	if (strict ? this_eff < prev_eff : this_eff <= prev_eff) {
		sr_reason(c, "weight: this %ld %s prev %ld", this_eff, strict ? "<" : "<=",
			  prev_eff);
		return this_cpu;
	}
	sr_reason(c, "weight: this %ld %s prev %ld", this_eff, strict ? ">=" : ">", prev_eff);
	return SR_NONE;
}

static int wake_affine_weight_mainline(struct sr_wake_ctx *c, const struct sr_domain *sd,
				       int this_cpu, int prev_cpu, int sync)
{
	return sr_affine_weight(c, sd, this_cpu, prev_cpu, sync, 1, 1);
}

static int wake_affine_weight_v415(struct sr_wake_ctx *c, const struct sr_domain *sd,
				   int this_cpu, int prev_cpu, int sync)
{
	return sr_affine_weight(c, sd, this_cpu, prev_cpu, sync, 0, 0);
}

static int wake_affine(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
		       int prev_cpu, int sync)
{
	int target = c->m->pol.wake_affine_idle(c, this_cpu, prev_cpu, sync);

	if (target == SR_NONE)
		target = c->m->pol.wake_affine_weight(c, sd, this_cpu, prev_cpu, sync);
	if (target != this_cpu) {
		sr_reason(c, "wake_affine: prev");
		return prev_cpu;
	}
	sr_reason(c, "wake_affine: this");
	return this_cpu;
}

/* ---- select_idle_sibling (schedreplay-models(7) §5.6) ----------------------------- */

/* SIS_UTIL's scan budget from the LLC's utilisation (update_idle_cpu_scan) */
static int sis_util_budget(struct sr_wake_ctx *c, const struct sr_domain *llc)
{
	const struct sr_topology *t = c->v->topo;
	unsigned long long sum = 0, x, y;
	int cpu, pct = llc->imbalance_pct;

	for (cpu = 0; cpu < t->ncpus; cpu++)
		if (sr_cpumask_test(llc->span, cpu))
			sum += sr_view_cpu_util(c->v, cpu, c->m->util_est);
	x = sum / (unsigned long long)llc->span_weight;	/* average util, 0..1024 */
	y = x * x * (unsigned long long)pct * pct / (10000ULL * SR_SCHED_CAPACITY);
	if (y > SR_SCHED_CAPACITY)
		y = SR_SCHED_CAPACITY;
	return (int)((unsigned long long)llc->span_weight * (SR_SCHED_CAPACITY - y) /
		     SR_SCHED_CAPACITY);
}

static int core_idle(struct sr_wake_ctx *c, int cpu)
{
	const struct sr_topology *t = c->v->topo;
	int s;

	for (s = 0; s < t->ncpus; s++)
		if (t->cpu[s].core_id == t->cpu[cpu].core_id && !idle(c, s))
			return 0;
	return 1;
}

/* an idle SMT sibling of @cpu inside @llc */
static int idle_smt(struct sr_wake_ctx *c, const struct sr_domain *llc, int cpu)
{
	const struct sr_topology *t = c->v->topo;
	int s;

	for (s = 0; s < t->ncpus; s++)
		if (s != cpu && t->cpu[s].core_id == t->cpu[cpu].core_id &&
		    sr_cpumask_test(llc->span, s) && allowed(c, s) && idle(c, s))
			return s;
	return SR_NONE;
}

/* the scan of select_idle_cpu() / select_idle_core(): wrap over LLC ∩ allowed from @first */
int sr_scan_llc(struct sr_wake_ctx *c, const struct sr_domain *llc, int first, int want_core,
		int nr)
{
	int n = c->v->topo->ncpus, i, idle_cpu = SR_NONE;

	for (i = 0; i < n; i++) {
		int cpu = (first + i) % n;

		if (!sr_cpumask_test(llc->span, cpu) || !allowed(c, cpu))
			continue;
		if (want_core) {
			if (core_idle(c, cpu)) {
				sr_reason(c, "idle core %d", cpu);
				return cpu;
			}
			if (idle_cpu == SR_NONE && idle(c, cpu))
				idle_cpu = cpu;
			continue;
		}
		if (nr >= 0 && --nr <= 0) {
			sr_reason(c, "scan budget spent");
			return SR_NONE;
		}
		if (idle(c, cpu)) {
			sr_reason(c, "scan: idle %d", cpu);
			return cpu;
		}
	}
	if (want_core && idle_cpu != SR_NONE)
		sr_reason(c, "no idle core, idle %d", idle_cpu);
	return idle_cpu;
}

static int sis_mainline(struct sr_wake_ctx *c, int prev, int target)
{
	const struct sr_topology *t = c->v->topo;
	const struct sr_domain *llc;
	int r, i, has_idle_core = 0;

	if (idle(c, target)) {
		sr_reason(c, "sis: target idle");
		return target;
	}
	if (prev != target && share_cache(c, prev, target) && idle(c, prev)) {
		sr_reason(c, "sis: prev idle");
		return prev;
	}
	/*
	 * per-CPU kthread stacking: a bound kthread waking in task context
	 * (is_per_cpu_kthread(current) && in_task(), 6.1 and 6.12): not from
	 * an interrupt it was running under, where the trace's flags say so
	 */
	if (c->cur && c->cur->kthread == 1 && c->cur->bound_cpu >= 0 && c->cur->pid > 0 &&
	    !c->in_irq &&
	    prev == c->this_cpu && c->v->rq[c->this_cpu].nr_running <= 1) {
		sr_reason(c, "sis: per-cpu kthread waker, stay");
		return prev;
	}
	r = c->m->recent_used_cpu ? c->p->recent_used_cpu : SR_NONE;
	if (r >= 0 && r < t->ncpus && r != prev && r != target && share_cache(c, r, target) &&
	    idle(c, r) && allowed(c, r)) {
		sr_reason(c, "sis: recent %d idle", r);
		return r;
	}
	llc = llc_domain(c, target);
	if (!llc) {
		sr_reason(c, "sis: no llc");
		return target;
	}
	if (t->smt) {
		for (i = 0; i < t->ncpus && !has_idle_core; i++)
			if (sr_cpumask_test(llc->span, i) && core_idle(c, i))
				has_idle_core = 1;
		if (!has_idle_core && share_cache(c, prev, target)) {
			i = idle_smt(c, llc, prev);
			if (i != SR_NONE) {
				sr_reason(c, "sis: idle smt of prev %d", i);
				return i;
			}
		}
	}
	i = c->m->pol.select_idle_cpu(c, llc, target, has_idle_core);
	if (i != SR_NONE)
		return i;
	sr_reason(c, "sis: target");
	return target;
}

/* select_idle_cpu() with SIS_UTIL (v5.20+): idle cores first, else a budget */
static int select_idle_cpu_mainline(struct sr_wake_ctx *c, const struct sr_domain *llc,
				    int target, int has_idle_core)
{
	int nr;

	if (has_idle_core)
		return sr_scan_llc(c, llc, target + 1, 1, -1);
	/*
	 * READ_ONCE(sd_share->nr_idle_scan) + 1 (6.1, 6.12): the value of the
	 * last LLC-level balance where the state keeps one (5.6.1), else the
	 * budget of the LLC's utilisation now
	 */
	nr = c->v->rq[target].sis_nr > 0 ? c->v->rq[target].sis_nr : sis_util_budget(c, llc) + 1;
	if (nr == 1) {
		sr_reason(c, "sis: llc overloaded, no scan");
		return SR_NONE;
	}
	return sr_scan_llc(c, llc, target + 1, 0, nr);
}

/* v4.15 select_idle_cpu() (SIS_PROP): avg_idle and scan cost are not
 * observable: a full scan from target */
static int select_idle_cpu_v415(struct sr_wake_ctx *c, const struct sr_domain *llc,
				int target, int has_idle_core)
{
	(void)has_idle_core;
	return sr_scan_llc(c, llc, target, 0, -1);
}

static int sis_v415(struct sr_wake_ctx *c, int prev, int target)
{
	const struct sr_domain *llc;
	int i;

	if (idle(c, target)) {
		sr_reason(c, "sis: target idle");
		return target;
	}
	if (prev != target && share_cache(c, prev, target) && idle(c, prev)) {
		sr_reason(c, "sis: prev idle");
		return prev;
	}
	llc = llc_domain(c, target);
	if (!llc) {
		sr_reason(c, "sis: no llc");
		return target;
	}
	if (c->v->topo->smt) {
		/* select_idle_core() */
		i = sr_scan_llc(c, llc, target, 1, -1);
		if (i != SR_NONE && core_idle(c, i))
			return i;
	}
	i = c->m->pol.select_idle_cpu(c, llc, target, 0);
	if (i != SR_NONE)
		return i;
	sr_reason(c, "sis: target");
	return target;
}

/* ---- the slow path (schedreplay-models(7) §5.7) ----------------------------------- */

struct group_stats {
	int weight, idle_cpus, nr;
	long load;
	long avg_load;		/* mainline: load per capacity, fully busy / overloaded only */
	long rload, aload;	/* v4.x: runnable (enqueued) and full load, per capacity */
	unsigned long util, runnable;
	enum sr_lb_group_type type;
};

/*
 * cpu_load() as the slow path reads it (update_sg_wakeup_stats() through
 * cpu_load_without(), which is cpu_load() for a new task;
 * find_idlest_group_cpu()): cfs_rq_load_avg() of the root cfs_rq, which
 * holds the task groups' entities, not their tasks (fair.c, the same in
 * 6.1, 6.12 and 6.18; schedreplay-models(7) §3.5).  @sig is the root signal
 * as last updated (sr_view_cpu_signal_read()); the groups are as of the
 * decision.
 */
static long slow_load(const struct sr_wake_ctx *c, int cpu, const struct sr_pelt *sig)
{
	return sr_view_group_load(c->v, cpu, (long)sig->load_avg);
}

static unsigned long sub_floor(unsigned long a, unsigned long b)
{
	return a > b ? a - b : 0;
}

/*
 * update_sg_wakeup_stats() + group_classify() of the slow path.  A new
 * task has no contribution anywhere yet; an exec'ing one (c->exec) runs on
 * task_cpu(p), and there the kernel reads the CPU without it (6.1 and
 * 6.12 fair.c: task_running_on_cpu() off nr_running, idle_cpu_without()
 * with curr == p idle, cpu_load_without() less task_h_load(p),
 * cpu_util_without() less task_util(p) and, p being current, its util_est,
 * cpu_runnable_without() less its runnable_avg).  v4.15's runnable and
 * full loads are read as they are.  @imb: the group's sgc->imbalance mark,
 * which group_classify() (6.1, 6.12) reads after the overloaded test
 * (sg_imbalanced()).
 */
static void group_stats(struct sr_wake_ctx *c, const uint64_t *span, int pct, int imb,
			struct group_stats *gs)
{
	const struct sr_topology *t = c->v->topo;
	unsigned long cap;
	int cpu;

	memset(gs, 0, sizeof(*gs));
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		if (!sr_cpumask_test(span, cpu))
			continue;
		gs->weight++;
		struct sr_pelt sig;
		long rl = sr_view_cpu_load(c->v, cpu, 1), load;
		unsigned long util, util_est = c->v->rq[cpu].util_est, runnable;
		int local = c->exec && cpu == c->p->cpu && c->v->rq[cpu].nr_running > 0;
		int nr = c->v->rq[cpu].nr_running - local;

		gs->nr += nr;
		/* one read of the cpu's signal gives load, util and runnable */
		sr_view_cpu_signal_read(c->v, cpu, &sig);
		load = c->m->runnable_load ? rl : slow_load(c, cpu, &sig);
		util = sig.util_avg;
		runnable = sig.runnable_avg;
		if (local && !c->m->runnable_load) {
			long th = task_h_load(c, c->p);

			load = load > th ? load - th : 0;
			util = sub_floor(util, c->p->pelt.util_avg);
			if (c->p->util_est_queued)
				util_est = sub_floor(util_est, c->p->util_est);
			runnable = sub_floor(runnable, c->p->pelt.runnable_avg);
		}
		gs->load += load;
		gs->rload += rl;
		gs->aload += (long)sig.load_avg;
		if (c->m->util_est && util_est > util)
			util = util_est;
		gs->util += util > SR_SCHED_CAPACITY ? SR_SCHED_CAPACITY : util;
		gs->runnable += runnable;
		if (!nr && (local ? !c->v->rq[cpu].ttwu_pending : idle(c, cpu)))
			gs->idle_cpus++;
	}
	if (!gs->weight)
		return;
	cap = (unsigned long)gs->weight * SR_SCHED_CAPACITY;
	/* v4.x scales group loads to one CPU's capacity */
	gs->rload /= gs->weight;
	gs->aload /= gs->weight;
	/*
	 * the margins of each test of group_is_overloaded() and
	 * group_has_capacity() the class turned on, then the class
	 * (sr_group_classify())
	 */
	if (gs->nr > gs->weight) {
		margin(c, cap * 100, gs->util * (unsigned long)pct);
		margin(c, cap * (unsigned long)pct, gs->runnable * 100);
	} else if (gs->nr == gs->weight && !imb) {
		margin(c, cap * (unsigned long)pct, gs->runnable * 100);
		if (!(cap * (unsigned long)pct < gs->runnable * 100))
			margin(c, cap * 100, gs->util * (unsigned long)pct);
	}
	gs->type = sr_group_classify(gs->nr, gs->weight, (long)cap, (long)gs->util,
				     (long)gs->runnable, pct, imb);
	if (gs->type == SR_GROUP_FULLY_BUSY || gs->type == SR_GROUP_OVERLOADED)
		gs->avg_load = gs->load * SR_SCHED_CAPACITY / (long)cap;
}

/* what find_idlest_group() compared of one group, for the why-view (why.h) */
static void why_group(int call, int cpu, int level, int first, int local, int mainline,
		      const struct group_stats *gs)
{
	static const char *const tname[] = { "has_spare", "fully_busy", "imbalanced", "overloaded" };
	struct sr_why_group g = {
		.fn = 0, .call = call, .cpu = cpu, .level = level, .first = first,
		.local = local, .weight = gs->weight, .nr = gs->nr, .idle = gs->idle_cpus,
		.cfs = -1,
	};

	if (call < 0)
		return;
	if (mainline) {
		g.type = tname[gs->type];
		g.load = gs->load;
		g.avg_load = gs->avg_load;
		g.util = (long)gs->util;
		g.runnable = (long)gs->runnable;
	} else {
		/* v4.15 compares the runnable and the full load per CPU capacity */
		g.load = gs->rload;
		g.avg_load = gs->aload;
		g.util = g.runnable = -1;
	}
	sr_why_group(&g);
}



/* find_idlest_group_cpu: idle CPU idle most recently, else least loaded */
static int idlest_cpu_in(struct sr_wake_ctx *c, const uint64_t *span, int fallback)
{
	const struct sr_topology *t = c->v->topo;
	uint64_t latest = 0;
	long min_load = -1, second = -1;
	int cpu, best_idle = SR_NONE, best_load = SR_NONE;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		if (!sr_cpumask_test(span, cpu) || !allowed(c, cpu))
			continue;
		if (idle(c, cpu)) {
			if (best_idle == SR_NONE || c->v->rq[cpu].idle_stamp > latest) {
				latest = c->v->rq[cpu].idle_stamp;
				best_idle = cpu;
			}
		} else if (best_idle == SR_NONE) {
			long l;

			/* cpu_load() as last updated (sr_view_cpu_signal_read) */
			if (c->m->runnable_load) {
				l = load_of(c, cpu);
			} else {
				struct sr_pelt sig;

				sr_view_cpu_signal_read(c->v, cpu, &sig);
				l = slow_load(c, cpu, &sig);
			}

			if (min_load < 0 || l < min_load) {
				if (min_load >= 0)
					second = min_load;
				min_load = l;
				best_load = cpu;
			} else if (second < 0 || l < second) {
				second = l;
			}
		}
	}
	if (best_idle != SR_NONE)
		return best_idle;
	/* the least loaded CPU by cpu_load(): against the next one */
	if (best_load != SR_NONE && second >= 0)
		margin(c, min_load, second);
	return best_load != SR_NONE ? best_load : fallback;
}

/* the sgc->imbalance mark of the group at @level whose first CPU is @first, where the caller keeps them */
static int group_marked(const struct sr_wake_ctx *c, int level, int first)
{
	if (!c->sgc_imb || c->m->sd_era != SR_ERA_MAINLINE || first >= c->v->topo->ncpus)
		return 0;
	return c->sgc_imb[level * c->v->topo->ncpus + first];
}

/*
 * find_idlest_group(): the other groups of @cpu's domain at @level, each
 * counted once at its lowest CPU, against the local one; @mainline: the
 * 5.10+ classes (update_pick_idlest), else v4.15's runnable load margins
 */
static int idlest_group(struct sr_wake_ctx *c, int level, int cpu, int mainline)
{
	const struct sr_topology *t = c->v->topo;
	/* 8192 CPUs at most (trace.c): two masks on the stack */
	uint64_t single[128], other[128];
	const struct sr_domain *sd = &t->cpu[cpu].dom[level];
	const uint64_t *local_span = sr_topology_group_span(t, level, cpu, single);
	struct group_stats local, best, gs;
	int gcpu, best_first = SR_NONE, go, call = sr_why_call(0), lfirst;

	for (lfirst = 0; lfirst < t->ncpus && !sr_cpumask_test(local_span, lfirst);)
		lfirst++;
	group_stats(c, local_span, sd->imbalance_pct, group_marked(c, level, lfirst), &local);
	why_group(call, cpu, level, lfirst, 1, mainline, &local);
	memset(&best, 0, sizeof(best));
	/* every other group of sd, each counted once at its lowest CPU */
	for (gcpu = 0; gcpu < t->ncpus; gcpu++) {
		const uint64_t *span;
		int g, seen = 0;

		if (!sr_cpumask_test(sd->span, gcpu) || sr_cpumask_test(local_span, gcpu))
			continue;
		span = sr_topology_group_span(t, level, gcpu, other);
		for (g = 0; g < gcpu && !seen; g++)
			seen = sr_cpumask_test(span, g) && sr_cpumask_test(sd->span, g);
		if (seen)
			continue;
		/* gcpu is the group's first CPU */
		group_stats(c, span, sd->imbalance_pct, group_marked(c, level, gcpu), &gs);
		why_group(call, cpu, level, gcpu, 0, mainline, &gs);
		if (!mainline) {
			/* v4.15: the least runnable load, avg_load within the margin */
			long imb = SR_NICE0_WEIGHT * (sd->imbalance_pct - 100) / 100;
			long scale = 100 + (sd->imbalance_pct - 100) / 2;

			if (best_first == SR_NONE || gs.rload < best.rload - imb ||
			    (gs.rload < best.rload + imb && 100 * best.aload > scale * gs.aload)) {
				best = gs;
				best_first = gcpu;
			}
			continue;
		}
		/* update_pick_idlest(): not group_imbalanced, which the slow path does not compare */
		if (best_first != SR_NONE && gs.type == best.type && gs.type == SR_GROUP_IMBALANCED)
			continue;
		if (best_first != SR_NONE && gs.type == best.type) {
			if (gs.type != SR_GROUP_HAS_SPARE)
				margin(c, gs.avg_load, best.avg_load);
			else if (gs.idle_cpus == best.idle_cpus)
				margin(c, gs.util, best.util);
		}
		if (best_first == SR_NONE || gs.type < best.type ||
		    (gs.type == best.type && (gs.type == SR_GROUP_HAS_SPARE ?
		     (gs.idle_cpus > best.idle_cpus ||
		      (gs.idle_cpus == best.idle_cpus && gs.util < best.util)) :
		     gs.avg_load < best.avg_load))) {
			best = gs;
			best_first = gcpu;
		}
	}
	go = 0;
	if (best_first != SR_NONE) {
		if (!mainline) {
			/* v4.15 find_idlest_group(), fork: stay local unless the
			 * idlest group is lighter beyond the imbalance margins */
			long imb = SR_NICE0_WEIGHT * (sd->imbalance_pct - 100) / 100;
			long scale = 100 + (sd->imbalance_pct - 100) / 2;

			go = !(best.rload > local.rload + imb) &&
			     !(local.rload < best.rload + imb &&
			       100 * local.aload < scale * best.aload);
		} else if (local.type != best.type) {
			/* sched_balance_find_dst_group(): the lower class wins */
			go = best.type < local.type;
		} else if (local.type == SR_GROUP_IMBALANCED) {
			go = 0;		/* "not used in the slow wakeup path": NULL */
		} else if (local.type == SR_GROUP_HAS_SPARE) {
			int imb = abs(local.idle_cpus - best.idle_cpus);

			go = best.idle_cpus > local.idle_cpus;
			/*
			 * NUMA (find_idlest_group() at 6.1, sched_balance_find_dst_group()
			 * at 6.12): keep a lightly loaded local node when
			 * adjust_numa_imbalance(imb, local sum_nr_running + 1,
			 * imb_numa_nr) is 0, imb_numa_nr capped by the local CPUs
			 * the task may use (p->nr_cpus_allowed != NR_CPUS holds for
			 * every task: NR_CPUS is the Kconfig maximum)
			 */
			if (go && (sd->flags & SR_SD_NUMA)) {
				int nr = sr_topology_imb_numa_nr(t, cpu, level), ok = 0, i;

				for (i = 0; i < t->ncpus && ok < nr; i++)
					ok += sr_cpumask_test(local_span, i) && allowed(c, i);
				if (local.nr + 1 <= ok && imb <= 2)
					go = 0;
			}
		} else {
			long imb = SR_NICE0_WEIGHT * (sd->imbalance_pct - 100) / 100;

			go = 1;
			if (sd->flags & SR_SD_NUMA) {
				margin(c, best.avg_load + imb, local.avg_load);
				if (best.avg_load + imb >= local.avg_load)
					go = 0;
			}
			if (go) {
				margin(c, best.avg_load, local.avg_load + imb);
				if (best.avg_load >= local.avg_load + imb)
					go = 0;
			}
			if (go) {
				margin(c, 100 * local.avg_load, (long)sd->imbalance_pct * best.avg_load);
				if (100 * local.avg_load <= (long)sd->imbalance_pct * best.avg_load)
					go = 0;
			}
		}
	}
	if (go)
		sr_why_pick(call, best_first);
	return go ? best_first : SR_NONE;
}

static int find_idlest_group_mainline(struct sr_wake_ctx *c, int level, int cpu)
{
	return idlest_group(c, level, cpu, 1);
}

static int find_idlest_group_v415(struct sr_wake_ctx *c, int level, int cpu)
{
	return idlest_group(c, level, cpu, 0);
}

/* find_idlest_cpu(): down the domains from @level, into the idlest group */
static int find_idlest_cpu(struct sr_wake_ctx *c, int level, int this_cpu, int prev_cpu)
{
	const struct sr_topology *t = c->v->topo;
	uint64_t one[128];
	int cpu = this_cpu;

	(void)prev_cpu;
	if (!allowed(c, cpu) && c->p->bound_cpu >= 0)
		cpu = c->p->bound_cpu;
	while (level >= 0) {
		const struct sr_domain *sd = &t->cpu[cpu].dom[level];
		int group = c->m->pol.find_idlest_group(c, level, cpu), new_cpu = SR_NONE;

		if (group != SR_NONE)
			new_cpu = c->m->pol.find_idlest_group_cpu(c,
					sr_topology_group_span(t, level, group, one), SR_NONE);
		if (new_cpu == SR_NONE) {
			sr_reason(c, "%s: local", sd->name);
			if (level == 0)
				return c->m->pol.find_idlest_group_cpu(c,
						sr_topology_group_span(t, level, cpu, one), cpu);
			level--;
			continue;
		}
		sr_reason(c, "%s: idlest group, cpu %d", sd->name, new_cpu);
		cpu = new_cpu;
		level--;
	}
	return cpu;
}

/* ---- select_task_rq_fair (schedreplay-models(7) §5.1) ----------------------------- */

/* the model's flag, read where it decides (the engine notes the read: depend-local.h) */
static int mask_exiting_sync(const struct sr_wake_ctx *c)
{
	sr_dep_read(SR_DEP_MASK_EXITING_SYNC);
	return c->m->mask_exiting_sync;
}

static int select_task_rq_fair(struct sr_wake_ctx *c)
{
	const struct sr_topology *t = c->v->topo;
	const struct sr_cpu_topo *ct = &t->cpu[c->this_cpu];
	/* the wake flags' SD_BALANCE_* (WF_FORK, WF_EXEC, WF_TTWU) */
	unsigned sd_flag = c->fork ? SR_SD_BALANCE_FORK : c->exec ? SR_SD_BALANCE_EXEC :
			   SR_SD_BALANCE_WAKE;
	int new_cpu = c->prev_cpu, want_affine = 0, level = -1, i;
	/* change 1(d), Peter's form, is mainline: an exiting waker is not sync */
	int sync = c->sync && !(c->exiting && mask_exiting_sync(c));

	if (c->exec) {
		sr_reason(c, "exec");
	} else if (!c->fork) {
		int ww = c->m->pol.wake_wide(c);

		want_affine = !ww && allowed(c, c->this_cpu);
		sr_reason(c, ww ? "wake_wide" : "not wide");
		if (!ww && !want_affine)
			sr_reason(c, "this not allowed");
	} else {
		sr_reason(c, "fork");
	}
	for (i = 0; i < ct->ndomains; i++) {
		const struct sr_domain *dom = &ct->dom[i];

		if (want_affine && (dom->flags & SR_SD_WAKE_AFFINE) &&
		    sr_cpumask_test(dom->span, c->prev_cpu)) {
			if (c->this_cpu != c->prev_cpu) {
				sr_reason(c, "affine %s", dom->name);
				new_cpu = c->m->pol.wake_affine(c, dom, c->this_cpu, c->prev_cpu,
								sync);
			} else {
				sr_reason(c, "this == prev");
			}
			level = -1;
			break;
		}
		if (dom->flags & sd_flag)
			level = i;
		else if (!want_affine)
			break;
	}
	if (level >= 0)
		return c->m->pol.find_idlest_cpu(c, level, c->this_cpu, c->prev_cpu);
	if (!c->fork && !c->exec)
		return c->m->pol.select_idle_sibling(c, c->prev_cpu, new_cpu);
	sr_reason(c, c->exec ? "no exec domain" : "no fork domain");
	return new_cpu;
}

/* the load-balance members (replay/balance.c) all generations share */
#define SR_LB_COMMON_POL						\
	.task_hot = sr_lb_task_hot,					\
	.can_migrate_task = sr_lb_can_migrate_task,			\
	.detach_tasks = sr_lb_detach_tasks,				\
	.update_sg_lb_stats = sr_lb_update_sg_lb_stats,			\
	.update_sd_pick_busiest = sr_lb_update_sd_pick_busiest,		\
	.find_busiest_group = sr_lb_find_busiest_group,			\
	.calculate_imbalance = sr_lb_calculate_imbalance,		\
	.find_busiest_queue = sr_lb_find_busiest_queue,			\
	.load_balance = sr_lb_load_balance,				\
	.rebalance_domains = sr_lb_rebalance_domains,			\
	.newidle_balance = sr_lb_newidle_balance

static const struct sr_model models[] = {
	{
		.name = "mainline",
		.summary = "select_task_rq_fair as of 2025 (v6.x): cpu_load with blocked load, "
			   "wake_affine idle/weight with `<` and sync bias, SIS with "
			   "recent_used_cpu, idle cores and SIS_UTIL; fork slow path",
		.runnable_load = 0,
		.recent_used_cpu = 1,
		.mask_exiting_sync = 1,
		.util_est = 1,
		.sd_era = SR_ERA_MAINLINE,
		.pol = {
			.select_task_rq = select_task_rq_fair,
			.wake_wide = wake_wide,
			.wake_affine_idle = wake_affine_idle_mainline,
			.wake_affine_weight = wake_affine_weight_mainline,
			.wake_affine = wake_affine,
			.select_idle_sibling = sis_mainline,
			.select_idle_cpu = select_idle_cpu_mainline,
			.find_idlest_cpu = find_idlest_cpu,
			.find_idlest_group = find_idlest_group_mainline,
			.find_idlest_group_cpu = idlest_cpu_in,
			SR_LB_COMMON_POL,
			.kthread_is_per_cpu = sr_lb_kthread_per_cpu_name,
			/* since 6.0 (seed 003) a newly idle CPU with work bails */
			.should_we_balance = sr_lb_should_we_balance_v60,
			/* from ilb + 1 round, the ILB last, inside the pass */
			.nohz_idle_balance = sr_lb_nohz_idle_balance,
			.run_rebalance_domains = sr_lb_run_rebalance_domains,
		},
	},
	{
		.name = "v4.15",
		.summary = "the shape Mel Gorman's 2018 series changed: bool wake_affine, "
			   "weighted_cpuload (enqueued load only), `<=`, no recent_used_cpu, "
			   "SIS_PROP",
		.runnable_load = 1,
		.recent_used_cpu = 0,
		.mask_exiting_sync = 0,
		.sd_era = SR_ERA_V4,
		.pol = {
			.select_task_rq = select_task_rq_fair,
			.wake_wide = wake_wide,
			.wake_affine_idle = wake_affine_idle_v415,
			.wake_affine_weight = wake_affine_weight_v415,
			.wake_affine = wake_affine,	/* v4.15's bool: this when true, same CPUs */
			.select_idle_sibling = sis_v415,
			.select_idle_cpu = select_idle_cpu_v415,
			.find_idlest_cpu = find_idlest_cpu,
			.find_idlest_group = find_idlest_group_v415,
			.find_idlest_group_cpu = idlest_cpu_in,
			SR_LB_COMMON_POL,
			/* before v5.11 (2f5f4cce496e) can_migrate_task() had no kthread test */
			.kthread_is_per_cpu = sr_lb_kthread_per_cpu_none,
			/* before 6.0 (seed 003) a newly idle CPU always went on */
			.should_we_balance = sr_lb_should_we_balance_v5,
			/* v4.1 (seed 002) to v5.x: the idle CPUs from CPU 0, then the ILB */
			.nohz_idle_balance = sr_lb_nohz_idle_balance_v4,
			.run_rebalance_domains = sr_lb_run_rebalance_domains_v41,
		},
	},
};

const struct sr_model *sr_model_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

int sr_model_count(void)
{
	return (int)(sizeof(models) / sizeof(models[0]));
}

const struct sr_model *sr_model_at(int i)
{
	return i >= 0 && i < sr_model_count() ? &models[i] : NULL;
}

void sr_model_select(const struct sr_model *m, const struct sr_view *v,
		     const struct sr_wake_input *in, struct sr_eval *out)
{
	struct sr_wake_ctx c = {
		.v = v,
		.m = m,
		.p = in->p,
		.cur = in->cur,
		.this_cpu = in->this_cpu,
		.prev_cpu = in->prev_cpu,
		.sync = in->sync,
		.exiting = in->exiting,
		.in_irq = in->in_irq,
		.fork = in->fork,
		.exec = in->exec,
		.sgc_imb = in->sgc_imb,
		.out = out,
	};

	out->reason[0] = '\0';
	out->h_load_read = 0;
	out->margin = 1000;
	out->cpu = m->pol.select_task_rq(&c);
}
