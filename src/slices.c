// SPDX-License-Identifier: GPL-2.0
/*
 * Run, wait and sleep slices, wakeup delays and idle time from the event
 * stream (include/schedreplay/slices.h).  One record per task (open
 * addressing on the tid) and one per CPU; a slice becomes a row when it
 * ends, so nothing grows with the number of events.
 *
 * Idle time "while other CPUs had waiting tasks": a CPU is busy with
 * waiters when it runs a task and has at least one more runnable on it.
 * Clocks integrate the time during which some CPU (any, or one of a node)
 * is busy with waiters; an idle period reads them at its start and end,
 * so each event costs O(nodes), not O(CPUs).  An idle period counts as
 * one "while waiting" when that time is not zero.
 */
#include "schedreplay/slices.h"

#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

enum tstate { T_UNKNOWN, T_RUNNING, T_RUNNABLE, T_SLEEPING, T_DEAD };

/* the time off the CPU that the task's next running slice's row describes */
struct off {
	char prev[4];			/* the state it left the CPU in ("": not seen) */
	int woken;			/* 0, 1 sched_wakeup, 2 sched_wakeup_new */
	int qcpu, waker, qidle, qnr;
	long decision;
	int diverged;			/* the decision diverged (sr_slices_decision) */
};

struct task {
	int tid;			/* 0: free slot */
	unsigned char state;		/* enum tstate */
	char letter[4];			/* the state's letters (runnable, sleeping, dead) */
	char comm[SR_COMM_LEN];
	int cpu;			/* running on, queued on, or left */
	int prio;
	int waking_by;			/* common_pid of its last sched_waking */
	uint64_t since;			/* the current state began */
	uint64_t out_ts;		/* the last switch out (0: none seen) */
	struct off off;
	struct sr_slice_row cur;	/* the running slice, written at its switch out */
	int cur_diverged;		/* its wakeup's decision diverged: a divergent_wakeup row */
	/* totals */
	uint64_t run_ns, slices, wakeups, delay_ns, max_delay, preempted;
};

/* estimates waiting for the CPU's running task to switch out, per CPU */
#define EST_MAX 64

struct cpu {
	int curr;			/* -1 unknown, 0 idle, else the running tid */
	uint64_t curr_since;		/* when it was switched in (0: not seen) */
	struct sr_slice_row *est;	/* EST_MAX, allocated at the first estimate */
	int nest;
	long est_last;			/* the decision of the last estimate (-1 none) */
	int nwait;			/* runnable tasks queued here */
	int busyw;			/* curr > 0 && nwait > 0 */
	int node;
	/* the idle period in progress (curr == 0, start seen) */
	int idle_on;
	uint64_t idle_start, any0, node0;
	uint64_t idle_ns, periods, any_ns, any_periods, node_ns, node_periods;
};

struct clock {
	int n;				/* CPUs busy with waiters */
	uint64_t t;			/* time with n > 0 */
};

struct sr_slices {
	sr_slice_emit_fn emit;
	void *data;
	enum sr_pstate_enc enc;
	int ncpus, nnodes;
	struct cpu *cpu;
	struct clock any, *node;
	uint64_t now;			/* the clocks were advanced to here */
	struct task *task;
	size_t cap, n;
};

struct sr_slices *sr_slices_new(const struct sr_topology *topo, enum sr_pstate_enc enc,
				sr_slice_emit_fn emit, void *data)
{
	struct sr_slices *sl = calloc(1, sizeof(*sl));
	int c;

	if (!sl)
		return NULL;
	sl->emit = emit;
	sl->data = data;
	sl->enc = enc;
	sl->ncpus = topo->ncpus;
	for (c = 0; c < topo->ncpus; c++)
		if (topo->cpu[c].node + 1 > sl->nnodes)
			sl->nnodes = topo->cpu[c].node + 1;
	if (sl->nnodes < 1)
		sl->nnodes = 1;
	sl->cpu = calloc((size_t)sl->ncpus, sizeof(*sl->cpu));
	sl->node = calloc((size_t)sl->nnodes, sizeof(*sl->node));
	if (!sl->cpu || !sl->node) {
		sr_slices_free(sl);
		return NULL;
	}
	for (c = 0; c < sl->ncpus; c++) {
		sl->cpu[c].curr = -1;
		sl->cpu[c].est_last = -1;
		sl->cpu[c].node = topo->cpu[c].node >= 0 ? topo->cpu[c].node : 0;
	}
	return sl;
}

