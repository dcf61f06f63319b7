// SPDX-License-Identifier: GPL-2.0
/*
 * The replay state: per-CPU runqueues and per-task state rebuilt from the
 * event stream (schedreplay-models(7) §2.4), PELT kept for every task and every
 * CPU's root cfs_rq (schedreplay-models(7) §3.4), and the decision points: a wakeup placement at
 * each sched_waking of a sleeping CFS task, closed by its sched_wakeup; a
 * fork placement at each sched_wakeup_new; load-balance decisions at every
 * pull the trace shows, every newly-idle switch and every nohz idle-balance
 * pass (schedreplay-models(7) §6-§8, evaluated by replay/balance.c).  The engine
 * always applies what
 * the kernel actually did (open loop), so one trace gives one state
 * trajectory however many models are evaluated.
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "replay-local.h"
#include "banned.h"

/* newidle pulls happen inside __schedule, just before the switch away */
#define NEWIDLE_WINDOW_NS	200000ULL

/* names[k] of an n-entry name table, "?" out of range */
static const char *name_of(const char *const *names, unsigned n, unsigned k)
{
	return k < n ? names[k] : "?";
}

static const char *const mig_names[SR_MIG__COUNT] = {
	[SR_MIG_WAKEUP]		= "wakeup",
	[SR_MIG_FORK]		= "fork",
	[SR_MIG_LB_PERIODIC]	= "balance_periodic",
	[SR_MIG_LB_NEWIDLE]	= "balance_newidle",
	[SR_MIG_LB_NOHZ]	= "balance_nohz",
	[SR_MIG_ACTIVE]		= "active_balance",
	[SR_MIG_AFFINITY]	= "affinity",
	[SR_MIG_UNEXPLAINED]	= "unexplained",
};

const char *sr_migration_kind_name(enum sr_migration_kind k)
{
	return name_of(mig_names, SR_MIG__COUNT, k);
}

static const char *const dec_names[SR_DEC__COUNT] = {
	[SR_DEC_WAKEUP]		= "wakeup",
	[SR_DEC_FORK]		= "fork",
	[SR_DEC_LB_PERIODIC]	= "balance_periodic",
	[SR_DEC_LB_NEWIDLE]	= "balance_newidle",
	[SR_DEC_LB_NOHZ]	= "balance_nohz",
	[SR_DEC_NEWIDLE]	= "newidle",
};

int sr_eval_sides_differ(const struct sr_decision *d, const struct sr_eval *o,
			 const struct sr_eval *p)
{
	if (o->cpu != p->cpu)
		return 1;
	if (!sr_decision_is_balance(d->kind))
		return 0;
	return o->src_cpu != p->src_cpu || o->task != p->task ||
	       ((o->lbf ^ p->lbf) & SR_LBO_COMPARE);
}

int sr_eval_matches(const struct sr_decision *d, const struct sr_eval *e)
{
	if (e->cpu != d->actual_cpu)
		return 0;
	return !sr_decision_is_balance(d->kind) || d->actual_cpu < 0 || e->src_cpu == d->prev_cpu;
}

const char *sr_decision_kind_name(enum sr_decision_kind k)
{
	return name_of(dec_names, SR_DEC__COUNT, k);
}

static const char *const rec_names[SR_REC__COUNT] = {
	[SR_REC_NEWIDLE_PULL]	= "newidle_pull",
	[SR_REC_IDLE_SWITCH]	= "idle_switch",
	[SR_REC_PROBE]		= "probe",
	[SR_REC_SWITCH]		= "switch",
	[SR_REC_DELAYED]	= "delayed",
};

const char *sr_reconcile_name(enum sr_reconcile k)
{
	return name_of(rec_names, SR_REC__COUNT, k);
}

/* ---- the task table ---------------------------------------------------- */

const struct sr_task *sr_replay_task(const struct sr_replay *r, int pid)
{
	if (pid <= 0)
		return NULL;
	return *task_slot(r, pid);
}

static int grow(struct sr_replay *r)
{
	size_t ncap = r->cap * 2, i;
	struct sr_task **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < r->cap; i++) {
		size_t j;

		if (!r->tasks[i])
			continue;
		j = slot_of(ncap, r->tasks[i]->pid);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = r->tasks[i];
	}
	free(r->tasks);
	r->tasks = nt;
	r->cap = ncap;
	return 0;
}

/*
 * Per-CPU kernel threads are bound to the CPU in their name; kthreadd's
 * children are kernel threads (schedreplay-models(7) §6.6).  Both are inferences.
 */
static void infer_kthread(struct sr_task *t)
{
	size_t n = sr_per_cpu_prefix(t->comm);
	const char *s = t->comm + n;
	char *end;
	long cpu;

	if (!n)
		return;
	t->kthread = 1;
	t->inferred |= SR_INF_KTHREAD;
	/* kworker/u8:2 is unbound; kworker/3:1 and ksoftirqd/3 are bound */
	if (*s < '0' || *s > '9')
		return;
	cpu = strtol(s, &end, 10);
	if (end != s && (*end == '\0' || *end == ':' || *end == '-') && !t->allowed_known)
		t->bound_cpu = (int)cpu;
	t->inferred |= SR_INF_AFFINITY;
}

static void aff_seen(const struct sr_replay *r, struct sr_task *t, int cpu)
{
	uint64_t w;
	int c;

	/* pinned by a fork's evidence (aff_fork), seen elsewhere: not pinned there */
	if (cpu >= 0 && cpu != t->fork_pin - 1)
		t->fork_pin = 0;
	if (cpu < 0 || cpu >= 64)
		return;
	t->seen_cpus |= 1ULL << cpu;
	/*
	 * on a CPU that shares no LLC with any it was seen on since: a move
	 * across LLCs (a wakeup there, a balance, a new mask); the wakeup
	 * mask rule (aff_wake_refused()) counts from here
	 */
	for (w = t->wake_seen; w; w &= w - 1) {
		c = __builtin_ctzll(w);
		if (c < r->topo->ncpus && sr_cpus_share_cache(r->topo, c, cpu))
			break;
	}
	if (t->wake_seen && !w) {
		t->wake_seen = 0;
		aff_wake_forget(t);
	}
	t->wake_seen |= 1ULL << cpu;
	t->aff_denied &= ~(1ULL << cpu);
	t->aff_off &= ~(1ULL << cpu);
}

/*
 * @t is queued or runs on @cpu, which its inferred mask denies: the kernel
 * puts a task only on a CPU of its cpus_ptr (select_task_rq() and
 * can_migrate_task(), 6.1 and 6.12), so the mask changed since it was
 * inferred (a sched_setaffinity() the trace does not show, as taskset -p
 * gives).  The new mask holds @cpu and is taken as the smallest sched
 * domain span of @cpu that holds every CPU @t was seen on since the old
 * mask was inferred (taskset masks are a CPU, a cache, a node or all);
 * past the widest domain, every CPU.  A node-pinned task seen on two CPUs
 * of its node keeps the other nodes denied; one seen across nodes, none.
 */
static void aff_refuted(struct sr_replay *r, struct sr_task *t, int cpu)
{
	const struct sr_cpu_topo *ct;
	uint64_t seen, allowed = ~0ULL;
	int l;

	if (cpu < 0 || cpu >= 64 || cpu >= r->topo->ncpus || !(t->aff_denied >> cpu & 1) ||
	    !aff_unknown(t))
		return;
	ct = &r->topo->cpu[cpu];
	seen = t->seen_cpus | 1ULL << cpu;
	for (l = 0; l < ct->ndomains; l++)
		if (!(seen & ~ct->dom[l].span[0])) {
			allowed = ct->dom[l].span[0];
			break;
		}
	t->aff_denied &= ~allowed;
}

/* a new mask the trace does not show: what was learnt of the old one goes */
static void aff_reset(const struct sr_replay *r, struct sr_task *t, int cpu)
{
	aff_wake_forget(t);
	t->wake_seen = 0;
	t->seen_cpus = 0;
	t->aff_denied = 0;
	t->aff_refusals = 0;
	t->aff_off = 0;
	aff_seen(r, t, cpu);
}

static struct sr_task *task_get(struct sr_replay *r, int pid, const char *comm, int prio)
{
	struct sr_task **slot, *t;

	if (pid <= 0)
		return NULL;
	slot = task_slot(r, pid);
	t = *slot;
	if (!t) {
		if ((r->ntasks + 1) * 2 > r->cap) {
			if (grow(r))
				return NULL;
			slot = task_slot(r, pid);
		}
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->pid = pid;
		t->tgid = -1;
		t->cpu = -1;
		t->prio = 120;
		t->weight = SR_NICE0_WEIGHT;
		t->kthread = -1;
		t->kname = -1;
		t->bound_cpu = -1;
		t->last_wakee = -1;
		t->recent_used_cpu = -1;
		t->lb_cpu = -1;
		t->ttwu_cpu = -1;
		t->tg_pos = -1;
		*slot = t;
		r->ntasks++;
		r->stats.tasks_seen++;
	}
	if (comm && comm[0] && strcmp(t->comm, comm)) {
		sr_strlcpy(t->comm, comm, sizeof(t->comm));
		t->kname = -1;
		if (!t->snapshot && (t->kthread < 0 || (t->inferred & SR_INF_KTHREAD)))
			infer_kthread(t);
	}
	if (prio >= 0 && prio != t->prio) {
		t->prio = prio;
		t->weight = sr_prio_to_weight(prio);
	}
	return t;
}

struct sr_task *sr_state_task_get(struct sr_replay *r, int pid)
{
	return task_get(r, pid, NULL, -1);
}

/* ---- cfs_tasks: per-CPU lists, most recently run first (schedreplay-models(7) §2.4) ---- */

static void lb_unlink(struct sr_replay *r, struct sr_task *t)
{
	int cpu = t->lb_cpu;

	if (cpu < 0)
		return;
	if (t->lb_prev)
		t->lb_prev->lb_next = t->lb_next;
	else
		r->lb_head[cpu] = t->lb_next;
	if (t->lb_next)
		t->lb_next->lb_prev = t->lb_prev;
	else
		r->lb_tail[cpu] = t->lb_prev;
	t->lb_next = t->lb_prev = NULL;
	t->lb_cpu = -1;
}

static void lb_link_head(struct sr_replay *r, struct sr_task *t, int cpu)
{
	lb_unlink(r, t);
	t->lb_cpu = cpu;
	t->lb_prev = NULL;
	t->lb_next = r->lb_head[cpu];
	if (t->lb_next)
		t->lb_next->lb_prev = t;
	else
		r->lb_tail[cpu] = t;
	r->lb_head[cpu] = t;
}

/*
 * The kernel chose @cpu for the waking @t, from @waker_cpu: until its
 * sched_wakeup the wakeup is on @cpu's wakelist (rq->ttwu_pending) or
 * being activated there, and idle_cpu(@cpu) is false (schedreplay-models(7)
 * §2.1).  A wakeup onto the waker's own CPU is activated at once.
 */
static void ttwu_mark(struct sr_replay *r, struct sr_task *t, int cpu, int waker_cpu)
{
	if (t->ttwu_cpu >= 0 || cpu < 0 || cpu >= r->topo->ncpus || cpu == waker_cpu)
		return;
	t->ttwu_cpu = cpu;
	r->rq[cpu].ttwu_pending++;
}

static void ttwu_clear(struct sr_replay *r, struct sr_task *t)
{
	if (t->ttwu_cpu < 0)
		return;
	if (r->rq[t->ttwu_cpu].ttwu_pending > 0)
		r->rq[t->ttwu_cpu].ttwu_pending--;
	t->ttwu_cpu = -1;
}

static void task_remove(struct sr_replay *r, int pid)
{
	struct sr_task **slot = task_slot(r, pid), *t = *slot;
	size_t i, j;
	int c;

	if (!t)
		return;
	lb_unlink(r, t);
	ttwu_clear(r, t);
	sr_tg_set(r, t, 0);
	/* no CPU may keep waiting on it or on its decision */
	for (c = 0; c < r->topo->ncpus; c++) {
		if (r->await[c] == t)
			r->await[c] = NULL;
		if (t->pending && r->selected[c] == t->pending)
			r->selected[c] = NULL;
	}
	if (t->util_est_queued && t->cpu >= 0) {
		unsigned long *ue = &r->rq[t->cpu].util_est;

		*ue = *ue > t->util_est ? *ue - t->util_est : 0;
	}
	if (t->waking && r->nwaking > 0)
		r->nwaking--;
	sr_dec_pending_free(t->pending);
	free(t);
	*slot = NULL;
	r->ntasks--;
	/* re-insert the rest of the cluster (linear probing deletion) */
	i = (size_t)(slot - r->tasks);
	for (j = (i + 1) & (r->cap - 1); r->tasks[j]; j = (j + 1) & (r->cap - 1)) {
		struct sr_task *m = r->tasks[j];

		r->tasks[j] = NULL;
		*task_slot(r, m->pid) = m;
	}
}

/* ---- PELT bookkeeping ---------------------------------------------------- */

static unsigned long sub_clamp(unsigned long a, unsigned long b);
static void tick_held(struct sr_replay *r, int cpu, long long kload, uint64_t now);

/*
 * tick_held(): a removal below the engine's usual error on a CPU's load
 * (about 100 where the guest recordings' probes show it) tells nothing;
 * fork_inputs_as_read() needs this many probes that told
 */
#define SR_TICK_RM_MIN		100
#define SR_TICK_EVIDENCE	8

/* sr_task.delay_next: what delay_switch() found for a blocking prev */
#define DELAY_KEPT		1	/* not eligible: stays queued, sched_delayed */
#define DELAY_LAG_TAKEN		2	/* leaves; its lag taken at the block */

/*
 * schedreplay-models(7) §3.4: update_cfs_rq_load_avg() (kernel/sched/fair.c,
 * 6.1 and 6.12) first takes what remove_entity_load_avg() left in
 * cfs_rq->removed out of the averages and their sums (sum = avg * divider),
 * keeping each sum at least avg * PELT_MIN_DIVIDER
 */
static void removed_apply(struct sr_replay *r, int cpu)
{
	struct sr_removed *rm = &r->removed[cpu];
	struct sr_pelt *sa = &r->rq[cpu].cfs;
	uint64_t divider = SR_PELT_MAX - 1024 + sa->period_contrib, min = SR_PELT_MAX - 1024;
	uint64_t sum;

	if (!rm->nr)
		return;
	sa->load_avg = sub_clamp(sa->load_avg, rm->load);
	sa->load_sum = sa->load_sum > rm->load * divider ? sa->load_sum - rm->load * divider : 0;
	if (sa->load_sum < sa->load_avg * min)
		sa->load_sum = sa->load_avg * min;
	sa->util_avg = sub_clamp(sa->util_avg, rm->util);
	sum = sa->util_sum > rm->util * divider ? sa->util_sum - rm->util * divider : 0;
	sa->util_sum = (uint32_t)(sum < sa->util_avg * min ? sa->util_avg * min : sum);
	sa->runnable_avg = sub_clamp(sa->runnable_avg, rm->runnable);
	sa->runnable_sum = sa->runnable_sum > rm->runnable * divider ?
			   sa->runnable_sum - rm->runnable * divider : 0;
	if (sa->runnable_sum < sa->runnable_avg * min)
		sa->runnable_sum = sa->runnable_avg * min;
	memset(rm, 0, sizeof(*rm));
	r->nremoved--;
}

/*
 * task_dead_fair() -> remove_entity_load_avg() (6.1, 6.12): a task that died
 * on @cpu leaves its averages (synced to the cfs_rq's last update) in
 * cfs_rq->removed.  finish_task_switch() calls it after the switch that
 * dequeued the task and updated the cfs_rq, so the CPU's signal still holds
 * them until its next update_cfs_rq_load_avg()
 */
static void removed_add(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	struct sr_removed *rm;

	if (!t->attached || t->cpu < 0)
		return;
	rm = &r->removed[t->cpu];
	if (!rm->nr)
		r->nremoved++;
	rm->nr++;
	rm->ts = now;
	if (now + 1000000000ULL / (uint64_t)r->hz < r->removed_next || r->nremoved == 1)
		r->removed_next = now + 1000000000ULL / (uint64_t)r->hz;
	rm->load += t->pelt.load_avg;
	rm->util += t->pelt.util_avg;
	rm->runnable += t->pelt.runnable_avg;
	t->attached = 0;
	/*
	 * the group's cfs_rq propagates the removal at its next update
	 * (update_cfs_rq_load_avg()'s add_tg_cfs_propagate()), taken as now
	 */
	if (t->tg > 0)
		sr_tg_update(r, t->tg, t->cpu, now, -1, 0);
}

/*
 * A sleeping task woken onto another CPU: try_to_wake_up() ->
 * set_task_cpu() -> migrate_task_rq_fair() -> remove_entity_load_avg()
 * (6.1, 6.12; the task is not on a runqueue, so not the immediate
 * detach_entity_load_avg() of a balance's migration): its averages wait in
 * the old CPU's cfs_rq->removed for that CPU's next update, as a dead
 * task's do (removed_add())
 */
static void leave_lazily(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	removed_add(r, t, now);
}

/*
 * A removal the engine's tick rule takes off a CPU (removed_due()) is
 * remembered until the trace shows that CPU again (any event on it, or an
 * update of its signal), for tick_held() and fork_inputs_as_read()
 */
static void tick_rm_add(struct sr_replay *r, int cpu)
{
	struct sr_removed *t = &r->tick_rm[cpu];
	const struct sr_removed *rm = &r->removed[cpu];

	if (!t->nr)
		memset(t, 0, sizeof(*t));
	t->load += rm->load;
	t->util += rm->util;
	t->runnable += rm->runnable;
	t->ts = rm->ts;
	t->nr++;
}

/* removed_apply() undone: @t's averages and sums back on the cfs_rq's signal @sa */
static void removed_undo(struct sr_pelt *sa, const struct sr_removed *t)
{
	uint64_t divider = SR_PELT_MAX - 1024 + sa->period_contrib;

	sa->load_avg += t->load;
	sa->load_sum += t->load * divider;
	sa->util_avg += t->util;
	sa->util_sum = (uint32_t)(sa->util_sum + t->util * divider);
	sa->runnable_avg += t->runnable;
	sa->runnable_sum += t->runnable * divider;
}

/*
 * A removal the tick rule took off @cpu (@t, from tick_rm_add()) that a
 * probe shows still on the kernel's signal: the tick had not come, so
 * update_cfs_rq_load_avg() (kernel/sched/fair.c, 6.1 and 6.12) has not
 * emptied cfs_rq->removed yet either.  The averages get it back and it is
 * pending again, for the CPU's next update (an enqueue there, a switch, or
 * the tick, which the tick rule now expects 1/HZ after the probe @now) to
 * take off, as the kernel's will.
 */
static void removed_unapply(struct sr_replay *r, int cpu, const struct sr_removed *t,
			    uint64_t now)
{
	struct sr_removed *rm = &r->removed[cpu];
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;

	removed_undo(&r->rq[cpu].cfs, t);
	if (!rm->nr)
		r->nremoved++;
	rm->ts = now;
	rm->nr += t->nr;
	rm->load += t->load;
	rm->util += t->util;
	rm->runnable += t->runnable;
	if (rm->ts + tick < r->removed_next || r->nremoved == 1)
		r->removed_next = rm->ts + tick;
}

/*
 * The CPU's next update: any later event the engine updates its signal at
 * (a switch: put_prev_entity() / set_next_entity(); an enqueue, a dequeue,
 * an attach or a detach), or, on a CPU running a task, the tick
 * (entity_tick() -> update_load_avg()), which has come for certain 1/HZ
 * after the removal (its phase is not traced).  An idle CPU's
 * update_blocked_averages() empties cfs_rq->removed as well: at its own
 * tick while that runs (run_rebalance_domains(), 6.1;
 * sched_balance_softirq(), 6.12) and at the idle balances a busy CPU's tick
 * kicks (_nohz_idle_balance() -> update_nohz_stats()), none of them
 * traced; the rqstat input probe shows idle CPUs' removals gone as soon as
 * a busy CPU's (sr_view_cpu_signal_read()), so the same 1/HZ is taken.
 */
