// SPDX-License-Identifier: GPL-2.0
/*
 * The decision points (schedreplay-models(7) §2.4, §6-§8): opening a wakeup,
 * fork or balance decision with the state replay/state.c has rebuilt,
 * evaluating every model on a read-only view of that state (replay/fair.c,
 * replay/balance.c) and closing the decision when the trace shows what the
 * kernel did.  Called by state.c only; calls the models, never state.c:
 * it reads the engine's tables (replay-local.h) and changes only the
 * decisions, the per-model balance hints and what a closed balance
 * decision teaches of a task's affinity (aff_refused).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "replay-local.h"
#include "banned.h"

void sr_dec_pending_free(struct sr_pending *pd)
{
	if (pd) {
		free((void *)pd->d.snap);
		free(pd->why.g);
	}
	free(pd);
}

/*
 * The sgc->imbalance marks model @i's placement reads (group_classify() on
 * the slow path, replay/fair.c): with the balance probes every
 * load_balance() the kernel ran is in the trace and the engine keeps the
 * marks at each (sr_dec_lb_hints()); without them the engine infers
 * the balances from the tick (sr_dec_lb_infer()).  A side that runs no
 * balance of its own reads its base model's.
 */
static int marks_of(const struct sr_replay *r, int i)
{
	return r->touches[i] & BALANCE_KINDS ? i : r->base_of[i];
}

static const unsigned char *placement_marks(const struct sr_replay *r, int i)
{
	return (r->balance_probes && r->lb_hints) || r->lb_marks_inferred ?
	       r->lb_imb[marks_of(r, i)] : NULL;
}

/* models @i and @j read the same marks (their placements may be copied) */
static int same_marks(const struct sr_replay *r, int i, int j)
{
	int a = marks_of(r, i), b = marks_of(r, j);

	return a == b || !placement_marks(r, i) ||
	       !memcmp(r->lb_imb[a], r->lb_imb[b], (size_t)r->topo->ncpus * SR_MAX_DOMAIN_LEVELS);
}

static void fill_view(const struct sr_replay *r, struct sr_view *v, uint64_t now)
{
	v->kgen = &r->kgen;
	v->topo = r->topo;
	v->rq = r->rq;
	v->cfs_head = (const struct sr_task *const *)r->lb_head;
	v->cfs_tail = (const struct sr_task *const *)r->lb_tail;
	v->now = now;
	v->hz = r->hz;
	v->tg = NULL;
}

/* before a decision reads the state: the picks the trace does not show (6.12+) */
static void settle_delayed(struct sr_replay *r, uint64_t now)
{
	int cpu;

	for (cpu = 0; cpu < r->topo->ncpus; cpu++)
		sr_state_delay_expire(r, cpu, now);
}

void sr_replay_view(const struct sr_replay *r, struct sr_view *v)
{
	fill_view(r, v, r->now);
}

void sr_replay_keep_why(struct sr_replay *r, int on)
{
	r->keep_why = on;
}

const struct sr_why *sr_replay_why(const struct sr_replay *r)
{
	return r->why_cur;
}

void sr_dec_snapshot(struct sr_replay *r, struct sr_decision *d, const struct sr_task *p,
		     uint64_t now)
{
	struct sr_view v;
	int c;

	fill_view(r, &v, now);
	d->this_nr = cpu_in(r, d->this_cpu) ? r->rq[d->this_cpu].nr_running : -1;
	d->prev_nr = cpu_in(r, d->prev_cpu) ? r->rq[d->prev_cpu].nr_running : -1;
	d->idle_cpus = 0;
	for (c = 0; c < r->topo->ncpus; c++)
		if (sr_view_allowed(&v, p, c) && sr_view_idle_cpu(&v, c))
			d->idle_cpus++;
}

struct sr_pending *sr_dec_open(struct sr_replay *r, struct sr_task *p,
					enum sr_decision_kind kind, uint64_t now)
{
	/*
	 * Room for the models evaluated only (ev[] has SR_MAX_MODELS, the
	 * callback reads r->nmodels), and of each evaluation what a reader
	 * reads before an evaluation fills it: not the reason's bytes after
	 * its NUL nor effects past neffects (a trace has a decision at every
	 * sched_waking; zeroing 13 evaluations is 4.4 KiB)
	 */
	struct sr_pending *pd = r->nspare ? r->spare[--r->nspare] :
				malloc(offsetof(struct sr_pending, ev) +
				       (size_t)r->nmodels * sizeof(pd->ev[0]));
	int i;

	if (!pd)
		return NULL;
	memset(pd, 0, offsetof(struct sr_pending, ev));
	for (i = 0; i < r->nmodels; i++) {
		struct sr_eval *e = &pd->ev[i];

		e->cpu = e->src_cpu = e->task = e->neffects = 0;
		e->lbf = 0;
		e->reason[0] = '\0';
	}
	pd->d.id = r->next_id++;
	pd->d.kind = kind;
	pd->d.ts = now;
	pd->d.pid = p->pid;
	memcpy(pd->d.comm, p->comm, SR_COMM_LEN);
	pd->d.actual_cpu = -1;
	pd->d.kernel_cpu = -1;
	pd->d.wake_flags = -1;
	pd->d.waker = -1;
	if (r->topo->source[0] && strncmp(r->topo->source, "recording", 9))
		pd->d.inferred |= SR_INF_TOPOLOGY;
	if (!p->pelt_valid)
		pd->d.inferred |= SR_INF_PELT_WARMUP;
	return pd;
}

/* every CPU as the models see it now, for the database's cpu_state */
static void keep_snapshot(struct sr_replay *r, struct sr_decision *d, const struct sr_view *v)
{
	struct sr_cpu_snap *sn;
	struct sr_pelt sig;
	unsigned long cap;
	int c;

	free((void *)d->snap);
	d->snap = sn = calloc((size_t)r->topo->ncpus, sizeof(*sn));
	if (!sn)
		return;
	for (c = 0; c < r->topo->ncpus; c++) {
		const struct sr_rq *rq = &v->rq[c];
		const struct sr_task *t = rq->curr > 0 ? *task_slot(r, rq->curr) : NULL;

		sn[c].nr_running = rq->nr_running;
		sn[c].cfs_nr = rq->cfs_nr;
		sn[c].curr = rq->curr;
		if (t)
			memcpy(sn[c].curr_comm, t->comm, SR_COMM_LEN);
		sn[c].idle = sr_view_idle_cpu(v, c);
		/* one decay of the CPU's signal for both (sr_view_cpu_load/util each decay) */
		sr_view_cpu_signal(v, c, &sig);
		cap = (unsigned long)sr_cpu_capacity(r->topo, c);
		sn[c].load = (long)sig.load_avg;
		sn[c].util = sig.util_avg > cap ? cap : sig.util_avg;
	}
}

/*
 * What the first base model reads at a wakeup or fork (why.h): wake_wide()'s
 * flips and factor, the task's and the waker's PELT load as task_h_load()
 * reads them, and this and prev's load as wake_affine_weight() does
 */
static void why_wakeup(struct sr_replay *r, struct sr_pending *pd, const struct sr_view *v,
		       const struct sr_task *p, const struct sr_task *cur)
{
	struct sr_why *w = &pd->why;
	int rl = r->models[0]->runnable_load;

	w->valid = 1;
	w->calls = w->ngroups = w->dropped = 0;
	w->wakee_flips = p->wakee_flips;
	w->waker_flips = cur ? (long)cur->wakee_flips : -1;
	w->factor = sr_topology_llc_size(r->topo, cpu_in(r, pd->d.this_cpu) ? pd->d.this_cpu : 0);
	if (w->flips_src == SR_WHY_NONE)
		w->flips_src = SR_WHY_ENGINE;
	/* over the task groups where the view has them (schedreplay-models(7) §3.5) */
	w->task_load = sr_view_task_h_load(v, p, rl);
	w->task_util = (long)p->pelt.util_avg;
	w->task_runnable = (long)p->pelt.runnable_avg;
	if (w->pelt_src == SR_WHY_NONE)
		/* a child's is the kernel's own start (post_init_entity_util_avg()) */
		w->pelt_src = p->pelt_valid || pd->d.kind == SR_DEC_FORK ? SR_WHY_ENGINE :
			      SR_WHY_WARMUP;
	w->waker_load = cur ? sr_view_task_h_load(v, cur, rl) : -1;
	w->this_load = cpu_in(r, pd->d.this_cpu) ? sr_view_affine_load(v, pd->d.this_cpu, rl) : -1;
	w->prev_load = cpu_in(r, pd->d.prev_cpu) ? sr_view_affine_load(v, pd->d.prev_cpu, rl) : -1;
	if (w->prev_load_src == SR_WHY_NONE)
		w->prev_load_src = SR_WHY_ENGINE;
}

