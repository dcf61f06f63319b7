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
 * What the kernel keeps incrementally (the group cfs_rq's PELT signal,
 * tg->load_avg, the group entity's weight and signal, h_load) is computed
 * here at the decision from the engine's task signals:
 * - the group cfs_rq's load_avg on a CPU: the sum of its tasks' load_avg
 *   there, the blocked ones decayed to now (their signals decay together in
 *   the kernel's cfs_rq); its load.weight: the weights of its queued tasks;
 * - tg->load_avg: the sum of those load_avg over the CPUs
 *   (update_tg_load_avg(); its 1 ms and 1/64 rate limits are not modelled);
 * - the group entity's weight: calc_group_shares() (fair.c, the same in
 *   6.1, 6.12 and 6.18): tg->shares * load / (tg->load_avg - this cfs_rq's
 *   contribution + load), load = max(load.weight, load_avg), clamped to
 *   [MIN_SHARES = 2, tg->shares];
 * - the group entity's load_avg: that weight times its runnable fraction
 *   (___update_load_avg() with se_weight() of a group entity; the fraction
 *   is load_sum / divider, the time it was on the root queue).  While the
 *   group has a task queued on the CPU the fraction is taken as 1: the
 *   entity is on the root queue as long as its cfs_rq has an entity, and
 *   update_tg_cfs_load() adds each joining task's runnable sum to the
 *   entity's and clips it at the divider; with only blocked tasks there, it
 *   is the sum of their fractions (load_avg over weight) clipped at 1.
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

/* the group cfs_rq contributions of @t at @now, on t->cpu */
static void task_share(const struct sr_task *t, uint64_t now, struct sr_tg_cpu *gc)
{
	int on_rq = t->state == SR_TASK_RUNNING || t->state == SR_TASK_QUEUED;
	struct sr_pelt s = t->pelt;
	unsigned long frac;

	/* the task's signal decayed (or grown) to now, on a copy */
	if (s.last_update && now > s.last_update)
		sr_pelt_update(&s, now, on_rq, on_rq && !t->delayed,
			       t->state == SR_TASK_RUNNING, t->weight);
	gc->grq_load += s.load_avg;
	if (on_rq)
		gc->grq_weight += t->weight;
	frac = t->weight ? s.load_avg * SR_SCHED_CAPACITY / t->weight : 0;
	/* se_load holds the runnable fraction (of SR_SCHED_CAPACITY) until the end */
	gc->se_load += frac;
}

const struct sr_tg_view *sr_tg_compute(struct sr_replay *r, uint64_t now)
{
	int ncpus = r->topo->ncpus, n = r->ntgroups, g, c;
	size_t i, cells = (size_t)n * (size_t)ncpus;
	struct sr_tg_cpu *gc;
	unsigned long *tg_load;

	if (!n)
		return NULL;
	if (r->tgc_cap < cells) {
		struct sr_tg_cpu *nc = realloc(r->tgc, cells * sizeof(*nc));
		unsigned long *nl = nc ? realloc(r->tg_load, (size_t)n * sizeof(*nl)) : NULL;

		if (nc)
			r->tgc = nc;
		if (!nl)
			return NULL;
		r->tg_load = nl;
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
	tg_load = r->tg_load;
	memset(gc, 0, cells * sizeof(*gc));
	memset(tg_load, 0, (size_t)n * sizeof(*tg_load));
	for (i = 0; i < r->ntg_tasks; i++) {
		const struct sr_task *t = r->tg_tasks[i];

		if (t->tg > n || !t->attached || t->cpu < 0 || t->cpu >= ncpus)
			continue;
		task_share(t, now, &gc[(size_t)(t->tg - 1) * ncpus + t->cpu]);
	}
	for (g = 0; g < n; g++)
		for (c = 0; c < ncpus; c++)
			tg_load[g] += gc[(size_t)g * ncpus + c].grq_load;
	for (c = 0; c < ncpus; c++) {
		struct sr_view v = { .topo = r->topo, .rq = r->rq, .now = now };
		struct sr_pelt sig;
		long root, sub = 0, add = 0;

		sr_view_cpu_signal(&v, c, &sig);
		for (g = 0; g < n; g++) {
			struct sr_tg_cpu *x = &gc[(size_t)g * ncpus + c];
			unsigned long tg_shares = r->tgroups[g].shares, load, w, frac;
			unsigned long long shares;

			frac = x->se_load > SR_SCHED_CAPACITY || x->grq_weight ? SR_SCHED_CAPACITY :
									   x->se_load;
			load = x->grq_weight > x->grq_load ? x->grq_weight : x->grq_load;
			w = tg_load[g] - x->grq_load + load;
			shares = (unsigned long long)tg_shares * load;
			if (w)
				shares /= w;
			if (shares < MIN_SHARES)
				shares = MIN_SHARES;
			if (shares > tg_shares)
				shares = tg_shares;
			x->shares = (unsigned long)shares;
			x->se_load = x->grq_load || x->grq_weight ?
				     (unsigned long)(shares * frac / SR_SCHED_CAPACITY) : 0;
			sub += (long)x->grq_load;
			add += (long)x->se_load;
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