static void removed_due(struct sr_replay *r, uint64_t now)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz, next = UINT64_MAX;
	int cpu;

	/* none is due yet: no scan at every event */
	if (now < r->removed_next)
		return;
	for (cpu = 0; cpu < r->topo->ncpus && r->nremoved; cpu++) {
		if (!r->removed[cpu].nr)
			continue;
		if (now >= r->removed[cpu].ts + tick) {
			tick_rm_add(r, cpu);
			removed_apply(r, cpu);
		} else if (r->removed[cpu].ts + tick < next)
			next = r->removed[cpu].ts + tick;
	}
	r->removed_next = next;
}

static void rq_pelt_advance(struct sr_replay *r, int cpu, uint64_t now);
static void rq_pelt_update(struct sr_replay *r, int cpu, uint64_t now);

static int ksoftirqd_name(const char *comm)
{
	/* the first byte first: called for most events, and most tasks are not ksoftirqd */
	return comm[0] == 'k' && !strncmp(comm, "ksoftirqd/", 10);
}

/*
 * A softirq shows the tick of a busy CPU (schedreplay-models(7) §3.4): the
 * tick's update_process_times() (kernel/time/timer.c, 6.1 and 6.12) raises
 * TIMER_SOFTIRQ in run_local_timers() and then calls scheduler_tick()
 * (sched_tick() since 6.10) -> task_tick_fair() -> entity_tick() ->
 * update_load_avg(), whose update_cfs_rq_load_avg() takes what
 * cfs_rq->removed holds off the CPU's signal; the softirqs run at the
 * interrupt's exit, right after it, in the context of the task it
 * interrupted.  So an event a softirq emits in the context of the CPU's
 * running CFS task (the jiffy timers' wakeups, RCU's, the periodic
 * balance's migrations) comes just after that CPU's cfs_rq was updated:
 * the removals pending there since before it are gone.  Not while that
 * CPU's ksoftirqd is woken and has not run: __do_softirq() (6.1, 6.12)
 * leaves work it could not finish to ksoftirqd, and what runs of it until
 * then, at some later interrupt's exit or local_bh_enable(), follows no
 * tick; nor in ksoftirqd itself.
 */
static void softirq_tick(struct sr_replay *r, const struct sr_event *ev)
{
	int cpu = ev->cpu;
	const struct sr_task *cur;

	/* ksoftirqd/N is bound to N: its wakeup names its CPU */
	if ((ev->kind == SR_EV_WAKING || ev->kind == SR_EV_WAKEUP) && ksoftirqd_name(ev->comm) &&
	    ev->target_cpu >= 0)
		r->ksoftirqd_woken[ev->target_cpu] = 1;
	else if (ev->kind == SR_EV_SWITCH && ksoftirqd_name(ev->comm2))
		r->ksoftirqd_woken[cpu] = 0;
	if (!ev->softirq || !r->removed[cpu].nr || ev->ts <= r->removed[cpu].ts ||
	    r->ksoftirqd_woken[cpu] || ev->common_pid <= 0 || ev->common_pid != r->rq[cpu].curr ||
	    !r->rq[cpu].curr_cfs)
		return;
	cur = *task_slot(r, ev->common_pid);
	if (!cur || ksoftirqd_name(cur->comm))
		return;
	rq_pelt_update(r, cpu, ev->ts);
}

/* bring cpu's root cfs_rq signal to @now with what it held since */
static void rq_pelt_update(struct sr_replay *r, int cpu, uint64_t now)
{
	/* an update the trace shows: whatever the tick left pending is gone */
	r->tick_rm[cpu].nr = 0;
	if (r->removed[cpu].nr && now > r->removed[cpu].ts)
		removed_apply(r, cpu);
	rq_pelt_advance(r, cpu, now);
}

/* the same, a pending removal left pending */
static void rq_pelt_advance(struct sr_replay *r, int cpu, uint64_t now)
{
	struct sr_rq *rq = &r->rq[cpu];

	if (!rq->cfs.last_update) {
		rq->cfs.last_update = now;
		return;
	}
	/*
	 * __update_load_avg_cfs_rq(): delayed tasks keep their weight in
	 * load.weight; the runnable sum leaves them out from 6.13 and 6.12.7
	 * ("More PELT vs DELAYED_DEQUEUE": h_nr_queued - h_nr_delayed)
	 */
	sr_pelt_update(&rq->cfs, now, rq->cfs_weight,
		       rq->cfs_nr - (sr_kgen_has(&r->kgen, SR_KF_DELAYED_NOT_RUNNABLE) ?
				     rq->nr_delayed : 0), rq->curr_cfs, 1);
}

/* a task's own signal over its last interval (RUNNING/QUEUED/BLOCKED) */
static void task_pelt_update(struct sr_task *t, uint64_t now)
{
	int on_rq = t->state == SR_TASK_RUNNING || t->state == SR_TASK_QUEUED;

	if (!t->pelt.last_update) {
		t->pelt.last_update = now;
		return;
	}
	/*
	 * __update_load_avg_se(): new averages clear UTIL_AVG_UNCHANGED; a
	 * delayed task is on the queue but not runnable (se_runnable(), 6.12)
	 */
	if (sr_pelt_update(&t->pelt, now, on_rq, on_rq && !t->delayed,
			   t->state == SR_TASK_RUNNING, t->weight))
		t->util_est_unchanged = 0;
}

#define UTIL_EST_MARGIN		(SR_SCHED_CAPACITY / 100)
#define UTIL_EST_WEIGHT_SHIFT	2

/* within_margin() of 6.1's util_est_update(): -margin < value < margin */
static int within_margin(long value, long margin)
{
	return value > -margin && value < margin;
}

/*
 * util_est_update() of 6.1 (kernel/sched/fair.c, before v6.8), at a
 * dequeue for sleep: the sample (util_est.enqueued) is util_avg now; with
 * UTIL_EST_FASTUP a larger sample becomes the EWMA at once; a sample
 * within 1% of the EWMA is stored only if it moved 1% from the last one;
 * a task whose util_avg exceeds its CPU's capacity stores nothing; else the
 * EWMA moves a quarter of the way to the sample.  No runnable_avg test: a
 * task that waited on the queue decays as one that did not.  The task's
 * _task_util_est() is max(ewma, enqueued), which is the EWMA itself here:
 * each store leaves the sample at or below it.
 */
static void util_est_update_v61(struct sr_task *t, const struct sr_topology *topo)
{
	long ewma = (long)t->util_est, enq = (long)t->pelt.util_avg, diff;

	if (t->util_est_unchanged)
		return;
	if (ewma < enq) {
		ewma = enq;
		goto done;
	}
	diff = enq - ewma;
	if (within_margin(diff, UTIL_EST_MARGIN)) {
		if (!within_margin((long)t->util_est_enq - enq, UTIL_EST_MARGIN))
			goto done;
		return;
	}
	if (t->cpu >= 0 && topo->cpu[t->cpu].capacity > 0 &&
	    enq > (long)topo->cpu[t->cpu].capacity)
		return;
	ewma = ((ewma << UTIL_EST_WEIGHT_SHIFT) + diff) >> UTIL_EST_WEIGHT_SHIFT;
done:
	t->util_est = (unsigned long)ewma;
	t->util_est_enq = (unsigned long)enq;
	t->util_est_unchanged = 1;
}

/*
 * util_est_update() as of v6.8+ (kernel/sched/fair.c), at a dequeue for
 * sleep, after the dequeue's PELT update: the EWMA jumps up to a larger
 * sample, ignores one within 1%, skips a CPU-bound task and one that did
 * not get all the CPU it wanted, else moves 1/4 of the way down.  Before
 * v6.8 (no SR_KF_UTIL_EST_EWMA): util_est_update_v61().
 */
static void util_est_update(struct sr_replay *r, struct sr_task *t)
{
	const struct sr_topology *topo = r->topo;
	unsigned long ewma = t->util_est, dequeued = t->pelt.util_avg, diff;

	if (!sr_kgen_has(&r->kgen, SR_KF_UTIL_EST_EWMA)) {
		util_est_update_v61(t, topo);
		return;
	}
	if (t->util_est_unchanged)
		return;
	if (ewma <= dequeued) {
		ewma = dequeued;
		goto done;
	}
	diff = ewma - dequeued;
	if (diff < UTIL_EST_MARGIN)
		goto done;
	if (t->cpu >= 0 && topo->cpu[t->cpu].capacity > 0 &&
	    dequeued > (unsigned long)topo->cpu[t->cpu].capacity)
		return;
	if (dequeued + UTIL_EST_MARGIN < t->pelt.runnable_avg)
		goto done;
	ewma = ((ewma << UTIL_EST_WEIGHT_SHIFT) - diff) >> UTIL_EST_WEIGHT_SHIFT;
done:
	t->util_est = ewma;
	t->util_est_unchanged = 1;
}

/*
 * The util_est sample of a sleep (dequeue_task_fair() with DEQUEUE_SLEEP),
 * kept so that the next wakeup's select_rq probe can redo it: the probe's
 * load, util and runnable fields are p->se.avg as of the task's last update,
 * its dequeue for that sleep, the very values util_est_update() read then
 * (6.1, 6.12).  Not for a delayed sleep (6.12): the task's signal was
 * updated again at the pick that dequeued it.
 */
static void util_est_sample(struct sr_replay *r, struct sr_task *t)
{
	t->util_est_was = t->util_est;
	t->util_est_enq_was = t->util_est_enq;
	t->util_est_unchanged_was = t->util_est_unchanged;
	util_est_update(r, t);
	t->util_est_redo = 1;
}

static unsigned long sub_clamp(unsigned long a, unsigned long b)
{
	return a > b ? a - b : 0;
}

/*
 * attach_entity_load_avg() (kernel/sched/fair.c, the same in 6.1, 6.12 and
 * 6.18): the task's signal joins the cpu's, its decay window aligned with
 * the cfs_rq's (last_update_time, period_contrib) and its sums rebuilt from
 * its averages.  So the two cross their period boundaries together: a child
 * that lives less than a period still has its running time in its averages
 * when a boundary fell in its life, and its removal takes it away again;
 * with a window of its own from its fork, it would cross none and leave its
 * running time in the cpu's averages for good.
 */
static void attach(struct sr_replay *r, struct sr_task *t, int cpu)
{
	struct sr_rq *rq = &r->rq[cpu];

	if (t->attached)
		return;
	sr_pelt_align(&t->pelt, &rq->cfs, t->weight);
	rq->cfs.load_avg += t->pelt.load_avg;
	rq->cfs.util_avg += t->pelt.util_avg;
	rq->cfs.runnable_avg += t->pelt.runnable_avg;
	rq->cfs.load_sum += t->pelt.load_sum * t->weight;
	rq->cfs.util_sum += t->pelt.util_sum;
	rq->cfs.runnable_sum += t->pelt.runnable_sum;
	t->attached = 1;
	t->attached_load = t->pelt.load_avg;
	t->attached_util = t->pelt.util_avg;
	t->attached_runnable = t->pelt.runnable_avg;
}

/* detach (migration away, death): the cpu loses what the task carries now */
static void detach(struct sr_replay *r, struct sr_task *t)
{
	struct sr_rq *rq;

	if (!t->attached || t->cpu < 0)
		return;
	rq = &r->rq[t->cpu];
	rq->cfs.load_avg = sub_clamp(rq->cfs.load_avg, t->pelt.load_avg);
	rq->cfs.util_avg = sub_clamp(rq->cfs.util_avg, t->pelt.util_avg);
	rq->cfs.runnable_avg = sub_clamp(rq->cfs.runnable_avg, t->pelt.runnable_avg);
	rq->cfs.load_sum = rq->cfs.load_sum > t->pelt.load_sum * t->weight ?
			   rq->cfs.load_sum - t->pelt.load_sum * t->weight : 0;
	rq->cfs.util_sum = rq->cfs.util_sum > t->pelt.util_sum ?
			   rq->cfs.util_sum - t->pelt.util_sum : 0;
	rq->cfs.runnable_sum = rq->cfs.runnable_sum > t->pelt.runnable_sum ?
			       rq->cfs.runnable_sum - t->pelt.runnable_sum : 0;
	/* detach_entity_load_avg(): each sum stays at least avg * PELT_MIN_DIVIDER */
	if (rq->cfs.util_sum < rq->cfs.util_avg * (SR_PELT_MAX - 1024))
		rq->cfs.util_sum = (uint32_t)(rq->cfs.util_avg * (SR_PELT_MAX - 1024));
	if (rq->cfs.runnable_sum < rq->cfs.runnable_avg * (SR_PELT_MAX - 1024))
		rq->cfs.runnable_sum = rq->cfs.runnable_avg * (SR_PELT_MAX - 1024);
	t->attached = 0;
	/* detach_entity_cfs_rq() -> propagate_entity_cfs_rq() */
	if (t->tg > 0)
		sr_tg_update(r, t->tg, t->cpu, r->now, -1, 0);
}

/* ---- EEVDF virtual time (6.6+) --------------------------------------------- */

static int on_rq(const struct sr_task *t);

static int eevdf(const struct sr_replay *r)
{
	return sr_kgen_has(&r->kgen, SR_KF_EEVDF);
}

/* calc_delta_fair(): @ns of running as @t's virtual time */
static int64_t vdelta(const struct sr_task *t, uint64_t ns)
{
	return (int64_t)(ns * SR_NICE0_WEIGHT / (t->weight ? t->weight : SR_NICE0_WEIGHT));
}

/* @t's vruntime at @now: update_curr() of the running task, not stored */
static int64_t vr_now(const struct sr_replay *r, const struct sr_task *t, uint64_t now)
{
	int64_t v = t->vruntime;

	if (t->state == SR_TASK_RUNNING && t->cpu >= 0 && r->rq[t->cpu].curr == t->pid &&
	    t->vr_start && now > t->vr_start)
		v += vdelta(t, now - t->vr_start);
	return v;
}

/*
 * avg_vruntime() (fair.c, 6.6+): the load-weighted mean vruntime V of
 * @cpu's queued CFS entities, curr and delayed ones included; the last V
 * while the queue is empty (zero_vruntime).  @load: their weight.
 *
 * The queue is the cfs_rq of task group @tg on @cpu (sr_task.tg: 0 the
 * root's tasks): a task's vruntime, lag and eligibility are kept against
 * the entities of its own cfs_rq (cfs_rq_of(se) in place_entity(),
 * update_entity_lag(), entity_eligible(), 6.6 - 6.18), and with autogroups
 * a session's tasks share a cfs_rq below the root.  The root's own cfs_rq
 * also holds the groups' entities, whose vruntimes no trace shows: the
 * root's V is its tasks' alone.
 */
/* the sums of avg_vruntime(): @t counts in the queue of group @tg on @cpu */
static inline int v_counts(const struct sr_replay *r, const struct sr_task *t, int cpu, int tg)
{
	return on_rq(t) && t->cpu == cpu && t != r->v_skip[0] && t != r->v_skip[1] && t->tg == tg;
}

/* a counted @t's term: vr_now(), here where t->cpu is the queue's */
static inline void v_add(const struct sr_rq *rq, const struct sr_task *t, uint64_t now,
			 __int128 *sum, unsigned long *w)
{
	int64_t v = t->vruntime;

	if (t->state == SR_TASK_RUNNING && rq->curr == t->pid && t->vr_start && now > t->vr_start)
		v += vdelta(t, now - t->vr_start);
	*sum += (__int128)t->weight * v;
	*w += t->weight;
}

/* V of the sums, kept as the queue's zero_vruntime; the last V while they are empty */
static inline int64_t v_mean(struct sr_rq *rq, __int128 sum, unsigned long w)
{
	/* the same quotient: a 64-bit division where the sum fits (__divti3 is slow) */
	if (w && sum >= INT64_MIN && sum <= INT64_MAX && w <= INT64_MAX)
		rq->vzero = (int64_t)sum / (int64_t)w;
	else if (w)
		rq->vzero = (int64_t)(sum / (__int128)w);
	return rq->vzero;
}

static int64_t avg_vruntime(struct sr_replay *r, int cpu, uint64_t now, unsigned long *load,
			    int tg)
{
	struct sr_rq *rq = &r->rq[cpu];
	const struct sr_task *t;
	__int128 sum = 0;
	unsigned long w = 0;

	/* the hottest loop of the replay */
	for (t = r->lb_head[cpu]; t; t = t->lb_next)
		if (v_counts(r, t, cpu, tg))
			v_add(rq, t, now, &sum, &w);
	if (load)
		*load = w;
	return v_mean(rq, sum, w);
}

/*
 * update_entity_lag() (6.6 to 6.18.0): the lag @t takes off the queue,
 * V - vruntime clamped to max(2 * slice, TICK_NSEC) of its time, the slice
 * sysctl_sched_base_slice (0.75 ms; 0.70 ms from 6.15 and 6.12.31, kgen) x
 * (1 + ilog2(min(ncpus, 8)))
 */
static void save_lag(struct sr_replay *r, struct sr_task *t, int64_t v_avg)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz, slice;
	int n = r->topo->ncpus < 8 ? r->topo->ncpus : 8, factor = 1;
	int64_t lag = v_avg - t->vruntime, lim;

	while (n >>= 1)
		factor++;
	slice = sr_kgen_base_slice_ns(&r->kgen) * (uint64_t)factor;
	lim = vdelta(t, 2 * slice > tick ? 2 * slice : tick);
	t->vlag = lag > lim ? lim : lag < -lim ? -lim : lag;
}

/*
 * place_entity() with PLACE_LAG (6.6+): the kept lag below V, scaled by
 * the queue's load with @t added; on an empty queue V itself
 */
static void place_entity(struct sr_replay *r, struct sr_task *t, int cpu, uint64_t now)
{
	unsigned long w;
	int64_t v_avg = avg_vruntime(r, cpu, now, &w, t->tg), lag = 0;

	if (w && t->vlag)
		lag = t->vlag * (int64_t)(w + t->weight) / (int64_t)w;
	t->vruntime = v_avg - lag;
}

/* ---- runqueue membership ----------------------------------------------- */

static void enqueue(struct sr_replay *r, struct sr_task *t, int cpu, uint64_t now)
{
	struct sr_rq *rq = &r->rq[cpu];
	int joins = !t->attached;

	rq_pelt_update(r, cpu, now);
	rq->nr_running++;
	t->enqueue_ts = now;
	if (is_fair(t)) {
		if (eevdf(r))
			place_entity(r, t, cpu, now);
		rq->cfs_nr++;
		rq->cfs_weight += t->weight;
		rq->runnable_load += (long)t->pelt.load_avg;
		t->queued_load = (int)t->pelt.load_avg;
		/* util_est_enqueue() */
		if (!t->util_est_queued) {
			rq->util_est += t->util_est;
			t->util_est_queued = 1;
		}
		attach(r, t, cpu);
		lb_link_head(r, t, cpu);
	} else {
		rq->rt_nr++;
	}
	t->cpu = cpu;
	/* enqueue_entity(): DO_ATTACH propagates a joining task's load_sum */
	if (is_fair(t) && t->tg > 0)
		sr_tg_update(r, t->tg, cpu, now, joins ? (long long)t->pelt.load_sum : 0, 1);
	aff_refuted(r, t, cpu);
	aff_seen(r, t, cpu);
}

/*
 * @t leaves its CPU's queue at @now; @settle: the CPU's update there takes
 * a pending removal off first (update_cfs_rq_load_avg()), else the removal
 * stays pending (a dequeue the trace proves only later, at a pick that came
 * before it)
 */
static void dequeue_from(struct sr_replay *r, struct sr_task *t, uint64_t now, int settle)
{
	struct sr_rq *rq;

	if (t->cpu < 0)
		return;
	rq = &r->rq[t->cpu];
	if (settle)
		rq_pelt_update(r, t->cpu, now);
	else
		rq_pelt_advance(r, t->cpu, now);
	if (eevdf(r) && is_fair(t) && t->lb_cpu == t->cpu) {
		/* a blocking prev's lag was taken at the block (delay_switch()) */
		if (t->delay_next != DELAY_LAG_TAKEN)
			save_lag(r, t, avg_vruntime(r, t->cpu, now, NULL, t->tg));
		/* finish_delayed_dequeue_entity(): DELAY_ZERO clips a positive lag */
		if (t->delayed && t->vlag > 0)
			t->vlag = 0;
	}
	if (t->delayed) {
		t->delayed = 0;
		if (rq->nr_delayed > 0)
			rq->nr_delayed--;
	}
	lb_unlink(r, t);
	if (rq->nr_running > 0)
		rq->nr_running--;
	if (is_fair(t)) {
		if (rq->cfs_nr > 0)
			rq->cfs_nr--;
		rq->cfs_weight = sub_clamp(rq->cfs_weight, t->weight);
		rq->runnable_load -= t->queued_load;
		if (rq->runnable_load < 0)
			rq->runnable_load = 0;
		t->queued_load = 0;
	} else if (rq->rt_nr > 0) {
		rq->rt_nr--;
	}
	/* util_est_dequeue() */
	if (t->util_est_queued) {
		rq->util_est = sub_clamp(rq->util_est, t->util_est);
		t->util_est_queued = 0;
	}
	if (is_fair(t) && t->tg > 0)
		sr_tg_update(r, t->tg, t->cpu, now, 0, 1);
}