/*
 * update_cfs_rq_h_load() (kernel/sched/fair.c, 6.1 and 6.12): the first
 * task_h_load() of a jiffy on a CPU's root cfs_rq stores its cpu_load() as
 * h_load, which every later task_h_load() there reads until the next
 * jiffy.  The first base model's path stands for the kernel's: the CPUs
 * whose root it read (@read, bit per CPU) take the cache now if it is not
 * of this jiffy already.
 */
static void h_load_taken(struct sr_replay *r, const struct sr_view *v, uint64_t read)
{
	uint64_t j = sr_view_h_load_jiffy(v);
	int cpu;

	for (cpu = 0; read && j && cpu < r->topo->ncpus && cpu < 64; cpu++) {
		struct sr_rq *rq = &r->rq[cpu];

		if (!(read >> cpu & 1) || rq->h_load_jiffy == j)
			continue;
		rq->h_load = sr_view_cpu_load(v, cpu, 0);
		rq->h_load_jiffy = j;
	}
}

/* did two models evaluated at @pd choose different CPUs? */
static int placed_apart(const struct sr_replay *r, const struct sr_pending *pd)
{
	int i, cpu = -2;

	for (i = 0; i < r->nmodels; i++) {
		if (!(r->touches[i] & (1u << pd->d.kind)))
			continue;
		if (cpu != -2 && pd->ev[i].cpu != cpu)
			return 1;
		cpu = pd->ev[i].cpu;
	}
	return 0;
}

static void kin_field(struct sr_kin_err *ke, int cls, int f, long long engine, long long kernel)
{
	long long d = engine - kernel;

	if (kernel < 0)
		return;
	ke->n[cls][f]++;
	ke->err[cls][f] += d;
	ke->abs[cls][f] += d < 0 ? -d : d;
}

/* one CPU of the engine's view @v (@sig its signal as read, @load its load) against @x */
static void kin_cpu(struct sr_kin_err *ke, const struct sr_view *v, int c,
		    const struct sr_pelt *sig, long load, const struct sr_rqstat_cpu *x)
{
	const struct sr_rq *q = &v->rq[c];
	int cls = (x->nr_running >= 0 ? x->nr_running : q->nr_running) == 0;

	ke->cpus[cls]++;
	kin_field(ke, cls, SR_KIN_LOAD, load, x->load);
	kin_field(ke, cls, SR_KIN_UTIL, (long long)sig->util_avg, x->util);
	kin_field(ke, cls, SR_KIN_RUNNABLE, (long long)sig->runnable_avg, x->runnable);
	kin_field(ke, cls, SR_KIN_UTIL_EST, (long long)q->util_est,
		  x->util_est >= 0 ? x->util_est & 0x7fffffff : -1);
	if (x->nr_running >= 0 && x->nr_running != q->nr_running)
		ke->nr_differs[cls]++;
	/* the engine's sis_nr is nr_idle_scan + 1 (0: none kept yet) */
	if (x->nr_idle_scan >= 0 && q->sis_nr > 0) {
		ke->scan_n++;
		ke->scan_same += q->sis_nr - 1 == x->nr_idle_scan;
		ke->scan_go_same += (q->sis_nr > 1) == (x->nr_idle_scan > 0);
	}
}

/* a probe event in the trace's warm-up (SR_KIN_WARMUP_NS): counted in @ke, not compared */
static int kin_warmup(const struct sr_replay *r, struct sr_kin_err *ke, uint64_t now)
{
	if (now >= r->first_ts + SR_KIN_WARMUP_NS)
		return 0;
	ke->warmup++;
	return 1;
}

/*
 * How far the engine's own inputs are from the kernel's at this rqstat
 * (sr_replay_stats kin): each CPU as the slow path would read it from the
 * engine (sr_view_cpu_signal_read(), the root load over the task groups)
 * against what select_task_rq_fair() read; not in the trace's warm-up
 * (SR_KIN_WARMUP_NS), where the engine's CPUs lack their history
 */
static void kin_measure(struct sr_replay *r, const struct sr_view *v, const struct sr_rqstat *k)
{
	int c;

	if (kin_warmup(r, &r->stats.kin, v->now))
		return;
	for (c = 0; c < r->topo->ncpus && c < k->ncpus; c++) {
		struct sr_pelt sig;

		sr_view_cpu_signal_read(v, c, &sig);
		kin_cpu(&r->stats.kin, v, c, &sig, sr_view_group_load(v, c, (long)sig.load_avg),
			&k->cpu[c]);
	}
}

/*
 * The same at an lb_rqstat (find_busiest_group()'s entry, the --lb-probes
 * of scripts/numa-guest/record.sh): each CPU but the balancing one as the
 * balance surrogate reads it, cpu_load() and the signal brought to the
 * event's time (sr_model_balance()), against what the kernel's balance
 * read.  The balancing CPU is left out: at a newly idle balance the trace
 * has not shown the switch yet, and the engine still runs the blocking task
 * there.
 */
void sr_dec_lb_inputs(struct sr_replay *r, const struct sr_rqstat *k, int cpu)
{
	struct sr_view v;
	int c;

	if (k->ncpus < r->topo->ncpus)
		return;
	r->stats.lb_inputs++;
	if (kin_warmup(r, &r->stats.kin_lb, r->now))
		return;
	fill_view(r, &v, r->now);
	for (c = 0; c < r->topo->ncpus; c++) {
		struct sr_pelt sig;

		if (c == cpu)
			continue;
		sr_view_cpu_signal(&v, c, &sig);
		kin_cpu(&r->stats.kin_lb, &v, c, &sig, sr_view_cpu_load(&v, c, 0), &k->cpu[c]);
	}
}

/*
 * The rqstat input probe (sr_replay_use_input_probes()): the view's
 * runqueues become a copy of the engine's with what select_task_rq_fair()
 * read of each CPU at its entry: the root cfs_rq's load, util and runnable
 * averages as last updated (the view decays nothing further), its
 * util_est, nr_running and ttwu_pending (nr_running 0: the CPU is idle;
 * a CPU the engine holds idle with tasks in the kernel runs one, which the
 * trace does not name), and its LLC's nr_idle_scan.  The engine's own
 * state stays as it is.
 */
static void kin_fill(struct sr_replay *r, struct sr_view *v, const struct sr_rqstat *k)
{
	int ncpus = r->topo->ncpus, c;

	memcpy(r->kin_rq, r->rq, (size_t)ncpus * sizeof(*r->kin_rq));
	for (c = 0; c < ncpus && c < k->ncpus; c++) {
		const struct sr_rqstat_cpu *x = &k->cpu[c];
		struct sr_rq *q = &r->kin_rq[c];

		q->cfs.load_avg = (unsigned long)x->load;
		if (x->util >= 0)
			q->cfs.util_avg = (unsigned long)x->util;
		if (x->runnable >= 0)
			q->cfs.runnable_avg = (unsigned long)x->runnable;
		q->cfs.last_update = v->now;
		/* 6.12's u32 util_est; UTIL_AVG_UNCHANGED (bit 31) marks only a task's */
		if (x->util_est >= 0)
			q->util_est = (unsigned long)(x->util_est & 0x7fffffff);
		if (x->nr_running >= 0) {
			int nr = (int)x->nr_running, drop = q->nr_running - nr;

			/*
			 * fewer in the kernel: sched_delayed tasks the engine still
			 * holds went first (a pick dequeued them unseen), then
			 * runnable CFS ones; more: CFS tasks the trace does not show
			 */
			if (drop > 0) {
				int d = drop < q->nr_delayed ? drop : q->nr_delayed;

				q->nr_delayed -= d;
				q->cfs_nr -= drop;
				if (q->cfs_nr < 0)
					q->cfs_nr = 0;
			} else {
				q->cfs_nr -= drop;
			}
			q->nr_running = nr;
			if (q->rt_nr > nr)
				q->rt_nr = nr;
			if (q->cfs_nr > nr - q->rt_nr)
				q->cfs_nr = nr - q->rt_nr;
			if (q->nr_delayed > q->cfs_nr)
				q->nr_delayed = q->cfs_nr;
			if (!nr) {
				q->curr = 0;
				q->curr_cfs = 0;
			} else if (q->curr == 0) {
				q->curr = -1;
				q->known = 1;
				q->curr_cfs = q->cfs_nr > 0;
			}
		}
		if (x->ttwu_pending >= 0)
			q->ttwu_pending = (int)x->ttwu_pending;
		if (x->nr_idle_scan >= 0)
			q->sis_nr = (int)x->nr_idle_scan + 1;
		/* the kernel's root load is the whole hierarchy's: no correction (replay.h) */
		if (r->tg_root && v->tg) {
			r->tg_root[c] = (long)x->load;
			r->tg_sub[c] = r->tg_add[c] = 0;
		}
	}
	v->rq = r->kin_rq;
}

