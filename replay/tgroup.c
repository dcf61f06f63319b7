// SPDX-License-Identifier: GPL-2.0
/*
 * Task groups (schedreplay-models(7) §3.5): with CONFIG_SCHED_AUTOGROUP and
 * kernel.sched_autogroup_enabled = 1, every session of a task in the root
 * cpu cgroup is a task group of its own (autogroup_create(), 6.1 - 6.18),
 * whose shares are the nice-0 weight unless /proc/PID/autogroup's nice was
 * changed (proc_sched_autogroup_set_nice()).  A CPU's root cfs_rq then holds
 * one group entity per group with a task there, not the group's tasks, and
 * cpu_load() and task_h_load() read that hierarchy.  The recorder's task
 * snapshot says which autogroup each task was in when the recording
 * started; a child joins its parent's (sched_fork() copies the signal's
 * autogroup through copy_signal() for a new process, a thread shares it).
 *
 * The group cfs_rqs are summed at each read from the engine's task signals:
 * - a group cfs_rq's load_avg on a CPU: the sum of its tasks' load_avg
 *   there, the blocked ones decayed to now (their signals decay together in
 *   the kernel's cfs_rq); its load.weight: the weights of its queued tasks;
 * - tg->load_avg: the sum of those load_avg over the CPUs
 *   (update_tg_load_avg(); its 1 ms and 1/64 rate limits are not modelled).
 * Each group entity on each CPU (struct sr_tg_se) is kept as the kernel
 * keeps it, updated by state.c at every change of its group's queue there
 * (sr_tg_update()):
 * - its weight: what update_cfs_group() last set, calc_group_shares()
 *   (fair.c, the same in 6.1, 6.12 and 6.18) at each enqueue and dequeue,
 *   and at the ticks while the group's task runs; an emptied queue keeps
 *   it from 6.12.11 / 6.13 (SR_KF_GROUP_KEEP_WEIGHT), is reweighted from
 *   its blocked load before;
 * - its PELT signal: load_sum (unweighted) accrues while the group has a
 *   task queued on the CPU, plus what update_tg_cfs_load() propagates at
 *   a task's attach and detach; its load_avg is weight * load_sum / divider.
 * An entity not changed since the recording began is estimated at each read
 * from its tasks: its weight now, its runnable fraction 1 while its queue
 * has a task, else its blocked tasks' fractions clipped at 1.
 * cpu_load() of a CPU is then its root signal with each group's tasks'
 * load replaced by the group entity's (where a select_rq probe gave the
 * kernel's cpu_load() of the CPU at this decision, that value is kept as
 * is).  What that took out and put in per CPU is kept too, so the fork slow
 * path can apply it to the root signal as last updated
 * (sr_view_group_load()).  task_h_load() (update_cfs_rq_h_load(), task_h_load()) is
 * p->se.avg.load_avg * h_load / (group cfs_rq load_avg + 1) with h_load =
 * cpu_load * entity load_avg / (cpu_load + 1), on task_cpu(p).
 */
#include <stdlib.h>
#include <string.h>

#include "replay-local.h"
#include "schedreplay/error.h"
#include "banned.h"

#define MIN_SHARES 2

/* the slot of autogroup @id (1-based), a new one if unseen; 0 without memory */
static int tg_slot(struct sr_replay *r, long id, int nice)
{
	struct sr_tgroup *ng;
	int i;

	for (i = 0; i < r->ntgroups; i++)
		if (r->tgroups[i].id == id)
			return i + 1;
	ng = realloc(r->tgroups, (size_t)(r->ntgroups + 1) * sizeof(*ng));
	if (!ng)
		return 0;
	r->tgroups = ng;
	/* sched_autogroup_create_attach(): shares of nice 0; the nice's weight else */
	ng[r->ntgroups].id = id;
	ng[r->ntgroups].shares = nice >= -20 && nice <= 19 ? sr_prio_to_weight(120 + nice) :
							     SR_NICE0_WEIGHT;
	return ++r->ntgroups;
}