static void dequeue(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	dequeue_from(r, t, now, 1);
}

/*
 * Make @t queued or running on @cpu, whatever we believed before: a task
 * first seen in a sched_switch was already there (trace start), and a
 * missed migration (lost events) is repaired the same way.
 */
static void ensure_on(struct sr_replay *r, struct sr_task *t, int cpu, uint64_t now)
{
	if (on_rq(t) && t->cpu == cpu)
		return;
	if (on_rq(t)) {
		dequeue(r, t, now);
		detach(r, t);
	} else if (t->cpu != cpu) {
		detach(r, t);
	}
	task_pelt_update(t, now);
	t->state = SR_TASK_QUEUED;
	enqueue(r, t, cpu, now);
}

/* ---- reconciling with what the trace proves ------------------------------ */

/*
 * @t is on no runqueue there, whatever the engine believed; where it is
 * the trace has not said: unknown until an event shows it (so that its
 * next switch in is no second contradiction)
 */
static void take_off(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	task_pelt_update(t, now);
	dequeue(r, t, now);
	t->state = SR_TASK_UNKNOWN;
}

/*
 * The kernel proved that @cpu had nothing runnable besides @keep (its
 * blocking curr) and the tasks @arrived says may have come meanwhile: take
 * the rest off its queue.  Return: how many the engine had there.
 */
static int queue_proven_empty(struct sr_replay *r, int cpu, int keep, uint64_t now,
			      int (*arrived)(const struct sr_task *t, uint64_t a, uint64_t b),
			      uint64_t a, uint64_t b)
{
	struct sr_task *t, *next;
	size_t i;
	int n = 0;

	for (t = r->lb_head[cpu]; t; t = next) {
		next = t->lb_next;
		if (t->pid != keep && t->state == SR_TASK_QUEUED && !arrived(t, a, b)) {
			/* a delayed task leaves at the pick before: no contradiction */
			n += !t->delayed;
			take_off(r, t, now);
		}
	}
	/* RT and DL tasks are on no cfs_tasks list */
	for (i = 0; r->rq[cpu].rt_nr > 0 && i < r->cap; i++) {
		t = r->tasks[i];
		if (t && t->pid != keep && !is_fair(t) && t->cpu == cpu &&
		    t->state == SR_TASK_QUEUED && !arrived(t, a, b)) {
			take_off(r, t, now);
			n++;
		}
	}
	return n;
}

/* a wakeup from another CPU landed in (a, b]: it may have come during the balance */
static int arrived_remote(const struct sr_task *t, uint64_t a, uint64_t b)
{
	return t->remote_wakeup_ts > a && t->remote_wakeup_ts <= b;
}

/* queued at or after a: it may have come during the balance */
static int arrived_since(const struct sr_task *t, uint64_t a, uint64_t b)
{
	(void)b;
	return t->enqueue_ts >= a;
}

static void record_wakee(struct sr_replay *r, struct sr_task *cur, int wakee, uint64_t now)
{
	uint64_t jiffies = now / (1000000000ULL / (uint64_t)r->hz);

	if (!cur)
		return;
	if (jiffies > cur->wakee_flip_decay + (uint64_t)r->hz) {
		cur->wakee_flips >>= 1;
		cur->wakee_flip_decay = jiffies;
	}
	if (cur->last_wakee != wakee) {
		cur->last_wakee = wakee;
		cur->wakee_flips++;
	}
}

static int settle_pull(struct sr_replay *r, int cpu, int next, int prev_blocked, uint64_t now);

/* a nohz idle-balance pass on the idle @ilb, seen at its first pull for another CPU */
static int nohz_pass(struct sr_replay *r, const struct sr_task *p, int ilb, int orig, int dest,
		     uint64_t now)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	int ret;

	if (r->nohz_last[ilb] && r->nohz_last[ilb] >= r->switch_ts[ilb] &&
	    now - r->nohz_last[ilb] <= tick) {
		/* the same pass */
		r->nohz_last[ilb] = now;
		return 0;
	}
	r->nohz_last[ilb] = now;
	ret = sr_dec_lb_close_newidle(r, ilb, now);
	/* a pull of its own still unsettled (no switch since): periodic, as in on_migrate */
	if (!ret)
		ret = settle_pull(r, ilb, -1, 0, now);
	if (ret)
		return ret;
	return sr_dec_lb_nohz(r, p, ilb, orig, dest, now);
}

/* ---- event handlers --------------------------------------------------------- */

static int emit_migration(struct sr_replay *r, const struct sr_migration *m)
{
	r->stats.migrations[m->kind]++;
	return r->mig_cb ? r->mig_cb(m, r->mig_data) : 0;
}

/*
 * A pull by @cpu in a task's context after which that task did not block,
 * or went on to emit events of its own before its switch (@next >= 0: told
 * at a switch): no balance.  sched_balance_newidle() (newidle_balance() in
 * 6.1) runs from __schedule() for a blocking task, between its dequeue and
 * its sched_switch, and the periodic and nohz balances only from
 * SCHED_SOFTIRQ (sched_balance_softirq(), run_rebalance_domains() in 6.1),
 * whose events carry the softirq flag; the idle loop's
 * nohz_run_idle_balance() only updates blocked load.  What moves a queued
 * CFS task from the context of another is affine_move_task() (6.1, 6.12):
 * sched_setaffinity() by the current task took the task's CPU from its
 * mask, and move_queued_task() put it on a CPU of the new one (here the
 * caller's); the caller returns to user space and may exit (taskset -p).
 * An RT task is pulled from __schedule()'s balance callback
 * (pull_rt_task()), so only CFS tasks count.
 */
static int pull_by_setaffinity(const struct sr_replay *r, const struct sr_task *p, int cpu,
			       int next, int prev_blocked)
{
	return next >= 0 && r->pull_task[cpu] && (!prev_blocked || r->pull_ran[cpu]) && p &&
	       is_fair(p);
}

/*
 * @p was moved off @orig by another task's sched_setaffinity(), whose mask
 * the trace does not show: what was learnt of the old mask goes, as for a
 * task moving itself, and @orig is out of the new one (affine_move_task()
 * moves a task only when its CPU is not in the new mask), for its wakeups
 * and newly idle balances until it is seen there
 */
static void aff_moved(const struct sr_replay *r, struct sr_task *p, int orig, int dest)
{
	if (!aff_unknown(p))
		return;
	aff_reset(r, p, dest);
	if (orig >= 0 && orig < 64 && orig != dest) {
		p->aff_off = 1ULL << orig;
		p->aff_denied = p->aff_off;
		p->inferred |= SR_INF_AFFINITY;
	}
}

/*
 * A pull by @dest in the context of the task in whose context its pending
 * pull came, before any switch: load_balance() runs in task context only
 * from sched_balance_newidle() (newidle_balance() in 6.1), periodic
 * balancing in SCHED_SOFTIRQ (6.1, 6.12), so both pulls were newly idle
 * balances.  With delayed dequeue (6.12) the first moved a sched_delayed
 * task that the pick dequeued (pick_next_entity(), no tracepoint), and
 * pick_next_task_fair() balanced again.
 */
static int pull_again(const struct sr_replay *r, const struct sr_event *ev, int dest)
{
	return ev->ctx == SR_CTX_TASK && ev->common_pid > 0 && r->pull[dest].pid > 0 &&
	       r->pull_task[dest] == ev->common_pid;
}

/* settle a pending self-pull on @cpu: newidle if the puller now switches to it */
/*
 * The open pull on @cpu was emitted by the idle task (or by no task the
 * trace names) on a CPU the engine held idle: sched_balance_newidle()
 * (newidle_balance() in 6.1) runs in the __schedule() of a task that
 * blocks, so this was the idle CPU's rebalance_domains() (CPU_IDLE, the
 * only hypothesis lb_open_pull evaluated), however the next switch reads
 */
static int idle_pull(const struct sr_replay *r, int cpu)
{
	const struct sr_lb_pending *pd = r->lbp[cpu];

	return pd && pd->open && pd->nhyp == 1 && pd->in[0].kind == SR_DEC_LB_PERIODIC;
}

static int settle_pull(struct sr_replay *r, int cpu, int next, int prev_blocked, uint64_t now)
{
	struct sr_migration m = r->pull[cpu];
	struct sr_task *p;
	int ret, again;

	if (m.pid <= 0)
		return 0;
	r->pull[cpu].pid = 0;
	again = r->pull_again[cpu];
	r->pull_again[cpu] = 0;
	p = *task_slot(r, m.pid);
	if (pull_by_setaffinity(r, p, cpu, next, prev_blocked)) {
		m.kind = SR_MIG_AFFINITY;
		sr_dec_lb_drop(r, cpu);
		/* unless it moved again since */
		if (p->cpu == m.dest_cpu)
			aff_moved(r, p, m.orig_cpu, m.dest_cpu);
		return emit_migration(r, &m);
	}
	/*
	 * newly idle when the blocking puller switches to the pulled task
	 * (from a task's context, however long __schedule() took: no periodic
	 * balance runs there, pull_by_setaffinity() has taken the rest); or,
	 * with delayed dequeue (6.12+), when the task pulled was sched_delayed:
	 * pick_next_task_fair() (6.12.117) goes "again" after
	 * sched_balance_newidle() pulled, pick_next_entity() dequeues the
	 * delayed entity it picks (DEQUEUE_DELAYED, no tracepoint) and the
	 * CPU runs another task or goes idle
	 */
	/*
	 * With the balance probes, the balance_rq the pulling CPU emitted just
	 * before (within a tick) names the load_balance() the pull came from:
	 * its idle type is CPU_NEWLY_IDLE from sched_balance_newidle()
	 * (newidle_balance() in 6.1), else a periodic pass's; this holds where
	 * the next switch would mislead, as when the task pulled was delayed
	 * and the CPU balances again before it switches
	 */
	if (r->pull_probed[cpu] && r->lbp[cpu] && r->lbp[cpu]->open && r->lbp[cpu]->nhyp == 2)
		m.kind = r->pull_probed[cpu] == SR_LB_IDLE_NEWLY + 1 ? SR_MIG_LB_NEWIDLE :
								       SR_MIG_LB_PERIODIC;
	else if (again && r->lbp[cpu] && r->lbp[cpu]->open && r->lbp[cpu]->nhyp == 2)
		m.kind = SR_MIG_LB_NEWIDLE;
	else if (prev_blocked && (next == m.pid || r->pull_delayed[cpu]) &&
		 (now - m.ts <= NEWIDLE_WINDOW_NS || r->pull_task[cpu]) && !idle_pull(r, cpu))
		m.kind = SR_MIG_LB_NEWIDLE;
	else
		m.kind = SR_MIG_LB_PERIODIC;
	/* the newidle pull proves the queue was empty (lb_open_pull) */
	if (m.kind == SR_MIG_LB_NEWIDLE &&
	    queue_proven_empty(r, cpu, r->rq[cpu].curr, now, arrived_since, r->pull_gap[cpu], 0))
		r->stats.reconciled[SR_REC_NEWIDLE_PULL]++;
	ret = emit_migration(r, &m);
	if (ret)
		return ret;
	/* the pull's balance decision: hypothesis 0 newidle (busy puller), 1 periodic */
	if (m.kind == SR_MIG_LB_NEWIDLE)
		return sr_dec_lb_close(r, cpu, 0, SR_DEC_LB_NEWIDLE, now);
	return sr_dec_lb_close(r, cpu, r->lbp[cpu] && r->lbp[cpu]->nhyp == 2 ? 1 : 0,
			SR_DEC_LB_PERIODIC, now);
}

/*
 * A switch proves that prev ran on the CPU (the engine's curr did not: where
 * that one is, the trace has not said) and that next was queued there; a
 * task the engine had on another CPU, asleep or dead is moved (ensure_on,
 * here for prev, in on_switch for next).  Tasks not seen yet (trace start)
 * and a CPU whose curr is unknown tell nothing.
 */
static void switch_proves(struct sr_replay *r, const struct sr_event *ev, struct sr_task *prev,
			  const struct sr_task *next, uint64_t now)
{
	struct sr_rq *rq = &r->rq[ev->cpu];
	int cpu = ev->cpu, n = 0;

	if (!rq->known)
		return;
	if (rq->curr >= 0 && rq->curr != (ev->pid > 0 ? ev->pid : 0)) {
		struct sr_task *c = rq->curr > 0 ? *task_slot(r, rq->curr) : NULL;

		if (c && c->state == SR_TASK_RUNNING && c->cpu == cpu)
			take_off(r, c, now);
		rq->curr = ev->pid > 0 ? ev->pid : 0;
		rq->curr_cfs = prev && is_fair(prev);
		n++;
	}
	if (prev && prev->state != SR_TASK_UNKNOWN && !(on_rq(prev) && prev->cpu == cpu)) {
		ensure_on(r, prev, cpu, now);
		n++;
	}
	if (prev && prev->state == SR_TASK_QUEUED && prev->cpu == cpu && rq->curr == prev->pid)
		prev->state = SR_TASK_RUNNING;
	if (next && next->state != SR_TASK_UNKNOWN && !(on_rq(next) && next->cpu == cpu))
		n++;
	if (n)
		r->stats.reconciled[SR_REC_SWITCH]++;
}

/* ---- delayed dequeue (6.12+) ---------------------------------------------- */

/*
 * The lag a delayed task takes off the queue at a pick (6.12 - 6.18.44):
 * pick_next_entity() dequeues a sched_delayed entity only when
 * pick_eevdf() returned it, so eligible (lag >= 0) or alone on the queue
 * (lag 0), and finish_delayed_dequeue_entity() with DELAY_ZERO clips a
 * positive lag: it sleeps with vlag 0, whatever the engine's estimate of V
 * says at the moment it takes the task off
 */
static void delay_zero_lag(struct sr_task *t)
{
	t->vlag = 0;
}

/*
 * the delayed @t leaves its queue (pick_next_entity() -> dequeue_entities());
 * @settle as dequeue_from()'s
 */
static void delay_leave_from(struct sr_replay *r, struct sr_task *t, uint64_t now, int settle)
{
	task_pelt_update(t, now);
	dequeue_from(r, t, now, settle);
	delay_zero_lag(t);
	t->state = SR_TASK_BLOCKED;
}

static void delay_leave(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	delay_leave_from(r, t, now, 1);
}

/*
 * A balance moved @t, which the engine had taken off @cpu's queue at its
 * blocking switch: the kernel still had it there as sched_delayed (6.12+:
 * detach_tasks() walks cfs_tasks, delayed tasks in, and can_migrate_task()
 * has no sched_delayed test before 6.14), so it goes back on the queue as
 * one before the balance is evaluated: its vruntime kept (no placement),
 * its util_est out (dequeue_task_fair() took it at the sleep)
 */
static void delay_proven(struct sr_replay *r, struct sr_task *t, int cpu, uint64_t now)
{
	struct sr_rq *rq = &r->rq[cpu];
	int64_t vruntime = t->vruntime;

	enqueue(r, t, cpu, now);
	t->vruntime = vruntime;
	if (t->util_est_queued) {
		rq->util_est = sub_clamp(rq->util_est, t->util_est);
		t->util_est_queued = 0;
	}
	t->delayed = 1;
	t->delay_proven = now;
	rq->nr_delayed++;
	t->state = SR_TASK_QUEUED;
	r->stats.reconciled[SR_REC_DELAYED]++;
}

/*
 * The delayed @t is proven off its queue at @now (a select_rq hit, or a
 * wakeup taken as a placement without the probe): a pick the trace does not
 * show dequeued it (DEQUEUE_DELAYED) some time before, most often at the
 * CPU's last switch, and so before the removal of a task that died there
 * (finish_task_switch() -> task_dead_fair() comes after the pick).  That
 * update of the CPU is not now: a removal pending there stays pending for
 * the CPU's next update (its next event, or the tick rule of removed_due())
 */
static void delay_left_before(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	delay_leave_from(r, t, now, 0);
}

/*
 * Delayed dequeue (6.12+ DELAY_DEQUEUE), at a switch on @cpu from @prev to
 * @next, before the engine applies it.  The kernel's order: __schedule()
 * blocks prev, and dequeue_entity() keeps a task that is not eligible
 * (entity_eligible(): its vruntime above V) queued as sched_delayed, unless
 * its state is special (T, t, P: DEQUEUE_SPECIAL); then the pick
 * (pick_next_entity()) dequeues every delayed task it picks, without a
 * tracepoint.  A pick that finds only delayed tasks takes them all and the
 * CPU goes idle, or newly idle balances; so a switch to idle or to a task a
 * newidle balance pulled drains the CPU (and prev, were it ineligible,
 * would be drained with it), and another CFS pick reaches the delayed
 * tasks that are eligible by then.  A pick of an RT or DL task never
 * reaches the fair class.
 */
static void delay_switch(struct sr_replay *r, const struct sr_event *ev, struct sr_task *prev,
			 const struct sr_task *next, int pulled, uint64_t now)
{
	struct sr_rq *rq = &r->rq[ev->cpu];
	struct sr_task *t, *tn;
	int cpu = ev->cpu, others = 0, sleeps, all, known, tg = 0;
	int64_t v_avg = 0;

	if (prev && prev->state == SR_TASK_RUNNING && prev->cpu == cpu && is_fair(prev)) {
		/* update_curr() */
		prev->vruntime = vr_now(r, prev, now);
		prev->vr_start = now;
	}
	if (prev)
		prev->delay_next = 0;
	if (!sr_kgen_has(&r->kgen, SR_KF_DELAY_DEQUEUE) || (next && !is_fair(next)))
		return;
	/* S, D or I (TASK_REPORT bits 0x01, 0x02, 0x80); T 0x04, t 0x08, P 0x40 are special */
	sleeps = prev && is_fair(prev) && ev->prev_state == SR_PREV_BLOCKED &&
		 !(ev->prev_state_raw & (0x04 | 0x08 | 0x40)) && on_rq(prev) &&
		 prev->cpu == cpu && rq->curr == prev->pid;
	for (t = r->lb_head[cpu]; t; t = t->lb_next)
		if (t != prev && on_rq(t) && t->cpu == cpu && !t->delayed &&
		    !(pulled && next && t->pid == next->pid))
			others++;
	all = !next || !others;
	if (sleeps) {
		/*
		 * dequeue_entity() at the block, before the pick drains anything:
		 * a prev not eligible stays as sched_delayed; if the pick then
		 * drains the CPU it takes prev off eligible or alone, vlag 0
		 * (delay_zero_lag()); an eligible prev leaves with its lag
		 * (update_entity_lag()) against V of this queue
		 */
		v_avg = avg_vruntime(r, cpu, now, NULL, prev->tg);
		if (prev->vruntime > v_avg && !all) {
			prev->delay_next = DELAY_KEPT;
		} else {
			if (prev->vruntime > v_avg)
				delay_zero_lag(prev);
			else
				save_lag(r, prev, v_avg);
			prev->delay_next = DELAY_LAG_TAKEN;
		}
	}
	if (!rq->nr_delayed)
		return;
	/* the pick: V of the queue prev has left, each delayed task against its own */
	if (sleeps && prev->delay_next == DELAY_LAG_TAKEN)
		r->v_skip[1] = prev;
	/* V once for the tasks of a group in a row, until one leaves (sr_state_delay_expire()) */
	known = 0;
	for (t = r->lb_head[cpu]; t; t = tn) {
		tn = t->lb_next;
		if (!t->delayed || t->cpu != cpu)
			continue;
		if (!all && (!known || tg != t->tg)) {
			v_avg = avg_vruntime(r, cpu, now, NULL, t->tg);
			tg = t->tg;
			known = 1;
		}
		if (all || t->vruntime <= v_avg) {
			delay_leave(r, t, now);
			known = 0;
		}
	}
	r->v_skip[1] = NULL;
}

/* the delayed tasks of a queue sr_state_delay_expire() looks at in one walk */
#define DELAY_EXPIRE_MAX 16