static void kin_apply(struct sr_replay *r, struct sr_view *v, const struct sr_rqstat *k)
{
	/* an event of fewer CPUs than the topology: no view of half the machine */
	if (k->ncpus < r->topo->ncpus) {
		r->stats.kernel_inputs_partial++;
		return;
	}
	kin_measure(r, v, k);
	kin_fill(r, v, k);
	r->stats.kernel_inputs++;
}

/*
 * The lb_rqstat of the balance under evaluation (state.c on_lb_rqstat()):
 * the last one its balancing CPU emitted since its last balance_rq, at most
 * a tick before the decision opened, and read by no earlier decision.  A
 * nohz pass balances other CPUs: none.
 */
static const struct sr_rqstat *lb_kernel_inputs(struct sr_replay *r,
						const struct sr_lb_pending *pd, int h, uint64_t now)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	int cpu = pd->in[h].cpu;

	if (!r->lbk || pd->in[h].kind == SR_DEC_LB_NOHZ || cpu < 0 || cpu >= r->topo->ncpus ||
	    !r->lbk_ts[cpu] || r->lbk_ts[cpu] + tick < pd->d.ts || r->lbk_ts[cpu] > now)
		return NULL;
	if (r->lbk_owner[cpu] < 0)
		r->lbk_owner[cpu] = (int64_t)pd->d.id;
	return r->lbk_owner[cpu] == (int64_t)pd->d.id ? &r->lbk[cpu] : NULL;
}

void sr_dec_evaluate(struct sr_replay *r, struct sr_pending *pd, const struct sr_task *p,
		     const struct sr_task *cur, uint64_t now)
{
	struct sr_wake_input in;
	struct sr_view v;
	unsigned copied = 0, traced = 0, used[SR_MAX_MODELS];
	int i, src[SR_MAX_MODELS];

	settle_delayed(r, now);
	fill_view(r, &v, now);
	sr_dec_snapshot(r, &pd->d, p, now);
	if (pd->d.skip != SR_SKIP_NONE)
		return;
	/*
	 * cpu_load() and task_h_load() over the groups: wake_affine_weight()
	 * at a wakeup, find_idlest_group() / find_idlest_group_cpu() at a
	 * fork (schedreplay-models(7) §3.5)
	 */
	if ((pd->d.kind == SR_DEC_WAKEUP || pd->d.kind == SR_DEC_FORK) && r->ntgroups)
		v.tg = sr_tg_compute(r, now);
	if (r->kin_cur && (pd->d.kind == SR_DEC_WAKEUP || pd->d.kind == SR_DEC_FORK))
		kin_apply(r, &v, r->kin_cur);
	pd->prev_idle = pd->d.kind == SR_DEC_WAKEUP && pd->d.prev_cpu >= 0 &&
			pd->d.prev_cpu < r->topo->ncpus && sr_view_idle_cpu(&v, pd->d.prev_cpu);
	in.fork = pd->d.kind == SR_DEC_FORK;
	in.exec = 0;	/* replay does not evaluate execs (the simulator's entry point) */
	in.this_cpu = pd->d.this_cpu;
	in.prev_cpu = pd->d.prev_cpu;
	in.sync = pd->d.sync;
	in.exiting = pd->d.waker_exiting;
	in.in_irq = pd->d.waker_irq;
	in.p = p;
	in.cur = cur;
	if (r->keep_why)
		why_wakeup(r, pd, &v, p, cur);
	for (i = 0; i < r->nmodels; i++) {
		struct sr_eval *e = &pd->ev[i];
		int j = r->same_place[i];

		/* a patch side outside its pair's scope: nothing reads it */
		if (!(r->touches[i] & (1u << pd->d.kind))) {
			e->cpu = e->src_cpu = -1;
			continue;
		}
		in.sgc_imb = placement_marks(r, i);
		/* the same functions on the same view answer the same (copied below) */
		if (j != i && (r->touches[j] & (1u << pd->d.kind)) && same_marks(r, i, j)) {
			copied |= 1u << i;
			src[i] = j;
			continue;
		}
		/* a side whose change its base model's evaluation did not reach */
		j = r->dep_base[i];
		if (j >= 0 && (traced >> j & 1) && !(r->dep_diff[i] & used[j]) && same_marks(r, i, j)) {
			copied |= 1u << i;
			src[i] = j;
			continue;
		}
		/* the first side is the first base model (sr_replay_new) */
		sr_why_record(r->keep_why && !i ? &pd->why : NULL);
		if (r->dep_traced >> i & 1) {
			sr_dep_begin(&used[i]);
			sr_model_select(&r->dep_model[i].m, &v, &in, e);
			sr_dep_end();
			traced |= 1u << i;
		} else {
			sr_model_select(r->models[i], &v, &in, e);
		}
	}
	sr_why_record(NULL);
	for (i = 0; i < r->nmodels; i++)
		if (copied >> i & 1)
			pd->ev[i] = pd->ev[src[i]];
	/* the state the models read (their evaluation changes none of it) */
	if (r->snapshots == SR_SNAP_ALL ||
	    (r->snapshots == SR_SNAP_DIVERGENT && placed_apart(r, pd)))
		keep_snapshot(r, &pd->d, &v);
	/* the kernel's inputs stay out of the engine's state (kin_apply()) */
	if ((r->touches[0] & (1u << pd->d.kind)) && v.rq == r->rq)
		h_load_taken(r, &v, pd->ev[0].h_load_read);
	/* the first base model's path turned on signals closer than their error */
	if ((r->touches[0] & (1u << pd->d.kind)) && pd->ev[0].margin < SR_NEAR_PERMILLE)
		pd->d.inferred |= SR_INF_NEAR;
}

/*
 * A wakeup placed where a task without a known mask was seen since it last
 * woke on another LLC, from a waker's CPU where it was not and that shares
 * no LLC with it (for a task seen on one CPU only, any other CPU), while a
 * model put it elsewhere (schedreplay-models(7)
 * §9.2): select_task_rq_fair() (6.1, 6.12) makes no affine wakeup to a
 * this_cpu outside p->cpus_ptr and select_idle_cpu() scans only
 * p->cpus_ptr, so a mask that keeps the task where it was seen looks like
 * this.  AFF_REFUSALS of them make its wakeups keep to those CPUs; one
 * placement elsewhere proves the mask wider and undoes it.  A wakeup onto
 * another LLC starts the set afresh: a mask set on a sleeping task
 * (sched_setaffinity) moves it at its next wakeup.
 */
/*
 * select_idle_sibling() takes an idle prev_cpu before any scan: not with a
 * cluster level (6.12 tests cpus_share_resources(), the cluster, there) nor
 * asymmetric capacities (asym_fits_cpu())
 */
static int prev_first(const struct sr_topology *t)
{
	int c, l;

	for (c = 0; c < t->ncpus; c++) {
		if (t->cpu[c].capacity != t->cpu[0].capacity)
			return 0;
		for (l = 0; l < t->cpu[c].ndomains; l++)
			if (t->cpu[c].dom[l].flags & SR_SD_CLUSTER)
				return 0;
	}
	return 1;
}

