// SPDX-License-Identifier: GPL-2.0
/*
 * Demand extraction: from the normalized event stream to each task's run
 * bursts, sleeps and the edges that end them (schedreplay/demand.h).
 *
 * A task's state is tracked from sched_switch (running, queued, asleep,
 * dead); its CPU time accumulates while it runs and becomes a RUN step
 * only at a point that matters to another task (a wakeup it makes, a fork)
 * or when it blocks, so preemptions and migrations inside a burst leave no
 * trace in the demand.  A sleep ends at the sched_waking of the task (the
 * waker's context; sched_wakeup when the trace has no sched_waking): a
 * waker that is a task gives a dependency edge to the point of the waker's
 * own execution (a producer's, SR_DM_F_STREAM: the waker's CPU time from
 * the wakee's block instead); the idle task (pid 0), or any task when the
 * wakeup came from interrupt context (the event's irq flags), a timer or
 * interrupt with the recorded length.  The state here is per task and per CPU; only the steps
 * grow with the trace.
 */
#include "schedreplay/demand.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/error.h"
#include "schedreplay/runmetrics.h"
#include "schedreplay/topology.h"
#include "schedreplay/trace.h"
#include "banned.h"

enum ts_state { TS_UNKNOWN, TS_RUNNING, TS_RUNNABLE, TS_SLEEPING, TS_DEAD };

#define RING	16	/* switch-ins kept per task, for cpu_since() */
#define NWK	8	/* wakers kept per task, for unblocked_since() */

/* extraction state of one task, parallel to sr_demand.task */
struct tstate {
	enum ts_state state;
	int cpu;		/* RUNNING: where */
	uint64_t since;		/* when the state began (RUNNING: the slice's start) */
	uint64_t acc;		/* CPU time of the burst not yet in a RUN step */
	uint64_t acc_ts;	/* the burst's first slice, 0 = no burst open */
	int acc_cpu;
	int sleep_step;		/* SLEEPING: the open SLEEP step */
	/* a sched_waking seen while it still ran (it had not switched out yet) */
	int pend;		/* 1: pending */
	int pend_waker;		/* task index, -1 for no task */
	int pend_step;		/* the waker's WAKE step, -1 none; no waker: the waking CPU */
	uint64_t pend_ts;
	uint64_t pend_acc;	/* the burst's CPU time up to the pending waking */
	int exiting;
	int woken;		/* RUNNABLE since a wakeup (not a preemption) */
	int wake_cpu;		/* ... whose sched_waking ran on this CPU */
	int act_pending;	/* ... and whose sched_wakeup (activation) is not seen yet */
	int pend_cpu;		/* the pending waking's CPU */
	int forked;		/* RUNNABLE since its fork, not run yet */
	int exec_probe;		/* an EXEC step from the select_rq probe, its
				 * sched_process_exec not seen yet */
	/* RUNNABLE: moved by another CPU onto idle CPU @move_cpu at @move_ts (0: not) */
	uint64_t move_ts;
	int move_cpu;
	uint64_t cur_mask;
	unsigned blocks;	/* its blocking switches so far */
	/* its wakeups so far as record_wakee() counts a flip: another wakee than the last */
	unsigned flips;
	int last_wakee;
	/*
	 * the last NWK tasks that woke it, each with its ->blocks then: a
	 * waker that has not blocked since its previous wakeup of this task
	 * is a producer's (SR_DM_F_STREAM)
	 */
	int wk_task[NWK];
	unsigned wk_blocks[NWK], wk_n;
	/* its last RING switch-ins: when, and its CPU time (run_ns) then */
	uint64_t ring_ts[RING], ring_cum[RING];
	unsigned ring_n;
};

struct dpriv {
	int use_waking;
	struct tstate *ts;	/* ntasks entries (capacity tcap) */
	int tcap;
	/* pid -> task index of the pid's current incarnation (open addressing) */
	int *hkey, *hval;
	size_t hcap, hn;
	int *curr;		/* per CPU: task index running, -1 idle/unknown */
	uint64_t *switch_ts;	/* per CPU: its last switch, UINT64_MAX none seen */
	int ccap;
	struct sr_hist idle_wake;	/* wakeup from another CPU to switch-in on an idle CPU */
	struct sr_hist idle_wake_local;	/* the same, the waking on that CPU itself */
	struct sr_hist preempt_wake;	/* wakeup to switch-in, preempting a busy CPU */
	struct sr_hist idle_fork;	/* fork to the child's first switch-in on an idle CPU */
	struct sr_hist idle_move;	/* a remote move onto an idle CPU to the switch-in there */
	struct sr_hist newidle;		/* newidle probe to its newidle_ret */
	uint64_t *newidle_ts;		/* per CPU: its open newidle probe, 0 none */
	uint64_t *newidle_start;	/* per CPU: its last newidle probe, 0 none */
	/* per CPU: an exec probe's EXEC step awaiting its select_rq_ret:
	 * (task index + 1) << 32 | step index, 0 none */
	uint64_t *exec_ret;
	int have_t0;
	size_t act_cap;
	struct sr_rm *rm;	/* the recorded run's figures, or NULL */
	int rm_failed;		/* it ran out of memory */
};

#define HASH_EMPTY	(-2)

static uint32_t hash_pid(int pid)
{
	return (uint32_t)pid * 2654435761u;
}

static int hash_grow(struct dpriv *p)
{
	size_t ncap = p->hcap ? p->hcap * 2 : 1024, i;
	int *nk = malloc(ncap * sizeof(*nk)), *nv = malloc(ncap * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -SR_E_NOMEM;
	}
	for (i = 0; i < ncap; i++)
		nk[i] = HASH_EMPTY;
	for (i = 0; i < p->hcap; i++) {
		size_t j;

		if (p->hkey[i] == HASH_EMPTY)
			continue;
		j = hash_pid(p->hkey[i]) & (ncap - 1);
		while (nk[j] != HASH_EMPTY)
			j = (j + 1) & (ncap - 1);
		nk[j] = p->hkey[i];
		nv[j] = p->hval[i];
	}
	free(p->hkey);
	free(p->hval);
	p->hkey = nk;
	p->hval = nv;
	p->hcap = ncap;
	return 0;
}

/* the slot of @pid, or of the empty slot where it would go */
static size_t hash_slot(const struct dpriv *p, int pid)
{
	size_t j = hash_pid(pid) & (p->hcap - 1);

	while (p->hkey[j] != HASH_EMPTY && p->hkey[j] != pid)
		j = (j + 1) & (p->hcap - 1);
	return j;
}

static int hash_get(const struct dpriv *p, int pid)
{
	size_t j;

	if (!p->hcap)
		return -1;
	j = hash_slot(p, pid);
	return p->hkey[j] == pid ? p->hval[j] : -1;
}

/* entries are never removed: a new incarnation of a pid overwrites it */
static int hash_put(struct dpriv *p, int pid, int idx)
{
	size_t j;

	if ((p->hn + 1) * 2 > p->hcap) {
		int ret = hash_grow(p);

		if (ret)
			return ret;
	}
	j = hash_slot(p, pid);
	if (p->hkey[j] == HASH_EMPTY)
		p->hn++;
	p->hkey[j] = pid;
	p->hval[j] = idx;
	return 0;
}

const char *sr_dm_end_name(enum sr_dm_end e)
{
	switch (e) {
	case SR_DM_BY_TASK:	return "task";
	case SR_DM_BY_TIMER:	return "timer";
	case SR_DM_BY_UNKNOWN:	return "unknown";
	case SR_DM_NEVER:	return "never";
	}
	return "?";
}

struct sr_demand *sr_demand_new(int use_waking)
{
	struct sr_demand *d = calloc(1, sizeof(*d));
	struct dpriv *p = calloc(1, sizeof(*p));

	if (!d || !p) {
		free(d);
		free(p);
		return NULL;
	}
	p->use_waking = use_waking;
	d->priv = p;
	return d;
}