/* is a delayed @t eligible for a tick, against V @v_avg of a queue of weight @w? */
static int delay_due_at(const struct sr_replay *r, const struct sr_task *t, int64_t v_avg,
			unsigned long w)
{
	int64_t tick;

	if (!w)
		return 0;
	tick = (int64_t)(1000000000ULL / (uint64_t)r->hz * SR_NICE0_WEIGHT / w);
	return v_avg - t->vruntime >= tick;
}

/* a delayed @t on @cpu has been eligible for a tick: the tick's pick would dequeue it */
static int delay_due(struct sr_replay *r, const struct sr_task *t, int cpu, uint64_t now)
{
	unsigned long w;
	int64_t v_avg = avg_vruntime(r, cpu, now, &w, t->tg);

	return delay_due_at(r, t, v_avg, w);
}

/*
 * The picks the trace does not show: the tick after curr's slice ends
 * picks again (pick_eevdf()), and a delayed task eligible by then leaves.
 * Taken as: eligible for one tick of @cpu's virtual time (V grows by
 * NICE_0_LOAD / load.weight per ns of running).
 *
 * Called at every event: V is computed once for the delayed tasks of one
 * task group that follow each other in the queue, until one leaves it
 * (avg_vruntime() again would read the same queue and store the same
 * zero_vruntime; it was a sixth of the replay's instructions on the bench
 * trace).
 */
/* what sr_state_delay_expire() knows of V while it walks one queue */
struct delay_v {
	int64_t v_avg;
	unsigned long w;
	int known, tg, left;
	/* the root group's sums from the walk, while no task has left (@sum0 valid) */
	__int128 sum0;
	unsigned long w0;
	int have_sum0;
};

/* a delayed @t of @cpu's queue: V of its group (once per run of one group), and its leave */
static void delay_expire_one(struct sr_replay *r, int cpu, struct sr_task *t, uint64_t now,
			     struct delay_v *dv)
{
	if (!dv->known || dv->tg != t->tg) {
		if (dv->have_sum0 && !dv->left && !t->tg) {
			dv->v_avg = v_mean(&r->rq[cpu], dv->sum0, dv->w0);
			dv->w = dv->w0;
		} else {
			dv->v_avg = avg_vruntime(r, cpu, now, &dv->w, t->tg);
		}
		dv->tg = t->tg;
		dv->known = 1;
	}
	if (delay_due_at(r, t, dv->v_avg, dv->w)) {
		delay_leave(r, t, now);
		dv->known = 0;
		dv->left = 1;
	}
}

void sr_state_delay_expire(struct sr_replay *r, int cpu, uint64_t now)
{
	struct sr_rq *rq = &r->rq[cpu];
	struct sr_task *t, *tn, *due[DELAY_EXPIRE_MAX];
	struct delay_v dv = { 0 };
	int n = 0, i;

	if (!rq->nr_delayed)
		return;
	/*
	 * One walk finds the delayed tasks to look at and sums V's terms of
	 * the root group's queue, which holds them all but with task groups:
	 * until one leaves, that V is avg_vruntime()'s for them
	 */
	for (t = r->lb_head[cpu]; t; t = t->lb_next) {
		/* the trace proves it still queued now (delay_proven()) */
		if (t->delayed && t->cpu == cpu && t->delay_proven != now) {
			if (n == DELAY_EXPIRE_MAX)
				break;
			due[n++] = t;
		}
		if (v_counts(r, t, cpu, 0))
			v_add(rq, t, now, &dv.sum0, &dv.w0);
	}
	if (!t) {
		dv.have_sum0 = 1;
		for (i = 0; i < n; i++)
			delay_expire_one(r, cpu, due[i], now, &dv);
		return;
	}
	/* more delayed tasks than room: each against the queue as it is then */
	for (t = r->lb_head[cpu]; t; t = tn) {
		tn = t->lb_next;
		if (t->delayed && t->cpu == cpu && t->delay_proven != now)
			delay_expire_one(r, cpu, t, now, &dv);
	}
}

/*
 * ttwu_runnable() -> enqueue_task(ENQUEUE_DELAYED) -> requeue_delayed_entity()
 * (6.12): the woken delayed task is runnable again where it is, its util_est
 * back in the queue's; DELAY_ZERO drops a positive lag (vruntime = V)
 */
static void delay_wake(struct sr_replay *r, struct sr_task *p, uint64_t now)
{
	struct sr_rq *rq = &r->rq[p->cpu];
	int64_t v_avg;

	rq_pelt_update(r, p->cpu, now);
	task_pelt_update(p, now);
	p->delayed = 0;
	if (rq->nr_delayed > 0)
		rq->nr_delayed--;
	v_avg = avg_vruntime(r, p->cpu, now, NULL, p->tg);
	if (v_avg > p->vruntime)
		p->vruntime = v_avg;
	if (!p->util_est_queued) {
		rq->util_est += p->util_est;
		p->util_est_queued = 1;
	}
	p->enqueue_ts = now;
	r->stats.delayed_woken++;
}

static int on_switch(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_rq *rq = &r->rq[ev->cpu];
	struct sr_task *prev = task_get(r, ev->pid, ev->comm, ev->prio);
	struct sr_task *next = task_get(r, ev->pid2, ev->comm2, ev->prio2);
	uint64_t now = ev->ts;
	int blocked = ev->prev_state == SR_PREV_BLOCKED || ev->prev_state == SR_PREV_DEAD;
	int ret, pulled;

	if ((ev->pid > 0 && !prev) || (ev->pid2 > 0 && !next))
		return -SR_E_NOMEM;
	ret = sr_dec_lb_close_newidle(r, ev->cpu, now);
	if (ret)
		return ret;
	pulled = r->pull[ev->cpu].pid > 0 && blocked && ev->pid2 == r->pull[ev->cpu].pid &&
		 now - r->pull[ev->cpu].ts <= NEWIDLE_WINDOW_NS;
	ret = settle_pull(r, ev->cpu, ev->pid2, blocked, now);
	if (ret)
		return ret;
	switch_proves(r, ev, prev, next, now);
	if (prev && ev->prev_state == SR_PREV_BLOCKED)
		prev->slept_d = ev->prev_state_raw >= 0 && (ev->prev_state_raw & 0x02);
	/*
	 * The task a newidle balance pulled for this switch was not on the
	 * queue when __schedule() blocked prev, nor at the pick that drained
	 * the delayed tasks: the newidle balance runs after both, from
	 * pick_next_task_fair() (newidle_balance(), sched_balance_newidle()
	 * from 6.10; 6.6 - 6.18.44); V leaves it out until prev has left (its
	 * eligibility, its lag)
	 */
	r->v_skip[0] = pulled ? next : NULL;
	delay_switch(r, ev, prev, next, pulled, now);
	/*
	 * A blocking task's switch to the idle task: pick_next_task() found
	 * nothing runnable (after the newidle balance), so what the engine
	 * has queued there besides wakeups that may have landed during the
	 * balance (lb_newidle) is not there
	 */
	if (prev && blocked && !pulled && ev->pid2 == 0 && rq->known && rq->curr == prev->pid &&
	    on_rq(prev) && prev->cpu == ev->cpu &&
	    queue_proven_empty(r, ev->cpu, prev->pid, now, arrived_remote, r->last_local[ev->cpu],
			       now))
		r->stats.reconciled[SR_REC_IDLE_SWITCH]++;
	/* newly idle: the blocking task leaves nothing to run (schedreplay-models(7) §8.4) */
	if (prev && blocked && !pulled && rq->known && rq->curr == prev->pid &&
	    on_rq(prev) && prev->cpu == ev->cpu) {
		ret = sr_dec_lb_newidle(r, prev, ev->cpu, now);
		if (ret)
			return ret;
	}
	r->switch_ts[ev->cpu] = now;
	r->nib_levels[ev->cpu] = 0;
	if (prev)
		prev->exec_start = now;
	if (next)
		next->exec_start = now;
	rq->known = 1;
	if (prev) {
		ensure_on(r, prev, ev->cpu, now);
		task_pelt_update(prev, now);
		rq_pelt_update(r, ev->cpu, now);
		if (ev->prev_state == SR_PREV_RUNNABLE || ev->prev_state == SR_PREV_PREEMPTED ||
		    ev->prev_state == SR_PREV_UNKNOWN) {
			prev->state = SR_TASK_QUEUED;
		} else if (prev->delay_next == DELAY_KEPT) {
			/* sched_delayed: still queued, its weight in load.weight */
			prev->delay_next = 0;
			prev->delayed = 1;
			rq->nr_delayed++;
			prev->state = SR_TASK_QUEUED;
			/* dequeue_task_fair() still runs util_est_dequeue() and _update() */
			if (prev->util_est_queued) {
				rq->util_est = sub_clamp(rq->util_est, prev->util_est);
				prev->util_est_queued = 0;
			}
			util_est_update(r, prev);
			prev->util_est_redo = 0;
			r->stats.delayed_sleeps++;
		} else {
			dequeue(r, prev, now);
			prev->delay_next = 0;
			/* DEQUEUE_SLEEP: a new util_est sample */
			if (is_fair(prev))
				util_est_sample(r, prev);
			prev->state = ev->prev_state == SR_PREV_DEAD ? SR_TASK_DEAD : SR_TASK_BLOCKED;
			if (prev->state == SR_TASK_DEAD)
				removed_add(r, prev, now);
		}
	}
	r->v_skip[0] = NULL;
	rq_pelt_update(r, ev->cpu, now);
	if (next) {
		ensure_on(r, next, ev->cpu, now);
		aff_refuted(r, next, ev->cpu);
		aff_seen(r, next, ev->cpu);
		task_pelt_update(next, now);
		if (next->lb_cpu == ev->cpu)
			lb_link_head(r, next, ev->cpu);
		next->state = SR_TASK_RUNNING;
		next->util_est_redo = 0;
		next->vr_start = now;
		rq->curr = next->pid;
		rq->curr_cfs = is_fair(next);
	} else {
		rq->curr = 0;
		rq->curr_cfs = 0;
		rq->idle_stamp = now;
		sr_idle_scan_cpu_idle(r, ev->cpu);
	}
	/* the group entities that stop and start running (their util_sum) */
	if (prev && prev->tg > 0 && prev->cpu == ev->cpu && (!next || next->tg != prev->tg))
		sr_tg_update(r, prev->tg, ev->cpu, now, 0, 0);
	if (next && next->tg > 0)
		sr_tg_update(r, next->tg, ev->cpu, now, 0, 0);
	return 0;
}

/*
 * Kernel threads that are not per-CPU (infer_kthread() knows those), by the
 * names their creators give them in v6.1 to v6.12: kthreadd
 * (kernel/kthread.c), the RCU grace-period and callback threads
 * (kernel/rcu/tree.c, tree_nocb.h), kcompactd%d (mm/compaction.c), kswapd%d
 * (mm/vmscan.c), khugepaged, kauditd, oom_reaper, ksmd, khungtaskd,
 * kdevtmpfs, jbd2/%s (fs/jbd2) and irq/%d-%s (kernel/irq/manage.c).
 */
static int kthread_named(struct sr_task *t)
{
	static const char *const pre[] = {
		"kthreadd", "rcu_", "rcuog/", "rcuop/", "rcub/", "kcompactd", "kswapd",
		"khugepaged", "kauditd", "oom_reaper", "ksmd", "khungtaskd", "kdevtmpfs",
		"jbd2/", "irq/",
	};
	size_t i;

	if (t->kthread >= 0)
		return t->kthread == 1;
	/* the verdict on the name is kept until the name changes (task_get()) */
	if (t->kname < 0) {
		t->kname = 0;
		for (i = 0; i < sizeof(pre) / sizeof(pre[0]) && !t->kname; i++)
			if (!strncmp(t->comm, pre[i], strlen(pre[i])))
				t->kname = 1;
	}
	return t->kname;
}

/*
 * do_exit() (6.1, 6.12) calls sched_autogroup_exit_task() after
 * sched_process_exit and before exit_notify() wakes the parent: whatever
 * the task's group, sched_move_task() dequeues and requeues the running
 * task (DEQUEUE_SAVE | DEQUEUE_MOVE; task_change_group_fair()), and
 * dequeue_entity()'s update_load_avg() brings its CPU's cfs_rq up to date,
 * taking a pending removal (a task that died there) off.  The engine
 * updates that CPU at the exit event, and again at each wakeup the exiting
 * task makes (the parent's is the last): where it was preempted after its
 * exit event, the trace does not show whether sched_move_task() came
 * before the preemption or after it, and a task that died meanwhile left
 * its removal; it is taken as after.  Not for a task in an autogroup at
 * its exit: its move to the root task group is sr_tg_set()'s at the exit
 * event (the group entity's share taken as changed at once), and applying
 * the root's removals as well cost host-sr-forks-b (6.18, autogroups) 43
 * of its 3548 wakeup_kept decisions: left as it was.
 */
static void exit_group_move(struct sr_replay *r, const struct sr_task *t, uint64_t now)
{
	if (!t->exit_grouped && t->cpu >= 0 && t->cpu < r->topo->ncpus &&
	    r->rq[t->cpu].curr == t->pid)
		rq_pelt_update(r, t->cpu, now);
}

/*
 * WF_SYNC without the select_rq probe (schedreplay-models(7) §9.1).  In v6.1
 * to v6.12 the flag has one source, the wait-queue wakeups
 * __wake_up_sync_key() and __wake_up_locked_sync_key() (kernel/sched/wait.c),
 * which default_wake_function() (kernel/sched/core.c) hands to
 * try_to_wake_up(): a task in a syscall waking a reader or writer of a pipe
 * or socket, or a parent through __wake_up_parent().  Kernel threads are
 * woken by wake_up_process() (timers, completions, RCU's swait), never
 * through those.  So a wakeup is taken as sync when the waker is a task (not
 * the idle task, which is an interrupt's context), neither it nor the wakee
 * is a kernel thread, and the waker is not exiting (its SIGCHLD wakes the
 * parent first, through signal_wake_up(), without the flag).  Futex and
 * signal wakeups between user tasks are not sync and look the same: the
 * decision says the value is inferred.  Those sync callers wake
 * TASK_INTERRUPTIBLE sleepers (pipe, socket and epoll waits, do_wait()); an
 * uninterruptible sleeper (D: a vfork parent in wait_for_vfork_done(), a
 * mutex or I/O wait) is woken by complete(), wake_up_process() or wake_up(),
 * none of which passes WF_SYNC.
 */
static int infer_sync(struct sr_task *p, struct sr_task *cur)
{
	return cur && cur->pid > 0 && !cur->exiting && !kthread_named(cur) && !kthread_named(p) &&
	       !p->slept_d;
}

static int on_waking(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *p = task_get(r, ev->pid, ev->comm, ev->prio);
	struct sr_task *cur = ev->common_pid > 0 ? task_get(r, ev->common_pid, NULL, -1) : NULL;
	struct sr_pending *pd;
	uint64_t now = ev->ts;

	if (!p || (ev->common_pid > 0 && !cur))
		return -SR_E_NOMEM;
	if (ev->kind == SR_EV_WAKING)
		r->waking_seen = 1;
	if (p->pending) {
		/* a second waking before the wakeup: keep the first decision */
		return 0;
	}
	pd = sr_dec_open(r, p, SR_DEC_WAKEUP, now);
	if (!pd)
		return -SR_E_NOMEM;
	pd->d.this_cpu = ev->cpu;
	pd->d.prev_cpu = ev->target_cpu;
	pd->d.waker = ev->common_pid;
	if (cur)
		memcpy(pd->d.waker_comm, cur->comm, SR_COMM_LEN);
	pd->d.waker_exiting = cur && cur->exiting;
	/* exit_notify() wakes the parent after sched_autogroup_exit_task() */
	if (pd->d.waker_exiting) {
		exit_group_move(r, cur, now);
		pd->d.inferred |= SR_INF_EXITING;
	}
	pd->d.waker_irq = ev->ctx == SR_CTX_IRQ;
	/* WF_SYNC is in no tracepoint: inferred until a probe gives wake_flags */
	pd->d.sync = infer_sync(p, cur);
	pd->d.inferred |= SR_INF_SYNC;
	/* the wakee's flips, counted from the trace alone (history before it unknown) */
	pd->d.inferred |= SR_INF_FLIPS;

	/*
	 * 6.12+ without the probe: a wakee the engine holds as delayed wakes
	 * through ttwu_runnable(), no placement; but a wakeup that moves it
	 * proves select_task_rq() ran, a pick having dequeued it before.  So
	 * the models see it dequeued, and the decision is skipped as runnable
	 * unless the wakeup moves it (on_wakeup(), on_migrate())
	 */
	if (!r->probes && p->delayed && ev->target_cpu == p->cpu && p->bound_cpu < 0) {
		delay_left_before(r, p, now);
		pd->delay_guess = 1;
	}
	if (ev->target_cpu < 0 || ev->target_cpu >= r->topo->ncpus)
		pd->d.skip = SR_SKIP_UNKNOWN_TASK;
	else if (on_rq(p))
		pd->d.skip = SR_SKIP_RUNNABLE;
	else if (!is_fair(p))
		pd->d.skip = SR_SKIP_NOT_FAIR;
	else if (p->bound_cpu >= 0)
		pd->d.skip = SR_SKIP_BOUND;
	/*
	 * a wakee its forks show pinned to one CPU (aff_fork()) wakes there
	 * without select_task_rq_fair() (select_task_rq(): cpumask_any()):
	 * evaluated, and skipped as bound unless the wakeup moves it (a mask
	 * widened since, which the trace does not show: the pin ends there)
	 */
	if (pd->d.skip == SR_SKIP_NONE && !r->probes && p->fork_pin && p->fork_pin_forks >= 3 &&
	    ev->target_cpu == p->fork_pin - 1)
		pd->pin_guess = 1;
	if (p->bound_cpu >= 0 || p->aff_wake || p->aff_off || pd->pin_guess)
		pd->d.inferred |= SR_INF_AFFINITY;
	/*
	 * select_task_rq() (kernel/sched/core.c, 6.1 and 6.12) gives a task
	 * allowed on one CPU that CPU, cpumask_any(p->cpus_ptr), without the
	 * class's select_task_rq: no select_rq probe, no migration shows it.
	 * From another CPU, ttwu_queue_wakelist() queues it on that CPU's
	 * wakelist when it is idle (rq->ttwu_pending until its sched_wakeup),
	 * so idle_cpu() there is false meanwhile; a sleeping wakee only
	 * (ttwu_runnable() takes a queued one)
	 */
	if (p->bound_cpu >= 0 && !on_rq(p))
		ttwu_mark(r, p, p->bound_cpu, ev->cpu);

	if (pd->d.skip == SR_SKIP_NONE && !r->probes && !pd->delay_guess) {
		/* select_task_rq_fair() runs record_wakee() on current first (a waker known) */
		if (ev->kind == SR_EV_WAKING || ev->common_pid >= 0) {
			struct sr_task *w = cur ? cur : &r->idle[ev->cpu];

			pd->flips_saved = 1;
			pd->flips_was = w->wakee_flips;
			pd->flip_decay_was = w->wakee_flip_decay;
			pd->last_wakee_was = w->last_wakee;
			record_wakee(r, w, p->pid, now);
		}
		/* the wakee's sleep, for the models' view of prev */
		if (p->cpu < 0)
			p->cpu = ev->target_cpu;
	}
	/* in IRQ on an idle CPU, current is that CPU's idle task */
	pd->cur = cur ? cur : &r->idle[ev->cpu];
	if (r->probes) {
		/* evaluated when select_rq shows the kernel placing it */
		r->await[ev->cpu] = p;
		sr_dec_snapshot(r, &pd->d, p, now);
	} else {
		sr_dec_evaluate(r, pd, p, pd->cur, now);
		if (pd->delay_guess && pd->d.skip == SR_SKIP_NONE)
			pd->d.skip = SR_SKIP_RUNNABLE;
		else
			pd->delay_guess = 0;
		if (pd->pin_guess && pd->d.skip == SR_SKIP_NONE)
			pd->d.skip = SR_SKIP_BOUND;
		else
			pd->pin_guess = 0;
	}
	p->pending = pd;
	if (!p->waking)
		r->nwaking++;
	p->waking = 1;
	p->waking_ts = now;
	p->waking_cpu = ev->cpu;
	p->waking_waker = ev->common_pid;
	return 0;
}