static void aff_wake_refused(struct sr_replay *r, const struct sr_pending *pd, int actual)
{
	struct sr_task *t = pd->d.pid > 0 ? (struct sr_task *)*task_slot(r, pd->d.pid) : NULL;
	int this = pd->d.this_cpu, prev = pd->d.prev_cpu, i;

	if (!t || !aff_unknown(t) || !t->wake_seen || actual < 0 || actual >= 64 || this < 0 ||
	    this >= 64)
		return;
	/*
	 * Placed off a prev_cpu that was idle when it woke (the evaluation's
	 * view: no task, no wakeup pending there) onto a third CPU of its LLC,
	 * from a this_cpu in that LLC too: with prev allowed,
	 * select_task_rq_fair() returns prev or this there (wake_affine_idle()
	 * and select_idle_sibling() take an idle prev first, 6.1 and 6.12,
	 * without clusters or asymmetric capacities), so the mask left prev
	 * out: a sched_setaffinity() on the sleeping task, placed by
	 * select_task_rq()'s fallback (taskset -p on a task that sleeps).
	 * Not where a probe gave the CPU select_task_rq_fair() chose, which a
	 * fallback never passes through.  What was seen starts afresh at the
	 * CPU it runs on next.
	 */
	if (cpu_in(r, prev) && actual != prev && actual != this && pd->prev_idle &&
	    pd->d.kernel_cpu < 0 && prev_first(r->topo) && sr_cpus_share_cache(r->topo, prev, this) &&
	    sr_cpus_share_cache(r->topo, prev, actual)) {
		aff_wake_forget(t);
		t->wake_seen = 0;
		return;
	}
	/*
	 * Placed on a CPU not seen, or outside the LLCs of both this_cpu and
	 * prev_cpu: select_task_rq_fair()'s wakeup path returns this_cpu,
	 * prev_cpu or a CPU select_idle_sibling() found in the LLC of one of
	 * them (6.1, 6.12: no SD_BALANCE_WAKE domain, no asymmetric
	 * capacities), so such a CPU is select_task_rq()'s fallback for a mask
	 * that allows neither, a new mask (sched_setaffinity() on the sleeping
	 * task).  A move to another LLC starts what was seen afresh.
	 */
	if (!(t->wake_seen >> actual & 1) ||
	    (cpu_in(r, prev) && !sr_cpus_share_cache(r->topo, this, actual) &&
	     !sr_cpus_share_cache(r->topo, prev, actual))) {
		aff_wake_forget(t);
		if (cpu_in(r, prev) && !sr_cpus_share_cache(r->topo, prev, actual))
			t->wake_seen = 0;
		return;
	}
	if (t->aff_wake || (t->wake_seen >> this & 1))
		return;
	/*
	 * In one LLC, select_idle_sibling() keeps prev for a hundred reasons;
	 * but a task seen on one CPU only, every wakeup placed there, is what
	 * select_task_rq() makes of a mask of that CPU: cpumask_any() without
	 * select_task_rq_fair() (kernel/sched/core.c, 6.1 and 6.12), so there
	 * it counts as well, where no select_rq probe shows that
	 * select_task_rq_fair() ran (a mask of more than one CPU)
	 */
	if (sr_cpus_share_cache(r->topo, this, actual) &&
	    (r->probes || __builtin_popcountll(t->wake_seen) != 1))
		return;
	for (i = 0; i < r->nmodels; i++) {
		int c = pd->ev[i].cpu;

		if (c >= 0 && c < 64 && !(t->wake_seen >> c & 1))
			break;
	}
	if (i == r->nmodels)
		return;
	if (++t->aff_wake_refusals >= AFF_REFUSALS) {
		t->aff_wake = 1;
		t->inferred |= SR_INF_AFFINITY;
	}
}

/*
 * Do @a and @b place wakeups and forks alike?  select_task_rq_fair()
 * reads the model's flags and its placement functions, and a patch's
 * function may call its base model's (sr_base()); a side with all of them
 * its base model's (a balance pair's, or exit-sync-peterz's patched side)
 * or another side's is evaluated once.
 */
static int same_placement(const struct sr_model *a, const struct sr_model *b)
{
	const struct sr_policy *p = &a->pol, *q = &b->pol;

	return (a->base ? a->base : a) == (b->base ? b->base : b) &&
	       a->runnable_load == b->runnable_load && a->recent_used_cpu == b->recent_used_cpu &&
	       a->mask_exiting_sync == b->mask_exiting_sync && a->util_est == b->util_est &&
	       a->sd_era == b->sd_era && p->select_task_rq == q->select_task_rq &&
	       p->wake_wide == q->wake_wide && p->wake_affine == q->wake_affine &&
	       p->wake_affine_idle == q->wake_affine_idle &&
	       p->wake_affine_weight == q->wake_affine_weight &&
	       p->select_idle_sibling == q->select_idle_sibling &&
	       p->select_idle_cpu == q->select_idle_cpu &&
	       p->find_idlest_cpu == q->find_idlest_cpu &&
	       p->find_idlest_group == q->find_idlest_group &&
	       p->find_idlest_group_cpu == q->find_idlest_group_cpu;
}

void sr_dec_same_placement(struct sr_replay *r)
{
	int i, j;

	for (i = 0; i < r->nmodels; i++) {
		for (j = 0; j < i && !same_placement(r->models[i], r->models[j]); j++)
			;
		r->same_place[i] = j;
	}
	r->dep_traced = 0;
	for (i = 0; i < r->nmodels; i++) {
		const struct sr_model *m = r->models[i];

		r->dep_base[i] = -1;
		for (j = 0; m->base && j < i && r->models[j] != m->base; j++)
			;
		r->base_of[i] = !m->base || j == i ? i : j;
		if (!m->base || j == i)
			continue;
		r->dep_diff[i] = sr_dep_diff(m, r->models[j]);
		if (r->dep_diff[i] == SR_DEP_ALL)
			continue;
		r->dep_base[i] = j;
		if (!(r->dep_traced >> j & 1))
			sr_dep_model_init(&r->dep_model[j], r->models[j]);
		r->dep_traced |= 1u << j;
	}
}

int sr_dec_close(struct sr_replay *r, struct sr_pending *pd, int actual, uint64_t now)
{
	int ret = 0, c;

	for (c = 0; r->probes && c < r->topo->ncpus; c++)
		if (r->selected[c] == pd)
			r->selected[c] = NULL;

	if (pd->d.kind == SR_DEC_WAKEUP && pd->d.skip == SR_SKIP_NONE)
		aff_wake_refused(r, pd, actual);
	pd->d.actual_cpu = actual;
	pd->d.done_ts = now;
	pd->d.actual_nr = actual >= 0 ? r->rq[actual].nr_running : -1;
	if (pd->d.skip == SR_SKIP_NONE)
		r->stats.decisions[pd->d.kind]++;
	else
		r->stats.skipped[pd->d.skip]++;
	r->why_cur = pd->why.valid && pd->d.skip == SR_SKIP_NONE ? &pd->why : NULL;
	if (r->cb)
		ret = r->cb(&pd->d, pd->ev, pd->d.skip == SR_SKIP_NONE ? r->nmodels : 0,
			    r->cb_data);
	r->why_cur = NULL;
	/* the block is kept for the next decision (same size: r->nmodels is fixed) */
	if (r->nspare < SR_PENDING_SPARES) {
		free((void *)pd->d.snap);
		free(pd->why.g);
		r->spare[r->nspare++] = pd;
	} else {
		sr_dec_pending_free(pd);
	}
	return ret;
}


/* ---- load-balance decisions (replay/balance.c evaluates them) ------------------ */

static struct sr_lb_pending *lb_pending(struct sr_replay *r, int cpu)
{
	struct sr_lb_pending *pd = r->lbp[cpu];
	int h;

	if (pd)
		return pd;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	for (h = 0; h < 2; h++) {
		pd->ev[h] = calloc((size_t)(r->nmodels ? r->nmodels : 1), sizeof(struct sr_eval));
		if (!pd->ev[h]) {
			free(pd->ev[0]);
			free(pd);
			return NULL;
		}
	}
	r->lbp[cpu] = pd;
	return pd;
}