int sr_tg_set(struct sr_replay *r, struct sr_task *t, int g)
{
	int old = t->tg, cpu = t->lb_cpu;

	if (g > 0 && t->tg <= 0) {
		if (r->ntg_tasks == r->tg_tasks_cap) {
			size_t ncap = r->tg_tasks_cap ? r->tg_tasks_cap * 2 : 64;
			struct sr_task **nt = realloc(r->tg_tasks, ncap * sizeof(*nt));

			if (!nt)
				return -SR_E_NOMEM;
			r->tg_tasks = nt;
			r->tg_tasks_cap = ncap;
		}
		t->tg_pos = (int)r->ntg_tasks;
		r->tg_tasks[r->ntg_tasks++] = t;
	} else if (g <= 0 && t->tg > 0 && t->tg_pos >= 0 && (size_t)t->tg_pos < r->ntg_tasks) {
		struct sr_task *last = r->tg_tasks[--r->ntg_tasks];

		r->tg_tasks[t->tg_pos] = last;
		last->tg_pos = t->tg_pos;
		t->tg_pos = -1;
	}
	t->tg = g > 0 ? g : 0;
	/*
	 * sched_move_task() of a queued task (an exiting one,
	 * sched_autogroup_exit_task()): dequeued from its group's cfs_rq
	 * (update_cfs_group()), detached from it (update_tg_cfs_load())
	 */
	if (old > 0 && old != t->tg && cpu >= 0 && cpu == t->cpu && t->attached)
		sr_tg_update(r, old, cpu, r->now, -1, 1);
	return 0;
}

int sr_replay_hint_group(struct sr_replay *r, int pid, long autogroup, int nice)
{
	struct sr_task *t = sr_state_task_get(r, pid);
	int g = 0;

	if (!t)
		return -SR_E_NOMEM;
	if (autogroup > 0) {
		g = tg_slot(r, autogroup, nice);
		if (!g)
			return -SR_E_NOMEM;
	}
	return sr_tg_set(r, t, g);
}

int sr_replay_ngroups(const struct sr_replay *r)
{
	return r->ntgroups;
}

#define PELT_MIN_DIVIDER (SR_PELT_MAX - 1024)

static uint32_t divider_of(const struct sr_pelt *sa)
{
	return PELT_MIN_DIVIDER + sa->period_contrib;
}

/* the entity of group @g (1-based) on @cpu; NULL without memory */
static struct sr_tg_se *tg_se(struct sr_replay *r, int g, int cpu)
{
	size_t ncpus = (size_t)r->topo->ncpus;

	if (g <= 0 || g > r->ntgroups || cpu < 0 || (size_t)cpu >= ncpus)
		return NULL;
	if (r->ntgse < r->ntgroups) {
		struct sr_tg_se *n = realloc(r->tgse, (size_t)r->ntgroups * ncpus * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + (size_t)r->ntgse * ncpus, 0,
		       (size_t)(r->ntgroups - r->ntgse) * ncpus * sizeof(*n));
		r->tgse = n;
		r->ntgse = r->ntgroups;
	}
	return &r->tgse[(size_t)(g - 1) * ncpus + (size_t)cpu];
}

/*
 * group @g's cfs_rq on every CPU at @now, from its tasks: the attached
 * ones' signals decayed (or grown) to now on copies, the weights of those
 * on the CPU's queue (a delayed one too: it keeps its weight in
 * load.weight); NULL without memory
 */
static struct sr_tg_grq *grq_scan(struct sr_replay *r, int g, uint64_t now)
{
	size_t ncpus = (size_t)r->topo->ncpus, i;

	if (!r->tg_grq && !(r->tg_grq = calloc(ncpus, sizeof(*r->tg_grq))))
		return NULL;
	memset(r->tg_grq, 0, ncpus * sizeof(*r->tg_grq));
	for (i = 0; i < r->ntg_tasks; i++) {
		const struct sr_task *t = r->tg_tasks[i];
		struct sr_tg_grq *q;
		struct sr_pelt s;
		int on;

		if (t->tg != g || t->cpu < 0 || (size_t)t->cpu >= ncpus)
			continue;
		q = &r->tg_grq[t->cpu];
		if (t->lb_cpu == t->cpu) {
			q->weight += t->weight;
			if (t->state == SR_TASK_RUNNING && r->rq[t->cpu].curr == t->pid)
				q->running = 1;
		}
		if (!t->attached)
			continue;
		s = t->pelt;
		on = on_rq(t);
		if (s.last_update && now > s.last_update)
			sr_pelt_update(&s, now, on, on && !t->delayed, t->state == SR_TASK_RUNNING,
				       t->weight);
		q->load += s.load_avg;
		q->wsum += s.load_sum * t->weight;
		q->lsum += s.load_sum;
		q->usum += s.util_sum;
		q->frac += t->weight ? s.load_avg * SR_SCHED_CAPACITY / t->weight : 0;
	}
	return r->tg_grq;
}