void sr_demand_set_metrics(struct sr_demand *d, struct sr_rm *rm)
{
	if (d->priv)
		((struct dpriv *)d->priv)->rm = rm;
}

static void dpriv_free(struct dpriv *p)
{
	if (!p)
		return;
	free(p->ts);
	free(p->hkey);
	free(p->hval);
	free(p->curr);
	free(p->switch_ts);
	free(p->newidle_ts);
	free(p->newidle_start);
	free(p->exec_ret);
	free(p);
}

void sr_demand_free(struct sr_demand *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->ntasks; i++)
		free(d->task[i].step);
	free(d->task);
	free(d->idle_wake_hist);
	free(d->idle_wake_local_hist);
	free(d->act);
	free(d->preempt_wake_hist);
	free(d->idle_fork_hist);
	free(d->idle_move_hist);
	free(d->newidle_hist);
	dpriv_free(d->priv);
	free(d);
}

int sr_demand_find(const struct sr_demand *d, int pid)
{
	int i;

	if (d->priv)
		return hash_get(d->priv, pid);
	for (i = d->ntasks - 1; i >= 0; i--)
		if (d->task[i].pid == pid)
			return i;
	return -1;
}

/* @a grown to @ncap entries, the new ones from @from on set to @fill */
static int grow_u64(uint64_t **a, int from, int ncap, uint64_t fill)
{
	uint64_t *n = realloc(*a, (size_t)ncap * sizeof(*n));
	int i;

	if (!n)
		return -SR_E_NOMEM;
	for (i = from; i < ncap; i++)
		n[i] = fill;
	*a = n;
	return 0;
}

static int cpu_slot(struct sr_demand *d, int cpu)
{
	struct dpriv *p = d->priv;

	if (cpu >= p->ccap) {
		int ncap = p->ccap ? p->ccap : 8, i, *n;

		while (ncap <= cpu)
			ncap *= 2;
		n = realloc(p->curr, (size_t)ncap * sizeof(*n));
		if (!n)
			return -SR_E_NOMEM;
		p->curr = n;
		for (i = p->ccap; i < ncap; i++)
			n[i] = -1;
		if (grow_u64(&p->switch_ts, p->ccap, ncap, UINT64_MAX) ||
		    grow_u64(&p->newidle_ts, p->ccap, ncap, 0) ||
		    grow_u64(&p->newidle_start, p->ccap, ncap, 0) ||
		    grow_u64(&p->exec_ret, p->ccap, ncap, 0))
			return -SR_E_NOMEM;
		p->ccap = ncap;
	}
	if (cpu >= d->ncpus)
		d->ncpus = cpu + 1;
	return 0;
}

/* a kernel thread by its name: the per-CPU ones, the kworker pools, kthreadd */
static int kthread_name(const char *comm, int *bound)
{
	static const char *const names[] = {
		"kworker/", "kthreadd", "rcu_", "kswapd", "kcompactd", "khugepaged", "ksmd",
		"jbd2/", "kauditd", "oom_reaper", "writeback", "watchdogd", "irq/",
	};
	size_t i;

	*bound = -1;
	if (sr_lb_per_cpu_name(comm)) {
		const char *s = strchr(comm, '/');
		char *end;
		long cpu;

		if (s) {
			cpu = strtol(s + 1, &end, 10);
			if (end != s + 1 && (*end == '\0' || *end == ':' || *end == '-') &&
			    cpu >= 0 && cpu < 64)
				*bound = (int)cpu;
		}
		return 1;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(comm, names[i], strlen(names[i])))
			return 1;
	return 0;
}

static struct sr_dm_step *step_add(struct sr_dm_task *t, enum sr_dm_step_kind kind, uint64_t ts)
{
	struct sr_dm_step *s;

	if (t->nsteps == t->cap) {
		unsigned ncap = t->cap ? t->cap * 2 : 8;
		struct sr_dm_step *n = realloc(t->step, ncap * sizeof(*n));

		if (!n)
			return NULL;
		t->step = n;
		t->cap = ncap;
	}
	s = &t->step[t->nsteps++];
	memset(s, 0, sizeof(*s));
	s->kind = (uint8_t)kind;
	s->ts = ts;
	s->peer = -1;
	s->peer_step = -1;
	s->cpu = -1;
	return s;
}

/* a new task for @pid (a new incarnation if the pid was known) */
static int task_new(struct sr_demand *d, int pid, const char *comm, int prio,
		    enum sr_dm_origin origin, uint64_t ts, int cpu)
{
	struct dpriv *p = d->priv;
	struct sr_dm_task *t;
	struct tstate *s;
	int idx = d->ntasks, ret;

	if (idx == p->tcap) {
		int ncap = p->tcap ? p->tcap * 2 : 64;
		struct sr_dm_task *nt = realloc(d->task, (size_t)ncap * sizeof(*nt));

		if (!nt)
			return -SR_E_NOMEM;
		d->task = nt;
		s = realloc(p->ts, (size_t)ncap * sizeof(*s));
		if (!s)
			return -SR_E_NOMEM;
		p->ts = s;
		p->tcap = ncap;
	}
	ret = hash_put(p, pid, idx);
	if (ret)
		return ret;
	t = &d->task[idx];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->prio = prio;
	sr_strlcpy(t->comm, comm, sizeof(t->comm));
	t->origin = origin;
	t->parent = -1;
	t->parent_step = -1;
	t->first_cpu = cpu;
	t->kthread = kthread_name(t->comm, &t->bound_cpu) || pid == 2;
	t->mask = ~0ULL;
	t->first_ts = ts;
	t->flips0 = -1;
	s = &p->ts[idx];
	memset(s, 0, sizeof(*s));
	s->last_wakee = -1;
	s->state = TS_UNKNOWN;
	s->cpu = -1;
	s->acc_cpu = -1;
	s->sleep_step = -1;
	s->pend_waker = -1;
	s->pend_step = -1;
	s->cur_mask = ~0ULL;
	d->ntasks++;
	return idx;
}

/* the task of @pid, created as seen at the trace start when unknown */
static int task_get(struct sr_demand *d, int pid, const char *comm, int prio,
		    enum sr_dm_origin origin, int cpu)
{
	int idx = hash_get(d->priv, pid);

	if (idx >= 0) {
		if (comm && comm[0])
			sr_strlcpy(d->task[idx].comm, comm, sizeof(d->task[idx].comm));
		if (prio >= 0)
			d->task[idx].prio = prio;
		return idx;
	}
	return task_new(d, pid, comm ? comm : "", prio, origin, d->t0, cpu);
}

/* @idx is switched in at @ts (its run_ns is its CPU time up to then) */
static void ring_push(struct sr_demand *d, int idx, uint64_t ts)
{
	struct tstate *s = &((struct dpriv *)d->priv)->ts[idx];
	unsigned i = s->ring_n++ % RING;

	s->ring_ts[i] = ts;
	s->ring_cum[i] = d->task[idx].run_ns;
}

/*
 * The CPU time of @idx from @a to now, its run_ns accounted up to now: its
 * run_ns less its CPU time at @a, from the switch-ins kept (before the
 * oldest kept, from that one's)
 */
static uint64_t cpu_since(const struct sr_demand *d, int idx, uint64_t a)
{
	const struct tstate *s = &((const struct dpriv *)d->priv)->ts[idx];
	uint64_t now = d->task[idx].run_ns, at;
	unsigned n = s->ring_n < RING ? s->ring_n : RING, k;

	if (!n)
		return 0;
	/* newest first: the last switch-in at or before @a */
	for (k = 0; k < n; k++) {
		unsigned i = (s->ring_n - 1 - k) % RING;

		if (s->ring_ts[i] > a)
			continue;
		at = s->ring_cum[i] + (a - s->ring_ts[i]);
		/* the slice may have ended before @a: no more than at the next switch-in */
		if (k) {
			unsigned nx = (s->ring_n - k) % RING;

			if (at > s->ring_cum[nx])
				at = s->ring_cum[nx];
		}
		if (at > now)
			at = now;
		return now - at;
	}
	return now - s->ring_cum[(s->ring_n - n) % RING];
}

