// SPDX-License-Identifier: GPL-2.0
/*
 * The models without an engine: a view filled by hand, as a simulator
 * would fill it from its own state (four CPUs in one LLC, a few tasks),
 * and the base models' wakeup, fork, exec and balance functions called on it.
 * Each expected result is what the kernel function the model follows does
 * on that machine.  Nothing here includes the engine's private header.
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/model.h"
#include "schedreplay/patch.h"
#include "unit.h"

#define NCPU 4

struct machine {
	struct sr_topology *topo;
	struct sr_rq rq[NCPU];
	struct sr_task task[8];
	const struct sr_task *head[NCPU], *tail[NCPU];
	struct sr_view v;
};

static struct sr_task *task(struct machine *mc, int i, int pid, const char *comm, int cpu,
			    enum sr_task_state state)
{
	struct sr_task *t = &mc->task[i];

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = pid;
	strncpy(t->comm, comm, SR_COMM_LEN - 1);
	t->prio = 120;
	t->weight = SR_NICE0_WEIGHT;
	t->state = state;
	t->cpu = cpu;
	t->kthread = 0;
	t->bound_cpu = -1;
	t->recent_used_cpu = -1;
	t->last_wakee = -1;
	t->lb_cpu = -1;
	return t;
}

/* queue @t on @cpu: running when it is the first, at the head of cfs_tasks */
static void enqueue(struct machine *mc, struct sr_task *t, int cpu)
{
	struct sr_rq *rq = &mc->rq[cpu];

	if (rq->curr <= 0) {
		rq->curr = t->pid;
		rq->curr_cfs = 1;
		t->state = SR_TASK_RUNNING;
	} else {
		t->state = SR_TASK_QUEUED;
	}
	rq->nr_running++;
	rq->cfs_nr++;
	rq->cfs_weight += t->weight;
	t->cpu = cpu;
	t->lb_cpu = cpu;
	t->lb_prev = NULL;
	t->lb_next = (struct sr_task *)mc->head[cpu];
	if (t->lb_next)
		t->lb_next->lb_prev = t;
	else
		mc->tail[cpu] = t;
	mc->head[cpu] = t;
}

static void machine_init(struct machine *mc)
{
	char *cause = NULL;
	int c;

	memset(mc, 0, sizeof(*mc));
	mc->topo = sr_topology_new_preset("1x4x1", SR_ERA_MAINLINE, &cause);
	for (c = 0; c < NCPU; c++) {
		mc->rq[c].curr = 0;
		mc->rq[c].known = 1;
	}
	mc->v.topo = mc->topo;
	mc->v.rq = mc->rq;
	mc->v.cfs_head = mc->head;
	mc->v.cfs_tail = mc->tail;
	mc->v.now = 10000000000ULL;
	mc->v.hz = 250;
	free(cause);
}

static int has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