/*
 * calc_group_shares() (fair.c, the same in 6.1, 6.12 and 6.18) of group
 * @g's entity on @cpu, @q its cfs_rqs: tg->shares * load / (tg->load_avg -
 * this cfs_rq's contribution + load), load = max(load.weight, load_avg),
 * clamped to [MIN_SHARES, tg->shares]; tg->load_avg is taken as the sum of
 * the cfs_rqs' load_avg now (update_tg_load_avg()'s 1 ms and 1/64 limits
 * are not modelled)
 */
static unsigned long calc_shares(const struct sr_replay *r, int g, int cpu,
				 const struct sr_tg_grq *q)
{
	unsigned long tg_shares = r->tgroups[g - 1].shares, tg_load = 0, load;
	unsigned long long shares, w;
	int c;

	for (c = 0; c < r->topo->ncpus; c++)
		tg_load += q[c].load;
	load = q[cpu].weight > q[cpu].load ? q[cpu].weight : q[cpu].load;
	w = tg_load - q[cpu].load + load;
	shares = (unsigned long long)tg_shares * load;
	if (w)
		shares /= w;
	if (shares < MIN_SHARES)
		shares = MIN_SHARES;
	if (shares > tg_shares)
		shares = tg_shares;
	return (unsigned long)shares;
}

/*
 * The entity of a group first seen changing on @cpu (a recording starts
 * with its history unseen): its weight as calc_group_shares() gives it now,
 * its runnable sum that of a queue with a task (1), else the sum of its
 * tasks' runnable fractions clipped at 1
 */
static void gse_init(struct sr_replay *r, struct sr_tg_se *x, int g, int cpu,
		     const struct sr_tg_grq *q, uint64_t now)
{
	uint32_t div;

	memset(&x->pelt, 0, sizeof(x->pelt));
	x->pelt.last_update = now;
	div = divider_of(&x->pelt);
	x->pelt.load_sum = q[cpu].weight || q[cpu].lsum > div ? div : q[cpu].lsum;
	x->pelt.util_sum = q[cpu].usum > (uint64_t)div << 10 ? div << 10 : q[cpu].usum;
	x->weight = calc_shares(r, g, cpu, q);
	x->init = 1;
}

/* a tick of the CPU came between @a and @b (its phase is not traced: jiffies) */
static int tick_between(const struct sr_replay *r, uint64_t a, uint64_t b)
{
	uint64_t tick = 1000000000ULL / (uint64_t)(r->hz > 0 ? r->hz : 250);

	return a / tick != b / tick;
}

void sr_tg_update(struct sr_replay *r, int g, int cpu, uint64_t now, long long prop, int reweight)
{
	struct sr_tg_se *x = tg_se(r, g, cpu);
	struct sr_tg_grq *q;

	if (!x || !(q = grq_scan(r, g, now)))
		return;
	if (!x->init) {
		gse_init(r, x, g, cpu, q, now);
	} else {
		/* entity_tick() -> update_cfs_group() of a running group's entity */
		if (x->running && tick_between(r, x->pelt.last_update, now))
			reweight = 1;
		/* __update_load_avg_se() of the entity over its last interval */
		sr_pelt_update(&x->pelt, now, x->on_rq, x->on_rq, x->running, x->weight);
		/*
		 * update_tg_cfs_load() (6.1 - 6.18): an attached task's load_sum
		 * is added, clipped at the divider; a detached one leaves the
		 * cfs_rq's load_sum / load.weight (0 on an empty queue) if that
		 * is less; never below the entity's running sum
		 */
		if (prop) {
			uint64_t div = divider_of(&x->pelt), ls, run = x->pelt.util_sum >> 10;

			if (prop > 0) {
				ls = x->pelt.load_sum + (uint64_t)prop;
				if (ls > div)
					ls = div;
			} else {
				ls = q[cpu].weight ? q[cpu].wsum / q[cpu].weight : 0;
				if (ls > x->pelt.load_sum)
					ls = x->pelt.load_sum;
			}
			x->pelt.load_sum = ls > run ? ls : run;
		}
	}
	/*
	 * update_cfs_group() at the enqueue or dequeue: calc_group_shares()
	 * of the queue as it is now; a queue left empty keeps the weight it
	 * had from 6.12.11 and 6.13 (SR_KF_GROUP_KEEP_WEIGHT), before that its
	 * blocked load_avg gives it
	 */
	if (reweight && (q[cpu].weight || !sr_kgen_has(&r->kgen, SR_KF_GROUP_KEEP_WEIGHT)))
		x->weight = calc_shares(r, g, cpu, q);
	x->on_rq = q[cpu].weight > 0;
	x->running = (unsigned char)q[cpu].running;
}