/* evaluate every model that looks at balancing under hypothesis @h */
static void lb_evaluate(struct sr_replay *r, struct sr_lb_pending *pd, int h, uint64_t now)
{
	const struct sr_rqstat *k = lb_kernel_inputs(r, pd, h, now);
	struct sr_lb_input in = pd->in[h];
	struct sr_view v;
	int i;

	settle_delayed(r, now);
	fill_view(r, &v, now);
	/*
	 * with the lb_task probe, sd->nr_balance_failed as the kernel last
	 * showed it at each domain (0 where it showed none): migrate_load is
	 * then sized by load at every balance (balance.c lb_by_load())
	 */
	if (r->lbt_nbf_seen && r->input_probes)
		in.nr_failed = r->lbt_nbf;
	/*
	 * with lb_rqstat the balance reads every CPU as the kernel's
	 * find_busiest_group() found it (kin_fill()): the balancing CPU's
	 * blocking task already off, no later arrival on, so nothing is taken
	 * off its counts
	 */
	if (k) {
		kin_fill(r, &v, k);
		in.nr_sub = in.cfs_sub = 0;
		in.load_sub = in.util_est_sub = 0;
		r->stats.lb_kernel_inputs++;
	}
	for (i = 0; i < r->nmodels; i++) {
		struct sr_eval *e = &pd->ev[h][i];

		if (!(r->touches[i] & BALANCE_KINDS)) {
			memset(e, 0, sizeof(*e));
			e->cpu = e->src_cpu = -1;
			continue;
		}
		in.sgc_imb = r->lb_imb[i];
		if (r->keep_why && !i) {
			struct sr_why *w = &pd->why[h];

			w->valid = 1;
			w->calls = w->ngroups = w->dropped = 0;
			w->wakee_flips = w->waker_flips = w->waker_load = -1;
			w->task_load = w->task_util = w->task_runnable = -1;
			w->this_load = w->prev_load = -1;
			w->factor = 0;
			w->flips_src = w->pelt_src = w->prev_load_src = SR_WHY_NONE;
			sr_why_record(w);
		}
		sr_model_balance(r->models[i], &v, &in, r->lb_scratch, e);
		sr_why_record(NULL);
	}
}

/*
 * open a balance decision on @cpu (the balancing CPU) with the state as it
 * is now, before the event that shows it is applied
 */
static struct sr_lb_pending *lb_open(struct sr_replay *r, int cpu, const struct sr_task *p,
				     uint64_t now)
{
	struct sr_lb_pending *pd = lb_pending(r, cpu);
	struct sr_view v;

	if (!pd)
		return NULL;
	memset(&pd->d, 0, sizeof(pd->d));
	memset(pd->in, 0, sizeof(pd->in));
	pd->why[0].valid = pd->why[1].valid = 0;
	pd->open = 1;
	pd->nhyp = 1;
	pd->d.id = r->next_id++;
	pd->d.ts = now;
	pd->d.this_cpu = cpu;
	pd->d.prev_cpu = -1;
	pd->d.actual_cpu = -1;
	pd->d.kernel_cpu = -1;
	pd->d.wake_flags = -1;
	pd->d.waker = -1;
	if (p) {
		pd->d.pid = p->pid;
		memcpy(pd->d.comm, p->comm, SR_COMM_LEN);
	}
	if (r->topo->source[0] && strncmp(r->topo->source, "recording", 9))
		pd->d.inferred |= SR_INF_TOPOLOGY;
	/* this_nr and the idle CPUs (p NULL: all allowed) */
	settle_delayed(r, now);
	sr_dec_snapshot(r, &pd->d, NULL, now);
	fill_view(r, &v, now);
	if (r->snapshots)
		keep_snapshot(r, &pd->d, &v);
	return pd;
}

/*
 * A newly idle balance after which the kernel pulled nothing: each task a
 * model would have pulled to the balancing CPU was refused there.  In the
 * kernel (can_migrate_task() at v6.1 and v6.12) a newly idle CPU skips a
 * task whose cpus_ptr lacks it (LBF_SOME_PINNED, no new_dst_cpu) and goes
 * on with the next one; what makes a pull fail repeatedly is the mask.
 * Without the balance probes a switch without a pull may also be a balance
 * that never ran (the avg_idle cutoff, NI_RANDOM's draw), hence several
 * refusals over more than a tick.  With the probes' levels the models
 * balance only at the levels the kernel's load_balance(CPU_NEWLY_IDLE)
 * calls show, which sched_balance_newidle() (Debian 6.1.192 and 6.12.117)
 * makes only once avg_idle passed the cost cutoff and the draw let the
 * level run: the model's pull came from a balance the kernel did run and
 * that moved nothing, so one refusal is the mask's.
 */
static void aff_refused(struct sr_replay *r, const struct sr_lb_pending *pd, int h)
{
	uint64_t online = r->topo->ncpus >= 64 ? ~0ULL : (1ULL << r->topo->ncpus) - 1;
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	int probed = pd->in[h].levels != 0;
	int i, j;

	for (i = 0; i < r->nmodels; i++) {
		const struct sr_eval *e = &pd->ev[h][i];
		struct sr_task *t;

		if (e->cpu < 0 || e->cpu >= 64 || e->task <= 0)
			continue;
		for (j = 0; j < i; j++)
			if (pd->ev[h][j].task == e->task)
				break;
		if (j < i)
			continue;
		t = (struct sr_task *)*task_slot(r, e->task);
		if (!t || !aff_unknown(t) || (t->seen_cpus >> e->cpu & 1))
			continue;
		/* a task that never ran may not be runnable yet (fork); one that
		 * ran or left since the balance was not refused by it */
		if (!t->exec_start || t->state != SR_TASK_QUEUED || t->cpu != e->src_cpu)
			continue;
		/*
		 * seen on two CPUs since its mask last changed: not pinned to
		 * one; a refusal by a balance the kernel ran (probed) still
		 * shows the balancing CPU outside its cpus_ptr
		 */
		if (t->seen_cpus & (t->seen_cpus - 1)) {
			if (probed) {
				t->aff_denied |= 1ULL << e->cpu;
				t->inferred |= SR_INF_AFFINITY;
			}
			continue;
		}
		if (!t->aff_refusals || t->aff_cpu != t->cpu) {
			t->aff_refusals = 0;
			t->aff_cpu = t->cpu;
			t->aff_first = pd->d.ts;
		}
		/* balanced over more than a tick: not only the newidle cost bail */
		if ((++t->aff_refusals >= AFF_REFUSALS && pd->d.ts - t->aff_first >= tick) ||
		    probed) {
			/* pinned to where it was seen since its mask last changed */
			t->aff_denied = ~t->seen_cpus & online;
			t->inferred |= SR_INF_AFFINITY;
		}
	}
}

/*
 * NI_RANDOM (sched_balance_newidle(), Debian 6.1.192 and 6.12.117, v6.19):
 * each domain of a newly idle CPU balances only when sched_rng() % 1024 <=
 * 1 + sd->newidle_ratio, and newidle_ratio follows the success rate: each
 * reach of the domain counts a call, each balance that pulled adds
 * 1024 / (1 + ratio), the inverse of its chance to run, and every 1024
 * calls the ratio becomes the success sum and both counts halve
 * (update_newidle_stats()).  So the ratio settles at 1024 q, q the chance
 * that a balance of the domain pulls when it runs, and the domain runs
 * with a chance of about q.  The draw is in no trace, but the pulls are:
 * a domain pulls at a share q * q of its reaches, so the engine keeps per
 * CPU and domain the kernel's window of reaches and pulls, started as the
 * kernel starts it (newidle_call 512, newidle_ratio 512: q 1/2, so 128
 * pulls), and estimates the chance to run as sqrt(pulls / reaches).  The
 * avg_idle cutoff (avg_idle < curr_cost + max_newidle_lb_cost) is not
 * traced either: every newly idle switch counts as a reach.
 */
void sr_dec_ni_init(struct sr_replay *r)
{
	size_t i, n = (size_t)r->topo->ncpus * SR_MAX_DOMAIN_LEVELS;

	for (i = 0; i < n; i++) {
		r->ni_call[i] = 512;
		r->ni_pull[i] = 128;
	}
}

/* the newly idle balance on @cpu reached @level; it pulled there if @pulled */
static void ni_count(struct sr_replay *r, int cpu, int level, int pulled)
{
	size_t i = (size_t)cpu * SR_MAX_DOMAIN_LEVELS + (size_t)level;

	r->ni_call[i]++;
	r->ni_pull[i] += pulled ? 1 : 0;
	if (r->ni_call[i] >= 1024) {
		r->ni_call[i] /= 2;
		r->ni_pull[i] /= 2;
	}
}

/* a newly idle switch closed on @cpu: count the levels it reached */
static void ni_account(struct sr_replay *r, const struct sr_decision *d, int cpu,
		       enum sr_decision_kind kind)
{
	const struct sr_cpu_topo *ct = &r->topo->cpu[cpu];
	int l;