/*
 * A trace without sched_waking (kernels before 4.3, or a recorder that
 * left it out; schedreplay-models(7) §9.3): try_to_wake_up() (kernel/sched/core.c,
 * 6.1 and 6.12) runs select_task_rq() on the waker's CPU, and a wakee it
 * moves gets its sched_migrate_task there, from set_task_cpu(), before
 * it is queued; prev_cpu is task_cpu(p), where the task last was.  So the
 * decision opens at that migration, on the CPU that emitted it, with its
 * current task as the waker; a wakeup with no migration opens at its
 * sched_wakeup, on the CPU that emitted it when that is not the wakee's
 * (the waker queued the task on a remote runqueue itself).  Emitted on the
 * wakee's own CPU, the wakeup may have come from the wake list
 * (sched_ttwu_pending(), by IPI or from the idle loop), whose current task
 * is no waker: the decision is made there, waker unknown, and no flip is
 * counted.  Both are marked prev_cpu inferred.
 */
static int infer_waking(struct sr_replay *r, struct sr_task *p, int cpu, int waker, int prev,
			uint64_t now)
{
	struct sr_event w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.kind = SR_EV_WAKEUP;	/* not a sched_waking: on_waking() tells them apart */
	w.ts = now;
	w.cpu = cpu;
	w.common_pid = waker;
	w.pid = p->pid;
	w.prio = p->prio;
	memcpy(w.comm, p->comm, SR_COMM_LEN);
	w.target_cpu = prev;
	ret = on_waking(r, &w);
	if (!ret && p->pending)
		((struct sr_pending *)p->pending)->d.inferred |= SR_INF_PREV_CPU;
	return ret;
}

/* no sched_waking declared nor seen, no probes: decisions come from what remains */
static int waking_missing(const struct sr_replay *r, const struct sr_task *p)
{
	return !r->waking_declared && !r->waking_seen && !r->probes && !p->waking &&
	       !p->pending && p->state == SR_TASK_BLOCKED && is_fair(p);
}

static void activate(struct sr_replay *r, struct sr_task *p, int cpu, uint64_t now)
{
	/* the sleep decays the task's own signal; then it joins cpu */
	task_pelt_update(p, now);
	if (p->cpu >= 0 && p->cpu != cpu)
		leave_lazily(r, p, now);
	if (!p->pelt.last_update)
		p->pelt.last_update = now;
	p->state = SR_TASK_QUEUED;
	enqueue(r, p, cpu, now);
}

/*
 * What the CPU that emitted a wakeup's sched_wakeup proves, without the
 * select_rq probe (schedreplay-models(7) §9.4).  try_to_wake_up()
 * (kernel/sched/core.c, 6.1 and 6.12) emits sched_waking on the waker's
 * CPU, then either takes ttwu_runnable() for a wakee still on its runqueue
 * (running, preempted, or 6.12's sched_delayed), whose ttwu_do_wakeup()
 * emits sched_wakeup there and then, with no select_task_rq(); or, the
 * wakee off its queue, runs select_task_rq() (but for a wakee still on_cpu
 * in its own switch-out, which ttwu_queue_wakelist() hands to its CPU as
 * it is) and ttwu_queue(), which queues it on the chosen CPU's wake list
 * when ttwu_queue_cond() holds (always for a CPU that shares no LLC with
 * the waker's, TTWU_QUEUE being on but for PREEMPT_RT): that CPU emits
 * sched_wakeup from sched_ttwu_pending().  So a sched_wakeup from another
 * CPU than the sched_waking came from the wake list (TTWU_LIST: no
 * ttwu_runnable()), and one from the waker's CPU onto prev_cpu in an LLC
 * the waker's CPU does not share cannot have come through ttwu_queue()
 * (TTWU_RUNNABLE: no placement).  Not for a decision opened without a
 * sched_waking (its CPU is the wakeup's own).
 */
enum { TTWU_UNKNOWN, TTWU_LIST, TTWU_RUNNABLE };

/*
 * A waking this soon after the wakee's switch-out may have found it still
 * on_cpu (finish_task_switch() not yet done), whose wake list takes no
 * select_task_rq(): on four 6.12 tune recordings with the probe (messaging,
 * mix, forks), wakeups from the wake list of tasks switched out less than
 * 20 us before were placements 17 times in 41, from 20 to 50 us 110 in 112
 */
#define TTWU_ON_CPU_NS 20000

static int ttwu_seen(const struct sr_replay *r, const struct sr_pending *pd,
		     const struct sr_task *p, const struct sr_event *ev)
{
	int this = pd->d.this_cpu, prev = pd->d.prev_cpu;

	if (r->probes || ev->kind != SR_EV_WAKEUP || (pd->d.inferred & SR_INF_PREV_CPU) ||
	    !cpu_in(r, this) || !cpu_in(r, prev) || !cpu_in(r, ev->cpu))
		return TTWU_UNKNOWN;
	if (ev->cpu != this)
		return pd->d.ts >= p->exec_start + TTWU_ON_CPU_NS ? TTWU_LIST : TTWU_UNKNOWN;
	if (ev->target_cpu == prev && !sr_cpus_share_cache(r->topo, this, prev))
		return TTWU_RUNNABLE;
	return TTWU_UNKNOWN;
}

/*
 * A wakeup evaluated as a placement that ttwu_runnable() took
 * (ttwu_seen()): no placement, so skipped as runnable, and the waker's
 * record_wakee() taken back (select_task_rq_fair() did not run).  A 6.12
 * wakee the engine held dequeued was sched_delayed: counted as reconciled.
 */
static void flips_undo(struct sr_replay *r, const struct sr_pending *pd, const struct sr_task *p)
{
	struct sr_task *w = pd->d.waker > 0 ? *task_slot(r, pd->d.waker) : &r->idle[pd->d.this_cpu];

	if (pd->flips_saved && w && w->last_wakee == p->pid) {
		w->wakee_flips = pd->flips_was;
		w->wakee_flip_decay = pd->flip_decay_was;
		w->last_wakee = pd->last_wakee_was;
	}
}

static void ttwu_runnable_seen(struct sr_replay *r, struct sr_pending *pd, const struct sr_task *p)
{
	pd->d.skip = SR_SKIP_RUNNABLE;
	flips_undo(r, pd, p);
	if (sr_kgen_has(&r->kgen, SR_KF_DELAY_DEQUEUE) && p->state == SR_TASK_BLOCKED)
		r->stats.reconciled[SR_REC_DELAYED]++;
}

static int on_wakeup(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *p = task_get(r, ev->pid, ev->comm, ev->prio);
	uint64_t now = ev->ts;
	int cpu = ev->target_cpu, ret = 0;

	if (!p)
		return -SR_E_NOMEM;
	if (cpu < 0 || cpu >= r->topo->ncpus)
		return 0;
	if (waking_missing(r, p)) {
		ret = infer_waking(r, p, ev->cpu, ev->cpu == cpu ? -1 : ev->common_pid,
				   cpu_in(r, p->cpu) ? p->cpu : cpu, now);
		if (ret)
			return ret;
	}
	ret = sr_dec_lb_wakeup_lands(r, p, cpu, now);
	if (ret)
		return ret;
	if (p->waking && p->waking_cpu != cpu)
		p->remote_wakeup_ts = now;
	if (p->waking && r->nwaking > 0)
		r->nwaking--;
	ttwu_clear(r, p);
	if (p->pending) {
		struct sr_pending *pd = p->pending;

		p->pending = NULL;
		if (r->probes && !pd->selected) {
			/* ttwu_runnable(): a task the engine had dequeued was delayed (6.12+) */
			if (pd->d.skip == SR_SKIP_NONE &&
			    sr_kgen_has(&r->kgen, SR_KF_DELAY_DEQUEUE) &&
			    p->state == SR_TASK_BLOCKED && p->cpu == cpu)
				r->stats.reconciled[SR_REC_DELAYED]++;
			if (pd->d.skip == SR_SKIP_NONE)
				pd->d.skip = SR_SKIP_NO_SELECT;
			if (r->await[pd->d.this_cpu] == p)
				r->await[pd->d.this_cpu] = NULL;
		}
		if (pd->delay_guess) {
			if (cpu != pd->d.prev_cpu || ttwu_seen(r, pd, p, ev) == TTWU_LIST) {
				/* select_task_rq() ran (it moved, or the wake list): not delayed */
				pd->d.skip = SR_SKIP_NONE;
				r->stats.reconciled[SR_REC_DELAYED]++;
			} else {
				r->stats.delayed_woken++;
			}
		} else if (pd->pin_guess) {
			if (cpu != pd->d.prev_cpu)
				/* it moved: select_task_rq_fair() ran, the mask is wider */
				pd->d.skip = SR_SKIP_NONE;
			else
				/* select_task_rq() took its one CPU: no record_wakee() */
				flips_undo(r, pd, p);
		} else if (pd->d.skip == SR_SKIP_NONE && ttwu_seen(r, pd, p, ev) == TTWU_RUNNABLE) {
			ttwu_runnable_seen(r, pd, p);
		}
		/* mainline select_idle_sibling() leaves prev in recent_used_cpu */
		if (pd->d.skip == SR_SKIP_NONE && pd->d.prev_cpu >= 0)
			p->recent_used_cpu = pd->d.prev_cpu;
		ret = sr_dec_close(r, pd, cpu, now);
	} else {
		/* no sched_waking (kernel < 4.3, or not recorded): no decision */
	}
	p->waking = 0;
	if (p->delayed && p->cpu == cpu) {
		delay_wake(r, p, now);
	} else if (!on_rq(p) || p->cpu != cpu) {
		/* taken as delayed, but placed elsewhere: a pick had dequeued it */
		int was_delayed = p->delayed;

		if (was_delayed)
			r->stats.reconciled[SR_REC_DELAYED]++;
		if (on_rq(p))
			dequeue(r, p, now);
		if (was_delayed)
			delay_zero_lag(p);
		activate(r, p, cpu, now);
	}
	p->pelt_valid = 1;
	p->last_wakeup_ts = now;
	return ret;
}

/*
 * select_task_rq_fair() ran for @p (try_to_wake_up() calls select_task_rq()
 * only for a task that is not on a runqueue, ttwu_runnable() handles the
 * rest), with prev_cpu = task_cpu(p): a task the engine had queued is
 * asleep, and one it had on another CPU takes its blocked load to @prev.
 * A task the engine has running is left alone: it is blocking, and its
 * switch out comes later (the on_cpu wakeup).  Return: contradictions.
 */
static int probe_proves(struct sr_replay *r, struct sr_task *p, int prev, uint64_t now)
{
	int n = 0;

	if (p->state == SR_TASK_QUEUED) {
		take_off(r, p, now);
		p->state = SR_TASK_BLOCKED;
		n++;
	}
	if (prev >= 0 && prev < r->topo->ncpus && p->cpu >= 0 && p->cpu != prev &&
	    p->state != SR_TASK_RUNNING) {
		if (p->attached) {
			task_pelt_update(p, now);
			detach(r, p);
			attach(r, p, prev);
		}
		p->cpu = prev;
		n++;
	}
	return n;
}

static int probe_removal_done(const struct sr_replay *r, int cpu, long long kload);

/*
 * the probe's prevload: @cpu's cpu_load() as the kernel read it, for the
 * engine's signal.  Where a dead task's removal is pending there, the
 * value also tells whether the kernel's update_cfs_rq_load_avg() has taken
 * it off (probe_removal_done()); if not, the engine's util and runnable
 * keep it too, as the kernel's do, until the CPU's next update.
 */
static void probe_prevload(struct sr_replay *r, int cpu, const struct sr_event *ev, uint64_t now)
{
	if (ev->prevload < 0 || cpu < 0 || cpu >= r->topo->ncpus)
		return;
	tick_held(r, cpu, ev->prevload, now);
	if (r->removed[cpu].nr && !probe_removal_done(r, cpu, ev->prevload))
		rq_pelt_advance(r, cpu, now);
	else
		rq_pelt_update(r, cpu, now);
	sr_pelt_set_load(&r->rq[cpu].cfs, (unsigned long)ev->prevload);
	r->stats.probe_prevload++;
	if (!r->prevload_ts)
		r->prevload_ts = calloc((size_t)r->topo->ncpus, sizeof(*r->prevload_ts));
	if (r->prevload_ts)
		r->prevload_ts[cpu] = now;
}

/*
 * Whether the tick came (schedreplay-models(7) §3.4).  update_cfs_rq_load_avg()
 * (kernel/sched/fair.c, 6.1 and 6.12) takes a dead or migrated task's load
 * off at the CPU's next PELT update, on a busy CPU at the latest its tick
 * (entity_tick()), which removed_due() assumes 1/HZ after the removal.  The
 * trace shows no tick; a probe's prevload shows the kernel's load of one
 * CPU: where the engine's tick rule took a removal off that CPU and the
 * trace has not shown the CPU since, the load either still holds it (the
 * tick had not come: a virtual CPU the host did not run, as on the TCG
 * guests) or not.  Counted per trace; fork_inputs_as_read() follows the
 * majority.
 */
static void tick_held(struct sr_replay *r, int cpu, long long kload, uint64_t now)
{
	const struct sr_removed *t = &r->tick_rm[cpu];
	long long eng = (long long)r->rq[cpu].cfs.load_avg;

	if (!t->nr || t->load < SR_TICK_RM_MIN)
		return;
	if (llabs(kload - (eng + (long long)t->load)) < llabs(kload - eng)) {
		r->tick_rm_held++;
		removed_unapply(r, cpu, t, now);
	} else {
		r->tick_rm_gone++;
	}
	/* the probe shows the CPU: its load is the kernel's from here */
	r->tick_rm[cpu].nr = 0;
}

/*
 * The fork slow path reads every CPU's averages as last updated
 * (sched_balance_find_dst_group() / find_idlest_group(), 6.12 / 6.1): on a
 * trace whose probes showed the tick rule's removals still on more often
 * than gone (tick_held(), at least SR_TICK_EVIDENCE times in all), the
 * removals the tick rule took off CPUs the trace has not shown since are
 * put back for the evaluation (@sign 1; @saved keeps each CPU's signal)
 * and the signals restored after it (-1).
 */
static void fork_inputs_as_read(struct sr_replay *r, struct sr_pelt *saved, int sign)
{
	int cpu;

	if (r->tick_rm_held + r->tick_rm_gone < SR_TICK_EVIDENCE ||
	    r->tick_rm_held <= r->tick_rm_gone)
		return;
	for (cpu = 0; cpu < r->topo->ncpus; cpu++) {
		const struct sr_removed *t = &r->tick_rm[cpu];
		struct sr_pelt *sa = &r->rq[cpu].cfs;

		if (!t->nr)
			continue;
		if (sign > 0) {
			saved[cpu] = *sa;
			removed_undo(sa, t);
		} else {
			*sa = saved[cpu];
		}
	}
}

/*
 * The fork probe's prevload is the kernel's cpu_load() of the parent's CPU
 * (schedreplay-models(7) §3.4): where that CPU holds a dead task's load the
 * engine has not yet taken off, the value tells whether the kernel's
 * update_cfs_rq_load_avg() has (a tick the trace does not show): nearer the
 * engine's load without it, the removal is applied now.  Return: 1 if so.
 */
static int probe_removal_done(const struct sr_replay *r, int cpu, long long kload)
{
	const struct sr_removed *rm = &r->removed[cpu];
	long long with, without;

	if (kload < 0 || !rm->nr)
		return 0;
	with = (long long)r->rq[cpu].cfs.load_avg;
	without = with > (long long)rm->load ? with - (long long)rm->load : 0;
	return llabs(kload - without) < llabs(kload - with);
}

static int probe_removed(struct sr_replay *r, int cpu, long long kload)
{
	if (!probe_removal_done(r, cpu, kload))
		return 0;
	removed_apply(r, cpu);
	return 1;
}

/*
 * The fork's select_rq probe, if this CPU's last event was one for @p: the
 * placement ran (select_task_rq_fair), from the probe's prev_cpu
 * (task_cpu(child), the parent's CPU at sched_fork), with its wake_flags and
 * its return value.  The child's own PELT fields do not apply: a new task
 * is absent from every CPU's signal (se.avg.last_update_time is 0 until it
 * is attached).  Nor does prevload as the CPU's load: the slow path
 * compares the loads of every CPU, and the kernel's value for one of them
 * lags (load that migrated away waits in cfs_rq->removed for the CPU's next
 * update) where the engine's for the others does not; taken for the
 * evaluation alone it cost v4.15's forks 25 points on numa-6.1-forks-pelt,
 * mainline's none.  It only settles a dead task's pending removal there
 * (probe_removed()).
 */
static int fork_probe_take(struct sr_replay *r, struct sr_pending *pd, struct sr_task *p,
			   int cpu)
{
	struct sr_fork_probe *fp = &r->fork_probe[cpu];
	int prev = fp->ev.target_cpu;

	if (!fp->valid || pd->selected)
		return pd->selected;
	if (fp->ev.pid > 0 && fp->ev.pid != p->pid) {
		fp->valid = 0;
		r->stats.probe_unmatched++;
		return 0;
	}
	if (prev >= 0 && prev < r->topo->ncpus) {
		/* the child's task_cpu() was not the CPU of its sched_process_fork */
		if (pd->d.prev_cpu != prev)
			r->stats.reconciled[SR_REC_PROBE]++;
		pd->d.prev_cpu = prev;
	}
	pd->selected = 1;
	pd->d.wake_flags = fp->ev.wake_flags;
	if (fp->ret >= 0)
		pd->d.kernel_cpu = fp->ret;
	if (pd->d.prev_cpu >= 0 && pd->d.prev_cpu < r->topo->ncpus &&
	    probe_removed(r, pd->d.prev_cpu, fp->ev.prevload))
		r->stats.reconciled[SR_REC_PROBE]++;
	pd->d.skip = SR_SKIP_NONE;
	if (fp->ev.flips >= 0) {
		p->wakee_flips = (unsigned)fp->ev.flips;
		pd->why.flips_src = SR_WHY_PROBE;
	}
	return 1;
}

/*
 * A trace with the select_rq probe but without sched_waking (schedreplay-models(7)
 * §9.3): try_to_wake_up() (kernel/sched/core.c, 6.1 and 6.12) calls
 * select_task_rq() on the waker's CPU, with current the waker, right where
 * sched_waking would have fired (only the task's state checks and the
 * p->on_cpu wait come between), and the probe at select_task_rq_fair()'s
 * entry names the wakee (pid), task_cpu(p) (prev_cpu) and WF_TTWU in its
 * wake_flags.  So a wakeup probe that finds no decision waiting opens one
 * there, as a sched_waking would.  Not without the pid field (the wakee is
 * unknown), nor once a sched_waking has been seen.  @*pp is set to the
 * wakee with the decision open, else left.  Return: 0, or -SR_E_NOMEM.
 */
static int probe_waking(struct sr_replay *r, const struct sr_event *ev, struct sr_task **pp)
{
	struct sr_event w;
	struct sr_task *p;
	int ret;

	if (r->waking_declared || r->waking_seen || ev->pid <= 0 || ev->wake_flags < 0 ||
	    !(ev->wake_flags & 0x08) || ev->target_cpu < 0)
		return 0;
	p = task_get(r, ev->pid, NULL, -1);
	if (!p)
		return -SR_E_NOMEM;
	if (p->pending)
		return 0;
	memset(&w, 0, sizeof(w));
	w.kind = SR_EV_WAKEUP;	/* not a sched_waking: on_waking() tells them apart */
	w.ts = ev->ts;
	w.cpu = ev->cpu;
	w.common_pid = ev->common_pid;
	w.pid = p->pid;
	w.prio = -1;
	w.target_cpu = ev->target_cpu;
	w.ctx = ev->ctx;
	ret = on_waking(r, &w);
	if (ret)
		return ret;
	if (p->pending && r->await[ev->cpu] == p) {
		r->stats.probe_opened++;
		*pp = p;
	}
	return 0;
}