void sr_slices_free(struct sr_slices *sl)
{
	int c;

	if (!sl)
		return;
	for (c = 0; sl->cpu && c < sl->ncpus; c++)
		free(sl->cpu[c].est);
	free(sl->cpu);
	free(sl->node);
	free(sl->task);
	free(sl);
}

/* state letters: at most two and a NUL, in char[4]s (no strlen on the hot path) */
static void letters_set(char *dst, const char *src)
{
	dst[0] = src[0];
	dst[1] = src[0] ? src[1] : '\0';
	dst[2] = dst[3] = '\0';
}

static void off_reset(struct off *o, const char *prev)
{
	letters_set(o->prev, prev);
	o->woken = 0;
	o->qcpu = o->waker = o->qidle = o->qnr = SR_SL_NONE;
	o->decision = SR_SL_NONE;
	o->diverged = 0;
}

static size_t tid_hash(int tid, size_t cap)
{
	return ((size_t)(unsigned)tid * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

/* the task's record, made on first sight; NULL when out of memory */
static struct task *task_get(struct sr_slices *sl, int tid)
{
	size_t j;

	if (sl->n * 2 >= sl->cap) {
		size_t cap = sl->cap ? sl->cap * 2 : 1024, i;
		struct task *nt = calloc(cap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < sl->cap; i++) {
			if (!sl->task[i].tid)
				continue;
			for (j = tid_hash(sl->task[i].tid, cap); nt[j].tid; j = (j + 1) & (cap - 1))
				;
			nt[j] = sl->task[i];
		}
		free(sl->task);
		sl->task = nt;
		sl->cap = cap;
	}
	for (j = tid_hash(tid, sl->cap); sl->task[j].tid; j = (j + 1) & (sl->cap - 1))
		if (sl->task[j].tid == tid)
			return &sl->task[j];
	memset(&sl->task[j], 0, sizeof(sl->task[j]));
	sl->task[j].tid = tid;
	sl->task[j].cpu = sl->task[j].prio = sl->task[j].waking_by = -1;
	off_reset(&sl->task[j].off, "");
	sl->n++;
	return &sl->task[j];
}

/* task @tid as an event names it: its comm and priority where the event has them */
static struct task *task_seen(struct sr_slices *sl, int tid, const char *comm, int prio)
{
	struct task *t = task_get(sl, tid);

	if (!t)
		return NULL;
	if (comm[0])
		memcpy(t->comm, comm, SR_COMM_LEN);
	if (prio >= 0)
		t->prio = prio;
	return t;
}

static int cpu_ok(const struct sr_slices *sl, int c)
{
	return c >= 0 && c < sl->ncpus;
}

/* ---- the clocks of "busy with waiters" ---------------------------------- */

static void advance(struct sr_slices *sl, uint64_t ts)
{
	uint64_t d;
	int n;

	if (ts <= sl->now)
		return;
	d = ts - sl->now;
	if (sl->any.n)
		sl->any.t += d;
	for (n = 0; n < sl->nnodes; n++)
		if (sl->node[n].n)
			sl->node[n].t += d;
	sl->now = ts;
}

static void clock_add(struct clock *k, int delta)
{
	k->n += delta;
}

/* after a change of @c's current task or queue */
static void cpu_update(struct sr_slices *sl, int c)
{
	struct cpu *cp = &sl->cpu[c];
	int b = cp->curr > 0 && cp->nwait > 0;

	if (b == cp->busyw)
		return;
	cp->busyw = b;
	clock_add(&sl->any, b ? 1 : -1);
	clock_add(&sl->node[cp->node], b ? 1 : -1);
}

static void queue_add(struct sr_slices *sl, int c, int delta)
{
	if (!cpu_ok(sl, c))
		return;
	sl->cpu[c].nwait += delta;
	if (sl->cpu[c].nwait < 0)
		sl->cpu[c].nwait = 0;
	cpu_update(sl, c);
}

static void idle_begin(struct sr_slices *sl, struct cpu *cp, uint64_t ts)
{
	struct clock *nk = &sl->node[cp->node];

	cp->idle_on = 1;
	cp->idle_start = ts;
	cp->any0 = sl->any.t;
	cp->node0 = nk->t;
}

static void idle_end(struct sr_slices *sl, struct cpu *cp, uint64_t ts)
{
	struct clock *nk = &sl->node[cp->node];

	if (!cp->idle_on)
		return;
	cp->idle_on = 0;
	cp->idle_ns += ts - cp->idle_start;
	cp->periods++;
	cp->any_ns += sl->any.t - cp->any0;
	cp->node_ns += nk->t - cp->node0;
	cp->any_periods += sl->any.t != cp->any0;
	cp->node_periods += nk->t != cp->node0;
}

/* ---- rows ------------------------------------------------------------------- */

static void row_init(struct sr_slice_row *r, enum sr_slice_table t)
{
	memset(r, 0, sizeof(*r));
	r->table = t;
	r->dur = r->wait = r->delay = SR_SL_NONE;
	r->tid = r->cpu = r->prio = SR_SL_NONE;
	r->woken = r->queue_cpu = r->waker = r->queue_idle = r->queue_nr = SR_SL_NONE;
	r->decision = SR_SL_NONE;
}

/* the running slice of @t ends at @ts (@end: its end state, "" unknown) */
static int emit_run(struct sr_slices *sl, struct task *t, uint64_t ts, int open,
		    const char *end)
{
	struct sr_slice_row *r = &t->cur;
	int err;

	r->dur = open ? SR_SL_NONE : (int64_t)(ts - r->ts);
	memset(r->state, 0, sizeof(r->state));
	letters_set(r->state, end);
	if (!open)
		t->run_ns += ts - r->ts;
	t->slices++;
	err = sl->emit(r, sl->data);
	if (!err && t->cur_diverged) {
		struct sr_slice_row d;

		/* once: the table's key is the decision */
		t->cur_diverged = 0;
		row_init(&d, SR_SL_DIVERGENT);
		d.decision = r->decision;
		d.delay = r->delay;
		err = sl->emit(&d, sl->data);
	}
	return err;
}

/* @t goes on CPU @cpu at @ts: its slice's row, with the time off the CPU before */
static void run_begin(struct task *t, int cpu, uint64_t ts)
{
	struct sr_slice_row *r = &t->cur;
	struct off *o = &t->off;

	row_init(r, SR_SL_SCHED);
	t->cur_diverged = 0;
	r->ts = ts;
	r->tid = t->tid;
	r->cpu = cpu;
	r->prio = t->prio;
	r->wait = t->out_ts ? (int64_t)(ts - t->out_ts) : SR_SL_NONE;
	letters_set(r->prev_state, o->prev);
	if (t->state == T_RUNNABLE) {
		r->delay = (int64_t)(ts - t->since);
		r->queue_cpu = o->qcpu;
		if (o->woken) {
			r->woken = o->woken;
			r->waker = o->waker;
			r->queue_idle = o->qidle;
			r->queue_nr = o->qnr;
			r->decision = o->decision;
			t->cur_diverged = o->diverged && o->decision != SR_SL_NONE;
			t->wakeups++;
			t->delay_ns += ts - t->since;
			if (ts - t->since > t->max_delay)
				t->max_delay = ts - t->since;
		}
	}
	off_reset(o, "");
	t->state = T_RUNNING;
	t->cpu = cpu;
	t->since = ts;
}

/*
 * The state letters of a prev_state, as the kernel names them
 * (task_index_to_char() since 4.14, TASK_STATE_TO_CHAR_STR "RSDTtXZxKWPN"
 * before): bits 0x01-0x20 are the same in every encoding; TASK_DEAD,
 * TASK_PARKED and the idle state moved (include/schedreplay/event.h).
 */
static void state_letters(enum sr_prev_state st, long long raw, enum sr_pstate_enc enc,
			  char *out)
{
	long long low = raw & 0xff;

	switch (st) {
	case SR_PREV_RUNNABLE:
		letters_set(out, "R");
		return;
	case SR_PREV_PREEMPTED:
		letters_set(out, "R+");
		return;
	case SR_PREV_DEAD:
		/* EXIT_DEAD 0x10, EXIT_ZOMBIE 0x20 in every encoding; else TASK_DEAD */
		letters_set(out, low & 0x20 ? "Z" : low & 0x10 ? "X" : "x");
		return;
	case SR_PREV_BLOCKED:
		if (enc == SR_PSTATE_REPORT && (low & 0x80))
			letters_set(out, "I");
		else if (enc != SR_PSTATE_REPORT && (raw & 0x402) == 0x402)
			letters_set(out, "I");	/* TASK_IDLE: D with TASK_NOLOAD */
		else if (low & 0x02)
			letters_set(out, "D");
		else if (low & 0x01)
			letters_set(out, "S");
		else if (low & 0x04)
			letters_set(out, "T");
		else if (low & 0x08)
			letters_set(out, "t");
		else if (low & 0x40 || (enc == SR_PSTATE_RAW_OLD && (raw & 0x200)))
			letters_set(out, "P");
		else
			letters_set(out, "S");
		return;
	default:
		letters_set(out, "?");
	}
}

/* ---- events ------------------------------------------------------------------- */

/* the estimates of @cp end: its running task went on until @ts (open: not seen) */
static int est_flush(struct sr_slices *sl, struct cpu *cp, uint64_t ts, int open)
{
	int i, err = 0;

	for (i = 0; i < cp->nest && !err; i++) {
		cp->est[i].dur = open ? SR_SL_NONE : (int64_t)(ts - cp->est[i].ts);
		err = sl->emit(&cp->est[i], sl->data);
	}
	cp->nest = 0;
	return err;
}

int sr_slices_estimate(struct sr_slices *sl, long id, int tid, const int *cpus, int ncpus)
{
	struct sr_slice_row r;
	struct task *t = NULL;
	struct cpu *cp;
	int i, k, err;

	if (sl && tid > 0) {
		t = task_get(sl, tid);
		if (!t)
			return -SR_E_NOMEM;
	}
	for (i = 0; sl && i < ncpus; i++) {
		if (!cpu_ok(sl, cpus[i]))
			continue;
		for (k = 0; k < i && cpus[k] != cpus[i]; k++)
			;
		if (k < i)
			continue;
		cp = &sl->cpu[cpus[i]];
		/* a decision that diverges for several pairs asks again */
		if (cp->est_last == id)
			continue;
		cp->est_last = id;
		row_init(&r, SR_SL_ESTIMATE);
		r.ts = sl->now;
		r.cpu = cpus[i];
		r.decision = id;
		r.tid = cp->curr >= 0 ? cp->curr : SR_SL_NONE;
		r.queue_idle = cp->curr < 0 ? SR_SL_NONE : cp->curr == 0;
		r.queue_nr = cp->curr < 0 ? SR_SL_NONE : (cp->curr > 0) + cp->nwait;
		if (r.queue_nr > 0 && t && t->state == T_RUNNABLE && t->cpu == cpus[i])
			r.queue_nr--;
		if (cp->curr > 0 && cp->curr_since)
			r.wait = (int64_t)(sl->now - cp->curr_since);
		if (cp->curr <= 0) {
			err = sl->emit(&r, sl->data);
		} else {
			if (!cp->est) {
				cp->est = calloc(EST_MAX, sizeof(*cp->est));
				if (!cp->est)
					return -SR_E_NOMEM;
			}
			err = cp->nest == EST_MAX ? est_flush(sl, cp, 0, 1) : 0;
			if (!err)
				cp->est[cp->nest++] = r;
		}
		if (err)
			return err;
	}
	return 0;
}

static int on_switch(struct sr_slices *sl, const struct sr_event *ev)
{
	struct cpu *cp = &sl->cpu[ev->cpu];
	struct task *t;
	int err;

	err = est_flush(sl, cp, ev->ts, 0);
	if (err)
		return err;

	/* the task the CPU ran by our account is not the one leaving: lost events */
	if (cp->curr > 0 && cp->curr != ev->pid) {
		t = task_get(sl, cp->curr);
		if (!t)
			return -SR_E_NOMEM;
		if (t->state == T_RUNNING && t->cpu == ev->cpu) {
			err = emit_run(sl, t, ev->ts, 0, "");
			if (err)
				return err;
			t->state = T_UNKNOWN;
		}
	}
	if (ev->pid > 0) {
		t = task_seen(sl, ev->pid, ev->comm, ev->prio);
		if (!t)
			return -SR_E_NOMEM;
		state_letters(ev->prev_state, ev->prev_state_raw, sl->enc, t->letter);
		if (t->state == T_RUNNING && t->cpu == ev->cpu) {
			err = emit_run(sl, t, ev->ts, 0, t->letter);
			if (err)
				return err;
		}
		t->cpu = ev->cpu;
		t->since = ev->ts;
		t->out_ts = ev->ts;
		off_reset(&t->off, t->letter);
		switch (ev->prev_state) {
		case SR_PREV_RUNNABLE:
		case SR_PREV_PREEMPTED:
			t->state = T_RUNNABLE;
			t->off.qcpu = ev->cpu;
			t->preempted++;
			queue_add(sl, ev->cpu, 1);
			break;
		case SR_PREV_BLOCKED:
			t->state = T_SLEEPING;
			break;
		case SR_PREV_DEAD:
			t->state = T_DEAD;
			break;
		default:
			t->state = T_UNKNOWN;
		}
	}
	if (ev->pid2 > 0) {
		t = task_seen(sl, ev->pid2, ev->comm2, ev->prio2);
		if (!t)
			return -SR_E_NOMEM;
		if (t->state == T_RUNNING && cpu_ok(sl, t->cpu)) {
			/* still running elsewhere by our account: its switch out was lost */
			err = emit_run(sl, t, ev->ts, 0, "");
			if (err)
				return err;
			if (sl->cpu[t->cpu].curr == t->tid) {
				sl->cpu[t->cpu].curr = -1;
				cpu_update(sl, t->cpu);
			}
		} else if (t->state == T_RUNNABLE) {
			queue_add(sl, t->cpu, -1);
		}
		run_begin(t, ev->cpu, ev->ts);
	}
	/* the CPU's idle periods */
	if (cp->curr == 0 && ev->pid2 != 0)
		idle_end(sl, cp, ev->ts);
	cp->curr = ev->pid2 >= 0 ? ev->pid2 : -1;
	cp->curr_since = ev->ts;
	cpu_update(sl, ev->cpu);
	if (cp->curr == 0 && !cp->idle_on)
		idle_begin(sl, cp, ev->ts);
	return 0;
}

static int on_wakeup(struct sr_slices *sl, const struct sr_event *ev)
{
	struct task *t;
	struct cpu *cp;
	int c;

	if (ev->pid <= 0 || !ev->success)
		return 0;
	t = task_seen(sl, ev->pid, ev->comm, ev->prio);
	if (!t)
		return -SR_E_NOMEM;
	/* perf sched latency: a wakeup of a task that is not sleeping does nothing */
	if (t->state == T_RUNNING || t->state == T_RUNNABLE)
		return 0;
	c = cpu_ok(sl, ev->target_cpu) ? ev->target_cpu : ev->cpu;
	cp = &sl->cpu[c];
	t->state = T_RUNNABLE;
	letters_set(t->letter, "R");
	t->cpu = c;
	t->since = ev->ts;
	t->off.woken = ev->kind == SR_EV_WAKEUP_NEW ? 2 : 1;
	t->off.qcpu = c;
	t->off.waker = ev->kind == SR_EV_WAKEUP_NEW ? ev->common_pid :
		       t->waking_by >= 0 ? t->waking_by : ev->common_pid;
	if (t->off.waker < 0)
		t->off.waker = SR_SL_NONE;
	t->waking_by = -1;
	t->off.qidle = cp->curr < 0 ? SR_SL_NONE : cp->curr == 0;
	t->off.qnr = cp->curr < 0 ? SR_SL_NONE : (cp->curr > 0) + cp->nwait;
	t->off.decision = SR_SL_NONE;
	queue_add(sl, c, 1);
	return 0;
}

int sr_slices_feed(struct sr_slices *sl, const struct sr_event *ev)
{
	struct task *t;

	if (!cpu_ok(sl, ev->cpu))
		return 0;
	switch (ev->kind) {
	case SR_EV_SWITCH:
		advance(sl, ev->ts);
		return on_switch(sl, ev);
	case SR_EV_WAKEUP:
	case SR_EV_WAKEUP_NEW:
		advance(sl, ev->ts);
		return on_wakeup(sl, ev);
	case SR_EV_WAKING:
		if (ev->pid <= 0)
			return 0;
		t = task_get(sl, ev->pid);
		if (!t)
			return -SR_E_NOMEM;
		t->waking_by = ev->common_pid;
		return 0;
	case SR_EV_MIGRATE:
		if (ev->pid <= 0 || !cpu_ok(sl, ev->dest_cpu))
			return 0;
		advance(sl, ev->ts);
		t = task_get(sl, ev->pid);
		if (!t)
			return -SR_E_NOMEM;
		if (t->state == T_RUNNABLE) {
			queue_add(sl, t->cpu, -1);
			queue_add(sl, ev->dest_cpu, 1);
		}
		if (t->state != T_RUNNING)
			t->cpu = ev->dest_cpu;
		return 0;
	case SR_EV_FORK:
		if (ev->pid2 <= 0)
			return 0;
		t = task_get(sl, ev->pid2);
		if (!t)
			return -SR_E_NOMEM;
		if (ev->comm2[0])
			memcpy(t->comm, ev->comm2, SR_COMM_LEN);
		return 0;
	default:
		return 0;
	}
}

void sr_slices_decision(struct sr_slices *sl, int tid, uint64_t ts, long id, int diverged)
{
	size_t j;

	if (!sl || tid <= 0 || !sl->cap)
		return;
	for (j = tid_hash(tid, sl->cap); sl->task[j].tid; j = (j + 1) & (sl->cap - 1)) {
		struct task *t = &sl->task[j];

		if (t->tid != tid)
			continue;
		if (t->state == T_RUNNABLE && t->off.woken && t->since == ts) {
			t->off.decision = id;
			t->off.diverged = diverged;
		}
		return;
	}
}

static const char *end_state(const struct task *t)
{
	switch (t->state) {
	case T_RUNNING:
		return "Running";
	case T_RUNNABLE:
	case T_SLEEPING:
	case T_DEAD:
		return t->letter;
	default:
		return "";
	}
}

int sr_slices_finish(struct sr_slices *sl, uint64_t last_ts)
{
	struct sr_slice_row r;
	size_t i;
	int c, err;

	advance(sl, last_ts);
	for (i = 0; i < sl->cap; i++) {
		struct task *t = &sl->task[i];

		if (!t->tid)
			continue;
		if (t->state == T_RUNNING) {
			err = emit_run(sl, t, last_ts, 1, "");
			if (err)
				return err;
		}
		row_init(&r, SR_SL_TASK);
		r.tid = t->tid;
		r.prio = t->prio;
		memcpy(r.comm, t->comm, SR_COMM_LEN);
		sr_strlcpy(r.state, end_state(t), sizeof(r.state));
		if (r.state[0]) {
			r.ts = t->since;
			r.cpu = t->state == T_RUNNABLE ? t->off.qcpu : t->cpu;
			if (t->state == T_SLEEPING || t->state == T_DEAD)
				r.cpu = SR_SL_NONE;
		}
		r.n[0] = t->run_ns;
		r.n[1] = t->slices;
		r.n[2] = t->wakeups;
		r.n[3] = t->delay_ns;
		r.n[4] = t->max_delay;
		r.n[5] = t->preempted;
		err = sl->emit(&r, sl->data);
		if (err)
			return err;
	}
	for (c = 0; c < sl->ncpus; c++) {
		struct cpu *cp = &sl->cpu[c];

		idle_end(sl, cp, last_ts);
		err = est_flush(sl, cp, last_ts, 1);
		if (err)
			return err;
		row_init(&r, SR_SL_CPU);
		r.cpu = c;
		r.n[0] = cp->idle_ns;
		r.n[1] = cp->periods;
		r.n[2] = cp->any_ns;
		r.n[3] = cp->any_periods;
		r.n[4] = cp->node_ns;
		r.n[5] = cp->node_periods;
		err = sl->emit(&r, sl->data);
		if (err)
			return err;
	}
	return 0;
}