	for (l = 0; l < ct->ndomains; l++) {
		int here = kind == SR_DEC_LB_NEWIDLE && d->prev_cpu >= 0 &&
			   d->prev_cpu < r->topo->ncpus &&
			   sr_cpumask_test(ct->dom[l].span, d->prev_cpu);

		if (!(ct->dom[l].flags & SR_SD_BALANCE_NEWIDLE))
			continue;
		ni_count(r, cpu, l, here);
		if (here)
			break;
	}
}

/*
 * The check of the NI_RANDOM reading (balance.c) the trace allows without
 * the probes' levels: at each domain, the switches and pulls at which the
 * first model passed it over as the draw where it would have pulled, and
 * the pulls at that domain the model made as the kernel did.  With the
 * model's state right, the kernel pulls at that domain at the draw's
 * chance to run of those (about one half at sd_init()'s newidle_ratio of
 * 512); a much smaller share says the model would pull where the kernel's
 * balance finds nothing.
 */
static void ni_tally(struct sr_replay *r, const struct sr_lb_pending *pd, int h, int cpu,
		     enum sr_decision_kind kind)
{
	const struct sr_cpu_topo *ct = &r->topo->cpu[cpu];
	const struct sr_eval *e = &pd->ev[h][0];
	int l;

	if (!sr_kgen_has(&r->kgen, SR_KF_NI_RANDOM) || pd->in[h].levels)
		return;
	for (l = 0; l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS; l++)
		if (e->ni_skip >> l & 1)
			r->stats.ni_skip_level[l]++;
	if (kind != SR_DEC_LB_NEWIDLE || !cpu_in(r, pd->d.prev_cpu) ||
	    !sr_eval_matches(&pd->d, e))
		return;
	l = sr_topology_level_of(r->topo, cpu, pd->d.prev_cpu);
	if (l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS)
		r->stats.ni_pull_level[l]++;
}

/* of 1024: the chance that NI_RANDOM's draw let @cpu's @level balance */
static int ni_run_estimate(const struct sr_replay *r, int cpu, int level)
{
	size_t i = (size_t)cpu * SR_MAX_DOMAIN_LEVELS + (size_t)level;
	double q = sqrt((double)r->ni_pull[i] / (double)r->ni_call[i]);

	return q >= 1.0 ? 1024 : (int)(q * 1024.0);
}

static unsigned lb_ranks(const struct sr_replay *r, int cpu, unsigned got);

unsigned sr_dec_lb_rank(const struct sr_replay *r, int cpu, int level)
{
	return level >= 0 && level < 31 ? lb_ranks(r, cpu, 1u << level) : 0;
}

/*
 * The kernel's migration type (lb_task, on_lb_task()) of each load_balance()
 * on @cpu since a tick before the decision opened, against the one the
 * first model's evaluation under hypothesis @h chose at that level; then
 * they are taken.  Where the trace's balance_rq levels do not name the
 * model's domains (lb_ranks()), nothing is compared.
 */
static void lb_mt_compare(struct sr_replay *r, const struct sr_lb_pending *pd, int h, int cpu,
			  uint64_t now)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	struct sr_lb_task_seen *s = r->lbt ? &r->lbt[cpu] : NULL;
	const struct sr_eval *e = &pd->ev[h][0];
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		unsigned rank = sr_dec_lb_rank(r, cpu, s->b[i].level);
		int l = rank ? __builtin_ctz(rank) : -1;

		if (l < 0 || l >= SR_MAX_DOMAIN_LEVELS || !e->lb_mt[l] || s->b[i].mt > 2 ||
		    s->b[i].ts + tick < pd->d.ts || s->b[i].ts > now)
			continue;
		r->stats.lb_mt_n[s->b[i].mt]++;
		r->stats.lb_mt_agree[s->b[i].mt] += e->lb_mt[l] - 1 == s->b[i].mt;
	}
	s->n = 0;
}

/* the kernel's outcome is known: hypothesis @h holds */
int sr_dec_lb_close(struct sr_replay *r, int cpu, int h, enum sr_decision_kind kind, uint64_t now)
{
	struct sr_lb_pending *pd = r->lbp[cpu];
	int i, j, ret = 0;

	if (!pd || !pd->open)
		return 0;
	pd->open = 0;
	if (h >= pd->nhyp)
		h = 0;
	pd->d.kind = kind;
	pd->d.done_ts = now;
	pd->d.prev_nr = pd->d.prev_cpu >= 0 ? r->rq[pd->d.prev_cpu].nr_running : -1;
	pd->d.actual_nr = pd->d.actual_cpu >= 0 ? r->rq[pd->d.actual_cpu].nr_running : -1;
	if (pd->d.skip != SR_SKIP_NONE) {
		/* not evaluated: no hints move, no refusal is inferred */
		r->stats.skipped[pd->d.skip]++;
		r->why_cur = NULL;
		if (r->cb)
			ret = r->cb(&pd->d, pd->ev[h], 0, r->cb_data);
		free((void *)pd->d.snap);
		pd->d.snap = NULL;
		return ret;
	}
	/* each model's own group-imbalance hints move as its evaluation said */
	for (i = 0; i < r->nmodels; i++) {
		const struct sr_eval *e = &pd->ev[h][i];

		for (j = 0; j < e->neffects; j++)
			r->lb_imb[i][e->effect[j] >> 1] = (unsigned char)(e->effect[j] & 1);
	}
	for (i = 0; i < r->nmodels; i++)
		if (pd->ev[h][i].lbf & SR_LBO_INF_AFFINITY)
			pd->d.inferred |= SR_INF_AFFINITY;
	for (i = 0; i < r->nmodels; i++)
		if (pd->ev[h][i].lbf & SR_LBO_NI_RANDOM)
			pd->d.inferred |= SR_INF_NI_RANDOM;
	if ((pd->d.inferred & SR_INF_NI_RANDOM) && kind == SR_DEC_NEWIDLE)
		r->stats.ni_random++;
	else if (pd->d.inferred & SR_INF_NI_RANDOM)
		r->stats.ni_random_pull++;
	if (kind == SR_DEC_NEWIDLE)
		aff_refused(r, pd, h);
	if (kind != SR_DEC_LB_NOHZ && r->nmodels > 0)
		lb_mt_compare(r, pd, h, cpu, now);
	if (kind == SR_DEC_NEWIDLE || kind == SR_DEC_LB_NEWIDLE) {
		ni_account(r, &pd->d, cpu, kind);
		if (r->nmodels > 0)
			ni_tally(r, pd, h, cpu, kind);
	}
	r->stats.decisions[kind]++;
	r->why_cur = pd->why[h].valid ? &pd->why[h] : NULL;
	if (r->cb)
		ret = r->cb(&pd->d, pd->ev[h], r->nmodels, r->cb_data);
	r->why_cur = NULL;
	free((void *)pd->d.snap);
	pd->d.snap = NULL;
	return ret;
}

/*
 * The pull that opened @cpu's balance decision was no balance (the
 * current task's sched_setaffinity() moved a queued task, state.c's
 * settle_pull): nothing was decided, nothing is counted or stored.
 */
void sr_dec_lb_drop(struct sr_replay *r, int cpu)
{
	struct sr_lb_pending *pd = r->lbp[cpu];

	if (!pd || !pd->open)
		return;
	pd->open = 0;
	free((void *)pd->d.snap);
	pd->d.snap = NULL;
}

/* a newidle decision still waiting for a remote wakeup: none came */
int sr_dec_lb_close_newidle(struct sr_replay *r, int cpu, uint64_t now)
{
	struct sr_lb_pending *pd = r->lbp[cpu];

	if (!pd || !pd->open || pd->in[0].kind != SR_DEC_NEWIDLE)
		return 0;
	return sr_dec_lb_close(r, cpu, 0, SR_DEC_NEWIDLE, now);
}

/*
 * The domains named by @got, the sd->level bits of balance_rq probes on
 * @cpu (struct sr_replay nib_levels, pb_levels), as bits over the model's
 * domain levels (struct sr_lb_input levels, pass), or 0 when that is not
 * known.  The probe gives sd->level, which counts the topology levels
 * before the degenerate ones are removed (build_sched_domain(), 6.1 and
 * 6.12): a CPU's domains carry increasing sd->level values, so the i-th
 * distinct value the trace's balance_rq events showed is the i-th domain
 * once the trace has shown as many values as the CPU has domains.
 */