/*
 * Inferred affinity from forks (traces without the parent's mask; see
 * schedreplay-replay(1), INFERENCE RULES).  wake_up_new_task() calls
 * select_task_rq() (kernel/sched/core.c, 6.1 and 6.12), which runs
 * select_task_rq_fair() only for a child allowed more than one CPU and
 * otherwise takes cpumask_any(p->cpus_ptr), the child's one CPU; and
 * select_task_rq_fair()'s fork path (find_idlest_group() /
 * sched_balance_find_dst_group() down to the LLC level) never keeps the
 * child on the parent's CPU, busy with the parent, while another CPU of
 * that LLC is idle.  A child put there is taken for pinned with its parent
 * (children inherit cpus_allowed): the parent's later forks are no
 * placements (skip "bound", inferred affinity) until the parent is seen on
 * another CPU, a probe shows select_task_rq_fair() running for it or its
 * child, or a child lands elsewhere.  A mask of every CPU from the task
 * snapshot of a trace without the setaffinity probe does not stop it (a
 * later sched_setaffinity() shows nowhere).  From the third fork that shows
 * the pin (fork_pin_forks), the wakeups of the parent and of the children it
 * forks after are no placements either (on_waking(): pin_guess); a single
 * child kept there does not suffice (6.1-sr-forks: such parents' wakeups were
 * placements, select_rq probe).  Balances are evaluated as before.
 */
static void aff_fork(struct sr_replay *r, struct sr_task *parent, struct sr_task *child,
		     int pcpu, int cpu, int probed)
{
	int c;

	/* a child placed by select_task_rq_fair() (its probe), or elsewhere */
	if (parent->fork_pin && (probed || cpu != parent->fork_pin - 1)) {
		parent->fork_pin = child->fork_pin = 0;
		return;
	}
	if (probed || cpu != pcpu || parent->cpu != pcpu ||
	    parent->kthread == 1 || !(aff_unknown(parent) || parent->aff_snapshot_only) ||
	    !(aff_unknown(child) || child->aff_snapshot_only))
		return;
	for (c = 0; c < r->topo->ncpus; c++) {
		const struct sr_rq *rq = &r->rq[c];

		if (c != pcpu && sr_cpus_share_cache(r->topo, c, pcpu) && rq->known &&
		    rq->curr == 0 && rq->nr_running == 0 && !rq->ttwu_pending)
			break;
	}
	if (c == r->topo->ncpus)
		return;
	if (parent->fork_pin)
		parent->fork_pin_forks++;
	else
		parent->fork_pin_forks = 1;
	parent->fork_pin = child->fork_pin = pcpu + 1;
	child->fork_pin_forks = parent->fork_pin_forks;
}

/*
 * schedreplay-models(7) §3.2: post_init_entity_util_avg() (kernel/sched/fair.c,
 * 6.1 and 6.12), which wake_up_new_task() calls after the placement and
 * before activate_task(): a new CFS task starts with util_avg = runnable_avg
 * = the destination cfs_rq's util_avg * weight / (load_avg + 1), at most half
 * the capacity the cfs_rq's util_avg leaves (all of that half when the
 * cfs_rq has no utilization), from the cfs_rq's averages as last updated
 * (update_load_avg() comes with the enqueue).  The weight is se->load.weight,
 * scale_load()d (1024 times the nice weight on 64-bit), before v6.8, so that
 * the cap nearly always decides, and se_weight() since ("sched/fair: Fix
 * initial util_avg calculation"; Debian 6.1.192 has the first form, 6.12.117
 * the second).  load_avg stays the nice weight (init_entity_runnable_average()).
 */
static void post_init_util(struct sr_replay *r, struct sr_task *p, int cpu)
{
	const struct sr_pelt *cfs = &r->rq[cpu].cfs;
	long scale = sr_cpu_capacity(r->topo, cpu);
	long cap = (scale - (long)cfs->util_avg) / 2;
	unsigned long util = 0, w = p->weight;

	if (!is_fair(p))
		return;
	if (!sr_kgen_has(&r->kgen, SR_KF_INIT_UTIL_SE_WEIGHT))
		w <<= 10;
	if (cap > 0) {
		if (cfs->util_avg) {
			util = (unsigned long)((uint64_t)cfs->util_avg * w / (cfs->load_avg + 1));
			if (util > (unsigned long)cap)
				util = (unsigned long)cap;
		} else {
			util = (unsigned long)cap;
		}
	}
	sr_pelt_set(&p->pelt, p->pelt.load_avg, util, util, p->weight);
}

/*
 * The fork decision of @p, forked by @parent on @cpu: this_cpu is the
 * parent's CPU, prev_cpu task_cpu(child), which sched_fork() set to it
 */
static struct sr_pending *fork_decision(struct sr_replay *r, struct sr_task *p,
					const struct sr_task *parent, int cpu, uint64_t now)
{
	struct sr_pending *pd = sr_dec_open(r, p, SR_DEC_FORK, now);

	if (!pd)
		return NULL;
	pd->d.inferred &= ~SR_INF_PELT_WARMUP;
	pd->d.this_cpu = cpu;
	pd->d.prev_cpu = p->cpu >= 0 ? p->cpu : cpu;
	pd->d.waker = parent ? parent->pid : -1;
	if (parent)
		memcpy(pd->d.waker_comm, parent->comm, SR_COMM_LEN);
	if (!is_fair(p))
		pd->d.skip = SR_SKIP_NOT_FAIR;
	else if (p->bound_cpu >= 0)
		pd->d.skip = SR_SKIP_BOUND;
	else if (p->fork_pin)
		pd->d.skip = SR_SKIP_BOUND;
	if (p->fork_pin)
		pd->d.inferred |= SR_INF_AFFINITY;
	return pd;
}

/*
 * Evaluate an open fork decision now (fork_open): with probes only once
 * the fork's select_rq showed select_task_rq_fair() running for it
 */
static void fork_evaluate(struct sr_replay *r, struct sr_pending *pd, struct sr_task *p,
			  uint64_t now)
{
	const struct sr_task *parent = pd->d.waker > 0 ? sr_replay_task(r, pd->d.waker) : NULL;
	int cpu = pd->d.this_cpu;

	sr_pelt_init_task(&p->pelt, now, p->weight);
	fork_inputs_as_read(r, r->tick_saved, 1);
	if (r->kin && cpu >= 0 && cpu < r->topo->ncpus && (r->kin_state[cpu] & KIN_FORK)) {
		r->kin_cur = &r->kin[cpu];
		r->kin_state[cpu] &= ~KIN_FORK;
	}
	sr_dec_evaluate(r, pd, p, parent, now);
	r->kin_cur = NULL;
	fork_inputs_as_read(r, r->tick_saved, -1);
	pd->evaluated = 1;
}

/*
 * When the kernel placed a fork (schedreplay-models(7) §5.7):
 * kernel_clone() (kernel/fork.c, v5.10 to v6.18) emits
 * sched_process_fork right after copy_process() and then calls
 * wake_up_new_task(), whose select_task_rq() reads the runqueues between
 * the select_rq probe and its select_rq_ret; the child's sched_wakeup_new
 * comes after that, the runqueue lock and activate_task().  Events of other
 * CPUs timed after select_rq_ret came after the kernel had read their
 * state (a long gap there is the parent's vCPU not running, in a guest).
 * So with probes the fork decision opens at sched_process_fork, takes the
 * probe's inputs at select_rq and is evaluated at select_rq_ret, and
 * closes at sched_wakeup_new.  Without probes (or without its
 * sched_process_fork) nothing shows where in [sched_process_fork,
 * sched_wakeup_new] the kernel read the state: it is evaluated at
 * sched_wakeup_new.
 */
static int fork_open(struct sr_replay *r, struct sr_task *child, const struct sr_task *parent,
		     int cpu, uint64_t now)
{
	struct sr_fork_probe *fp = &r->fork_probe[cpu];

	/* a fork whose sched_wakeup_new never came: no placement */
	sr_dec_pending_free(fp->pd);
	fp->pd = NULL;
	if (!r->probes)
		return 0;
	fp->pd = fork_decision(r, child, parent, cpu, now);
	return fp->pd ? 0 : -SR_E_NOMEM;
}

/* the fork's select_rq probe on @cpu: the fork opened there takes its inputs */
static void fork_probe_early(struct sr_replay *r, int cpu)
{
	struct sr_pending *pd = r->fork_probe[cpu].pd;
	struct sr_task *p = pd ? *task_slot(r, pd->d.pid) : NULL;

	if (p && !pd->evaluated)
		fork_probe_take(r, pd, p, cpu);
}

/* and its select_rq_ret: the placement is done, evaluate it as of now */
static void fork_probe_ret(struct sr_replay *r, int cpu, int dest, uint64_t now)
{
	struct sr_pending *pd = r->fork_probe[cpu].pd;
	struct sr_task *p = pd ? *task_slot(r, pd->d.pid) : NULL;

	if (!p || !pd->selected || pd->evaluated)
		return;
	pd->d.kernel_cpu = dest;
	fork_evaluate(r, pd, p, now);
}

static int on_wakeup_new(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *p = task_get(r, ev->pid, ev->comm, ev->prio);
	struct sr_task *parent = ev->common_pid > 0 ? task_get(r, ev->common_pid, NULL, -1) : NULL;
	struct sr_fork_probe *fp = &r->fork_probe[ev->cpu];
	struct sr_pending *pd = fp->pd;
	uint64_t now = ev->ts;
	int cpu = ev->target_cpu, probed;

	if (!p)
		return -SR_E_NOMEM;
	fp->pd = NULL;
	if (pd && (pd->d.pid != p->pid || (parent && pd->d.waker != parent->pid))) {
		sr_dec_pending_free(pd);
		pd = NULL;
	}
	if (cpu < 0 || cpu >= r->topo->ncpus) {
		fp->valid = 0;
		sr_dec_pending_free(pd);
		return 0;
	}
	if (!pd)
		pd = fork_decision(r, p, parent, ev->cpu, now);
	if (!pd)
		return -SR_E_NOMEM;
	probed = r->probes && fork_probe_take(r, pd, p, ev->cpu);
	fp->valid = 0;
	if (!pd->evaluated) {
		if (r->probes && !probed && pd->d.skip == SR_SKIP_NONE) {
			/*
			 * No probe: select_task_rq() (kernel/sched/core.c, 6.1 and
			 * 6.12) calls select_task_rq_fair() only when the child has
			 * more than one allowed CPU and migration is not disabled;
			 * otherwise it takes cpumask_any(p->cpus_ptr), no placement
			 */
			pd->d.skip = SR_SKIP_NO_SELECT;
			r->stats.fork_no_select++;
		}
		fork_evaluate(r, pd, p, now);
	}
	/* the child joins its CPU now: its PELT starts here */
	sr_pelt_init_task(&p->pelt, now, p->weight);
	if (parent)
		aff_fork(r, parent, p, ev->cpu, cpu, probed);
	post_init_util(r, p, cpu);
	/* wake_up_new_task(): recent_used_cpu = task_cpu(p), before the selection */
	p->recent_used_cpu = pd->d.prev_cpu;
	p->pelt_valid = 1;
	p->state = SR_TASK_BLOCKED;
	p->cpu = -1;
	activate(r, p, cpu, now);
	return sr_dec_close(r, pd, cpu, now);
}

/*
 * Inferred affinity from a stopper migration (schedreplay-replay(1),
 * INFERENCE RULES): the stopper moves a running task for
 * migration_cpu_stop() after sched_setaffinity() took its CPU away (to any
 * CPU of the new mask: cpumask_any_and_distribute()), after sched_exec()
 * chose an idler CPU (select_task_rq(), SD_BALANCE_EXEC), or for
 * active_load_balance_cpu_stop() towards the less loaded CPU whose balance
 * failed (6.1 and 6.12).  A move onto a CPU with at least one CFS task and
 * at least as many as the CPU left had (the task included) is none of the
 * last two: the task is taken for pinned there in newly idle balances, as
 * the refusal rule (aff_refused) would conclude, and undone the same ways.
 */
static void aff_stopper(struct sr_replay *r, struct sr_task *p, int orig, int dest)
{
	uint64_t online = r->topo->ncpus >= 64 ? ~0ULL : (1ULL << r->topo->ncpus) - 1;

	if (dest >= 64 || r->rq[dest].cfs_nr < 1 || r->rq[dest].cfs_nr < r->rq[orig].cfs_nr)
		return;
	p->aff_denied = ~(1ULL << dest) & online;
	p->inferred |= SR_INF_AFFINITY;
}

static int on_migrate(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *p = task_get(r, ev->pid, ev->comm, ev->prio);
	int orig = ev->target_cpu, dest = ev->dest_cpu, e = ev->cpu;
	uint64_t now = ev->ts;
	struct sr_migration m;
	int deferred = 0, balanced = 0, ret = 0;

	if (!p)
		return -SR_E_NOMEM;
	if (dest < 0 || dest >= r->topo->ncpus || orig < 0 || orig >= r->topo->ncpus)
		return 0;
	m.ts = now;
	m.pid = p->pid;
	memcpy(m.comm, p->comm, SR_COMM_LEN);
	m.orig_cpu = orig;
	m.dest_cpu = dest;
	m.emit_cpu = e;
	m.decision = -1;
	/* a sleeping task moved without sched_waking: its wakeup (infer_waking) */
	if (waking_missing(r, p) && p->cpu == orig) {
		ret = infer_waking(r, p, e, ev->common_pid, orig, now);
		if (ret)
			return ret;
	}
	if (p->waking) {
		m.kind = SR_MIG_WAKEUP;
		/* set_task_cpu() in try_to_wake_up(): the chosen CPU (no probe) */
		ttwu_mark(r, p, dest, e);
		if (p->pending)
			m.decision = ((struct sr_pending *)p->pending)->d.id;
	} else if (ev->common_pid > 0 && ev->common_pid == ev->pid && e == orig) {
		/* the task moves itself: sched_exec() or sched_setaffinity() */
		m.kind = SR_MIG_AFFINITY;
		if (aff_unknown(p))
			aff_reset(r, p, dest);
	} else if (p->allowed_known && orig < 64 && !(p->allowed >> orig & 1)) {
		/* off a CPU the setaffinity probe took from it (often by the stopper) */
		m.kind = SR_MIG_AFFINITY;
	} else if (!strncmp(ev->comm, "migration/", 10) || (ev->common_pid > 0 &&
		   sr_replay_task(r, ev->common_pid) &&
		   !strncmp(sr_replay_task(r, ev->common_pid)->comm, "migration/", 10))) {
		m.kind = SR_MIG_ACTIVE;
		/* the stopper also moves a task off a CPU a new mask took from it */
		if (aff_unknown(p)) {
			aff_reset(r, p, dest);
			aff_stopper(r, p, orig, dest);
		}
	} else if (e == dest && r->pull_batch[dest] && r->last_kind_ts[dest] == r->pull_batch[dest] &&
		   !pull_again(r, ev, dest)) {
		/*
		 * A pull right after a pull by the same CPU, no event between:
		 * the same balance.  detach_tasks() (6.1, 6.12) detaches tasks
		 * until env->imbalance is met, each set_task_cpu() emitting
		 * its migration, before attach_tasks(), and rebalance_domains()
		 * goes on to the next level after a pull; sched_balance_newidle()
		 * stops at its first pull and detach_tasks() takes one task for
		 * a newly idle CPU (CONFIG_PREEMPTION, Debian's kernels).  So the
		 * balance was periodic; its decision is the first pull's.
		 */
		m.kind = SR_MIG_LB_PERIODIC;
		balanced = 1;
		ret = settle_pull(r, dest, -1, 0, now);
		r->pull_batch[dest] = now;
		r->stats.lb_batched++;
	} else if (e == dest) {
		/* a pull by dest: newidle or periodic, told at its next switch */
		r->pull_again[dest] = pull_again(r, ev, dest);
		r->pull_delayed[dest] = sr_kgen_has(&r->kgen, SR_KF_DELAY_DEQUEUE) &&
					(p->delayed || (!p->waking && !on_rq(p)));
		if (r->pull_delayed[dest] && p->delayed) {
			/* the engine's pick would have dequeued it by now */
			if (delay_due(r, p, orig, now))
				r->stats.reconciled[SR_REC_DELAYED]++;
			p->delay_proven = now;
		} else if (r->pull_delayed[dest] && is_fair(p) && p->cpu == orig &&
			 p->state == SR_TASK_BLOCKED)
			delay_proven(r, p, orig, now);
		r->pull_batch[dest] = now;
		ret = settle_pull(r, dest, -1, 0, now);
		if (!ret)
			ret = sr_dec_lb_close_newidle(r, dest, now);
		if (!ret)
			ret = sr_dec_lb_open_pull(r, p, orig, dest, ev->common_pid, now);
		r->pull[dest] = m;
		r->pull_probed[dest] = r->lb_probe_idle[dest] &&
				       now - r->lb_probe_ts[dest] <= 1000000000ULL / (uint64_t)r->hz ?
				       r->lb_probe_idle[dest] : 0;
		r->pull_gap[dest] = r->last_local[dest];
		r->pull_task[dest] = ev->ctx == SR_CTX_TASK && ev->common_pid > 0 ? ev->common_pid : 0;
		r->pull_ran[dest] = 0;
		deferred = balanced = 1;
	} else if (e != orig && r->rq[e].curr == 0) {
		m.kind = SR_MIG_LB_NOHZ;
		balanced = 1;
		ret = nohz_pass(r, p, e, orig, dest, now);
	} else if (ev->ctx == SR_CTX_TASK && ev->common_pid > 0 && is_fair(p)) {
		/*
		 * another task pushes a queued CFS task away from its CPU or
		 * moves it between two others: its sched_setaffinity()
		 * (pull_by_setaffinity()), from wherever the caller runs
		 */
		m.kind = SR_MIG_AFFINITY;
		aff_moved(r, p, orig, dest);
	} else if (e == orig) {
		m.kind = SR_MIG_ACTIVE;
		/* the stopper also moves a task off a CPU a new mask took from it */
		if (aff_unknown(p))
			aff_reset(r, p, dest);
	} else {
		m.kind = SR_MIG_UNEXPLAINED;
	}
	if (ret)
		return ret;
	if (!deferred)
		ret = emit_migration(r, &m);

	if (p->delayed || (!p->waking && !on_rq(p) && balanced)) {
		/*
		 * A balance moves queued tasks only (a stopper's move may be an
		 * affinity change's of a sleeping task: not taken as one): one
		 * the engine holds asleep was sched_delayed (6.12+:
		 * can_migrate_task() has no sched_delayed test before 6.14), a
		 * pick having not dequeued it yet.  detach_task() -> deactivate_task() takes it off orig
		 * with DO_DETACH and attach_task() -> activate_task() queues it
		 * on dest with DO_ATTACH, still sched_delayed (no
		 * DEQUEUE_DELAYED): its averages move now (6.12.117
		 * dequeue_entity() / enqueue_entity()), and dest's next pick
		 * dequeues it, asleep, its load left there
		 */
		if (p->delayed)
			delay_leave(r, p, now);
		else if (sr_kgen_has(&r->kgen, SR_KF_DELAY_DEQUEUE))
			r->stats.reconciled[SR_REC_DELAYED]++;
		task_pelt_update(p, now);
		if (p->attached && p->cpu >= 0)
			rq_pelt_update(r, p->cpu, now);
		detach(r, p);
		p->cpu = dest;
		rq_pelt_update(r, dest, now);
		attach(r, p, dest);
		if (p->tg > 0)
			sr_tg_update(r, p->tg, dest, now, (long long)p->pelt.load_sum, 0);
	} else if (on_rq(p)) {
		int was_running = p->state == SR_TASK_RUNNING;

		if (p->cpu >= 0)
			dequeue(r, p, now);
		task_pelt_update(p, now);
		detach(r, p);
		p->state = SR_TASK_QUEUED;
		enqueue(r, p, dest, now);
		if (was_running && r->rq[orig].curr == p->pid) {
			r->rq[orig].curr = -1;
			r->rq[orig].curr_cfs = 0;
		}
	} else {
		/* blocked (a wakeup elsewhere): its averages wait on orig */
		task_pelt_update(p, now);
		leave_lazily(r, p, now);
		p->cpu = dest;
	}
	return ret;
}