int main(void)
{
	const struct sr_model *mainline = sr_model_find("mainline");
	const struct sr_model *v415 = sr_model_find("v4.15");
	struct sr_lb_scratch *scratch = sr_lb_scratch_new(NCPU);
	struct sr_wake_input in;
	struct sr_lb_input lb;
	struct sr_eval out;
	struct machine mc;
	struct sr_task *w, *p, *a, *b, *c;
	int i;

	machine_init(&mc);
	CHECK(mc.topo && mc.topo->ncpus == NCPU && mainline && v415 && scratch,
	      "a 4-CPU machine, the base models and a scratch area");

	/*
	 * 1. Wakeup, every CPU busy, loads equal (no PELT history): wake_affine_
	 * weight() of mainline (`<`, since v4.17) keeps prev, and with no idle
	 * CPU select_idle_sibling() returns the target, prev_cpu 2; v4.15's
	 * `<=` takes the waker's CPU 0.
	 */
	w = task(&mc, 0, 100, "waker", 0, SR_TASK_RUNNING);
	enqueue(&mc, w, 0);
	enqueue(&mc, task(&mc, 1, 101, "busy1", 1, SR_TASK_RUNNING), 1);
	enqueue(&mc, task(&mc, 2, 102, "busy2", 2, SR_TASK_RUNNING), 2);
	enqueue(&mc, task(&mc, 3, 103, "busy3", 3, SR_TASK_RUNNING), 3);
	p = task(&mc, 4, 200, "wakee", 2, SR_TASK_BLOCKED);
	memset(&in, 0, sizeof(in));
	in.this_cpu = 0;
	in.prev_cpu = 2;
	in.p = p;
	in.cur = w;
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 2, "mainline wakeup, no idle CPU, equal loads: prev (%s)", out.reason);
	CHECK(has(out.reason, "not wide") && has(out.reason, "weight: this 0 >= prev 0") &&
	      has(out.reason, "wake_affine: prev"), "the path: %s", out.reason);
	sr_model_select(v415, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 0, "v4.15 wakeup, equal loads: `<=` takes this_cpu (%s)", out.reason);

	/* 2. CPU 3 goes idle: select_idle_cpu()'s LLC scan from target + 1 finds it */
	mc.rq[3].curr = 0;
	mc.rq[3].nr_running = mc.rq[3].cfs_nr = 0;
	mc.rq[3].cfs_weight = 0;
	mc.head[3] = mc.tail[3] = NULL;
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 3, "mainline wakeup: the idle CPU 3 of the LLC (%s)", out.reason);
	CHECK(has(out.reason, "scan: idle 3"), "found by the scan: %s", out.reason);
	/* a wakee allowed on CPUs 0-2 only is not put there */
	p->allowed = 0x7;
	p->allowed_known = 1;
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 2, "cpus_allowed without CPU 3: no idle CPU it may use (%s)",
		 out.reason);
	p->allowed_known = 0;

	/*
	 * 3. Fork on CPU 0, CPUs 0-2 each with a nice-0 task's load: the slow
	 * path (find_idlest_group() at MC, whose groups are single CPUs) takes
	 * the group with the idle CPU 3: mainline for its idle CPU count,
	 * v4.15 for its load, lighter beyond the imbalance margin.
	 */
	for (int cpu = 0; cpu < 3; cpu++) {
		mc.rq[cpu].runnable_load = SR_NICE0_WEIGHT;
		mc.rq[cpu].cfs.load_avg = SR_NICE0_WEIGHT;
	}
	memset(&in, 0, sizeof(in));
	in.fork = 1;
	in.this_cpu = 0;
	in.prev_cpu = 0;
	in.p = task(&mc, 5, 201, "child", 0, SR_TASK_UNKNOWN);
	in.cur = w;
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 3, "mainline fork: the idlest group's CPU 3 (%s)", out.reason);
	CHECK(has(out.reason, "fork") && has(out.reason, "idlest group, cpu 3"),
	      "the path: %s", out.reason);
	sr_model_select(v415, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 3, "v4.15 fork: the same CPU (%s)", out.reason);

	/*
	 * 3b. The waker, running on CPU 0, execs (sched_exec(): WF_EXEC,
	 * SD_BALANCE_EXEC's slow path).  update_sg_wakeup_stats() reads CPU 0
	 * without it (task_running_on_cpu(), idle_cpu_without() with curr ==
	 * p; 6.1 and 6.12): the local group has an idle CPU as CPU 3's has,
	 * and find_idlest_group() keeps it (the fork above went to 3).  With
	 * a second task queued on CPU 0 the local group has none: CPU 3.
	 */
	memset(&in, 0, sizeof(in));
	in.exec = 1;
	in.this_cpu = 0;
	in.prev_cpu = 0;
	in.p = w;
	in.cur = w;
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 0, "mainline exec: CPU 0 without the exec'ing task is idle, it stays (%s)",
		 out.reason);
	CHECK(has(out.reason, "exec") && has(out.reason, "local"), "the path: %s", out.reason);
	enqueue(&mc, task(&mc, 6, 104, "queued0", 0, SR_TASK_QUEUED), 0);
	sr_model_select(mainline, &mc.v, &in, &out);
	CHECK_EQ(out.cpu, 3, "mainline exec with a task queued behind it: the idle CPU 3 (%s)",
		 out.reason);
	CHECK(has(out.reason, "idlest group, cpu 3"), "the path: %s", out.reason);

	/*
	 * 4. Newly idle balance on CPU 3 with a, b, c on CPU 0 (a running, c
	 * the least recently run): find_busiest_group() finds CPU 0's group
	 * overloaded, detach_tasks() takes c from the tail of cfs_tasks, and
	 * a newly idle CPU takes one task.
	 */
	machine_init(&mc);
	c = task(&mc, 2, 12, "c", 0, SR_TASK_QUEUED);
	b = task(&mc, 1, 11, "b", 0, SR_TASK_QUEUED);
	a = task(&mc, 0, 10, "a", 0, SR_TASK_RUNNING);
	/* cfs_tasks is most recently run first: c, b, then a ran (a still runs) */
	enqueue(&mc, c, 0);
	enqueue(&mc, b, 0);
	enqueue(&mc, a, 0);
	mc.rq[0].curr = a->pid;
	a->state = SR_TASK_RUNNING;
	c->state = SR_TASK_QUEUED;
	CHECK(mc.head[0] == a && mc.tail[0] == c && c->lb_prev == b && b->lb_prev == a,
	      "CPU 0's cfs_tasks: a, b, c");
	enqueue(&mc, task(&mc, 3, 13, "d", 1, SR_TASK_RUNNING), 1);
	enqueue(&mc, task(&mc, 4, 14, "e", 2, SR_TASK_RUNNING), 2);
	/* hogs for a long while: each CPU's averages (group_classify() reads util and runnable) */
	for (i = 0; i < 3; i++) {
		mc.rq[i].cfs.util_avg = SR_SCHED_CAPACITY;
		mc.rq[i].cfs.runnable_avg = (unsigned long)mc.rq[i].nr_running * SR_SCHED_CAPACITY;
		mc.rq[i].cfs.load_avg = mc.rq[i].cfs_weight;
	}
	memset(&lb, 0, sizeof(lb));
	lb.kind = SR_DEC_LB_NEWIDLE;
	lb.cpu = 3;
	lb.idle = SR_LB_NEWLY_IDLE;
	CHECK_EQ(sr_model_balance(mainline, &mc.v, &lb, scratch, &out), 0, "balance evaluated");
	CHECK(out.cpu == 3 && out.src_cpu == 0 && out.task == 12,
	      "newidle on 3 pulls c, cfs_tasks' tail, from the overloaded CPU 0: %s", out.reason);
	CHECK(has(out.reason, "MC: busiest cpu 0 (nr 3, overloaded)"), "the path: %s",
	      out.reason);
	CHECK_EQ(mc.rq[0].nr_running, 3, "the view is not changed");
	sr_model_balance(v415, &mc.v, &lb, NULL, &out);
	CHECK(out.cpu == 3 && out.task == 12, "v4.15 (a scratch of its own): the same pull: %s",
	      out.reason);

	/* can_migrate_task(): c pinned to CPU 0 sets SOME_PINNED, b goes instead */
	c->bound_cpu = 0;
	sr_model_balance(mainline, &mc.v, &lb, scratch, &out);
	CHECK(out.cpu == 3 && out.task == 11 && (out.lbf & SR_LBO_SOME_PINNED),
	      "c pinned: b is pulled, LBF_SOME_PINNED: %s", out.reason);
	/* task_hot(): b ran 0.1 ms ago, within sysctl_sched_migration_cost */
	b->exec_start = mc.v.now - 100000;
	sr_model_balance(mainline, &mc.v, &lb, scratch, &out);
	CHECK(out.cpu == -1 && has(out.reason, "no pull"),
	      "c pinned, b cache hot, a running: nothing moves: %s", out.reason);
	b->exec_start = 0;
	c->bound_cpu = -1;

	/* a periodic balance by a busy CPU with one task less than CPU 0: none */
	lb.kind = SR_DEC_LB_PERIODIC;
	lb.cpu = 1;
	lb.idle = SR_LB_NOT_IDLE;
	sr_model_balance(mainline, &mc.v, &lb, scratch, &out);
	CHECK(out.cpu == 1 && out.src_cpu == 0,
	      "busy CPU 1 (1 task) pulls from the overloaded CPU 0 (3): %s", out.reason);

	/*
	 * A pair's sides on the same view (seed 003): a, b and c all pinned to
	 * CPU 0 make LBF_ALL_PINNED redo the balance; a wakeup for CPU 3
	 * arrives meanwhile.  The patched should_we_balance() bails at the
	 * redo, the original goes on.
	 */
	{
		const struct sr_patch *pp = sr_patch_find("newidle-bail");
		struct sr_model *orig = pp ? sr_patch_side(pp, mainline, 0) : NULL;
		struct sr_model *pat = pp ? sr_patch_side(pp, mainline, 1) : NULL;

		lb.kind = SR_DEC_LB_NEWIDLE;
		lb.cpu = 3;
		lb.idle = SR_LB_NEWLY_IDLE;
		lb.arrival = 1;
		a->bound_cpu = b->bound_cpu = c->bound_cpu = 0;
		CHECK(orig && pat, "newidle-bail's sides over mainline");
		if (orig && pat) {
			sr_model_balance(pat, &mc.v, &lb, scratch, &out);
			CHECK((out.lbf & SR_LBO_REDO) && (out.lbf & SR_LBO_BAIL) &&
			      has(out.reason, "bail: ttwu_pending") && out.cpu == -1,
			      "patched: all pinned, redo, bail on the pending wakeup: %s",
			      out.reason);
			sr_model_balance(orig, &mc.v, &lb, scratch, &out);
			CHECK((out.lbf & SR_LBO_REDO) && !(out.lbf & SR_LBO_BAIL) && out.cpu == -1,
			      "original: the redo goes on: %s", out.reason);
		}
		a->bound_cpu = b->bound_cpu = c->bound_cpu = -1;
		free(orig);
		free(pat);
	}

	sr_lb_scratch_free(scratch);
	sr_topology_free(mc.topo);
	return unit_done();
}