/* a task first seen running: its burst began at the trace start */
static int task_running_since_start(struct sr_demand *d, int idx, int cpu)
{
	struct dpriv *p = d->priv;
	struct tstate *s = &p->ts[idx];

	if (s->state != TS_UNKNOWN)
		return 0;
	s->state = TS_RUNNING;
	s->cpu = cpu;
	s->since = d->t0;
	s->acc_ts = d->t0;
	s->acc_cpu = cpu;
	ring_push(d, idx, d->t0);
	if (cpu >= 0 && cpu < p->ccap && p->curr[cpu] < 0) {
		p->curr[cpu] = idx;
		if (p->rm)
			return sr_rm_switch(p->rm, d->t0, cpu, 0, idx);
	}
	return 0;
}

/* bring a running task's CPU time up to @ts */
static void account(struct sr_demand *d, int idx, uint64_t ts)
{
	struct tstate *s = &((struct dpriv *)d->priv)->ts[idx];

	if (s->state != TS_RUNNING || ts < s->since)
		return;
	s->acc += ts - s->since;
	d->task[idx].run_ns += ts - s->since;
	s->since = ts;
}

/* close the open burst into a RUN step (nothing if it has no CPU time) */
static int flush_run(struct sr_demand *d, int idx, uint64_t ts)
{
	struct tstate *s = &((struct dpriv *)d->priv)->ts[idx];
	struct sr_dm_step *st;

	account(d, idx, ts);
	if (!s->acc) {
		if (s->state != TS_RUNNING)
			s->acc_ts = 0;
		return 0;
	}
	st = step_add(&d->task[idx], SR_DM_RUN, s->acc_ts ? s->acc_ts : ts);
	if (!st)
		return -SR_E_NOMEM;
	st->ns = s->acc;
	st->cpu = s->acc_cpu;
	d->stats.bursts++;
	s->acc = 0;
	/* a running task's next burst starts now, on this CPU */
	s->acc_ts = s->state == TS_RUNNING ? ts : 0;
	s->acc_cpu = s->state == TS_RUNNING ? s->cpu : -1;
	return 0;
}

/*
 * A pending waking (one that found @idx running, struct tstate pend) that
 * no blocking switch-out took: the task was woken while it prepared to
 * sleep (try_to_wake_up() matched its state before schedule(), 6.1 and
 * 6.12) and went on without blocking, a wait whose condition came true
 * (a parent's second wakeup by an exiting child: do_notify_parent() after
 * the SIGCHLD's).  When it reaches a point of its own (a wakeup it makes,
 * a fork, an affinity call) or is preempted first, that waking becomes a
 * sleep of no length at the waking's point of its execution: the
 * simulation keeps the dependency, and the task's next blocking switch is
 * not taken for this wakeup's.
 */
static int pend_to_sleep(struct sr_demand *d, int idx)
{
	struct tstate *s = &((struct dpriv *)d->priv)->ts[idx];
	struct sr_dm_step *st;
	uint64_t rest;
	int si;

	if (!s->pend || s->state != TS_RUNNING)
		return 0;
	s->pend = 0;
	if (s->pend_acc > s->acc)
		s->pend_acc = s->acc;
	rest = s->acc - s->pend_acc;
	if (s->pend_acc) {
		st = step_add(&d->task[idx], SR_DM_RUN, s->acc_ts ? s->acc_ts : s->pend_ts);
		if (!st)
			return -SR_E_NOMEM;
		st->ns = s->pend_acc;
		st->cpu = s->acc_cpu;
		d->stats.bursts++;
	}
	st = step_add(&d->task[idx], SR_DM_SLEEP, s->pend_ts);
	if (!st)
		return -SR_E_NOMEM;
	si = (int)d->task[idx].nsteps - 1;
	st->cpu = s->cpu;
	st->flags = SR_DM_F_EARLY;
	d->stats.sleeps++;
	d->stats.redundant_wakes--;
	if (s->pend_waker >= 0) {
		st->end = SR_DM_BY_TASK;
		st->peer = s->pend_waker;
		st->peer_step = s->pend_step;
		if (s->pend_step >= 0)
			d->task[s->pend_waker].step[s->pend_step].peer_step = si;
		d->stats.by_task++;
		d->stats.early++;
	} else {
		st->end = SR_DM_BY_TIMER;
		st->peer_step = s->pend_step;
		d->stats.by_timer++;
	}
	/* the rest of the burst runs from the waking on, where it ran */
	s->acc = rest;
	s->acc_ts = s->pend_ts;
	s->acc_cpu = s->cpu;
	return 0;
}

/* a point of @idx's own execution: a pending waking first, then the burst so far */
static int flush_point(struct sr_demand *d, int idx, uint64_t ts)
{
	int ret;

	account(d, idx, ts);
	ret = pend_to_sleep(d, idx);
	return ret ? ret : flush_run(d, idx, ts);
}

/*
 * end the open sleep of @idx at @ts: by task @w's WAKE step @wstep, or not
 * a task (a timer's: @wstep is the CPU its wakeup ran on, -1 unknown)
 */
static void end_sleep(struct sr_demand *d, int idx, uint64_t ts, enum sr_dm_end how,
		      int w, int wstep, unsigned flags)
{
	struct dpriv *p = d->priv;
	struct tstate *s = &p->ts[idx];
	struct sr_dm_step *st = &d->task[idx].step[s->sleep_step];

	st->end = (uint8_t)how;
	st->flags |= (uint16_t)flags;
	st->ns = ts > st->ts ? ts - st->ts : 0;
	if (how == SR_DM_BY_TASK) {
		st->peer = w;
		st->peer_step = wstep;
		d->task[w].step[wstep].peer_step = s->sleep_step;
		d->stats.by_task++;
		if (flags & SR_DM_F_EARLY)
			d->stats.early++;
	} else if (how == SR_DM_BY_TIMER) {
		st->peer_step = wstep;
		d->stats.by_timer++;
	} else if (how == SR_DM_BY_UNKNOWN) {
		d->stats.by_unknown++;
	}
	d->task[idx].sleep_ns += st->ns;
	s->sleep_step = -1;
	s->state = TS_RUNNABLE;
	s->since = ts;
	s->woken = how != SR_DM_BY_UNKNOWN;
	/* a latency sample, unless it runs at once without a wakeup seen */
	if (p->rm && how != SR_DM_BY_UNKNOWN && sr_rm_wakeup(p->rm, ts, idx, 1))
		p->rm_failed = 1;
}

/*
 * @w wakes @t: whether it woke @t before and has not blocked since; @w is
 * then kept as @t's latest waker
 */
static int unblocked_since(struct sr_demand *d, int w, int t)
{
	struct dpriv *p = d->priv;
	struct tstate *s = &p->ts[t];
	unsigned n = s->wk_n < NWK ? s->wk_n : NWK, k;

	for (k = 0; k < n; k++) {
		if (s->wk_task[k] == w) {
			int same = s->wk_blocks[k] == p->ts[w].blocks;

			s->wk_blocks[k] = p->ts[w].blocks;
			return same;
		}
	}
	k = s->wk_n++ % NWK;
	s->wk_task[k] = w;
	s->wk_blocks[k] = p->ts[w].blocks;
	return 0;
}

/* a WAKE step of @w (running on @cpu) for @wakee; returns its index or a negative code */
static int add_wake(struct sr_demand *d, int w, int wakee, int cpu, uint64_t ts)
{
	struct tstate *ws;
	struct sr_dm_step *st;
	int ret = flush_point(d, w, ts);

	if (ret)
		return ret;
	ws = &((struct dpriv *)d->priv)->ts[w];
	st = step_add(&d->task[w], SR_DM_WAKE, ts);
	if (!st)
		return -SR_E_NOMEM;
	st->peer = wakee;
	st->cpu = cpu;
	if (ws->exiting)
		st->flags |= SR_DM_F_EXITING;
	if (ws->last_wakee != wakee) {
		ws->last_wakee = wakee;
		ws->flips++;
	}
	return (int)d->task[w].nsteps - 1;
}