static int on_fork(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *parent = task_get(r, ev->pid, ev->comm, -1);
	struct sr_task *child;

	/* a task does not fork itself: such an event would free the parent below */
	if (ev->pid2 <= 0 || ev->pid2 == ev->pid)
		return 0;
	/* a reused pid starts afresh */
	if (sr_replay_task(r, ev->pid2))
		task_remove(r, ev->pid2);
	child = task_get(r, ev->pid2, ev->comm2, parent ? parent->prio : 120);
	if (!child || (ev->pid > 0 && !parent))
		return -SR_E_NOMEM;
	child->cpu = ev->cpu;
	child->state = SR_TASK_BLOCKED;
	if (parent) {
		child->tgid = parent->tgid;
		/* copy_signal() / a thread's shared signal: the parent's autogroup */
		if (sr_tg_set(r, child, parent->tg))
			return -SR_E_NOMEM;
		/* dup_task_struct() copies the wakee-flip state; nothing resets it */
		child->wakee_flips = parent->wakee_flips;
		child->wakee_flip_decay = parent->wakee_flip_decay;
		child->last_wakee = parent->last_wakee;
		child->bound_cpu = parent->bound_cpu >= 0 && parent->kthread != 1 ?
				   parent->bound_cpu : child->bound_cpu;
		/* the child inherits cpus_allowed */
		if (parent->allowed_known && parent->kthread != 1) {
			child->allowed = parent->allowed;
			child->allowed_known = 1;
		}
		/* what was seen or inferred of the parent's mask holds for the child */
		child->aff_observed = parent->aff_observed;
		child->aff_snapshot_only = parent->aff_snapshot_only;
		child->aff_denied = parent->aff_denied;
		child->aff_off = parent->aff_off;
		child->fork_pin = parent->fork_pin;
		child->fork_pin_forks = parent->fork_pin_forks;
		if (parent->pid == 2) {
			child->kthread = 1;
			child->inferred |= SR_INF_KTHREAD;
		} else if (child->kthread < 0) {
			child->kthread = parent->kthread;
		}
	}
	return fork_open(r, child, parent, ev->cpu, ev->ts);
}

/*
 * The select_rq probe's load, util and runnable fields: p->se.avg as the
 * kernel has it, as of the task's last update (its dequeue), which is when
 * the engine last updated it too.  The CPU it is attached to (blocked load)
 * gets the difference.
 */
/* c + add - sub, at least 0 */
static uint64_t add_sub(uint64_t c, uint64_t add, uint64_t sub)
{
	return c + add > sub ? c + add - sub : 0;
}

static void task_pelt_observed(struct sr_replay *r, struct sr_task *p, const struct sr_event *ev)
{
	struct sr_pelt old = p->pelt;

	sr_pelt_set(&p->pelt, (unsigned long)ev->tload, (unsigned long)ev->tutil,
		    (unsigned long)ev->trunnable, p->weight);
	/* its last sleep's util_est sample, redone from the kernel's values */
	if (p->util_est_redo && is_fair(p)) {
		unsigned long was = p->util_est;

		p->util_est = p->util_est_was;
		p->util_est_enq = p->util_est_enq_was;
		p->util_est_unchanged = p->util_est_unchanged_was;
		util_est_update(r, p);
		if (p->util_est_queued && p->cpu >= 0)
			r->rq[p->cpu].util_est = add_sub(r->rq[p->cpu].util_est, p->util_est, was);
		p->util_est_redo = 0;
	}
	if (p->attached && p->cpu >= 0) {
		struct sr_pelt *c = &r->rq[p->cpu].cfs;

		c->load_avg = add_sub(c->load_avg, p->pelt.load_avg, old.load_avg);
		c->util_avg = add_sub(c->util_avg, p->pelt.util_avg, old.util_avg);
		c->runnable_avg = add_sub(c->runnable_avg, p->pelt.runnable_avg, old.runnable_avg);
		c->load_sum = add_sub(c->load_sum, p->pelt.load_sum * p->weight,
				      old.load_sum * p->weight);
		c->util_sum = (uint32_t)add_sub(c->util_sum, p->pelt.util_sum, old.util_sum);
		c->runnable_sum = add_sub(c->runnable_sum, p->pelt.runnable_sum, old.runnable_sum);
	}
	p->pelt_valid = 1;
	r->stats.probe_pelt++;
}

/*
 * A fork's select_rq (WF_FORK): wake_up_new_task() (kernel/sched/core.c, 6.1
 * and 6.12) calls select_task_rq(p, task_cpu(p), WF_FORK) and activates the
 * child with interrupts off, so the child's sched_wakeup_new is the next
 * scheduler event on this CPU (on_wakeup_new pairs them; any other event
 * there drops the probe, see sr_replay_feed).  The child is the parent's
 * copy (dup_task_struct): its flips are the parent's, which wake_wide will
 * use when the parent wakes.
 */
static void fork_probe_keep(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_fork_probe *fp = &r->fork_probe[ev->cpu];
	struct sr_task *t;

	fp->valid = 1;
	fp->ev = *ev;
	fp->ev.name = fp->ev.text = NULL;
	fp->ret = -1;
	if (ev->flips < 0)
		return;
	t = ev->common_pid > 0 ? *task_slot(r, ev->common_pid) : NULL;
	if (t)
		t->wakee_flips = (unsigned)ev->flips;
	t = ev->pid > 0 ? *task_slot(r, ev->pid) : NULL;
	if (t)
		t->wakee_flips = (unsigned)ev->flips;
}

/*
 * select_task_rq_fair() entry on the waker's CPU, right after its
 * sched_waking: the placement runs, with these wake_flags.
 */
/*
 * An exec's select_rq (WF_EXEC, 0x02): sched_exec() (kernel/sched/core.c,
 * 6.1 and 6.12) calls select_task_rq() for current, on its own CPU, as a
 * wakeup's select_task_rq() is called for the wakee.  The probe's load,
 * util and runnable fields are current's p->se.avg as of its last update
 * (a tick or its switch-in, the tick's phase not traced: half a tick ago
 * at the latest), which the engine takes as it takes a wakee's, its CPU
 * getting the difference; a forked child's averages (post_init_entity_
 * util_avg() and its run since) are the engine's estimate until then.
 * Its prevload, task_cpu()'s cpu_load(), is taken as a wakeup's is
 * (probe_prevload()).  The exec placement itself (SD_BALANCE_EXEC) is not
 * a decision the engine evaluates.
 */
static void exec_probe(struct sr_replay *r, const struct sr_event *ev, uint64_t now)
{
	int pid = ev->pid > 0 ? ev->pid : ev->common_pid;
	struct sr_task *p = pid > 0 ? (struct sr_task *)sr_replay_task(r, pid) : NULL;
	uint64_t half = 1000000000ULL / (uint64_t)r->hz / 2;

	if (!p || !is_fair(p) || p->cpu != ev->cpu || p->state != SR_TASK_RUNNING ||
	    (ev->target_cpu >= 0 && ev->target_cpu != ev->cpu))
		return;
	if (ev->tload >= 0 && ev->tutil >= 0 && ev->trunnable >= 0) {
		if (now > half && now - half > p->pelt.last_update)
			task_pelt_update(p, now - half);
		task_pelt_observed(r, p, ev);
	}
	probe_prevload(r, ev->cpu, ev, now);
}

/*
 * lb_task (can_migrate_task()'s entry, record.sh --lb-probes): the first
 * after a balance_rq for its dst shows the migration type that balance's
 * calculate_imbalance() chose, kept for the next balance decision there
 */
static int on_lb_task(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_lb_task_seen *s;
	int dst = ev->target_cpu;

	if (dst < 0 || dst >= r->topo->ncpus || ev->lb_mt < 0 || ev->lb_level < 0)
		return 0;
	if (!r->lbt) {
		size_t n = (size_t)r->topo->ncpus * SR_MAX_DOMAIN_LEVELS;

		r->lbt = calloc((size_t)r->topo->ncpus, sizeof(*r->lbt));
		r->lbt_nbf = calloc(n, 1);
		if (!r->lbt || !r->lbt_nbf)
			return -SR_E_NOMEM;
	}
	/* sd->nr_balance_failed, an input of the balances that follow (not with --no-input-probes) */
	if (r->input_probes && ev->lb_nbf >= 0) {
		unsigned rank = sr_dec_lb_rank(r, dst, ev->lb_level);

		if (rank) {
			r->lbt_nbf[__builtin_ctz(rank) * r->topo->ncpus + dst] =
				(unsigned char)(ev->lb_nbf < 255 ? ev->lb_nbf : 255);
			r->lbt_nbf_seen = 1;
		}
	}
	if (!r->lbt_armed[dst])
		return 0;
	r->lbt_armed[dst] = 0;
	s = &r->lbt[dst];
	if (s->n == SR_LBT_MAX) {
		memmove(s->b, s->b + 1, (SR_LBT_MAX - 1) * sizeof(s->b[0]));
		s->n--;
	}
	s->b[s->n].ts = ev->ts;
	s->b[s->n].level = ev->lb_level;
	s->b[s->n].mt = ev->lb_mt;
	s->n++;
	return 0;
}

/*
 * lb_rqstat at find_busiest_group()'s entry, on the balancing CPU: compared
 * with the engine's state, and kept for the balance evaluated next there
 */
static int on_lb_rqstat(struct sr_replay *r, const struct sr_event *ev)
{
	size_t n = (size_t)r->topo->ncpus;

	sr_dec_lb_inputs(r, ev->rqstat, ev->cpu);
	if (r->topo->ncpus > SR_RQSTAT_MAX_CPUS || ev->rqstat->ncpus < r->topo->ncpus)
		return 0;
	if (!r->lbk) {
		r->lbk = calloc(n, sizeof(*r->lbk));
		r->lbk_ts = calloc(n, sizeof(*r->lbk_ts));
		r->lbk_owner = calloc(n, sizeof(*r->lbk_owner));
		if (!r->kin_rq)
			r->kin_rq = calloc(n, sizeof(*r->kin_rq));
		if (!r->lbk || !r->lbk_ts || !r->lbk_owner || !r->kin_rq) {
			free(r->lbk);
			free(r->lbk_ts);
			free(r->lbk_owner);
			r->lbk = NULL;
			r->lbk_ts = NULL;
			r->lbk_owner = NULL;
			return -SR_E_NOMEM;
		}
	}
	r->lbk[ev->cpu].ncpus = ev->rqstat->ncpus;
	memcpy(r->lbk[ev->cpu].cpu, ev->rqstat->cpu,
	       (size_t)ev->rqstat->ncpus * sizeof(ev->rqstat->cpu[0]));
	r->lbk_ts[ev->cpu] = ev->ts;
	r->lbk_owner[ev->cpu] = -1;
	return 0;
}

/*
 * rqstat at select_task_rq_fair()'s entry, on the CPU its select_rq comes
 * from next: what the placement reads of every CPU, kept for it
 */
static int on_rqstat(struct sr_replay *r, const struct sr_event *ev)
{
	size_t n = (size_t)r->topo->ncpus;

	/* the event covers at most SR_RQSTAT_MAX_CPUS: a larger machine never reads it */
	if (!ev->rqstat || ev->cpu < 0 || ev->cpu >= r->topo->ncpus ||
	    r->topo->ncpus > SR_RQSTAT_MAX_CPUS)
		return 0;
	if (!r->kin) {
		r->kin = calloc(n, sizeof(*r->kin));
		r->kin_state = calloc(n, 1);
		if (!r->kin_rq)
			r->kin_rq = calloc(n, sizeof(*r->kin_rq));
		if (!r->kin || !r->kin_state || !r->kin_rq) {
			free(r->kin);
			free(r->kin_state);
			r->kin = NULL;
			r->kin_state = NULL;
			return -SR_E_NOMEM;
		}
	}
	/* the CPUs the event has, not the whole array */
	r->kin[ev->cpu].ncpus = ev->rqstat->ncpus;
	memcpy(r->kin[ev->cpu].cpu, ev->rqstat->cpu,
	       (size_t)ev->rqstat->ncpus * sizeof(ev->rqstat->cpu[0]));
	r->kin_state[ev->cpu] = KIN_FRESH;
	return 0;
}

/* the rqstat this CPU's select_rq answers, if one came since the last select_rq */
static const struct sr_rqstat *kin_take(struct sr_replay *r, int cpu)
{
	if (!r->kin || cpu < 0 || cpu >= r->topo->ncpus || !(r->kin_state[cpu] & KIN_FRESH))
		return NULL;
	r->kin_state[cpu] &= ~KIN_FRESH;
	return &r->kin[cpu];
}

/* a fork's select_rq: its rqstat, if it has one, waits for the fork's evaluation */
static void kin_keep_fork(struct sr_replay *r, int cpu)
{
	if (!r->kin || cpu < 0 || cpu >= r->topo->ncpus)
		return;
	r->kin_state[cpu] = kin_take(r, cpu) ? KIN_FORK : 0;
}

static int on_select_rq(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_task *p = r->await[ev->cpu];
	struct sr_pending *pd;
	uint64_t now = ev->ts;
	const struct sr_rqstat *kin;

	r->stats.probe_hits++;
	if (ev->flips >= 0)
		r->stats.probe_flips++;
	if (ev->pid <= 0 && (ev->wake_flags < 0 || (ev->wake_flags & 0x08)))
		r->stats.probe_nopid++;
	if (ev->wake_flags >= 0 && !(ev->wake_flags & 0x08)) {
		/* fork (0x04) or exec (0x02): not a wakeup; the next select_rq_ret is its */
		r->selected[ev->cpu] = NULL;
		if (ev->wake_flags & 0x02) {
			(void)kin_take(r, ev->cpu);
			exec_probe(r, ev, now);
		}
		if (ev->wake_flags & 0x04) {
			kin_keep_fork(r, ev->cpu);
			fork_probe_keep(r, ev);
			fork_probe_early(r, ev->cpu);
		}
		return 0;
	}
	if (ev->wake_flags < 0 && (!p || !p->pending)) {
		/* no wake_flags, no waking to answer: a fork's if its sched_wakeup_new follows */
		r->selected[ev->cpu] = NULL;
		kin_keep_fork(r, ev->cpu);
		fork_probe_keep(r, ev);
		fork_probe_early(r, ev->cpu);
		return 0;
	}
	/* this select_rq's rqstat, if one came just before it; taken whatever follows */
	kin = kin_take(r, ev->cpu);
	if ((!p || !p->pending) && probe_waking(r, ev, &p) < 0)
		return -SR_E_NOMEM;
	if (!p || !p->pending) {
		r->stats.probe_unmatched++;
		return 0;
	}
	r->await[ev->cpu] = NULL;
	pd = p->pending;
	if (ev->target_cpu >= 0 && ev->target_cpu != pd->d.prev_cpu) {
		r->stats.probe_unmatched++;
		return 0;
	}
	pd->selected = 1;
	pd->d.wake_flags = ev->wake_flags;
	if (ev->wake_flags >= 0) {
		pd->d.sync = !!(ev->wake_flags & 0x10);
		pd->d.inferred &= ~SR_INF_SYNC;
	}
	/* the kernel ran the fair placement: whatever our heuristics said */
	pd->d.skip = SR_SKIP_NONE;
	/* and so the task may run on more than one CPU (aff_fork) */
	p->fork_pin = 0;
	if (p->delayed) {
		/* select_task_rq(): the task had left, at a pick the trace does not show */
		r->stats.reconciled[SR_REC_DELAYED]++;
		delay_left_before(r, p, now);
	}
	if (probe_proves(r, p, pd->d.prev_cpu, now))
		r->stats.reconciled[SR_REC_PROBE]++;
	/* the probe read p->wakee_flips as wake_wide() will */
	if (ev->flips >= 0) {
		p->wakee_flips = (unsigned)ev->flips;
		pd->d.inferred &= ~SR_INF_FLIPS;
		pd->why.flips_src = SR_WHY_PROBE;
	}
	/* and p's own PELT signal: it replaces the engine's, warm-up or not */
	if (ev->tload >= 0 && ev->tutil >= 0 && ev->trunnable >= 0) {
		task_pelt_observed(r, p, ev);
		pd->d.inferred &= ~SR_INF_PELT_WARMUP;
		pd->why.pelt_src = SR_WHY_PROBE;
	}
	if (ev->prevload >= 0)
		pd->why.prev_load_src = SR_WHY_PROBE;
	/*
	 * prev_cpu's load as wake_affine_weight() will read it: the engine's
	 * signal for that CPU takes it (its sum rebuilt from the average), so
	 * the models read the kernel's value now and the CPU's load is right
	 * also where it is this_cpu, or a fork's candidate, later.  After the
	 * wakee's own signal, whose blocked load the kernel's value holds.
	 */
	probe_prevload(r, pd->d.prev_cpu, ev, now);
	record_wakee(r, (struct sr_task *)pd->cur, p->pid, now);
	r->kin_cur = kin;
	sr_dec_evaluate(r, pd, p, pd->cur, now);
	r->kin_cur = NULL;
	r->selected[ev->cpu] = pd;
	return 0;
}

/*
 * A balance_rq probe of a periodic or nohz balance: rebalance_domains()
 * (6.1) / sched_balance_domains() (6.12) walks the domains bottom up and
 * calls load_balance() at each level whose interval has passed, on
 * env->dst_cpu (the probe's cpu).  A level at or below one the pass has
 * shown, or a gap of a tick, starts the next pass.
 */
static void periodic_probe(struct sr_replay *r, const struct sr_event *ev)
{
	uint64_t tick = 1000000000ULL / (uint64_t)r->hz;
	int cpu = ev->target_cpu >= 0 && ev->target_cpu < r->topo->ncpus ? ev->target_cpu :
									      ev->cpu;
	unsigned bit = ev->lb_level >= 0 && ev->lb_level < 31 ? 1u << ev->lb_level : 1u << 31;

	if (cpu < 0 || cpu >= r->topo->ncpus)
		return;
	if (bit <= r->pb_levels[cpu] || ev->ts > r->pb_ts[cpu] + tick)
		r->pb_levels[cpu] = 0;
	r->pb_levels[cpu] |= bit;
	r->pb_ts[cpu] = ev->ts;
	sr_idle_scan_balanced(r, cpu, ev->lb_level, cpu != ev->cpu, ev->ts);
	sr_dec_lb_hints(r, cpu, ev->lb_level, ev->ts);
}

/*
 * The recorder's setaffinity probe: sched_setaffinity(pid, mask) as asked
 * (pid 0 is the caller).  The kernel intersects the mask with the cpuset
 * and the online CPUs and may refuse it; we take what the trace's CPUs
 * allow, and ignore a request that leaves none.
 */
static int on_setaffinity(struct sr_replay *r, const struct sr_event *ev)
{
	int pid = ev->pid > 0 ? ev->pid : ev->common_pid;
	uint64_t online = r->topo->ncpus >= 64 ? ~0ULL : (1ULL << r->topo->ncpus) - 1;
	uint64_t mask = ev->cpumask & online;
	struct sr_task *t;

	if (pid <= 0 || !mask || r->no_affinity)
		return 0;
	t = task_get(r, pid, NULL, -1);
	if (!t)
		return -SR_E_NOMEM;
	t->allowed = mask;
	t->allowed_known = 1;
	t->aff_observed = 1;
	t->aff_snapshot_only = 0;
	t->aff_denied = 0;
	t->aff_off = 0;
	t->bound_cpu = r->topo->ncpus <= 64 && !(mask & (mask - 1)) ? __builtin_ctzll(mask) : -1;
	t->inferred &= ~SR_INF_AFFINITY;
	return 0;
}

static int on_select_rq_ret(struct sr_replay *r, const struct sr_event *ev)
{
	struct sr_pending *pd = r->selected[ev->cpu];

	if (pd) {
		struct sr_task *p = (struct sr_task *)sr_replay_task(r, pd->d.pid);

		pd->d.kernel_cpu = ev->dest_cpu;
		r->selected[ev->cpu] = NULL;
		if (p)
			ttwu_mark(r, p, ev->dest_cpu, ev->cpu);
	} else if (r->fork_probe[ev->cpu].valid && r->fork_probe[ev->cpu].ret < 0) {
		struct sr_fork_probe *fp = &r->fork_probe[ev->cpu];

		fp->ret = ev->dest_cpu;
		fork_probe_ret(r, ev->cpu, ev->dest_cpu, ev->ts);
	}
	return 0;
}

/*
 * sched_autogroup_exit_task() -> sched_move_task() -> task_change_group_fair()
 * (kernel/sched/fair.c, the same in 6.1, 6.12 and 6.18) of a task that
 * leaves task group @old_tg at its exit: detach_entity_cfs_rq() takes its
 * averages and its sums, the part of the current period included, out of
 * the group's cfs_rq at once, and attach_entity_cfs_rq() puts it on the
 * root's, aligned, its sums rebuilt from its averages
 * (attach_entity_load_avg()).  On the engine's one signal per CPU that
 * drops what the task accrued since the last period boundary, which the
 * removal at its death (remove_entity_load_avg(): the averages only) would
 * leave behind.
 */
static void exit_regroup_pelt(struct sr_replay *r, struct sr_task *t, uint64_t now)
{
	int cpu = t->cpu;

	if (!t->exit_grouped || !t->attached || cpu < 0 || !is_fair(t))
		return;
	task_pelt_update(t, now);
	rq_pelt_update(r, cpu, now);
	detach(r, t);
	attach(r, t, cpu);
}