const struct sr_tg_view *sr_tg_compute(struct sr_replay *r, uint64_t now)
{
	int ncpus = r->topo->ncpus, n = r->ntgroups, g, c;
	size_t cells = (size_t)n * (size_t)ncpus;
	struct sr_tg_cpu *gc;

	if (!n)
		return NULL;
	if (r->tgc_cap < cells) {
		struct sr_tg_cpu *nc = realloc(r->tgc, cells * sizeof(*nc));

		if (!nc)
			return NULL;
		r->tgc = nc;
		r->tgc_cap = cells;
	}
	if (!r->tg_root) {
		r->tg_root = calloc((size_t)ncpus, sizeof(*r->tg_root));
		r->tg_sub = calloc((size_t)ncpus, sizeof(*r->tg_sub));
		r->tg_add = calloc((size_t)ncpus, sizeof(*r->tg_add));
		if (!r->tg_root || !r->tg_sub || !r->tg_add) {
			free(r->tg_root);
			free(r->tg_sub);
			free(r->tg_add);
			r->tg_root = r->tg_sub = r->tg_add = NULL;
			return NULL;
		}
	}
	gc = r->tgc;
	memset(gc, 0, cells * sizeof(*gc));
	for (g = 1; g <= n; g++) {
		const struct sr_tg_grq *q = grq_scan(r, g, now);

		if (!q)
			return NULL;
		for (c = 0; c < ncpus; c++) {
			struct sr_tg_cpu *x = &gc[(size_t)(g - 1) * ncpus + c];
			const struct sr_tg_se *e = tg_se(r, g, c);

			x->grq_load = q[c].load;
			x->grq_weight = q[c].weight;
			if (e && e->init) {
				/* the entity's own signal, brought to now on a copy */
				struct sr_pelt s = e->pelt;

				sr_pelt_update(&s, now, e->on_rq, e->on_rq, e->running, e->weight);
				/* a tick since its last update reweighted a running one */
				x->shares = e->running && tick_between(r, e->pelt.last_update, now) ?
					    calc_shares(r, g, c, q) : e->weight;
				x->se_load = (unsigned long)(x->shares * s.load_sum / divider_of(&s));
			} else {
				/*
				 * not changed since the recording began: its
				 * weight now, its runnable fraction 1 while its
				 * queue has a task, else its tasks' fractions
				 * clipped at 1
				 */
				unsigned long frac = q[c].frac > SR_SCHED_CAPACITY || q[c].weight ?
						     SR_SCHED_CAPACITY : q[c].frac;

				x->shares = calc_shares(r, g, c, q);
				x->se_load = q[c].load || q[c].weight ?
					     x->shares * frac / SR_SCHED_CAPACITY : 0;
			}
		}
	}
	for (c = 0; c < ncpus; c++) {
		struct sr_view v = { .topo = r->topo, .rq = r->rq, .now = now };
		struct sr_pelt sig;
		long root, sub = 0, add = 0;

		sr_view_cpu_signal(&v, c, &sig);
		for (g = 0; g < n; g++) {
			sub += (long)gc[(size_t)g * ncpus + c].grq_load;
			add += (long)gc[(size_t)g * ncpus + c].se_load;
		}
		root = (long)sig.load_avg;
		/* the probe's prevload is the kernel's own cpu_load(): already a hierarchy */
		if (r->prevload_ts && r->prevload_ts[c] == now && now)
			sub = add = 0;
		r->tg_sub[c] = sub;
		r->tg_add[c] = add;
		r->tg_root[c] = (root > sub ? root - sub : 0) + add;
	}
	r->tgv.n = n;
	r->tgv.ncpus = ncpus;
	r->tgv.cpu = gc;
	r->tgv.root_load = r->tg_root;
	r->tgv.grq_sum = r->tg_sub;
	r->tgv.se_sum = r->tg_add;
	return &r->tgv;
}