/*
 * An exec of task @pid running on @cpu at @ts: sched_exec() (kernel/sched/core.c,
 * 6.1.192 and 6.12.117; bprm_execve() calls it before the new image loads)
 * asks select_task_rq() with WF_EXEC for current, and another CPU than its
 * own sends it there through the stopper.  That is a point of the task's
 * execution, where the simulated machine makes the model's exec placement
 * (SR_DM_EXEC): @t_out and @si_out its task and step, -1 when the trace
 * does not show the task running there.  Return: 0, or a negative code.
 */
static int add_exec(struct sr_demand *d, int pid, int cpu, uint64_t ts, int *t_out, int *si_out)
{
	struct sr_dm_step *st;
	int t, ret;

	*t_out = *si_out = -1;
	t = task_get(d, pid, NULL, -1, SR_DM_ORIGIN_RUNNING, cpu);
	if (t < 0)
		return t;
	ret = task_running_since_start(d, t, cpu);
	if (ret)
		return ret;
	if (((struct dpriv *)d->priv)->ts[t].state != TS_RUNNING) {
		d->stats.inconsistent++;
		return 0;
	}
	ret = flush_point(d, t, ts);
	if (ret)
		return ret;
	st = step_add(&d->task[t], SR_DM_EXEC, ts);
	if (!st)
		return -SR_E_NOMEM;
	st->cpu = cpu;
	d->stats.execs++;
	*t_out = t;
	*si_out = (int)d->task[t].nsteps - 1;
	return 0;
}

/*
 * The recorder's select_rq probe (select_task_rq_fair() entry) with the
 * wake flags WF_EXEC (0x02) for the task current on its CPU: an exec
 * (add_exec()); its select_rq_ret gives the CPU the kernel chose.  The
 * sched_process_exec that follows (after the image loaded) is the same
 * exec.
 */
static int on_exec_probe(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int pid = ev->pid > 0 ? ev->pid : ev->common_pid, t, si, ret;

	if (pid <= 0 || pid != ev->common_pid)
		return 0;
	ret = add_exec(d, pid, ev->cpu, ev->ts, &t, &si);
	if (ret || si < 0)
		return ret;
	p->ts[t].exec_probe = 1;
	p->exec_ret[ev->cpu] = ((uint64_t)(t + 1) << 32) | (uint32_t)si;
	return 0;
}

/* select_rq_ret: the CPU an exec's select_task_rq() returned */
static void on_select_rq_ret(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	uint64_t v = p->exec_ret[ev->cpu];
	int t = (int)(v >> 32) - 1;
	unsigned si = (uint32_t)v;

	if (!v)
		return;
	p->exec_ret[ev->cpu] = 0;
	if (t < d->ntasks && si < d->task[t].nsteps && d->task[t].step[si].kind == SR_DM_EXEC)
		d->task[t].step[si].peer_step = ev->dest_cpu;
}

/*
 * sched_process_exec (exec_binprm(), after the new image loaded): the
 * exec's point where the trace has no exec probe for it (add_exec()); the
 * CPU time between sched_exec() and it falls before the point instead of
 * after it.
 */
static int on_process_exec(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int t, si;

	if (ev->common_pid <= 0)
		return 0;
	t = hash_get(p, ev->common_pid);
	if (t >= 0 && p->ts[t].exec_probe) {
		p->ts[t].exec_probe = 0;
		return 0;
	}
	return add_exec(d, ev->common_pid, ev->cpu, ev->ts, &t, &si);
}

/*
 * The first flips the select_rq probe shows of a task that was there
 * before the trace: p->wakee_flips of a wakeup's task (WF_TTWU 0x08), or
 * of a fork's child (WF_FORK 0x04), a copy of its parent's
 * (dup_task_struct()); less the flips its wakeups in the trace added so
 * far, the task's count at the trace's start (flips0).  Its halving
 * (record_wakee(), a second after the last) is not seen: the estimate is
 * high by what one took off.
 */
static void first_flips(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int t = hash_get(p, ev->pid);
	long long v;

	if (t >= 0 && (ev->wake_flags & 0x0c) == 0x04)
		t = d->task[t].parent;
	else if (!(ev->wake_flags & 0x08))
		return;
	if (t < 0 || d->task[t].origin == SR_DM_ORIGIN_FORKED || d->task[t].flips0 >= 0)
		return;
	v = ev->flips - (long long)p->ts[t].flips;
	d->task[t].flips0 = v > 0 ? v : 0;
}

/*
 * select_task_rq_fair() entry (the recorder's probe) right after a
 * sched_waking on the waker's CPU: its wake flags say whether the wakeup
 * was WF_SYNC (WF_TTWU 0x08 and WF_SYNC 0x10, as replay reads them); an
 * exec's (WF_EXEC alone) is on_exec_probe()'s.
 */
static int on_select_rq(struct sr_demand *d, const struct sr_event *ev)
{
	struct sr_dm_task *w;
	struct sr_dm_step *st;
	int wi, t;

	if (ev->flips >= 0 && ev->pid > 0 && ev->wake_flags >= 0)
		first_flips(d, ev);
	if (ev->wake_flags >= 0 && (ev->wake_flags & 0x0e) == 0x02)
		return on_exec_probe(d, ev);
	if (ev->wake_flags < 0 || !(ev->wake_flags & 0x08) || ev->common_pid <= 0)
		return 0;
	wi = hash_get(d->priv, ev->common_pid);
	t = ev->pid > 0 ? hash_get(d->priv, ev->pid) : -1;
	if (wi < 0 || t < 0)
		return 0;
	w = &d->task[wi];
	if (!w->nsteps)
		return 0;
	st = &w->step[w->nsteps - 1];
	if (st->kind != SR_DM_WAKE || st->peer != t || (st->flags & SR_DM_F_SYNC_KNOWN))
		return 0;
	st->flags |= SR_DM_F_SYNC_KNOWN;
	if (ev->wake_flags & 0x10)
		st->flags |= SR_DM_F_SYNC;
	return 0;
}

/* the waker of an event: a task index, -1 for none (idle), or a negative code - 2 */
static int waker_of(struct sr_demand *d, const struct sr_event *ev, int *w)
{
	int idx;

	*w = -1;
	if (ev->common_pid <= 0)
		return 0;
	idx = task_get(d, ev->common_pid, NULL, -1, SR_DM_ORIGIN_RUNNING, ev->cpu);
	if (idx < 0)
		return idx;
	*w = idx;
	return task_running_since_start(d, idx, ev->cpu);
}

/*
 * The sched_wakeup of a task woken (sched_waking) onto a CPU that was
 * running another task: the time between is the activation's, done by the
 * waker or, queued on the target's wake list, by the target's IPI
 * (ttwu_queue_wakelist(), 6.1 and 6.12: always across LLCs).  Kept with
 * the two CPUs, for the simulator to take the pairs its topology puts in
 * different LLCs.
 */
static int on_activate(struct sr_demand *d, int t, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	struct tstate *s = &p->ts[t];
	int to = ev->target_cpu >= 0 ? ev->target_cpu : ev->cpu;
	struct sr_dm_act *a;

	s->act_pending = 0;
	if (to < 0 || to >= p->ccap || s->wake_cpu < 0 || p->curr[to] < 0 || ev->ts < s->since)
		return 0;
	if (d->nact == p->act_cap) {
		size_t ncap = p->act_cap ? p->act_cap * 2 : 256;
		struct sr_dm_act *n = realloc(d->act, ncap * sizeof(*n));

		if (!n)
			return -SR_E_NOMEM;
		d->act = n;
		p->act_cap = ncap;
	}
	a = &d->act[d->nact++];
	a->from = (int16_t)s->wake_cpu;
	a->to = (int16_t)to;
	a->ns = ev->ts - s->since;
	return 0;
}