static int feed(struct sr_replay *r, const struct sr_event *ev)
{
	if (ev->cpu >= 0 && ev->cpu < r->topo->ncpus)
		sr_state_delay_expire(r, ev->cpu, ev->ts);
	switch (ev->kind) {
	case SR_EV_SWITCH:
		return on_switch(r, ev);
	case SR_EV_WAKING:
		return on_waking(r, ev);
	case SR_EV_WAKEUP:
		return on_wakeup(r, ev);
	case SR_EV_WAKEUP_NEW:
		return on_wakeup_new(r, ev);
	case SR_EV_MIGRATE:
		return on_migrate(r, ev);
	case SR_EV_FORK:
		return on_fork(r, ev);
	case SR_EV_SELECT_RQ:
		return r->probes ? on_select_rq(r, ev) : 0;
	case SR_EV_SELECT_RQ_RET:
		return r->probes ? on_select_rq_ret(r, ev) : 0;
	case SR_EV_SETAFFINITY:
		return on_setaffinity(r, ev);
	case SR_EV_RQSTAT:
		return r->probes && r->input_probes ? on_rqstat(r, ev) : 0;
	case SR_EV_LB_RQSTAT:
		/* validation: what the balance read, against the engine's state */
		if (r->input_probes && ev->rqstat && ev->cpu >= 0 && ev->cpu < r->topo->ncpus)
			return on_lb_rqstat(r, ev);
		return 0;
	case SR_EV_LB_TASK:
		return on_lb_task(r, ev);
	case SR_EV_BALANCE_RQ:
		/* the next lb_task for this balance's dst is its first */
		if (ev->target_cpu >= 0 && ev->target_cpu < r->topo->ncpus)
			r->lbt_armed[ev->target_cpu] = 1;
		else if (ev->cpu >= 0 && ev->cpu < r->topo->ncpus)
			r->lbt_armed[ev->cpu] = 1;
		/* the sd->level values tell the model's domains apart (lb_domains) */
		if (ev->lb_level >= 0 && ev->lb_level < 31)
			r->lb_levels_seen |= 1u << ev->lb_level;
		/* another load_balance() begins: the last lb_rqstat was of the one before */
		if (r->lbk && ev->cpu >= 0 && ev->cpu < r->topo->ncpus)
			r->lbk_ts[ev->cpu] = 0;
		/* a balance of the emitting CPU itself: a pull it makes next is of it */
		if (r->balance_probes && ev->lb_idle >= 0 && ev->lb_idle <= SR_LB_IDLE_NEWLY &&
		    (ev->target_cpu < 0 || ev->target_cpu == ev->cpu)) {
			r->lb_probe_idle[ev->cpu] = (unsigned char)(ev->lb_idle + 1);
			r->lb_probe_ts[ev->cpu] = ev->ts;
		}
		/* load_balance(CPU_NEWLY_IDLE) runs on the newly idle CPU itself */
		if (r->balance_probes && ev->lb_idle == SR_LB_IDLE_NEWLY) {
			r->nib_levels[ev->cpu] |= ev->lb_level >= 0 && ev->lb_level < 31 ?
						  1u << ev->lb_level : 1u << 31;
			/* the CPU's periodic pass is over: a later pull is not of it */
			r->pb_levels[ev->cpu] = 0;
		} else if (r->balance_probes)
			periodic_probe(r, ev);
		return 0;
	case SR_EV_EXIT: {
		struct sr_task *t = task_get(r, ev->pid, ev->comm, ev->prio);

		if (!t)
			return -SR_E_NOMEM;
		t->exiting = 1;
		t->exit_grouped = t->tg > 0;
		exit_group_move(r, t, ev->ts);
		/*
		 * do_exit() (6.1 - 6.18): after sched_process_exit,
		 * sched_autogroup_exit_task() moves the task to the root task
		 * group (task_wants_autogroup() refuses PF_EXITING) before
		 * exit_notify() wakes the parent (tgroup.c); sched_move_task()
		 * dequeues it (DEQUEUE_SAVE | DEQUEUE_MOVE: its lag kept) and
		 * enqueues it on the root's cfs_rq (place_entity())
		 */
		if (t->tg && eevdf(r) && is_fair(t) && on_rq(t) && t->cpu >= 0 &&
		    t->lb_cpu == t->cpu) {
			const struct sr_task *skip = r->v_skip[1];
			uint64_t now = ev->ts;

			/* update_curr(), then update_entity_lag() on the group's cfs_rq */
			t->vruntime = vr_now(r, t, now);
			if (t->state == SR_TASK_RUNNING)
				t->vr_start = now;
			save_lag(r, t, avg_vruntime(r, t->cpu, now, NULL, t->tg));
			if (sr_tg_set(r, t, 0))
				return -SR_E_NOMEM;
			/* placed against the root's queue, which it is not on yet */
			r->v_skip[1] = t;
			place_entity(r, t, t->cpu, now);
			r->v_skip[1] = skip;
		} else {
			sr_tg_set(r, t, 0);
		}
		exit_regroup_pelt(r, t, ev->ts);
		return 0;
	}
	case SR_EV_FREE: {
		const struct sr_task *t = sr_replay_task(r, ev->pid);

		if (t && !t->pending && t->state != SR_TASK_RUNNING)
			task_remove(r, ev->pid);
		return 0;
	}
	default:
		return 0;
	}
}

int sr_replay_feed(struct sr_replay *r, const struct sr_event *ev)
{
	int ret;

	/*
	 * The reader core refuses CPU numbers beyond the trace's CPU count,
	 * and the topology covers that count; a caller that feeds others
	 * (a trace that declares no count) has them ignored, never indexed.
	 */
	if (!cpu_in(r, ev->cpu) || (ev->target_cpu != SR_CPU_NONE && !cpu_in(r, ev->target_cpu)) ||
	    (ev->dest_cpu != SR_CPU_NONE && !cpu_in(r, ev->dest_cpu)))
		return 0;
	if (!r->stats.events++)
		r->first_ts = ev->ts;
	r->now = ev->ts;
	if (r->nremoved)
		removed_due(r, ev->ts);
	softirq_tick(r, ev);
	sr_idle_scan_advance(r, ev->ts);
	/*
	 * rqstat fires at select_task_rq_fair()'s entry with select_rq: any
	 * other event of the CPU between them (lost events, a stray probe)
	 * leaves it no select_rq of its own
	 */
	if (r->kin && ev->kind != SR_EV_RQSTAT && ev->kind != SR_EV_SELECT_RQ)
		r->kin_state[ev->cpu] &= ~KIN_FRESH;
	/* a fork's probe is followed at once by its select_rq_ret and sched_wakeup_new */
	if (r->fork_probe[ev->cpu].valid && ev->kind != SR_EV_SELECT_RQ_RET &&
	    ev->kind != SR_EV_WAKEUP_NEW) {
		r->fork_probe[ev->cpu].valid = 0;
		r->stats.probe_unmatched++;
	}
	/*
	 * the task whose context a pending pull came in runs on
	 * (pull_by_setaffinity()): it wakes, forks or exits, which no balance
	 * does from __schedule() (the balance probes fire there, as the
	 * pull's migration does)
	 */
	if (r->pull[ev->cpu].pid > 0 && r->pull_task[ev->cpu] && ev->ctx == SR_CTX_TASK &&
	    ev->common_pid == r->pull_task[ev->cpu] &&
	    (ev->kind == SR_EV_WAKING || ev->kind == SR_EV_WAKEUP ||
	     ev->kind == SR_EV_WAKEUP_NEW || ev->kind == SR_EV_FORK || ev->kind == SR_EV_EXIT))
		r->pull_ran[ev->cpu] = 1;
	ret = feed(r, ev);
	/* the trace shows this CPU: its ticks come (tick_rm_add()) */
	r->tick_rm[ev->cpu].nr = 0;
	r->last_local[ev->cpu] = ev->ts;
	/*
	 * an event of no kind the engine reads (an irq, a marker) or a
	 * validation probe inside load_balance() (lb_rqstat, lb_task, which
	 * fires in detach_tasks() before each migration) between two pulls
	 * leaves them one balance (on_migrate())
	 */
	if (ev->kind != SR_EV_OTHER && ev->kind != SR_EV_LB_TASK && ev->kind != SR_EV_LB_RQSTAT)
		r->last_kind_ts[ev->cpu] = ev->ts;
	return ret;
}

int sr_replay_finish(struct sr_replay *r)
{

	size_t i;
	int ret = 0;

	/* wakings whose wakeup fell after the end of the trace: no outcome */
	for (i = 0; i < r->cap; i++) {
		struct sr_task *t = r->tasks[i];

		if (t && t->pending) {
			sr_dec_pending_free(t->pending);
			t->pending = NULL;
		}
	}
	for (i = 0; i < (size_t)r->topo->ncpus && !ret; i++) {
		ret = settle_pull(r, (int)i, -1, 0, r->now);
		if (!ret && r->lbp[i] && r->lbp[i]->open)
			ret = sr_dec_lb_close(r, (int)i, 0, r->lbp[i]->in[0].kind, r->now);
	}
	return ret;
}

struct sr_replay *sr_replay_new(const struct sr_topology *topo, int hz,
				const struct sr_model *const *models, int nmodels)
{
	struct sr_replay *r = calloc(1, sizeof(*r));
	int c;

	if (!r)
		return NULL;
	r->topo = topo;
	r->hz = hz > 0 ? hz : 250;
	r->models = models;
	r->nmodels = nmodels > SR_MAX_MODELS ? SR_MAX_MODELS : nmodels;
	r->cap = 1024;
	r->tasks = calloc(r->cap, sizeof(*r->tasks));
	r->rq = calloc(topo->ncpus, sizeof(*r->rq));
	r->idle = calloc(topo->ncpus, sizeof(*r->idle));
	r->pull = calloc(topo->ncpus, sizeof(*r->pull));
	r->await = calloc(topo->ncpus, sizeof(*r->await));
	r->selected = calloc(topo->ncpus, sizeof(*r->selected));
	r->waking_declared = 1;
	r->fork_probe = calloc(topo->ncpus, sizeof(*r->fork_probe));
	r->removed = calloc(topo->ncpus, sizeof(*r->removed));
	r->tick_rm = calloc(topo->ncpus, sizeof(*r->tick_rm));
	r->ksoftirqd_woken = calloc(topo->ncpus, sizeof(*r->ksoftirqd_woken));
	r->tick_saved = calloc(topo->ncpus, sizeof(*r->tick_saved));
	r->lb_head = calloc(topo->ncpus, sizeof(*r->lb_head));
	r->lb_tail = calloc(topo->ncpus, sizeof(*r->lb_tail));
	r->lb_scratch = sr_lb_scratch_new(topo->ncpus);
	r->lbp = calloc(topo->ncpus, sizeof(*r->lbp));
	r->last_local = calloc(topo->ncpus, sizeof(*r->last_local));
	r->nohz_last = calloc(topo->ncpus, sizeof(*r->nohz_last));
	r->switch_ts = calloc(topo->ncpus, sizeof(*r->switch_ts));
	r->nib_levels = calloc(topo->ncpus, sizeof(*r->nib_levels));
	r->pb_levels = calloc(topo->ncpus, sizeof(*r->pb_levels));
	r->pb_ts = calloc(topo->ncpus, sizeof(*r->pb_ts));
	r->pull_gap = calloc(topo->ncpus, sizeof(*r->pull_gap));
	r->pull_batch = calloc(topo->ncpus, sizeof(*r->pull_batch));
	r->last_kind_ts = calloc(topo->ncpus, sizeof(*r->last_kind_ts));
	r->lbt_armed = calloc(topo->ncpus, 1);
	r->pull_task = calloc(topo->ncpus, sizeof(*r->pull_task));
	r->pull_ran = calloc(topo->ncpus, sizeof(*r->pull_ran));
	r->pull_delayed = calloc(topo->ncpus, sizeof(*r->pull_delayed));
	r->lb_probe_idle = calloc(topo->ncpus, sizeof(*r->lb_probe_idle));
	r->lb_probe_ts = calloc(topo->ncpus, sizeof(*r->lb_probe_ts));
	r->pull_probed = calloc(topo->ncpus, sizeof(*r->pull_probed));
	r->pull_again = calloc(topo->ncpus, sizeof(*r->pull_again));
	r->lb_llc_last = calloc(topo->ncpus, sizeof(*r->lb_llc_last));
	r->lb_clk = calloc(topo->ncpus, sizeof(*r->lb_clk));
	r->ticking = calloc(topo->ncpus, sizeof(*r->ticking));
	r->ni_call = calloc((size_t)topo->ncpus * SR_MAX_DOMAIN_LEVELS, sizeof(*r->ni_call));
	r->ni_pull = calloc((size_t)topo->ncpus * SR_MAX_DOMAIN_LEVELS, sizeof(*r->ni_pull));
	if (!r->ni_call || !r->ni_pull) {
		sr_replay_free(r);
		return NULL;
	}
	sr_dec_ni_init(r);
	if (!r->tasks || !r->rq || !r->idle || !r->pull || !r->await ||
	    !r->selected || !r->fork_probe || !r->removed || !r->tick_rm || !r->tick_saved ||
	    !r->ksoftirqd_woken || !r->lb_head ||
	    !r->lb_tail || !r->lb_scratch || !r->lbp || !r->last_local || !r->nohz_last ||
	    !r->switch_ts || !r->nib_levels || !r->pb_levels || !r->pb_ts || !r->pull_gap || !r->pull_batch || !r->last_kind_ts || !r->lbt_armed || !r->pull_task || !r->pull_ran ||
	    !r->pull_delayed || !r->lb_probe_idle || !r->lb_probe_ts || !r->pull_probed ||
	    !r->pull_again ||
	    !r->lb_llc_last || !r->lb_clk || !r->ticking) {
		sr_replay_free(r);
		return NULL;
	}
	sr_dec_same_placement(r);
	for (c = 0; c < r->nmodels; c++) {
		r->touches[c] = ~0u;
		r->lb_imb[c] = calloc((size_t)topo->ncpus * SR_MAX_DOMAIN_LEVELS, 1);
		if (!r->lb_imb[c]) {
			sr_replay_free(r);
			return NULL;
		}
	}
	for (c = 0; c < topo->ncpus; c++) {
		r->rq[c].curr = -1;
		r->idle[c].last_wakee = -1;
		r->idle[c].cpu = c;
		r->idle[c].bound_cpu = c;
		r->idle[c].recent_used_cpu = -1;
	}
	return r;
}

void sr_replay_keep_snapshots(struct sr_replay *r, enum sr_snapshots which)
{
	r->snapshots = which;
}

void sr_replay_set_migration_callback(struct sr_replay *r, sr_migration_cb cb, void *data)
{
	r->mig_cb = cb;
	r->mig_data = data;
}

void sr_replay_set_callback(struct sr_replay *r, sr_decision_cb cb, void *data)
{
	r->cb = cb;
	r->cb_data = data;
}

const struct sr_replay_stats *sr_replay_borrow_stats(const struct sr_replay *r)
{
	return &r->stats;
}

void sr_replay_free(struct sr_replay *r)
{
	size_t i;

	if (!r)
		return;
	if (r->tasks)
		for (i = 0; i < r->cap; i++)
			if (r->tasks[i]) {
				sr_dec_pending_free(r->tasks[i]->pending);
				free(r->tasks[i]);
			}
	free(r->tasks);
	free(r->tgroups);
	free(r->tg_tasks);
	free(r->tgc);
	free(r->tgse);
	free(r->tg_grq);
	free(r->tg_root);
	free(r->tg_sub);
	free(r->tg_add);
	free(r->prevload_ts);
	while (r->nspare > 0)
		free(r->spare[--r->nspare]);
	free(r->rq);
	free(r->idle);
	free(r->pull);
	free(r->await);
	free(r->selected);
	for (i = 0; r->fork_probe && i < (size_t)r->topo->ncpus; i++)
		sr_dec_pending_free(r->fork_probe[i].pd);
	free(r->fork_probe);
	free(r->kin);
	free(r->kin_state);
	free(r->kin_rq);
	free(r->lbk);
	free(r->lbk_ts);
	free(r->lbk_owner);
	free(r->removed);
	free(r->tick_rm);
	free(r->ksoftirqd_woken);
	free(r->tick_saved);
	free(r->lb_head);
	free(r->lb_tail);
	free(r->lb_llc_last);
	free(r->lb_clk);
	free(r->ticking);
	sr_lb_scratch_free(r->lb_scratch);
	for (i = 0; r->lbp && i < (size_t)r->topo->ncpus; i++)
		if (r->lbp[i]) {
			free((void *)r->lbp[i]->d.snap);
			free(r->lbp[i]->ev[0]);
			free(r->lbp[i]->ev[1]);
			free(r->lbp[i]->why[0].g);
			free(r->lbp[i]->why[1].g);
			free(r->lbp[i]);
		}
	free(r->lbp);
	for (i = 0; i < SR_MAX_MODELS; i++)
		free(r->lb_imb[i]);
	free(r->last_local);
	free(r->nohz_last);
	free(r->switch_ts);
	free(r->nib_levels);
	free(r->pb_levels);
	free(r->pb_ts);
	free(r->pull_gap);
	free(r->pull_batch);
	free(r->last_kind_ts);
	free(r->lbt_armed);
	free(r->lbt);
	free(r->lbt_nbf);
	free(r->pull_task);
	free(r->pull_ran);
	free(r->pull_delayed);
	free(r->lb_probe_idle);
	free(r->lb_probe_ts);
	free(r->pull_probed);
	free(r->pull_again);
	free(r->ni_call);
	free(r->ni_pull);
	free(r);
}

void sr_replay_set_touches(struct sr_replay *r, const unsigned *touches)
{
	int i;

	for (i = 0; i < r->nmodels; i++)
		r->touches[i] = touches[i];
}

int sr_replay_hint_task(struct sr_replay *r, int pid, int tgid, const char *comm, int kthread,
			int bound_cpu)
{
	struct sr_task *t = task_get(r, pid, comm, -1);

	if (!t)
		return -SR_E_NOMEM;
	t->tgid = tgid;
	if (kthread >= 0) {
		t->kthread = kthread;
		t->inferred &= ~SR_INF_KTHREAD;
	}
	/*
	 * affinity withheld: what the name rule inferred stays.  Without the
	 * setaffinity probe a mask of every CPU is a fact of the snapshot's
	 * moment only (taskset -c on a command started later, or -p, shows
	 * nowhere): aff_fork() may still infer a pin (a bound CPU stays a fact)
	 */
	if (!r->no_affinity) {
		t->bound_cpu = bound_cpu;
		t->aff_observed = 1;
		t->aff_snapshot_only = r->aff_unseen && bound_cpu < 0;
		t->inferred &= ~SR_INF_AFFINITY;
	}
	/* a snapshot fact: the name rule must not override it later */
	t->snapshot = 1;
	return 0;
}

int sr_replay_hint_affinity(struct sr_replay *r, int pid, uint64_t mask)
{
	struct sr_task *t = task_get(r, pid, NULL, -1);
	uint64_t online = r->topo->ncpus >= 64 ? ~0ULL : (1ULL << r->topo->ncpus) - 1;

	if (!t)
		return -SR_E_NOMEM;
	/* every CPU allowed says nothing the default does not */
	if (r->no_affinity || !(mask & online) || (mask & online) == online)
		return 0;
	t->allowed = mask & online;
	t->allowed_known = 1;
	t->aff_observed = 1;
	t->aff_snapshot_only = 0;
	t->inferred &= ~SR_INF_AFFINITY;
	return 0;
}

void sr_replay_set_kernel(struct sr_replay *r, const struct sr_kgen *g)
{
	r->kgen = *g;
}

void sr_replay_use_probes(struct sr_replay *r, int on)
{
	r->probes = on;
}

void sr_replay_trace_declares_waking(struct sr_replay *r, int on)
{
	r->waking_declared = on;
}

void sr_replay_use_balance_probes(struct sr_replay *r, int on)
{
	r->balance_probes = on;
}

void sr_replay_use_input_probes(struct sr_replay *r, int on)
{
	r->input_probes = on;
}

void sr_replay_ignore_affinity(struct sr_replay *r, int on)
{
	r->no_affinity = on;
}

void sr_replay_affinity_unseen(struct sr_replay *r, int on)
{
	r->aff_unseen = on;
}