static unsigned lb_ranks(const struct sr_replay *r, int cpu, unsigned got)
{
	unsigned seen = r->lb_levels_seen, out = 0;
	int bit, rank = 0;

	if (!r->balance_probes || !got || (got >> 31 & 1) ||
	    __builtin_popcount(seen) != r->topo->cpu[cpu].ndomains)
		return 0;
	for (bit = 0; bit < 31; bit++) {
		if (!(seen >> bit & 1))
			continue;
		if (got >> bit & 1)
			out |= 1u << rank;
		rank++;
	}
	return out;
}

/* the domains of @cpu's newly idle load_balance() calls since its last switch */
static unsigned lb_domains(const struct sr_replay *r, int cpu)
{
	return lb_ranks(r, cpu, r->nib_levels[cpu]);
}

/* the input for a newly idle @cpu whose curr is blocking */
static void lb_newidle_input(struct sr_replay *r, struct sr_lb_input *in, int cpu,
			     enum sr_decision_kind kind)
{
	const struct sr_task *curr = r->rq[cpu].curr > 0 ? *task_slot(r, r->rq[cpu].curr) : NULL;

	in->kind = kind;
	in->cpu = cpu;
	in->idle = SR_LB_NEWLY_IDLE;
	in->curr_leaving = 1;
	in->levels = lb_domains(r, cpu);
	if (curr && on_rq(curr) && curr->cpu == cpu) {
		in->nr_sub = 1;
		if (is_fair(curr)) {
			in->cfs_sub = 1;
			in->load_sub = (long)curr->weight;
			if (curr->util_est_queued)
				in->util_est_sub = (long)curr->util_est;
		}
	}
}

/*
 * NI_RANDOM at a newly idle pull from @src (sched_balance_newidle(), Debian
 * 6.1.192 and 6.12.117, v6.19), without the probes' levels: the pull shows
 * that the draw let the level that pulled run, the lowest domain whose
 * span holds @src (a balance pulls from a group of its domain other than
 * the local one); of the levels below it the trace shows what it shows at a
 * switch without a pull, that they pulled nothing, so the models see the
 * engine's estimate there, as sr_dec_lb_newidle() gives it (balance.c
 * passes a level that would pull over as the draw), and balance at that
 * level and above.
 */
static void ni_pull_levels(struct sr_replay *r, struct sr_lb_input *in, int cpu, int src)
{
	const struct sr_cpu_topo *ct = &r->topo->cpu[cpu];
	int l, pulled;

	if (in->levels || !sr_kgen_has(&r->kgen, SR_KF_NI_RANDOM) || src < 0 ||
	    src >= r->topo->ncpus)
		return;
	pulled = sr_topology_level_of(r->topo, cpu, src);
	if (!pulled)
		return;
	in->ni_random = 1;
	for (l = 0; l < ct->ndomains; l++)
		in->ni_run[l] = l < pulled ? ni_run_estimate(r, cpu, l) : 1024;
}

/*
 * The levels the periodic pass under way on @cpu balanced at by the
 * balance probes (struct sr_lb_input.pass): the pull came from the last
 * load_balance() the pass showed, within a tick of it; the levels above
 * that one are still ahead of the walk and taken as due.  0: not known.
 */
static unsigned lb_pass(const struct sr_replay *r, int cpu, uint64_t now)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	unsigned out;
	int top;

	if (!r->balance_probes || !r->pb_levels[cpu] || now > r->pb_ts[cpu] + tick)
		return 0;
	out = lb_ranks(r, cpu, r->pb_levels[cpu]);
	if (!out)
		return 0;
	top = 31 - __builtin_clz(out);
	return top >= 31 ? out : out | ~0u << (top + 1);
}

/*
 * A pull by @cpu (sched_migrate_task emitted on the destination): a
 * newidle balance if the puller then switches from a task that blocked
 * to the pulled one, else periodic; a busy puller is evaluated both ways
 * and settled at its next switch (settle_pull).  Busy: the engine runs a
 * task there, or a task (@emitter, the event's pid) emitted the pull,
 * which proves it ran there though the trace lost its switch in: the
 * kernel calls sched_balance_newidle() (newidle_balance() in 6.1) from
 * the __schedule() of a task that blocks, so a pull the kind will call
 * newly idle needs that hypothesis (load_balance() with CPU_NEWLY_IDLE),
 * not the idle CPU's rebalance_domains() (CPU_IDLE)
 */
int sr_dec_lb_open_pull(struct sr_replay *r, const struct sr_task *p, int orig, int cpu,
			int emitter, uint64_t now)
{
	struct sr_lb_pending *pd = lb_open(r, cpu, p, now);
	int busy = r->rq[cpu].curr > 0 || emitter > 0;

	if (!pd)
		return -SR_E_NOMEM;
	pd->d.prev_cpu = orig;
	pd->d.actual_cpu = cpu;
	if (busy) {
		lb_newidle_input(r, &pd->in[0], cpu, SR_DEC_LB_NEWIDLE);
		/*
		 * Newidle, the puller's queue was empty: pick_next_task_fair()
		 * balances only when the CFS queue is (6.1: !sched_fair_runnable,
		 * 6.12: pick_task_fair() found cfs_rq->nr_running 0), and
		 * should_we_balance() (6.0+) lets a newly idle CPU pull only
		 * with nr_running 0 and no ttwu_pending.  What else the engine
		 * has queued there is not there (settle_pull takes it off).
		 */
		pd->in[0].nr_sub = r->rq[cpu].nr_running;
		pd->in[0].cfs_sub = r->rq[cpu].cfs_nr;
		pd->in[0].load_sub = (long)r->rq[cpu].cfs_weight;
		pd->in[0].util_est_sub = (long)r->rq[cpu].util_est;
		ni_pull_levels(r, &pd->in[0], cpu, orig);
		pd->in[1].kind = SR_DEC_LB_PERIODIC;
		pd->in[1].cpu = cpu;
		/*
		 * periodic: rebalance_domains() balances with the idle type
		 * sched_tick() left in rq->idle_balance (idle_cpu() at the
		 * tick), which the trace does not show; a CPU the engine
		 * held idle until its task's lost switch in keeps CPU_IDLE
		 */
		pd->in[1].idle = r->rq[cpu].curr > 0 ? SR_LB_NOT_IDLE : SR_LB_IDLE;
		pd->in[1].pass = lb_pass(r, cpu, now);
		pd->nhyp = 2;
	} else {
		pd->in[0].kind = SR_DEC_LB_PERIODIC;
		pd->in[0].cpu = cpu;
		pd->in[0].idle = SR_LB_IDLE;
		pd->in[0].pass = lb_pass(r, cpu, now);
	}
	lb_evaluate(r, pd, 0, now);
	if (pd->nhyp == 2)
		lb_evaluate(r, pd, 1, now);
	return 0;
}

/*
 * A periodic or nohz load_balance() the balance probes show on @cpu at the
 * domain of sd->level @level: each model balancing runs that level only,
 * for the sgc->imbalance marks it leaves (load_balance(), 6.1 and 6.12:
 * the parent's group marked where tasks pinned elsewhere kept the balance
 * from its imbalance, unmarked where it found the domain balanced); its
 * pulls, if any, are decisions of their own (sr_dec_lb_open_pull()).
 */
/*
 * Each model that balances runs a periodic pass on @cpu at the levels
 * @pass, on @v, for the sgc->imbalance marks it leaves; the first one's
 * evaluation is left in @first (its cpu -1 if none balances)
 */
static void marks_pass(struct sr_replay *r, const struct sr_view *v, int cpu, unsigned pass,
		       int idle, struct sr_eval *first)
{
	struct sr_lb_input in;
	struct sr_eval e, *out = first;
	int i, k;

	memset(&in, 0, sizeof(in));
	in.kind = SR_DEC_LB_PERIODIC;
	in.cpu = cpu;
	in.idle = idle ? SR_LB_IDLE : SR_LB_NOT_IDLE;
	in.pass = pass;
	memset(first, 0, sizeof(*first));
	first->cpu = first->src_cpu = -1;
	for (i = 0; i < r->nmodels; i++) {
		if (!(r->touches[i] & BALANCE_KINDS))
			continue;
		in.sgc_imb = r->lb_imb[i];
		sr_model_balance(r->models[i], v, &in, r->lb_scratch, out);
		for (k = 0; k < out->neffects; k++)
			r->lb_imb[i][out->effect[k] >> 1] = (unsigned char)(out->effect[k] & 1);
		out = &e;
	}
}