static int on_wake(struct sr_demand *d, const struct sr_event *ev, int fallback)
{
	struct dpriv *p = d->priv;
	struct tstate *s;
	int t, w, ret, ws, stream;

	if (ev->pid <= 0)
		return 0;
	if (ev->kind == SR_EV_WAKEUP && ev->success == 0)
		return 0;
	t = hash_get(p, ev->pid);
	if (t < 0) {
		struct sr_dm_step *st;

		/* asleep since the trace start */
		t = task_new(d, ev->pid, ev->comm, ev->prio, SR_DM_ORIGIN_SLEEPING, d->t0,
			     ev->target_cpu);
		if (t < 0)
			return t;
		st = step_add(&d->task[t], SR_DM_SLEEP, d->t0);
		if (!st)
			return -SR_E_NOMEM;
		st->flags = SR_DM_F_INITIAL;
		st->end = SR_DM_NEVER;
		p->ts[t].state = TS_SLEEPING;
		p->ts[t].sleep_step = 0;
		p->ts[t].since = d->t0;
		d->stats.sleeps++;
	}
	s = &p->ts[t];
	if (fallback) {
		/* a sched_wakeup whose sched_waking was not seen (lost) */
		if (s->state == TS_SLEEPING)
			end_sleep(d, t, ev->ts, SR_DM_BY_UNKNOWN, -1, -1, 0);
		/*
		 * A pending waking whose sched_wakeup comes while the wakee
		 * still runs found it queued (ttwu_runnable() traces it, 6.1 to
		 * 6.18): it did not race the switch-out (that one is traced
		 * only once the wakee is off its CPU), so it is a sleep of no
		 * length where it came (pend_to_sleep()), and the task's next
		 * blocking switch is a sleep of its own.
		 */
		else if (s->state == TS_RUNNING && s->pend) {
			account(d, t, ev->ts);
			return pend_to_sleep(d, t);
		} else if (s->state == TS_RUNNABLE && s->act_pending) {
			return on_activate(d, t, ev);
		}
		return 0;
	}
	ret = waker_of(d, ev, &w);
	if (ret)
		return ret;
	/*
	 * A wakeup from interrupt context (in_task() false: a timer's hardirq
	 * or softirq, RCU's softirq, a device) does not wait for the progress
	 * of the task it interrupted: try_to_wake_up() runs wherever the
	 * interrupt lands, so the sleep is a duration, like the idle task's.
	 */
	if (w == t || ev->ctx == SR_CTX_IRQ)
		w = -1;
	if (s->state == TS_SLEEPING) {
		if (w < 0) {
			s->wake_cpu = ev->cpu;
			s->act_pending = 1;
			end_sleep(d, t, ev->ts, SR_DM_BY_TIMER, -1, ev->cpu, 0);
			return 0;
		}
		/*
		 * A waker that has not blocked since its previous wakeup of
		 * this task is a producer (a FIFO's writer): it does not wait for
		 * the wakee, and which of its writes finds the wakee asleep on
		 * an empty pipe (pipe_write() wakes the readers only when the
		 * pipe was empty, 6.1 and 6.12) is the wakee's timing, not a
		 * point of its own.  The wakeup is kept as the producer's CPU
		 * time from the wakee's block to it; a sleep from the trace
		 * start has no block to count from.
		 */
		stream = unblocked_since(d, w, t) && !p->ts[w].exiting &&
			 !(d->task[t].step[s->sleep_step].flags & SR_DM_F_INITIAL);
		ws = add_wake(d, w, t, ev->cpu, ev->ts);
		if (ws < 0)
			return ws;
		if (stream) {
			struct sr_dm_step *wst = &d->task[w].step[ws];

			wst->flags |= SR_DM_F_STREAM;
			wst->ns = cpu_since(d, w, d->task[t].step[s->sleep_step].ts);
			d->stats.stream++;
		}
		s->wake_cpu = ev->cpu;
		s->act_pending = 1;
		end_sleep(d, t, ev->ts, SR_DM_BY_TASK, w, ws, 0);
		return 0;
	}
	d->stats.redundant_wakes++;
	if (s->state == TS_RUNNING && !s->pend && ev->kind == SR_EV_WAKING && ev->cpu != s->cpu) {
		/*
		 * The waking may precede the wakee's own switch-out on its CPU
		 * (try_to_wake_up() traces sched_waking before it waits for
		 * on_cpu): keep it, and let a blocking switch that follows end
		 * at once.  Only a sched_waking from another CPU can: one on
		 * the wakee's own CPU ran before __schedule() disabled
		 * interrupts, and sched_wakeup is traced after the wakee is off
		 * its CPU (ttwu_do_wakeup(), 3.10 to 6.18): such a wakeup of a
		 * task still queued (ttwu_runnable()) only sets it running, and
		 * the task's next sleep is a sleep of its own.  A kept waking
		 * whose sched_wakeup then comes while the task runs, or that
		 * the task outlives by a point of its own, becomes a sleep of
		 * no length (pend_to_sleep()).
		 */
		account(d, t, ev->ts);
		s->pend = 1;
		s->pend_ts = ev->ts;
		s->pend_acc = s->acc;
		s->pend_cpu = ev->cpu;
		s->pend_waker = w;
		/* no task: the CPU the interrupt was served on */
		s->pend_step = w < 0 ? ev->cpu : -1;
		if (w >= 0) {
			ws = add_wake(d, w, t, ev->cpu, ev->ts);
			if (ws < 0)
				return ws;
			s->pend_step = ws;
		}
	}
	return 0;
}

/*
 * A task first seen as it is switched in from the idle task, on a CPU seen
 * to go idle before: an idle CPU runs what is queued on it (pick_next_task()
 * before the idle class), so the task was not waiting there since the start
 * but arrived, woken or moved, unseen (a trace without wakeup events, or
 * lost ones): asleep from the start until now, as a sleep of unknown end.
 * At a CPU's first switch nothing says what it did before (its buffer may
 * begin later than the others'): queued since the start, as before.
 */
static int asleep_until(struct sr_demand *d, int t, uint64_t ts)
{
	struct dpriv *p = d->priv;
	struct sr_dm_step *st = step_add(&d->task[t], SR_DM_SLEEP, d->t0);

	if (!st)
		return -SR_E_NOMEM;
	st->flags = SR_DM_F_INITIAL;
	st->end = SR_DM_NEVER;
	d->task[t].origin = SR_DM_ORIGIN_SLEEPING;
	p->ts[t].state = TS_SLEEPING;
	p->ts[t].sleep_step = (int)d->task[t].nsteps - 1;
	p->ts[t].since = d->t0;
	d->stats.sleeps++;
	end_sleep(d, t, ts, SR_DM_BY_UNKNOWN, -1, -1, 0);
	return 0;
}

static int on_switch(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int cpu = ev->cpu, prev = -1, next = -1, ret, cur;
	struct tstate *s;

	cur = p->curr[cpu];
	if (ev->pid > 0) {
		prev = task_get(d, ev->pid, ev->comm, ev->prio, SR_DM_ORIGIN_RUNNING, cpu);
		if (prev < 0)
			return prev;
		ret = task_running_since_start(d, prev, cpu);
		if (ret)
			return ret;
	}
	if (ev->pid2 > 0) {
		next = task_get(d, ev->pid2, ev->comm2, ev->prio2, SR_DM_ORIGIN_RUNNABLE, cpu);
		if (next < 0)
			return next;
	}
	/* the figures first, so that a wakeup below finds the task off the CPU */
	if (p->rm) {
		ret = sr_rm_switch(p->rm, ev->ts, cpu, ev->prev_state != SR_PREV_BLOCKED &&
				   ev->prev_state != SR_PREV_DEAD, next);
		if (ret)
			return ret;
		if (prev >= 0 && ev->prev_state == SR_PREV_DEAD)
			sr_rm_exit(p->rm, ev->ts, prev,
				   d->task[prev].origin == SR_DM_ORIGIN_FORKED);
	}
	/* the CPU's current task by our count is not the one leaving: events were lost */
	if (cur >= 0 && cur != prev && p->ts[cur].state == TS_RUNNING && p->ts[cur].cpu == cpu) {
		d->stats.inconsistent++;
		account(d, cur, ev->ts);
		p->ts[cur].state = TS_RUNNABLE;
		p->ts[cur].since = ev->ts;
	}
	if (prev >= 0) {
		s = &p->ts[prev];
		if (s->state != TS_RUNNING || s->cpu != cpu) {
			d->stats.inconsistent++;
			if (s->state == TS_RUNNING)
				account(d, prev, ev->ts);
			else if (s->state == TS_SLEEPING)
				end_sleep(d, prev, ev->ts, SR_DM_BY_UNKNOWN, -1, -1, 0);
			s->state = TS_RUNNING;
			s->cpu = cpu;
			s->since = ev->ts;
		}
		/*
		 * a task that blocks switches out after the newly idle balance
		 * its CPU then runs (the probe's newidle to newidle_ret): its
		 * CPU time ends where the balance began, which the simulation
		 * times itself
		 */
		if ((ev->prev_state == SR_PREV_BLOCKED || ev->prev_state == SR_PREV_DEAD) &&
		    p->newidle_start[cpu] >= s->since && p->newidle_start[cpu] <= ev->ts) {
			account(d, prev, p->newidle_start[cpu]);
			s->since = ev->ts;
		}
		account(d, prev, ev->ts);
		switch (ev->prev_state) {
		case SR_PREV_BLOCKED: {
			struct sr_dm_step *st;

			ret = flush_run(d, prev, ev->ts);
			if (ret)
				return ret;
			s->state = TS_SLEEPING;
			s->since = ev->ts;
			s->blocks++;
			st = step_add(&d->task[prev], SR_DM_SLEEP, ev->ts);
			if (!st)
				return -SR_E_NOMEM;
			st->end = SR_DM_NEVER;
			st->cpu = cpu;
			s->sleep_step = (int)d->task[prev].nsteps - 1;
			d->stats.sleeps++;
			if (s->pend) {
				d->stats.redundant_wakes--;
				s->wake_cpu = s->pend_cpu;
				end_sleep(d, prev, ev->ts,
					  s->pend_waker >= 0 ? SR_DM_BY_TASK : SR_DM_BY_TIMER,
					  s->pend_waker, s->pend_step, SR_DM_F_EARLY);
			}
			break;
		}
		case SR_PREV_DEAD:
			ret = flush_run(d, prev, ev->ts);
			if (ret)
				return ret;
			if (!step_add(&d->task[prev], SR_DM_EXIT, ev->ts))
				return -SR_E_NOMEM;
			s->state = TS_DEAD;
			d->task[prev].exit_ts = ev->ts;
			d->stats.exits++;
			break;
		default:
			/* preempted after a waking that found it running: it will not block for it */
			ret = pend_to_sleep(d, prev);
			if (ret)
				return ret;
			s->state = TS_RUNNABLE;
			s->since = ev->ts;
			break;
		}
		s->pend = 0;
	}
	if (next >= 0) {
		s = &p->ts[next];
		switch (s->state) {
		case TS_UNKNOWN:
			if (ev->pid == 0 && p->switch_ts[cpu] != UINT64_MAX) {
				ret = asleep_until(d, next, ev->ts);
				if (ret)
					return ret;
				break;
			}
			s->since = d->t0;
			d->task[next].wait_ns += ev->ts - d->t0;
			break;
		case TS_SLEEPING:
			/* it runs again without a wakeup seen */
			end_sleep(d, next, ev->ts, SR_DM_BY_UNKNOWN, -1, -1, 0);
			break;
		case TS_RUNNING:
			d->stats.inconsistent++;
			account(d, next, ev->ts);
			if (s->cpu >= 0 && s->cpu < p->ccap && p->curr[s->cpu] == next)
				p->curr[s->cpu] = -1;
			break;
		case TS_RUNNABLE:
			d->task[next].wait_ns += ev->ts - s->since;
			/*
			 * woken onto this CPU while it was idle (or while one task
			 * ran there, which it preempted), and it ran first
			 */
			if (s->woken && p->switch_ts[cpu] <= s->since) {
				if (ev->pid == 0)
					sr_hist_add(s->wake_cpu == cpu ? &p->idle_wake_local :
						    &p->idle_wake, ev->ts - s->since);
				else if (ev->prev_state == SR_PREV_PREEMPTED ||
					 ev->prev_state == SR_PREV_RUNNABLE)
					sr_hist_add(&p->preempt_wake, ev->ts - s->since);
			}
			/*
			 * a new task onto a CPU idle since its fork (no switch there
			 * since, or none seen at all), and it ran first
			 */
			if (s->forked && ev->pid == 0 &&
			    (p->switch_ts[cpu] <= s->since || p->switch_ts[cpu] == UINT64_MAX))
				sr_hist_add(&p->idle_fork, ev->ts - s->since);
			/* moved here by another CPU while this one was idle, and it ran first */
			if (s->move_ts && s->move_cpu == cpu && ev->pid == 0 &&
			    (p->switch_ts[cpu] <= s->move_ts || p->switch_ts[cpu] == UINT64_MAX))
				sr_hist_add(&p->idle_move, ev->ts - s->move_ts);
			break;
		case TS_DEAD:
			d->stats.inconsistent++;
			break;
		}
		s->state = TS_RUNNING;
		s->cpu = cpu;
		s->since = ev->ts;
		ring_push(d, next, ev->ts);
		s->woken = 0;
		s->forked = 0;
		s->move_ts = 0;
		s->act_pending = 0;
		if (!s->acc_ts) {
			s->acc_ts = ev->ts;
			s->acc_cpu = cpu;
		}
		if (d->task[next].first_cpu < 0)
			d->task[next].first_cpu = cpu;
	}
	p->curr[cpu] = next;
	p->switch_ts[cpu] = ev->ts;
	return 0;
}

/*
 * sched_migrate_task of a queued task (not one being woken or forked: their
 * costs are the wakeups' and forks') made by another CPU than the
 * destination, onto a CPU that is idle (or not seen yet): move_queued_task() from the
 * stopper (an affinity change, active balancing) or attach_task() from
 * another CPU's balance, which reach the idle CPU by resched_curr()'s IPI
 * (6.1, 6.12).  Its switch-in there gives the idle_move cost.
 */
static void on_migrate(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int t = ev->pid > 0 ? hash_get(p, ev->pid) : -1, dst = ev->dest_cpu;
	struct tstate *s;

	if (t < 0)
		return;
	s = &p->ts[t];
	s->move_ts = 0;
	if (s->state != TS_RUNNABLE || s->woken || s->forked || dst < 0 || dst == ev->cpu ||
	    dst >= p->ccap || p->curr[dst] >= 0)
		return;
	s->move_ts = ev->ts;
	s->move_cpu = dst;
}

static int do_fork(struct sr_demand *d, int parent, int child_pid, const char *comm, int prio,
		   int cpu, uint64_t ts)
{
	struct dpriv *p = d->priv;
	struct sr_dm_step *st;
	int c, ret;

	if (parent >= 0) {
		ret = flush_point(d, parent, ts);
		if (ret)
			return ret;
	}
	c = task_new(d, child_pid, comm, prio, SR_DM_ORIGIN_FORKED, ts, -1);
	if (c < 0)
		return c;
	p->ts[c].state = TS_RUNNABLE;
	p->ts[c].since = ts;
	p->ts[c].forked = 1;
	d->stats.forks++;
	if (p->rm) {
		ret = sr_rm_wakeup(p->rm, ts, c, 0);
		if (ret)
			return ret;
	}
	if (parent < 0) {
		d->task[c].origin = SR_DM_ORIGIN_RUNNABLE;
		return 0;
	}
	st = step_add(&d->task[parent], SR_DM_FORK, ts);
	if (!st)
		return -SR_E_NOMEM;
	st->peer = c;
	st->cpu = cpu;
	d->task[c].parent = parent;
	d->task[c].parent_step = (int)d->task[parent].nsteps - 1;
	d->task[c].mask = p->ts[parent].cur_mask;
	d->task[c].mask_known = d->task[parent].mask_known;
	p->ts[c].cur_mask = p->ts[parent].cur_mask;
	if (d->task[parent].kthread)
		d->task[c].kthread = 1;
	return 0;
}