void sr_dec_lb_hints(struct sr_replay *r, int cpu, int level, uint64_t now)
{
	struct sr_view v;
	struct sr_eval e;
	unsigned pass = level >= 0 && level < 31 ? lb_ranks(r, cpu, 1u << level) : 0;

	if (!pass || !r->nmodels)
		return;
	r->lb_hints = 1;
	settle_delayed(r, now);
	fill_view(r, &v, now);
	marks_pass(r, &v, cpu, pass, r->rq[cpu].curr <= 0, &e);
}

/*
 * A load_balance() pass on @cpu at the levels @pass that a trace without
 * the balance probes does not show, inferred from the tick (idle-scan.c):
 * each model balancing runs it on the engine's state as it stands, for the
 * sgc->imbalance marks it leaves (marks_pass()); nothing else of the
 * engine changes, and the pass is no decision.  Return, for the pass's
 * clock, the levels the first model's walk balanced (@done: those whose
 * load_balance() ran, and the due ones above a pull, which the kernel's
 * walk goes on to as a busy CPU; not those above should_we_balance()'s
 * stop), the levels at which it found an imbalance (@failed: pulled or
 * not) and those where every task it could pull was pinned (@pinned).
 */
void sr_dec_lb_infer(struct sr_replay *r, int cpu, unsigned pass, int idle, uint64_t now,
		     unsigned *done, unsigned *failed, unsigned *pinned)
{
	const struct sr_cpu_topo *ct = &r->topo->cpu[cpu];
	struct sr_view v;
	struct sr_eval e;
	int l, pull;

	*done = *failed = *pinned = 0;
	if (!pass || !r->nmodels)
		return;
	r->lb_marks_inferred = 1;
	r->stats.lb_inferred++;
	fill_view(r, &v, now);
	marks_pass(r, &v, cpu, pass, idle, &e);
	if (e.lbf & SR_LBO_HINT_SET)
		r->stats.lb_inferred_marks++;
	/* the level of the pull, if any: the lowest whose span holds its source */
	pull = e.cpu >= 0 && e.src_cpu >= 0 ? sr_topology_level_of(r->topo, cpu, e.src_cpu) : -1;
	for (l = 0; l < ct->ndomains && l < SR_MAX_DOMAIN_LEVELS; l++) {
		int bit = l * r->topo->ncpus + cpu, pulled = l == pull;

		if (!(pass >> l & 1))
			continue;
		/* past the evaluation's 64 bits of level and CPU: taken as balanced */
		if (bit >= 64) {
			*done |= 1u << l;
			*failed |= (unsigned)pulled << l;
			continue;
		}
		if (((e.lb_reset | e.lb_failed) >> bit & 1) || pulled)
			*done |= 1u << l;
		if ((e.lb_failed >> bit & 1) || pulled)
			*failed |= 1u << l;
		if (e.lb_pinned >> bit & 1)
			*pinned |= 1u << l;
	}
	/* the walk stopped at the pull; the kernel's goes on to the levels above */
	if (e.cpu >= 0 && *failed)
		*done |= pass & ~((2u << (31 - __builtin_clz(*done))) - 1);
}

/* a nohz idle-balance pass on the idle @ilb, seen at its first pull for another CPU */
int sr_dec_lb_nohz(struct sr_replay *r, const struct sr_task *p, int ilb, int orig, int dest,
		   uint64_t now)
{
	struct sr_lb_pending *pd;

	pd = lb_open(r, ilb, p, now);
	if (!pd)
		return -SR_E_NOMEM;
	pd->d.prev_cpu = orig;
	pd->d.actual_cpu = dest;
	pd->in[0].kind = SR_DEC_LB_NOHZ;
	pd->in[0].cpu = ilb;
	pd->in[0].idle = SR_LB_IDLE;
	lb_evaluate(r, pd, 0, now);
	return sr_dec_lb_close(r, ilb, 0, SR_DEC_LB_NOHZ, now);
}

/*
 * A newly idle switch on @cpu (prev blocked, nothing else to run): the
 * kernel ran newidle_balance and pulled nothing.  Wakeups for @cpu from
 * other CPUs that landed between the CPU's previous event and now are
 * taken as arriving during the balance; so is the blocking task's own
 * wakeup; a remote wakeup still in flight is settled when it lands.
 */
int sr_dec_lb_newidle(struct sr_replay *r, struct sr_task *prev, int cpu, uint64_t now)
{
	const struct sr_task *t;
	struct sr_lb_pending *pd;
	int others = r->rq[cpu].nr_running - 1, arrivals = 0, fair_arrivals = 0, known;
	long arrived_load = 0, arrived_ue = 0;
	uint64_t gap = r->last_local[cpu];

	for (t = r->lb_head[cpu]; t; t = t->lb_next)
		if (t != prev && t->remote_wakeup_ts > gap && t->remote_wakeup_ts <= now &&
		    t->state == SR_TASK_QUEUED) {
			arrivals++;
			fair_arrivals++;
			arrived_load += (long)t->weight;
			arrived_ue += t->util_est_queued ? (long)t->util_est : 0;
		}
	if (others - arrivals > 0)
		return 0;
	pd = lb_open(r, cpu, prev, now);
	if (!pd)
		return -SR_E_NOMEM;
	/*
	 * The balance probes show whether the kernel tried: with no
	 * load_balance(CPU_NEWLY_IDLE) since the CPU's last switch, the
	 * newidle balance returned before any level (rd overload,
	 * avg_idle below max_newidle_lb_cost, ttwu_pending) or, with
	 * NI_RANDOM (sched_balance_newidle() in 6.1.160+, 6.12.6x+, 6.19),
	 * skipped every level on its dice.  Not a decision the models are
	 * held to.
	 */
	if (r->balance_probes && !r->nib_levels[cpu]) {
		pd->d.skip = SR_SKIP_NO_BALANCE;
		return sr_dec_lb_close(r, cpu, 0, SR_DEC_NEWIDLE, now);
	}
	if (r->balance_probes) {
		int l;

		for (l = 0; l < 8; l++)
			if (r->nib_levels[cpu] >> l & 1)
				r->stats.newidle_level[l]++;
	}
	pd->gap_start = gap;
	lb_newidle_input(r, &pd->in[0], cpu, SR_DEC_NEWIDLE);
	pd->in[0].nr_sub += arrivals;
	pd->in[0].cfs_sub += fair_arrivals;
	pd->in[0].load_sub += arrived_load;
	pd->in[0].util_est_sub += arrived_ue;
	known = arrivals > 0 || (prev->waking && prev->waking_cpu != cpu);
	pd->in[0].arrival = known;
	/*
	 * without the probes' levels, on a kernel with NI_RANDOM, the models
	 * see the engine's estimate of each level's draw: balance.c passes
	 * over, as the draw, a level whose balance would pull (the trace
	 * shows none here) unless the estimate says it cannot skip; a pull
	 * (balance_newidle) shows the draw let the balance run, so only a
	 * switch without one gets it
	 */
	if (!pd->in[0].levels && sr_kgen_has(&r->kgen, SR_KF_NI_RANDOM)) {
		int l;

		pd->in[0].ni_random = 1;
		for (l = 0; l < r->topo->cpu[cpu].ndomains; l++)
			pd->in[0].ni_run[l] = ni_run_estimate(r, cpu, l);
	}
	lb_evaluate(r, pd, 0, now);
	if (known || r->nwaking <= 0)
		return sr_dec_lb_close(r, cpu, 0, SR_DEC_NEWIDLE, now);
	pd->in[1] = pd->in[0];
	pd->in[1].arrival = 1;
	pd->nhyp = 2;
	lb_evaluate(r, pd, 1, now);
	return 0;
}

/* a wakeup lands on @cpu: does it settle an open newidle decision there? */
int sr_dec_lb_wakeup_lands(struct sr_replay *r, const struct sr_task *p, int cpu, uint64_t now)
{
	struct sr_lb_pending *pd = r->lbp[cpu];

	if (!pd || !pd->open || pd->in[0].kind != SR_DEC_NEWIDLE)
		return 0;
	if (p->waking && p->waking_cpu != cpu && p->waking_ts >= pd->gap_start &&
	    p->waking_ts <= pd->d.ts)
		return sr_dec_lb_close(r, cpu, 1, SR_DEC_NEWIDLE, now);
	return 0;
}