static int on_fork(struct sr_demand *d, const struct sr_event *ev)
{
	int parent = -1, ret;

	if (ev->pid2 <= 0)
		return 0;
	if (ev->pid > 0) {
		parent = task_get(d, ev->pid, ev->comm, ev->prio, SR_DM_ORIGIN_RUNNING, ev->cpu);
		if (parent < 0)
			return parent;
		ret = task_running_since_start(d, parent, ev->cpu);
		if (ret)
			return ret;
	}
	return do_fork(d, parent, ev->pid2, ev->comm2[0] ? ev->comm2 : ev->comm,
		       ev->prio2 >= 0 ? ev->prio2 : ev->prio, ev->cpu, ev->ts);
}

static int on_wakeup_new(struct sr_demand *d, const struct sr_event *ev)
{
	int parent = -1, ret;

	if (ev->pid <= 0 || hash_get(d->priv, ev->pid) >= 0)
		return 0;
	/* no sched_process_fork seen: the forking task is the one current */
	ret = waker_of(d, ev, &parent);
	if (ret)
		return ret;
	return do_fork(d, parent, ev->pid, ev->comm, ev->prio, ev->cpu, ev->ts);
}

static int on_setaffinity(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	struct sr_dm_step *st;
	int t, ret;

	int pid = ev->pid > 0 ? ev->pid : ev->common_pid;	/* pid 0: the caller */

	if (pid <= 0 || !ev->cpumask)
		return 0;
	t = task_get(d, pid, NULL, -1, SR_DM_ORIGIN_RUNNING, ev->cpu);
	if (t < 0)
		return t;
	if (pid == ev->common_pid) {
		ret = task_running_since_start(d, t, ev->cpu);
		if (ret)
			return ret;
	}
	p->ts[t].cur_mask = ev->cpumask;
	/*
	 * A task that ran before the call (a forked child that sets its own
	 * affinity in its first slice) had its old mask until then: the
	 * kernel placed it by that mask (wake_up_new_task() on the parent's,
	 * copied by dup_task_struct()) and the call then moves it
	 * (__set_cpus_allowed_ptr() -> affine_move_task(), 6.1 and 6.12).
	 * Its CPU time up to the call counts first.
	 */
	account(d, t, ev->ts);
	if (!d->task[t].nsteps && !p->ts[t].acc) {
		/* before it did anything: its mask from the start */
		d->task[t].mask = ev->cpumask;
		d->task[t].mask_known = 1;
		return 0;
	}
	ret = flush_point(d, t, ev->ts);
	if (ret)
		return ret;
	st = step_add(&d->task[t], SR_DM_AFFINITY, ev->ts);
	if (!st)
		return -SR_E_NOMEM;
	st->mask = ev->cpumask;
	st->cpu = ev->cpu;
	return 0;
}

/* the event's name without its system ("schedreplay/newidle", "probe:newidle") */
static int probe_is(const char *name, const char *want)
{
	const char *s;

	if (!name)
		return 0;
	s = strrchr(name, '/');
	if (!s)
		s = strrchr(name, ':');
	return !strcmp(s ? s + 1 : name, want);
}

/* the recorder's newidle and newidle_ret probes: how long a newly idle balance took */
static void on_probe(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;

	if (probe_is(ev->name, "newidle")) {
		p->newidle_ts[ev->cpu] = ev->ts ? ev->ts : 1;
		p->newidle_start[ev->cpu] = p->newidle_ts[ev->cpu];
	} else if (probe_is(ev->name, "newidle_ret")) {
		if (p->newidle_ts[ev->cpu] && ev->ts >= p->newidle_ts[ev->cpu])
			sr_hist_add(&p->newidle, ev->ts - p->newidle_ts[ev->cpu]);
		p->newidle_ts[ev->cpu] = 0;
	}
}

int sr_demand_feed(struct sr_demand *d, const struct sr_event *ev)
{
	struct dpriv *p = d->priv;
	int ret;

	if (!p)
		return -SR_E_USAGE;
	if (!p->have_t0) {
		d->t0 = ev->ts;
		p->have_t0 = 1;
		if (p->rm)
			sr_rm_start(p->rm, ev->ts);
	}
	if (ev->ts > d->t1)
		d->t1 = ev->ts;
	d->stats.events++;
	if (ev->cpu < 0 || ev->cpu >= SR_TOPOLOGY_MAX_CPUS) {
		d->stats.inconsistent++;
		return 0;
	}
	ret = cpu_slot(d, ev->cpu);
	if (ret)
		return ret;
	if (p->rm_failed)
		return -SR_E_NOMEM;
	switch (ev->kind) {
	case SR_EV_SWITCH:
		return on_switch(d, ev);
	case SR_EV_WAKING:
		/* a text trace does not declare its events: the first waking tells */
		p->use_waking = 1;
		return on_wake(d, ev, 0);
	case SR_EV_WAKEUP:
		return on_wake(d, ev, p->use_waking);
	case SR_EV_WAKEUP_NEW:
		return on_wakeup_new(d, ev);
	case SR_EV_FORK:
		return on_fork(d, ev);
	case SR_EV_EXIT: {
		int t = ev->pid > 0 ? hash_get(p, ev->pid) : -1;

		if (t >= 0)
			p->ts[t].exiting = 1;
		return 0;
	}
	case SR_EV_SETAFFINITY:
		return on_setaffinity(d, ev);
	case SR_EV_MIGRATE:
		if (ev->dest_cpu >= 0 && ev->dest_cpu < SR_TOPOLOGY_MAX_CPUS) {
			ret = cpu_slot(d, ev->dest_cpu);
			if (ret)
				return ret;
		}
		on_migrate(d, ev);
		return 0;
	case SR_EV_SELECT_RQ:
		return on_select_rq(d, ev);
	case SR_EV_SELECT_RQ_RET:
		on_select_rq_ret(d, ev);
		return 0;
	case SR_EV_LOST:
		d->stats.lost_markers++;
		return 0;
	case SR_EV_OTHER:
		if (probe_is(ev->name, "sched_process_exec"))
			return on_process_exec(d, ev);
		on_probe(d, ev);
		return 0;
	default:
		return 0;
	}
}

/*
 * A producer is a task whose wakeups of tasks mostly came without a block
 * of its own since its previous one (a FIFO's writer).  A task that mostly
 * blocks between them answers what it was woken for (a ping-pong partner,
 * whose occasional second wakeup follows a reply it found without
 * sleeping, pipe_read() taking the data at once): its wakeups stay points
 * of its own execution, SR_DM_F_STREAM taken off.
 */
static void producers_only(struct sr_demand *d)
{
	int i;
	unsigned j;

	for (i = 0; i < d->ntasks; i++) {
		struct sr_dm_task *t = &d->task[i];
		unsigned wakes = 0, stream = 0;

		for (j = 0; j < t->nsteps; j++) {
			if (t->step[j].kind != SR_DM_WAKE || t->step[j].peer_step < 0)
				continue;
			wakes++;
			if (t->step[j].flags & SR_DM_F_STREAM)
				stream++;
		}
		if (!stream || stream * 2 > wakes)
			continue;
		for (j = 0; j < t->nsteps; j++) {
			if (t->step[j].kind == SR_DM_WAKE && (t->step[j].flags & SR_DM_F_STREAM)) {
				t->step[j].flags &= (uint16_t)~SR_DM_F_STREAM;
				t->step[j].ns = 0;
				d->stats.stream--;
			}
		}
	}
}

int sr_demand_finish(struct sr_demand *d)
{
	struct dpriv *p = d->priv;
	int i, ret;

	if (!p)
		return 0;
	d->idle_wake_samples = p->idle_wake.n;
	d->idle_wake_local_samples = p->idle_wake_local.n;
	d->idle_wake_local_ns = (uint64_t)(sr_hist_quantile(&p->idle_wake_local, 0.5) + 0.5);
	d->idle_wake_local_hist = malloc(sizeof(*d->idle_wake_local_hist));
	d->idle_wake_ns = (uint64_t)(sr_hist_quantile(&p->idle_wake, 0.5) + 0.5);
	d->preempt_wake_samples = p->preempt_wake.n;
	d->preempt_wake_ns = (uint64_t)(sr_hist_quantile(&p->preempt_wake, 0.5) + 0.5);
	d->idle_fork_samples = p->idle_fork.n;
	d->idle_fork_ns = (uint64_t)(sr_hist_quantile(&p->idle_fork, 0.5) + 0.5);
	d->idle_move_samples = p->idle_move.n;
	d->idle_move_ns = (uint64_t)(sr_hist_quantile(&p->idle_move, 0.5) + 0.5);
	d->idle_move_hist = malloc(sizeof(*d->idle_move_hist));
	d->idle_wake_hist = malloc(sizeof(*d->idle_wake_hist));
	d->preempt_wake_hist = malloc(sizeof(*d->preempt_wake_hist));
	d->idle_fork_hist = malloc(sizeof(*d->idle_fork_hist));
	d->newidle_hist = malloc(sizeof(*d->newidle_hist));
	d->newidle_samples = p->newidle.n;
	d->newidle_ns = (uint64_t)(sr_hist_quantile(&p->newidle, 0.5) + 0.5);
	if (!d->idle_wake_hist || !d->idle_wake_local_hist || !d->preempt_wake_hist ||
	    !d->idle_fork_hist ||
	    !d->idle_move_hist || !d->newidle_hist)
		return -SR_E_NOMEM;
	*d->newidle_hist = p->newidle;
	*d->idle_wake_hist = p->idle_wake;
	*d->idle_wake_local_hist = p->idle_wake_local;
	*d->preempt_wake_hist = p->preempt_wake;
	*d->idle_fork_hist = p->idle_fork;
	*d->idle_move_hist = p->idle_move;
	for (i = 0; i < d->ntasks; i++) {
		struct tstate *s = &p->ts[i];

		switch (s->state) {
		case TS_RUNNING:
		case TS_RUNNABLE:
			if (s->state == TS_RUNNABLE)
				d->task[i].wait_ns += d->t1 - s->since;
			ret = flush_run(d, i, d->t1);
			if (ret)
				return ret;
			break;
		case TS_SLEEPING: {
			struct sr_dm_step *st = &d->task[i].step[s->sleep_step];

			st->ns = d->t1 - st->ts;
			d->task[i].sleep_ns += st->ns;
			d->stats.never++;
			break;
		}
		default:
			break;
		}
		if (s->exiting && s->state != TS_DEAD) {
			if (!step_add(&d->task[i], SR_DM_EXIT, d->t1))
				return -SR_E_NOMEM;
			d->task[i].exit_ts = d->t1;
			d->stats.exits++;
		}
	}
	producers_only(d);
	dpriv_free(p);
	d->priv = NULL;
	return 0;
}

int sr_demand_from_open_trace(struct sr_trace *tr, const char *path, struct sr_rm *rm,
			      struct sr_demand **d_out, char **cause)
{
	const struct sr_trace_info *info;
	struct sr_demand *d;
	struct sr_event ev;
	int ret;

	*d_out = NULL;
	info = sr_trace_borrow_info(tr);
	d = sr_demand_new(info->has_waking);
	if (!d)
		return -SR_E_NOMEM;
	sr_demand_set_metrics(d, rm);
	while ((ret = sr_trace_next(tr, &ev, cause)) > 0) {
		ret = sr_demand_feed(d, &ev);
		if (ret)
			break;
	}
	if (!ret)
		ret = sr_demand_finish(d);
	if (ret) {
		if (ret == -SR_E_NOMEM && cause && !*cause)
			sr_cause_set(cause, "cannot extract the demand of '%s': %s", path,
				     sr_strerror(ret));
		sr_demand_free(d);
		return ret;
	}
	*d_out = d;
	return 0;
}

int sr_demand_from_trace(const char *path, struct sr_rm *rm, struct sr_demand **d_out,
			 char **cause)
{
	struct sr_trace *tr = NULL;
	int ret;

	*d_out = NULL;
	ret = sr_trace_open(path, NULL, &tr, cause);
	if (ret)
		return ret;
	ret = sr_demand_from_open_trace(tr, path, rm, d_out, cause);
	sr_trace_free(tr);
	return ret;
}

static const char *origin_name(enum sr_dm_origin o)
{
	switch (o) {
	case SR_DM_ORIGIN_RUNNING:	return "running";
	case SR_DM_ORIGIN_RUNNABLE:	return "runnable";
	case SR_DM_ORIGIN_SLEEPING:	return "sleeping";
	case SR_DM_ORIGIN_FORKED:	return "forked";
	}
	return "?";
}

int sr_demand_write_text(const struct sr_demand *d, FILE *f)
{
	int i;
	unsigned j;

	fprintf(f, "demand: %d tasks, %d cpus, span %" PRIu64 " ns\n", d->ntasks, d->ncpus,
		d->t1 - d->t0);
	for (i = 0; i < d->ntasks; i++) {
		const struct sr_dm_task *t = &d->task[i];

		fprintf(f, "task %d pid %d comm %s prio %d origin %s", i, t->pid, t->comm, t->prio,
			origin_name(t->origin));
		if (t->parent >= 0)
			fprintf(f, " parent %d@%d", t->parent, t->parent_step);
		if (t->kthread)
			fprintf(f, " kthread");
		if (t->bound_cpu >= 0)
			fprintf(f, " bound %d", t->bound_cpu);
		if (t->mask_known)
			fprintf(f, " mask %#" PRIx64, t->mask);
		fprintf(f, " run %" PRIu64 " wait %" PRIu64 " sleep %" PRIu64 "\n",
			t->run_ns, t->wait_ns, t->sleep_ns);
		for (j = 0; j < t->nsteps; j++) {
			const struct sr_dm_step *s = &t->step[j];

			fprintf(f, "  %u ", j);
			switch (s->kind) {
			case SR_DM_RUN:
				fprintf(f, "run %" PRIu64 "\n", s->ns);
				break;
			case SR_DM_WAKE:
				fprintf(f, "wake %d@%d%s%s", s->peer, s->peer_step,
					(s->flags & SR_DM_F_SYNC) ? " sync" : "",
					(s->flags & SR_DM_F_EXITING) ? " exiting" : "");
				if (s->flags & SR_DM_F_STREAM)
					fprintf(f, " stream %" PRIu64, s->ns);
				fprintf(f, "\n");
				break;
			case SR_DM_FORK:
				fprintf(f, "fork %d\n", s->peer);
				break;
			case SR_DM_AFFINITY:
				fprintf(f, "affinity %#" PRIx64 "\n", s->mask);
				break;
			case SR_DM_SLEEP:
				fprintf(f, "sleep %" PRIu64 " %s", s->ns, sr_dm_end_name(s->end));
				if (s->end == SR_DM_BY_TASK)
					fprintf(f, " %d@%d", s->peer, s->peer_step);
				if (s->flags & SR_DM_F_EARLY)
					fprintf(f, " early");
				if (s->flags & SR_DM_F_INITIAL)
					fprintf(f, " initial");
				fprintf(f, "\n");
				break;
			case SR_DM_EXIT:
				fprintf(f, "exit\n");
				break;
			case SR_DM_EXEC:
				fprintf(f, "exec on %d", s->cpu);
				if (s->peer_step >= 0)
					fprintf(f, " to %d", s->peer_step);
				fprintf(f, "\n");
				break;
			}
		}
	}
	return ferror(f) ? -SR_E_IO : 0;
}
