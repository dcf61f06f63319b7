// SPDX-License-Identifier: GPL-2.0
/*
 * The closed-loop simulator (schedreplay/sim.h): a discrete-event run of a
 * recorded demand on a simulated machine.  Each task executes its demand's
 * steps in order: a run burst needs that much CPU time on whatever CPU the
 * task gets; a wakeup or a fork happens when the task reaches that point of
 * its own execution; a sleep that a task ended in the recording ends at the
 * first wakeup of the task by a task that comes (a wakeup that comes while
 * the task is not in such a sleep is kept, so its next one does not block),
 * one a producer ended when one of the sleeper's producers has run as long
 * from the block as the recording's did (watch_start()), a timer's or an
 * interrupt's when its recorded length has passed.  Placement and
 * balancing are the model's: the simulator fills a struct sr_view from its
 * own runqueues and tasks and applies what sr_model_evaluate() and
 * sr_model_balance() decide.  Everything runs on the trace's clock from the
 * recording's first event, and a run is a function of the demand, the
 * options and the seed.
 */
#include "schedreplay/sim.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/error.h"
#include "schedreplay/kgen.h"
#include "schedreplay/pelt.h"
#include "schedreplay/replay.h"
#include "banned.h"

/* ST_WAKING: woken onto another LLC's busy CPU, its activation there not done yet */
enum { ST_NEW, ST_SLEEP, ST_QUEUED, ST_RUNNING, ST_DONE, ST_WAKING };

#define NPROD	8

struct stask {
	struct sr_task t;		/* what the models read */
	int idx;
	const struct sr_dm_task *dm;
	int st;
	unsigned step;			/* the step in progress */
	uint64_t rem;			/* RUN: CPU ns left */
	uint64_t vruntime;
	uint64_t deadline;		/* EEVDF: the virtual deadline */
	int64_t vlag;			/* EEVDF: lag kept over a sleep or a move */
	int parity;			/* EEVDF: picked, deadline unchanged since (RUN_TO_PARITY) */
	int delayed;			/* 6.12 DELAY_DEQUEUE: asleep but still queued */
	uint64_t exec_start;		/* update_curr()'s clock */
	uint64_t sum_exec, prev_sum_exec;
	uint64_t seq;			/* enqueue order: ties in the pick */
	uint64_t timer_gen;
	unsigned tokens;		/* wakeups by a task that found it not waiting for one */
	int rt;
	int aff_dest;			/* where its last affinity call sends it, -1: none */
	int exec_dest;			/* where its exec placement sends it, -1: none */
	int act_cpu;			/* ST_WAKING: the CPU it is activated on */
	uint64_t work;			/* the CPU time of its demand done (capacity-scaled) */
	/* the producers that ended its sleeps in the recording (the first NPROD) */
	int prod[NPROD], nprod;
	/*
	 * A sleep producers end (SR_DM_F_STREAM, watch_start()): it waits
	 * until producer prod[i] has done @watch_target[i] of work (its
	 * ->work), for each i with bit i of @watching; @watch_next[i] links
	 * the producer's watchers (a watch node: task index * NPROD + i, -1
	 * the end).  @watchers: a producer's first watch node, -1 none.
	 */
	unsigned watching;
	uint64_t watch_target[NPROD];
	int watch_next[NPROD], watchers;
	unsigned watch_flags;		/* the producer's WAKE step's flags */
	int release_by;			/* its EV_TIMER is that producer's wakeup, -1: a timer's */
	/*
	 * the tasks that ended its sleeps in the recording, by index, with how
	 * many each ended: sim.wk[wk_off .. wk_off + nwk) (feeds())
	 */
	unsigned wk_off, nwk;
	unsigned nsleeps;		/* its sleeps that a task ended in the recording */
};

/* one waker of a task: how many of the task's sleeps it ended in the recording */
struct swk {
	int task;
	unsigned n;
};

struct scpu {
	struct stask **q;		/* runnable tasks here, the running one included */
	int nq, qcap;
	struct stask *curr;
	uint64_t min_vruntime;
	uint64_t run_gen;
	int tick_armed;
	struct sr_lb_clock clk;		/* the periodic balance's (levels_due()) */
	unsigned lb_pulled;		/* bit l: a pull at that level in this pass */
	unsigned lb_failed;		/* bit l: an imbalance found and nothing moved */
	unsigned lb_pinned;		/* bit l: every task it could pull was pinned */
	uint64_t slice_start;
	int resched;
	int waking;			/* leaving idle for a wakeup (EV_IDLE_EXIT due) */
	int dist_prev;			/* cpumask_any_and_distribute()'s last pick here */
	uint64_t watch_at, watch_gen;	/* the earliest EV_WATCH pushed for run_gen */
	/*
	 * in a newly idle balance that takes time (EV_NEWIDLE_END due): curr
	 * is the task that blocked, and the tasks that arrive meanwhile
	 */
	int newidle;
	int nl_nr, nl_cfs;
	long nl_weight;
	uint64_t nl_gen;		/* the window's EV_NEWIDLE_END and arrival events */
	unsigned nl_levels;		/* NI_RANDOM: the levels its draws let balance */
	int nl_drawn;			/* ... drawn (0: the walk is not reached) */
	/* NI_RANDOM (6.1.192, 6.12.117): sd->newidle_call, _success, _ratio per level */
	unsigned ni_call[SR_MAX_DOMAIN_LEVELS], ni_success[SR_MAX_DOMAIN_LEVELS];
	unsigned ni_ratio[SR_MAX_DOMAIN_LEVELS], ni_weight[SR_MAX_DOMAIN_LEVELS];
};

enum { EV_RUN_END, EV_TIMER, EV_TICK, EV_IDLE_EXIT, EV_PREEMPT, EV_NEWIDLE_END,
       EV_NEWIDLE_ARRIVAL, EV_ACTIVATE, EV_WATCH };

struct sev {
	uint64_t t, seq, gen;
	int kind, a;
};

struct sim {
	const struct sr_demand *d;
	const struct sr_sim_opts *o;
	const struct sr_topology *topo;
	int ncpus;
	uint64_t now, tick_ns, seq, rng;
	struct stask *task;
	struct scpu *cpu;
	struct sr_rq *rq;
	const struct sr_task **head, **tail;
	struct sr_task *idle;		/* per CPU: the idle task, a timer's waker */
	struct sev *heap;
	size_t nheap, hcap;
	int *resched;			/* CPUs to reschedule before time moves */
	int nresched;
	unsigned char *sgc_imb;
	/* sd->nr_balance_failed, level * ncpus + cpu (sr_lb_input.nr_failed) */
	unsigned char *nr_failed;
	int lb_repeat;			/* a pass's evaluation after its first pull */
	struct sr_lb_scratch *scratch;
	struct sr_rm *rm;
	struct sr_sim_stats st;
	uint64_t nohz_next;
	unsigned *due;			/* per CPU: the levels due in this pass (sr_lb_input.due) */
	long next_id;
	long last_place;		/* the id of the last placement decision, -1: none */
	int tracing;			/* an event or migration callback is set */
	int err;
	/* CFS tunables (ns), scaled as sched_init_granularity() does */
	uint64_t latency, min_gran, wakeup_gran;
	uint64_t base_slice;		/* EEVDF: sysctl_sched_base_slice, scaled alike */
	int eevdf;
	int delay;			/* 6.12: DELAY_DEQUEUE, DELAY_ZERO, PLACE_REL_DEADLINE */
	int ni_random;			/* sched_balance_newidle()'s NI_RANDOM draws */
	int last_pull_src;		/* the CPU the last balance evaluation pulled from */
	int last_pull_dst;		/* ... and to */
	int wake_from;			/* the CPU a WK_WAKEUP's try_to_wake_up() runs on */
	struct sr_hist *xllc_act;	/* the recorded activations across LLCs onto busy CPUs */
	struct swk *wk;			/* every task's wakers, by task index within a task */
};

/* ---- randomness: xorshift64*, for the timing perturbation only -------------- */

static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ULL;
}

static double uniform(struct sim *s)
{
	return (double)(rnd(s) >> 11) / (double)(1ULL << 53);
}

/* a cost drawn from the recorded machine's distribution (none: 0) */
static uint64_t draw(struct sim *s, const struct sr_hist *h)
{
	return h && h->n ? sr_hist_sample(h, uniform(s)) : 0;
}

static uint64_t perturb(struct sim *s, uint64_t ns)
{
	double u, f;

	if (s->o->jitter <= 0 || !ns)
		return ns;
	u = (double)(rnd(s) >> 11) / (double)(1ULL << 53) * 2 - 1;
	f = 1 + s->o->jitter * u;
	return (uint64_t)((double)ns * f + 0.5);
}

/* ---- the event queue: a binary heap by (time, sequence) ---------------------- */

static int ev_less(const struct sev *a, const struct sev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ev_push(struct sim *s, uint64_t t, int kind, int a, uint64_t gen)
{
	struct sev e = { .t = t, .seq = s->seq++, .gen = gen, .kind = kind, .a = a };
	size_t i;

	if (s->nheap == s->hcap) {
		size_t ncap = s->hcap ? s->hcap * 2 : 256;
		struct sev *n = realloc(s->heap, ncap * sizeof(*n));

		if (!n) {
			s->err = -SR_E_NOMEM;
			return;
		}
		s->heap = n;
		s->hcap = ncap;
	}
	i = s->nheap++;
	while (i > 0 && ev_less(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

static struct sev ev_pop(struct sim *s)
{
	struct sev top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* ---- PELT and runqueue bookkeeping (as replay/state.c keeps them) ------------ */

static int is_fair(const struct stask *p)
{
	return !p->rt;
}

static void rq_pelt(struct sim *s, int cpu)
{
	struct sr_rq *rq = &s->rq[cpu];

	if (!rq->cfs.last_update) {
		rq->cfs.last_update = s->now;
		return;
	}
	sr_pelt_update(&rq->cfs, s->now, rq->cfs_weight, (unsigned long)rq->cfs_nr, rq->curr_cfs, 1);
}

static void task_pelt(struct sim *s, struct stask *p)
{
	int on_rq = p->st == ST_QUEUED || p->st == ST_RUNNING;

	if (!p->t.pelt.last_update) {
		p->t.pelt.last_update = s->now;
		return;
	}
	if (sr_pelt_update(&p->t.pelt, s->now, (unsigned long)on_rq, (unsigned long)on_rq,
			   p->st == ST_RUNNING, p->t.weight))
		p->t.util_est_unchanged = 0;
}

static unsigned long sub_clamp(unsigned long a, unsigned long b)
{
	return a > b ? a - b : 0;
}

static void attach(struct sim *s, struct stask *p, int cpu)
{
	struct sr_pelt *c = &s->rq[cpu].cfs;

	if (p->t.attached)
		return;
	c->load_avg += p->t.pelt.load_avg;
	c->util_avg += p->t.pelt.util_avg;
	c->runnable_avg += p->t.pelt.runnable_avg;
	c->load_sum += p->t.pelt.load_sum * p->t.weight;
	c->util_sum += p->t.pelt.util_sum;
	c->runnable_sum += p->t.pelt.runnable_sum;
	p->t.attached = 1;
}

static void detach(struct sim *s, struct stask *p)
{
	struct sr_pelt *c;

	if (!p->t.attached || p->t.cpu < 0)
		return;
	rq_pelt(s, p->t.cpu);
	c = &s->rq[p->t.cpu].cfs;
	c->load_avg = sub_clamp(c->load_avg, p->t.pelt.load_avg);
	c->util_avg = sub_clamp(c->util_avg, p->t.pelt.util_avg);
	c->runnable_avg = sub_clamp(c->runnable_avg, p->t.pelt.runnable_avg);
	c->load_sum = c->load_sum > p->t.pelt.load_sum * p->t.weight ?
		      c->load_sum - p->t.pelt.load_sum * p->t.weight : 0;
	c->util_sum = c->util_sum > p->t.pelt.util_sum ? c->util_sum - p->t.pelt.util_sum : 0;
	c->runnable_sum = c->runnable_sum > p->t.pelt.runnable_sum ?
			  c->runnable_sum - p->t.pelt.runnable_sum : 0;
	p->t.attached = 0;
}

#define UTIL_EST_MARGIN (SR_SCHED_CAPACITY / 100)

/* util_est_update() at a dequeue for sleep (v6.8+ form, as replay/state.c) */
static void util_est_update(struct sim *s, struct stask *p)
{
	unsigned long ewma = p->t.util_est, dq = p->t.pelt.util_avg, diff;
	int cap = p->t.cpu >= 0 ? s->topo->cpu[p->t.cpu].capacity : 0;

	if (p->t.util_est_unchanged)
		return;
	if (ewma <= dq) {
		ewma = dq;
	} else {
		diff = ewma - dq;
		if (diff >= UTIL_EST_MARGIN) {
			if (cap > 0 && dq > (unsigned long)cap)
				return;
			if (dq + UTIL_EST_MARGIN >= p->t.pelt.runnable_avg)
				ewma = ((ewma << 2) - diff) >> 2;
		}
	}
	p->t.util_est = ewma;
	p->t.util_est_unchanged = 1;
}

/* cfs_tasks order: the head is the most recently run */
static void lb_unlink(struct sim *s, struct stask *p)
{
	struct sr_task *t = &p->t;
	int c = t->lb_cpu;

	if (c < 0)
		return;
	if (t->lb_prev)
		t->lb_prev->lb_next = t->lb_next;
	else
		s->head[c] = t->lb_next;
	if (t->lb_next)
		t->lb_next->lb_prev = t->lb_prev;
	else
		s->tail[c] = t->lb_prev;
	t->lb_next = t->lb_prev = NULL;
	t->lb_cpu = -1;
}

static void lb_link_head(struct sim *s, struct stask *p, int c)
{
	struct sr_task *t = &p->t;

	lb_unlink(s, p);
	t->lb_cpu = c;
	t->lb_prev = NULL;
	t->lb_next = (struct sr_task *)s->head[c];
	if (s->head[c])
		((struct sr_task *)s->head[c])->lb_prev = t;
	else
		s->tail[c] = t;
	s->head[c] = t;
}

/* vruntimes wrap: compare them as the kernel does, by the signed difference */
static int vr_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* the smallest vruntime of the CFS tasks on @c but @skip; 0 if none */
static int min_vr_of(const struct scpu *c, const struct stask *skip, uint64_t *out)
{
	int i, found = 0;

	for (i = 0; i < c->nq; i++)
		if (!c->q[i]->rt && c->q[i] != skip &&
		    (!found || vr_before(c->q[i]->vruntime, *out))) {
			*out = c->q[i]->vruntime;
			found = 1;
		}
	return found;
}

static void update_min_vruntime(struct scpu *c)
{
	uint64_t m;

	if (min_vr_of(c, NULL, &m) && vr_before(c->min_vruntime, m))
		c->min_vruntime = m;
}

/*
 * EEVDF (6.6+, kernel/sched/fair.c): the weighted average vruntime V of the
 * CFS tasks on a CPU (the running one included), eligibility (vruntime not
 * past V), the lag kept over a dequeue, placement by lag, deadlines a
 * slice's worth of vruntime ahead.
 */
static void avg_sums(const struct scpu *c, const struct stask *skip, __int128 *sum,
		     uint64_t *load)
{
	int i;

	*sum = 0;
	*load = 0;
	for (i = 0; i < c->nq; i++) {
		const struct stask *p = c->q[i];

		if (p->rt || p == skip)
			continue;
		*sum += (__int128)(int64_t)(p->vruntime - c->min_vruntime) * (__int128)p->t.weight;
		*load += p->t.weight;
	}
}

static uint64_t avg_vruntime(const struct scpu *c, const struct stask *skip)
{
	__int128 sum, avg;
	uint64_t load;

	avg_sums(c, skip, &sum, &load);
	if (!load)
		return c->min_vruntime;
	/* rounded toward negative infinity, as avg_vruntime() does */
	if (sum < 0)
		sum -= (__int128)load - 1;
	avg = sum / (__int128)load;
	return c->min_vruntime + (uint64_t)(int64_t)avg;
}

static int eligible(const struct scpu *c, const struct stask *p)
{
	__int128 sum;
	uint64_t load;

	avg_sums(c, NULL, &sum, &load);
	return sum >= (__int128)(int64_t)(p->vruntime - c->min_vruntime) * (__int128)load;
}

static uint64_t vslice(const struct sim *s, const struct stask *p)
{
	return s->base_slice * SR_NICE0_WEIGHT / (p->t.weight ? p->t.weight : 1);
}

/* update_entity_lag(): @p is still counted on @cpu */
static void update_lag(struct sim *s, int cpu, struct stask *p)
{
	int64_t lag, limit;
	uint64_t span = 2 * s->base_slice > s->tick_ns ? 2 * s->base_slice : s->tick_ns;

	if (!s->eevdf || p->rt)
		return;
	lag = (int64_t)(avg_vruntime(&s->cpu[cpu], NULL) - p->vruntime);
	limit = (int64_t)(span * SR_NICE0_WEIGHT / (p->t.weight ? p->t.weight : 1));
	p->vlag = lag < -limit ? -limit : lag > limit ? limit : lag;
}

/* place_entity() with PLACE_LAG and PLACE_DEADLINE_INITIAL, before @p joins @cpu */
static void place_eevdf(struct sim *s, int cpu, struct stask *p, int initial)
{
	const struct scpu *c = &s->cpu[cpu];
	uint64_t v = avg_vruntime(c, p), vs = vslice(s, p), load;
	__int128 sum, lag = 0;

	avg_sums(c, p, &sum, &load);
	if (load)
		lag = (__int128)p->vlag * (__int128)(load + p->t.weight) / (__int128)load;
	p->vruntime = v - (uint64_t)(int64_t)lag;
	if (initial)
		vs /= 2;
	p->deadline = p->vruntime + vs;
	p->parity = 0;
}

static int enqueue(struct sim *s, struct stask *p, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];

	if (c->nq == c->qcap) {
		int ncap = c->qcap ? c->qcap * 2 : 8;
		struct stask **n = realloc(c->q, (size_t)ncap * sizeof(*n));

		if (!n)
			return -SR_E_NOMEM;
		c->q = n;
		c->qcap = ncap;
	}
	rq_pelt(s, cpu);
	task_pelt(s, p);
	c->q[c->nq++] = p;
	if (c->newidle) {
		/* it arrives during the CPU's newly idle balance: does the balance stop? */
		if (!c->nl_nr)
			ev_push(s, s->now, EV_NEWIDLE_ARRIVAL, cpu, c->nl_gen);
		c->nl_nr++;
		if (is_fair(p)) {
			c->nl_cfs++;
			c->nl_weight += (long)p->t.weight;
		}
	}
	p->seq = s->seq++;
	p->st = ST_QUEUED;
	p->t.state = SR_TASK_QUEUED;
	p->t.cpu = cpu;
	p->t.enqueue_ts = s->now;
	rq->nr_running++;
	if (is_fair(p)) {
		rq->cfs_nr++;
		rq->cfs_weight += p->t.weight;
		rq->runnable_load += (long)p->t.pelt.load_avg;
		p->t.queued_load = (int)p->t.pelt.load_avg;
		if (!p->t.util_est_queued) {
			rq->util_est += p->t.util_est;
			p->t.util_est_queued = 1;
		}
		attach(s, p, cpu);
		lb_link_head(s, p, cpu);
	} else {
		rq->rt_nr++;
	}
	return 0;
}

/* off its runqueue; @sleep: a dequeue for sleep (a util_est sample) */
static void dequeue(struct sim *s, struct stask *p, int sleep)
{
	int cpu = p->t.cpu, i;
	struct scpu *c = &s->cpu[cpu];
	struct sr_rq *rq = &s->rq[cpu];

	rq_pelt(s, cpu);
	task_pelt(s, p);
	for (i = 0; i < c->nq; i++)
		if (c->q[i] == p) {
			c->q[i] = c->q[--c->nq];
			break;
		}
	lb_unlink(s, p);
	if (rq->nr_running > 0)
		rq->nr_running--;
	if (is_fair(p)) {
		if (rq->cfs_nr > 0)
			rq->cfs_nr--;
		rq->cfs_weight = sub_clamp(rq->cfs_weight, p->t.weight);
		rq->runnable_load -= p->t.queued_load;
		if (rq->runnable_load < 0)
			rq->runnable_load = 0;
		p->t.queued_load = 0;
	} else if (rq->rt_nr > 0) {
		rq->rt_nr--;
	}
	if (p->t.util_est_queued) {
		rq->util_est = sub_clamp(rq->util_est, p->t.util_est);
		p->t.util_est_queued = 0;
	}
	if (sleep && is_fair(p))
		util_est_update(s, p);
}

static void update_curr(struct sim *s, int cpu);

/* a queued (not running) task moves to @dst: PELT and vruntime follow */
static int migrate_queued(struct sim *s, struct stask *p, int dst)
{
	int src = p->t.cpu;
	int64_t rel = (int64_t)(p->deadline - p->vruntime);

	/* dequeue_entity() and enqueue_entity() each start with update_curr() */
	update_curr(s, src);
	update_lag(s, src, p);
	dequeue(s, p, 0);
	detach(s, p);
	update_curr(s, dst);
	if (s->eevdf && is_fair(p)) {
		place_eevdf(s, dst, p, 0);
		/* PLACE_REL_DEADLINE (6.12): a move keeps the deadline relative */
		if (s->delay)
			p->deadline = p->vruntime + (uint64_t)rel;
	} else if (is_fair(p))
		p->vruntime = p->vruntime - s->cpu[src].min_vruntime + s->cpu[dst].min_vruntime;
	return enqueue(s, p, dst);
}

static void want_resched(struct sim *s, int cpu)
{
	if (s->cpu[cpu].resched)
		return;
	s->cpu[cpu].resched = 1;
	s->resched[s->nresched++] = cpu;
}

/* ---- CFS: update_curr, the pick, preemption -------------------------------- */

static uint64_t cap_scale(const struct sim *s, int cpu, uint64_t ns, int to_cpu_time)
{
	int cap = s->topo->cpu[cpu].capacity;

	if (cap <= 0 || cap == SR_SCHED_CAPACITY)
		return ns;
	/* a CPU of lower capacity needs longer for the same work */
	return to_cpu_time ? ns * (uint64_t)cap / SR_SCHED_CAPACITY :
			     ns * SR_SCHED_CAPACITY / (uint64_t)cap;
}

static void update_curr(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *p = c->curr;
	uint64_t delta, work;

	if (!p || s->now <= p->exec_start)
		return;
	delta = s->now - p->exec_start;
	p->exec_start = s->now;
	p->sum_exec += delta;
	work = cap_scale(s, cpu, delta, 1);
	p->rem = p->rem > work ? p->rem - work : 0;
	p->work += work;
	if (is_fair(p)) {
		p->vruntime += delta * SR_NICE0_WEIGHT / (p->t.weight ? p->t.weight : 1);
		update_min_vruntime(c);
		/* update_deadline(): the slice used up, a new one, and a pick */
		if (s->eevdf && (int64_t)(p->vruntime - p->deadline) >= 0) {
			p->deadline = p->vruntime + vslice(s, p);
			p->parity = 0;
			if (s->rq[cpu].cfs_nr > 1) {
				s->st.preemptions++;
				want_resched(s, cpu);
			}
		}
	}
}

static uint64_t sched_slice(const struct sim *s, int cpu, const struct stask *p)
{
	const struct sr_rq *rq = &s->rq[cpu];
	uint64_t nr = (uint64_t)rq->cfs_nr, period;

	period = nr > 8 ? nr * s->min_gran : s->latency;
	if (!rq->cfs_weight)
		return period;
	return period * p->t.weight / rq->cfs_weight;
}

/* pick_eevdf(): RUN_TO_PARITY, else the eligible task of the earliest deadline */
static struct stask *pick_eevdf(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *curr = c->curr, *best = NULL;
	int i;

	if (curr && (curr->rt || (curr->st != ST_RUNNING && curr->st != ST_QUEUED) ||
		     !eligible(c, curr)))
		curr = NULL;
	if (curr && curr->parity)
		return curr;
	for (i = 0; i < c->nq; i++) {
		struct stask *p = c->q[i];

		if (p->rt || !eligible(c, p))
			continue;
		if (!best || vr_before(p->deadline, best->deadline) ||
		    (p->deadline == best->deadline && p->seq < best->seq))
			best = p;
	}
	if (!best || (curr && vr_before(curr->deadline, best->deadline)))
		best = curr;
	return best;
}

static struct stask *pick(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *best = NULL;
	int i;

	if (s->eevdf) {
		for (i = 0; i < c->nq; i++)
			if (c->q[i]->rt && (!best || c->q[i]->seq < best->seq))
				best = c->q[i];
		if (best)
			return best;
		best = pick_eevdf(s, cpu);
		if (best)
			return best;
	}

	for (i = 0; i < c->nq; i++) {
		struct stask *p = c->q[i];

		if (!best) {
			best = p;
		} else if (p->rt != best->rt) {
			if (p->rt)
				best = p;
		} else if (p->rt ? p->seq < best->seq :
			   (vr_before(p->vruntime, best->vruntime) ||
			    (p->vruntime == best->vruntime && p->seq < best->seq))) {
			best = p;
		}
	}
	return best;
}

/*
 * The running task of @cpu has watchers (a producer whose progress ends
 * their sleeps): an EV_WATCH when it will have done the soonest one's work,
 * valid while it keeps running (the CPU's run_gen)
 */
static void arm_watch(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *p = c->curr;
	uint64_t target = UINT64_MAX, done, at;
	int n;

	if (!p || p->st != ST_RUNNING || p->watchers < 0)
		return;
	for (n = p->watchers; n >= 0; n = s->task[n / NPROD].watch_next[n % NPROD])
		if (s->task[n / NPROD].watch_target[n % NPROD] < target)
			target = s->task[n / NPROD].watch_target[n % NPROD];
	done = p->work + (s->now > p->exec_start ?
			  cap_scale(s, cpu, s->now - p->exec_start, 1) : 0);
	at = s->now + (target > done ? cap_scale(s, cpu, target - done, 0) + 1 : 0);
	if (c->watch_gen == c->run_gen && c->watch_at <= at)
		return;
	c->watch_gen = c->run_gen;
	c->watch_at = at;
	ev_push(s, at, EV_WATCH, cpu, c->run_gen);
}

static void arm_run_end(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *p = c->curr;

	c->run_gen++;
	if (!p || p->st != ST_RUNNING)
		return;
	ev_push(s, s->now + cap_scale(s, cpu, p->rem, 0), EV_RUN_END, cpu, c->run_gen);
	arm_watch(s, cpu);
}

static void arm_tick(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];

	if (c->tick_armed)
		return;
	c->tick_armed = 1;
	/* ticks fall on jiffy boundaries */
	ev_push(s, (s->now / s->tick_ns + 1) * s->tick_ns, EV_TICK, cpu, 0);
}

static int emit_slice(struct sim *s, int cpu, struct stask *p, uint64_t start)
{
	struct sr_sim_slice sl;

	if (!s->o->slice || s->now <= start)
		return 0;
	sl.pid = p->t.pid;
	memcpy(sl.comm, p->t.comm, SR_COMM_LEN);
	sl.cpu = cpu;
	sl.start = start;
	sl.end = s->now;
	return s->o->slice(&sl, s->o->data);
}

/* ---- the simulated machine's trace (sr_sim_opts.event, .migration) --------------- */

static int emit_event(struct sim *s, const struct sr_event *ev)
{
	int ret;

	if (!s->o->event)
		return 0;
	ret = s->o->event(ev, s->o->data);
	if (ret && !s->err)
		s->err = ret;
	return ret;
}

static void event_init(struct sim *s, struct sr_event *ev, enum sr_event_kind kind, int cpu,
		       const struct stask *p)
{
	sr_event_reset(ev);
	ev->kind = kind;
	ev->ts = s->now;
	ev->cpu = cpu;
	ev->success = 1;
	if (p) {
		ev->pid = p->t.pid;
		ev->prio = p->t.prio;
		memcpy(ev->comm, p->t.comm, SR_COMM_LEN);
	}
}

/*
 * sched_switch on @cpu from @prev (NULL: idle) to @next (NULL: idle); the
 * 4.14+ report encoding of prev_state: 0x100 R+ (preempted, still queued),
 * 0x1 S (blocked), 0x10 X (exited)
 */
static int trace_switch(struct sim *s, int cpu, const struct stask *prev, int prev_runnable,
			const struct stask *next)
{
	struct sr_event ev;

	if (!s->o->event)
		return 0;
	event_init(s, &ev, SR_EV_SWITCH, cpu, prev);
	if (!prev) {
		ev.pid = 0;
		ev.prio = 120;
		sr_strlcpy(ev.comm, "swapper", SR_COMM_LEN);
		ev.prev_state_raw = 0;
		ev.prev_state = SR_PREV_RUNNABLE;
	} else if (prev_runnable) {
		ev.prev_state_raw = 0x100;
		ev.prev_state = SR_PREV_PREEMPTED;
	} else if (prev->t.state == SR_TASK_DEAD) {
		ev.prev_state_raw = 0x10;
		ev.prev_state = SR_PREV_DEAD;
	} else {
		ev.prev_state_raw = 0x1;
		ev.prev_state = SR_PREV_BLOCKED;
	}
	ev.common_pid = ev.pid;
	ev.pid2 = next ? next->t.pid : 0;
	ev.prio2 = next ? next->t.prio : 120;
	sr_strlcpy(ev.comm2, next ? next->t.comm : "swapper", SR_COMM_LEN);
	return emit_event(s, &ev);
}

/* sched_waking on @this_cpu by @waker (NULL: a timer, pid 0) */
static int trace_waking(struct sim *s, const struct sr_task *waker, const struct stask *p,
			int this_cpu)
{
	struct sr_event ev;

	if (!s->o->event)
		return 0;
	event_init(s, &ev, SR_EV_WAKING, this_cpu >= 0 ? this_cpu : p->t.cpu, p);
	ev.common_pid = waker ? waker->pid : 0;
	ev.target_cpu = p->t.cpu;
	return emit_event(s, &ev);
}

/* sched_wakeup or sched_wakeup_new of @p on @cpu, emitted on @this_cpu */
static int trace_wakeup(struct sim *s, enum sr_event_kind kind, const struct sr_task *waker,
			const struct stask *p, int this_cpu, int cpu)
{
	struct sr_event ev;

	if (!s->o->event)
		return 0;
	event_init(s, &ev, kind, this_cpu >= 0 ? this_cpu : cpu, p);
	ev.common_pid = waker ? waker->pid : 0;
	ev.target_cpu = cpu;
	return emit_event(s, &ev);
}

static int trace_fork(struct sim *s, const struct stask *parent, const struct stask *c)
{
	struct sr_event ev;

	if (!s->o->event)
		return 0;
	event_init(s, &ev, SR_EV_FORK, parent->t.cpu, parent);
	ev.common_pid = parent->t.pid;
	ev.pid2 = c->t.pid;
	ev.prio2 = c->t.prio;
	memcpy(ev.comm2, c->t.comm, SR_COMM_LEN);
	return emit_event(s, &ev);
}

static int trace_exit(struct sim *s, const struct stask *p)
{
	struct sr_event ev;

	if (!s->o->event)
		return 0;
	event_init(s, &ev, SR_EV_EXIT, p->t.cpu, p);
	ev.common_pid = p->t.pid;
	return emit_event(s, &ev);
}

/*
 * @p moves from @from to @to (sched_migrate_task, emitted on @emit_cpu),
 * for @why; @decision: a wakeup's decision id, else -1
 */
static int trace_move(struct sim *s, const struct stask *p, int from, int to, int emit_cpu,
		      enum sr_migration_kind why, long decision)
{
	struct sr_migration m;
	struct sr_event ev;
	int ret;

	if (!s->tracing || from < 0 || from == to)
		return 0;
	if (s->o->event) {
		event_init(s, &ev, SR_EV_MIGRATE, emit_cpu, p);
		ev.common_pid = -1;
		ev.target_cpu = from;
		ev.dest_cpu = to;
		if (emit_event(s, &ev))
			return s->err;
	}
	if (!s->o->migration)
		return 0;
	memset(&m, 0, sizeof(m));
	m.ts = s->now;
	m.pid = p->t.pid;
	memcpy(m.comm, p->t.comm, SR_COMM_LEN);
	m.orig_cpu = from;
	m.dest_cpu = to;
	m.emit_cpu = emit_cpu;
	m.kind = why;
	m.decision = decision;
	ret = s->o->migration(&m, s->o->data);
	if (ret && !s->err)
		s->err = ret;
	return ret;
}

/* ---- decisions through the model ------------------------------------------- */

static void fill_view(struct sim *s, struct sr_view *v)
{
	v->topo = s->topo;
	v->rq = s->rq;
	v->cfs_head = s->head;
	v->cfs_tail = s->tail;
	v->now = s->now;
	v->hz = s->o->hz;
	v->kgen = s->o->kgen;
	v->tg = NULL;
}

static int allowed(const struct sim *s, const struct stask *p, int cpu)
{
	if (cpu < 0 || cpu >= s->ncpus)
		return 0;
	if (p->t.allowed_known && cpu < 64)
		return (int)(p->t.allowed >> cpu & 1);
	return p->t.bound_cpu < 0 || p->t.bound_cpu == cpu;
}

/* the only CPU @p may run on, or -1 */
static int single_cpu(const struct sim *s, const struct stask *p)
{
	int cpu, found = -1;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (allowed(s, p, cpu)) {
			if (found >= 0)
				return -1;
			found = cpu;
		}
	return found;
}

static int first_allowed(const struct sim *s, const struct stask *p)
{
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (allowed(s, p, cpu))
			return cpu;
	return 0;
}

/*
 * The CPU a sched_setaffinity() made on @this_cpu sends @p to when its CPU
 * is no longer allowed: __set_cpus_allowed_ptr_locked() (6.1 and 6.12)
 * takes cpumask_any_and_distribute(), the next allowed CPU after the one
 * that function returned last on the calling CPU (a per-CPU cursor, from
 * 0, wrapping), on every call, whether the task then moves or not.
 */
static int distribute_cpu(struct sim *s, const struct stask *p, int this_cpu)
{
	int prev, i, c;

	if (this_cpu < 0 || this_cpu >= s->ncpus)
		return first_allowed(s, p);
	prev = s->cpu[this_cpu].dist_prev;
	for (i = 1; i <= s->ncpus; i++) {
		c = (prev + i) % s->ncpus;
		if (allowed(s, p, c)) {
			s->cpu[this_cpu].dist_prev = c;
			return c;
		}
	}
	return first_allowed(s, p);
}

static int report(struct sim *s, struct sr_decision *d, const struct sr_eval *e, int nevals)
{
	s->st.decisions[d->kind]++;
	if (!s->o->decision)
		return 0;
	return s->o->decision(d, e, nevals, s->o->data);
}

static void dec_init(struct sim *s, struct sr_decision *d, enum sr_decision_kind kind,
		     const struct stask *p)
{
	memset(d, 0, sizeof(*d));
	d->id = s->next_id++;
	d->kind = kind;
	d->ts = d->done_ts = s->now;
	d->waker = -1;
	d->kernel_cpu = -1;
	d->wake_flags = -1;
	d->actual_cpu = -1;
	d->prev_cpu = -1;
	if (p) {
		d->pid = p->t.pid;
		memcpy(d->comm, p->t.comm, SR_COMM_LEN);
	}
}

static void record_wakee(struct sim *s, struct sr_task *cur, int wakee)
{
	uint64_t jiffies = s->now / s->tick_ns;

	if (!cur)
		return;
	if (jiffies > cur->wakee_flip_decay + (uint64_t)s->o->hz) {
		cur->wakee_flips >>= 1;
		cur->wakee_flip_decay = jiffies;
	}
	if (cur->last_wakee != wakee) {
		cur->last_wakee = wakee;
		cur->wakee_flips++;
	}
}

/* place()'s kind for an exec's select_task_rq() (WF_EXEC), not a decision kind */
#define SIM_EXEC SR_DEC__COUNT

/*
 * select_task_rq for @p: the model's choice for a CFS task allowed on more
 * than one CPU, else where it may run (RT: its previous CPU)
 */
static int place(struct sim *s, struct stask *p, enum sr_decision_kind kind, int this_cpu,
		 int prev_cpu, const struct sr_task *cur, int sync, int exiting)
{
	struct sr_wake_input in;
	struct sr_decision d;
	struct sr_eval e[3];
	struct sr_view v;
	int one = single_cpu(s, p), cpu, ret, ne = 1;

	if (one >= 0)
		return one;
	if (!allowed(s, p, prev_cpu))
		prev_cpu = first_allowed(s, p);
	if (p->rt)
		return prev_cpu;
	fill_view(s, &v);
	memset(&in, 0, sizeof(in));
	in.fork = kind == SR_DEC_FORK;
	in.exec = kind == SIM_EXEC;
	in.this_cpu = this_cpu;
	in.prev_cpu = prev_cpu;
	in.sync = sync;
	in.exiting = exiting;
	in.p = &p->t;
	in.cur = cur;
	memset(e, 0, sizeof(e));
	sr_model_select(s->o->model, &v, &in, &e[0]);
	if (s->o->shadow) {
		sr_model_select(s->o->shadow, &v, &in, &e[ne]);
		if (e[ne++].cpu != e[0].cpu)
			*(kind == SIM_EXEC ? &s->st.exec_diverged : &s->st.diverged[kind]) += 1;
	}
	cpu = allowed(s, p, e[0].cpu) ? e[0].cpu : prev_cpu;
	/* an exec is not a decision replay evaluates: the model's choice, no report */
	if (kind == SIM_EXEC)
		return cpu;
	dec_init(s, &d, kind, p);
	d.this_cpu = this_cpu;
	d.prev_cpu = prev_cpu;
	d.sync = sync;
	d.waker_exiting = exiting;
	if (cur) {
		d.waker = cur->pid;
		memcpy(d.waker_comm, cur->comm, SR_COMM_LEN);
	}
	d.this_nr = s->rq[this_cpu].nr_running;
	d.prev_nr = s->rq[prev_cpu].nr_running;
	if (s->o->observer && s->o->decision)
		sr_model_select(s->o->observer, &v, &in, &e[ne++]);
	d.actual_cpu = cpu;
	d.actual_nr = s->rq[cpu].nr_running;
	s->last_place = d.id;
	ret = report(s, &d, e, ne);
	if (ret && !s->err)
		s->err = ret;
	return cpu;
}

/*
 * check_preempt_wakeup(): does @p, just queued on @cpu, preempt what runs
 * there?  An idle CPU takes a wakeup (@wake WK_WAKEUP) after the recorded
 * machine's cost of leaving idle for one, a new task (WK_FORK) after its
 * cost of wake_up_new_task() onto an idle CPU, a busy CPU is preempted
 * after the cost of a preempting wakeup: each drawn from the recording's
 * distribution (sr_demand.idle_wake_hist, idle_fork_hist, preempt_wake_hist).
 * A wakeup made on the idle CPU itself (its own timer: ttwu_queue() with
 * cpu == smp_processor_id(), 6.1 and 6.12) takes no IPI, and draws from
 * the recorded local ones (idle_wake_local_hist).
 * A queued task that another CPU moves onto an idle one (WK_MOVE: the
 * stopper's move_queued_task() after an affinity change, attach_task() by
 * a nohz pass for another CPU; both end in resched_curr()'s IPI, 6.1 and
 * 6.12) runs there after the recorded cost of such moves (idle_move_hist;
 * the wakeups' where the trace has none).  A CPU that pulls for itself
 * (WK_NONE) picks the task at its own schedule, with no cost.
 */
enum { WK_NONE, WK_WAKEUP, WK_FORK, WK_MOVE };

static const struct sr_hist *idle_cost_hist(const struct sim *s, int wake, int cpu)
{
	const struct sr_demand *d = s->d;
	const struct sr_hist *local = d->idle_wake_local_hist, *remote = d->idle_wake_hist;

	if (wake == WK_FORK && d->idle_fork_hist && d->idle_fork_hist->n)
		return d->idle_fork_hist;
	if (wake == WK_MOVE && d->idle_move_hist && d->idle_move_hist->n)
		return d->idle_move_hist;
	if (!wake)
		return NULL;
	/* a wakeup made on the idle CPU itself activates the task there, no IPI */
	if (wake == WK_WAKEUP && s->wake_from == cpu && local && local->n)
		return local;
	return remote && remote->n ? remote : local;
}

static void check_preempt(struct sim *s, int cpu, struct stask *p, int wake)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *curr = c->curr;
	uint64_t gran, cost;

	/* in its newly idle balance: the pick at the balance's end takes it */
	if (c->newidle)
		return;
	if (!curr) {
		if (c->waking)
			return;
		cost = draw(s, idle_cost_hist(s, wake, cpu));
		if (cost) {
			c->waking = 1;
			ev_push(s, s->now + cost, EV_IDLE_EXIT, cpu, 0);
			return;
		}
		want_resched(s, cpu);
		return;
	}
	if (curr == p)
		return;
	if (p->rt && !curr->rt) {
		want_resched(s, cpu);
		return;
	}
	if (p->rt || curr->rt)
		return;
	update_curr(s, cpu);
	/* EEVDF: preempt when the pick would be the wakee; CFS: the wakeup granularity */
	gran = s->wakeup_gran * SR_NICE0_WEIGHT / (p->t.weight ? p->t.weight : 1);
	if (s->eevdf ? pick_eevdf(s, cpu) == p :
	    (int64_t)(curr->vruntime - p->vruntime) > (int64_t)gran) {
		s->st.preemptions++;
		/* the recorded machine's cost of a preempting wakeup (resched IPI, switch) */
		cost = wake && wake != WK_MOVE ? draw(s, s->d->preempt_wake_hist) : 0;
		if (cost)
			ev_push(s, s->now + cost, EV_PREEMPT, cpu, 0);
		else
			want_resched(s, cpu);
	}
}

/* ---- load balancing ----------------------------------------------------------- */

static struct stask *task_by_pid(struct sim *s, int pid, int cpu)
{
	int i;

	if (cpu < 0 || cpu >= s->ncpus)
		return NULL;
	for (i = 0; i < s->cpu[cpu].nq; i++)
		if (s->cpu[cpu].q[i]->t.pid == pid)
			return s->cpu[cpu].q[i];
	return NULL;
}

static void lb_input(struct sim *s, struct sr_lb_input *in, enum sr_decision_kind kind, int cpu,
		     enum sr_lb_idle idle, int leaving)
{
	memset(in, 0, sizeof(*in));
	in->kind = kind;
	in->cpu = cpu;
	in->idle = idle;
	in->sgc_imb = s->sgc_imb;
	in->nr_failed = s->nr_failed;
	/* newly idle: curr is blocking (already off the runqueue here) */
	in->curr_leaving = leaving && s->cpu[cpu].curr;
	if (kind == SR_DEC_NEWIDLE)
		in->levels = s->cpu[cpu].nl_levels;
	if (kind == SR_DEC_LB_PERIODIC || kind == SR_DEC_LB_NOHZ)
		in->due = s->due;
	if (kind == SR_DEC_NEWIDLE && s->cpu[cpu].nl_nr > 0) {
		in->arrival = 1;
		in->nr_sub = s->cpu[cpu].nl_nr;
		in->cfs_sub = s->cpu[cpu].nl_cfs;
		in->load_sub = s->cpu[cpu].nl_weight;
	}
}

/*
 * Would the side's newly idle balance on @cpu stop for the task that has
 * just arrived (should_we_balance() bails, SR_LBO_BAIL: seed 003's rule)?
 * The model is asked without applying or reporting anything.
 */
static int newidle_bails(struct sim *s, int cpu)
{
	struct sr_lb_input in;
	struct sr_eval e;
	struct sr_view v;

	lb_input(s, &in, SR_DEC_NEWIDLE, cpu, SR_LB_NEWLY_IDLE, 1);
	fill_view(s, &v);
	memset(&e, 0, sizeof(e));
	if (sr_model_balance(s->o->model, &v, &in, s->scratch, &e))
		return -SR_E_NOMEM;
	return (e.lbf & SR_LBO_BAIL) != 0;
}

/*
 * The domain level of @dst at which a pull from @src happened: the lowest
 * whose span holds @src (load_balance() pulls from a group other than the
 * local one, the child's span)
 */
static int pull_level(const struct sim *s, int dst, int src)
{
	int l = sr_topology_level_of(s->topo, dst, src);

	return l < s->topo->cpu[dst].ndomains && l < SR_MAX_DOMAIN_LEVELS ? l : 0;
}

/*
 * One balance evaluation on @cpu; applies the model's first pull.  For a
 * newly idle balance that took time, the tasks that arrived on @cpu
 * meanwhile (struct scpu nl_*) are taken off its counts and the arrival
 * shows after the first busiest search (sr_lb_input.arrival), as replay
 * shows a wakeup that lands during the balance.  Return: 1 pulled, 0 not,
 * negative on error.
 */
static int balance_once(struct sim *s, enum sr_decision_kind kind, int cpu, enum sr_lb_idle idle,
			int leaving, unsigned *lbf)
{
	struct sr_lb_input in;
	struct sr_decision d;
	struct sr_eval ev[3], *e = &ev[0];
	struct sr_view v;
	struct stask *p;
	int i, ret, ne = 1;

	lb_input(s, &in, kind, cpu, idle, leaving);
	fill_view(s, &v);
	memset(ev, 0, sizeof(ev));
	/* the others before the side's own evaluation: the scratch is shared */
	if (s->o->shadow) {
		struct sr_eval *se = &ev[ne++];

		if (sr_model_balance(s->o->shadow, &v, &in, s->scratch, se))
			return -SR_E_NOMEM;
	}
	if (s->o->observer && s->o->decision &&
	    sr_model_balance(s->o->observer, &v, &in, s->scratch, &ev[ne++]))
		return -SR_E_NOMEM;
	if (sr_model_balance(s->o->model, &v, &in, s->scratch, e))
		return -SR_E_NOMEM;
	if (s->o->shadow) {
		const struct sr_eval *se = &ev[1];

		if (se->cpu != e->cpu || se->src_cpu != e->src_cpu || se->task != e->task ||
		    (se->lbf & SR_LBO_COMPARE) != (e->lbf & SR_LBO_COMPARE))
			s->st.diverged[kind]++;
	}
	if (lbf)
		*lbf = e->lbf;
	for (i = 0; i < e->neffects; i++)
		s->sgc_imb[e->effect[i] >> 1] = (unsigned char)(e->effect[i] & 1);
	/*
	 * the kernel's pass is one load_balance() per level: the engine's
	 * evaluations after a pass's first pull (taken one at a time) count
	 * nothing more
	 */
	for (i = 0; !s->lb_repeat && i < s->ncpus * SR_MAX_DOMAIN_LEVELS && i < 64; i++) {
		if (e->lb_reset >> i & 1) {
			s->nr_failed[i] = 0;
		} else if (e->lb_failed >> i & 1) {
			if (s->nr_failed[i] < UCHAR_MAX)
				s->nr_failed[i]++;
			s->cpu[i % s->ncpus].lb_failed |= 1u << (i / s->ncpus);
		}
		if (e->lb_pinned >> i & 1)
			s->cpu[i % s->ncpus].lb_pinned |= 1u << (i / s->ncpus);
	}
	dec_init(s, &d, kind, NULL);
	d.this_cpu = cpu;
	d.this_nr = s->rq[cpu].nr_running;
	p = e->cpu >= 0 ? task_by_pid(s, e->task, e->src_cpu) : NULL;
	/* a running task is moved only by active balancing, which is not simulated */
	if (p && (p->st != ST_QUEUED || !allowed(s, p, e->cpu) || e->cpu == e->src_cpu))
		p = NULL;
	if (p) {
		d.pid = p->t.pid;
		memcpy(d.comm, p->t.comm, SR_COMM_LEN);
		d.prev_cpu = e->src_cpu;
		d.actual_cpu = e->cpu;
		ret = migrate_queued(s, p, e->cpu);
		if (ret)
			return ret;
		s->st.pulls++;
		s->last_pull_src = e->src_cpu;
		s->last_pull_dst = e->cpu;
		s->cpu[e->cpu].lb_pulled |= 1u << pull_level(s, e->cpu, e->src_cpu);
		ret = trace_move(s, p, e->src_cpu, e->cpu, cpu,
				 kind == SR_DEC_LB_NOHZ ? SR_MIG_LB_NOHZ :
				 kind == SR_DEC_NEWIDLE ? SR_MIG_LB_NEWIDLE : SR_MIG_LB_PERIODIC, -1);
		if (ret)
			return ret;
		check_preempt(s, e->cpu, p, e->cpu != cpu ? WK_MOVE : WK_NONE);
	} else if (kind != SR_DEC_NEWIDLE && kind != SR_DEC_LB_NOHZ) {
		/* a periodic balance that moved nothing: not a decision the replay sees either */
		return 0;
	}
	if (kind == SR_DEC_NEWIDLE && p)
		d.kind = SR_DEC_LB_NEWIDLE;
	d.actual_nr = d.actual_cpu >= 0 ? s->rq[d.actual_cpu].nr_running : -1;
	ret = report(s, &d, ev, ne);
	if (ret)
		return ret;
	return p ? 1 : 0;
}

/*
 * The levels of @cpu that rebalance_domains() (6.1) / sched_balance_domains()
 * (6.12) balances now (sr_lb_clock_due()).  SD_SERIALIZE's trylock (the
 * NUMA levels) never fails here: the engine runs one balance at a time.
 */
static unsigned levels_due(const struct sim *s, int cpu, int busy)
{
	return sr_lb_clock_due(&s->cpu[cpu].clk, &s->topo->cpu[cpu], s->now, busy, s->o->hz,
			       s->ncpus);
}

/*
 * After a pass over @cpu's due levels (sr_lb_clock_done(), from what each
 * level's load_balance() found).  The walk's stop on continue_balancing
 * (should_we_balance() failing) is not seen by the engine: every due level
 * counts as balanced.
 */
static void levels_done(struct sim *s, int cpu, unsigned due, int busy)
{
	struct scpu *sc = &s->cpu[cpu];
	int l;

	for (l = 0; l < s->topo->cpu[cpu].ndomains && l < SR_MAX_DOMAIN_LEVELS; l++)
		if (due >> l & 1)
			s->st.lb_level[l]++;
	sr_lb_clock_done(&sc->clk, &s->topo->cpu[cpu], due, ~0u, busy, s->now, s->o->hz, s->ncpus,
			 sc->lb_pulled, sc->lb_failed, sc->lb_pinned);
	sc->lb_pulled = 0;
	sc->lb_failed = 0;
	sc->lb_pinned = 0;
}

/* the ILB still idle (it did not pull for itself) */
static int cpu_idle_now(const struct sim *s, int cpu)
{
	return !s->cpu[cpu].curr && !s->cpu[cpu].nq;
}

static int any_idle(const struct sim *s)
{
	int c;

	for (c = 0; c < s->ncpus; c++)
		if (!s->cpu[c].curr && !s->cpu[c].nq)
			return c;
	return -1;
}

/*
 * trigger_load_balance() from a busy CPU's tick: rebalance_domains() (6.1)
 * / sched_balance_domains() (6.12) on the levels that are due (levels_due())
 */
static int tick_balance(struct sim *s, int cpu)
{
	int ret, n, ilb, c;

	if (s->now >= s->cpu[cpu].clk.next_balance) {
		memset(s->due, 0, (size_t)s->ncpus * sizeof(*s->due));
		s->due[cpu] = levels_due(s, cpu, 1);
		s->cpu[cpu].lb_pulled = 0;
		s->cpu[cpu].lb_failed = 0;
		s->cpu[cpu].lb_pinned = 0;
		for (n = 0; n < 8 && s->due[cpu]; n++) {
			s->lb_repeat = n > 0;
			ret = balance_once(s, SR_DEC_LB_PERIODIC, cpu, SR_LB_NOT_IDLE, 0, NULL);
			if (ret <= 0) {
				if (ret < 0)
					return ret;
				break;
			}
		}
		levels_done(s, cpu, s->due[cpu], 1);
	}
	/*
	 * nohz_balancer_kick(): this CPU has more than it runs and another is
	 * idle: the first idle CPU runs the pass.  The model answers with the
	 * pass's first pull; the pass goes on (evaluated again on the state the
	 * pull left) unless the model says it was abandoned (SR_LBO_ABORT).
	 * _nohz_idle_balance() (6.1, 6.12) balances an idle CPU whose
	 * rq->next_balance has come, at its due levels (levels_due(), not busy).
	 */
	ilb = any_idle(s);
	if (ilb >= 0 && s->rq[cpu].nr_running >= 2 && s->now >= s->nohz_next) {
		uint64_t next = UINT64_MAX;

		for (c = 0; c < s->ncpus; c++) {
			s->due[c] = 0;
			s->cpu[c].lb_pulled = 0;
			s->cpu[c].lb_failed = 0;
			s->cpu[c].lb_pinned = 0;
			if ((cpu_idle_now(s, c) || c == ilb) && s->now >= s->cpu[c].clk.next_balance)
				s->due[c] = levels_due(s, c, 0);
		}
		for (n = 0; n < s->ncpus; n++) {
			unsigned lbf = 0;

			s->lb_repeat = n > 0;
			ret = balance_once(s, SR_DEC_LB_NOHZ, ilb, SR_LB_IDLE, 0, &lbf);
			if (ret < 0)
				return ret;
			if (!ret || (lbf & SR_LBO_ABORT) || !cpu_idle_now(s, ilb))
				break;
		}
		/* nohz.next_balance: the soonest of the idle CPUs' rq->next_balance */
		for (c = 0; c < s->ncpus; c++) {
			if (s->due[c])
				levels_done(s, c, s->due[c], 0);
			if (!cpu_idle_now(s, c) && c != ilb)
				continue;
			if (s->cpu[c].clk.next_balance < next)
				next = s->cpu[c].clk.next_balance;
		}
		s->nohz_next = next == UINT64_MAX || next < s->now ?
			s->now + s->tick_ns : next;
	}
	return 0;
}

/* ---- executing the demand -------------------------------------------------------- */

static int wake_task(struct sim *s, struct stask *w, struct stask *p, unsigned step,
		     unsigned flags);
static int fork_task(struct sim *s, struct stask *parent, struct stask *c);

static void arm_timer(struct sim *s, struct stask *p, uint64_t ns)
{
	p->timer_gen++;
	p->release_by = -1;
	ev_push(s, s->now + perturb(s, ns), EV_TIMER, p->idx, p->timer_gen);
}

/* a sleep that a task's wakeup ends (not a timer's, not the trace's end) */
static int by_task(const struct sr_dm_step *st)
{
	return st->kind == SR_DM_SLEEP && st->end == SR_DM_BY_TASK && st->peer >= 0;
}

/* the producer's WAKE step that ended sleep @st in the recording, or NULL */
static const struct sr_dm_step *stream_wake(const struct sim *s, const struct sr_dm_step *st)
{
	const struct sr_dm_task *wt;
	const struct sr_dm_step *ws;

	if (!by_task(st) || st->peer_step < 0)
		return NULL;
	wt = &s->d->task[st->peer];
	if ((unsigned)st->peer_step >= wt->nsteps)
		return NULL;
	ws = &wt->step[st->peer_step];
	return ws->kind == SR_DM_WAKE && (ws->flags & SR_DM_F_STREAM) ? ws : NULL;
}

/* a sleep that a task's wakeup at a point of its own ends (wake_task()) */
static int by_point(const struct sim *s, const struct sr_dm_step *st)
{
	return by_task(st) && !stream_wake(s, st);
}

/* p->step was reached: a run burst's time (perturbed) */
static void enter_step(struct sim *s, struct stask *p)
{
	p->rem = 0;
	if (p->step < p->dm->nsteps && p->dm->step[p->step].kind == SR_DM_RUN)
		p->rem = perturb(s, p->dm->step[p->step].ns);
}

/* a sleeping producer @w waits for @p's wakeup (a writer on @p's full pipe) */
static int waits_for(const struct stask *w, const struct stask *p)
{
	const struct sr_dm_step *st = w->step < w->dm->nsteps ? &w->dm->step[w->step] : NULL;

	return w->st == ST_SLEEP && st && st->kind == SR_DM_SLEEP && st->end == SR_DM_BY_TASK &&
	       st->peer == p->idx;
}

/* how many of @p's sleeps task @w ended in the recording (its wakers are sorted by index) */
static unsigned woke_count(const struct sim *s, const struct stask *p, int w)
{
	const struct swk *k = s->wk + p->wk_off;
	unsigned lo = 0, hi = p->nwk;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (k[mid].task < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nwk && k[lo].task == w ? k[lo].n : 0;
}

/*
 * Whether @w feeds @p: in the recording it ended more of @p's sleeps than
 * @p of its own.  A writer to @p's pipe or socket wakes @p whenever @p
 * waited for data, @p wakes the writer only when the writer waited for
 * room; the next stage of a pipeline, which wakes its producer only for
 * room, does not feed it.  Two tasks that each ended most of the other's
 * sleeps are a ping-pong pair (or a client and its only server), whose
 * messages alternate: neither feeds the other, whichever woke the other a
 * few times more (which of the two holds the message when both wait
 * cannot be told).
 */
static int feeds(const struct sim *s, const struct stask *w, const struct stask *p)
{
	unsigned n = woke_count(s, p, w->idx), back = woke_count(s, w, p->idx);

	if (n <= back)
		return 0;
	return !(2 * n > p->nsleeps && 2 * back > w->nsleeps);
}

/*
 * Whether a task that feeds @p waits for @p's wakeup (a writer blocked for
 * room in @p's full pipe or socket): then what @p would wait for is there
 */
static int fed_waits(const struct sim *s, const struct stask *p)
{
	unsigned i;

	for (i = 0; i < p->nwk; i++) {
		const struct stask *w = &s->task[s->wk[p->wk_off + i].task];

		if (waits_for(w, p) && feeds(s, w, p))
			return 1;
	}
	return 0;
}

/*
 * Whether @p, at a sleep producers end, blocks: not if one of them waits
 * for its wakeup (a writer blocked on @p's full pipe: the data is there,
 * pipe_read() takes it), nor if all are done (the writers' ends closed:
 * pipe_read() takes what is left, then end of file)
 */
static int stream_blocks(const struct sim *s, const struct stask *p)
{
	int i, left = 0;

	for (i = 0; i < p->nprod; i++) {
		const struct stask *w = &s->task[p->prod[i]];

		if (waits_for(w, p))
			return 0;
		if (w->st != ST_DONE)
			left = 1;
	}
	return left && !fed_waits(s, p);
}

/*
 * sched_exec() (kernel/sched/core.c, 6.1.192 and 6.12.117) for @p running
 * on its CPU: select_task_rq() with WF_EXEC, the model's exec placement
 * (SD_BALANCE_EXEC's slow path, which reads p's CPU without p), its
 * signal synced to the CPU's last update first (find_idlest_cpu() /
 * sched_balance_find_dst_cpu(): sync_entity_load_avg()).  Another CPU
 * than its own sends it there through the stopper (stop_one_cpu() with
 * migration_cpu_stop(): preempted, then moved queued by
 * move_queued_task()), which move_disallowed() applies at the CPU's
 * reschedule; p->exec_dest says where.
 */
static int exec_place(struct sim *s, struct stask *p)
{
	const struct sr_pelt *rq = &s->rq[p->t.cpu].cfs;
	int cpu = p->t.cpu, dst;

	s->st.execs++;
	p->exec_dest = -1;
	if (rq->last_update > p->t.pelt.last_update && p->t.pelt.last_update &&
	    sr_pelt_update(&p->t.pelt, rq->last_update, 1, 1, 1, p->t.weight))
		p->t.util_est_unchanged = 0;
	dst = place(s, p, SIM_EXEC, cpu, cpu, &p->t, 0, 0);
	if (s->err)
		return s->err;
	if (dst != cpu && allowed(s, p, dst)) {
		p->exec_dest = dst;
		s->st.exec_moves++;
	}
	return 0;
}

/*
 * Run @p's steps from p->step on while it holds a CPU: until it needs CPU
 * time (1), or sleeps or finishes (0).
 */
static int advance(struct sim *s, struct stask *p)
{
	const struct sr_dm_task *dm = p->dm;
	int ret;

	while (p->step < dm->nsteps) {
		const struct sr_dm_step *st = &dm->step[p->step], *sw;

		switch (st->kind) {
		case SR_DM_RUN:
			if (p->rem)
				return 1;
			break;
		case SR_DM_WAKE:
			if (st->flags & SR_DM_F_EXITING)
				p->t.exiting = 1;
			/* a producer's: the wakee's sleep ends by this task's progress (watch_start()) */
			if (st->flags & SR_DM_F_STREAM)
				break;
			if (st->peer >= 0 && st->peer_step >= 0) {
				p->step++;
				ret = wake_task(s, p, &s->task[st->peer], (unsigned)st->peer_step,
						st->flags);
				if (ret)
					return ret;
				enter_step(s, p);
				continue;
			}
			break;
		case SR_DM_FORK:
			if (st->peer >= 0) {
				p->step++;
				ret = fork_task(s, p, &s->task[st->peer]);
				if (ret)
					return ret;
				enter_step(s, p);
				continue;
			}
			break;
		case SR_DM_AFFINITY: {
			uint64_t online = s->ncpus >= 64 ? ~0ULL : (1ULL << s->ncpus) - 1;

			if (st->mask & online) {
				p->t.allowed = st->mask & online;
				p->t.allowed_known = 1;
				p->aff_dest = distribute_cpu(s, p, p->t.cpu);
			}
			break;
		}
		case SR_DM_EXEC:
			p->step++;
			enter_step(s, p);
			ret = exec_place(s, p);
			if (ret)
				return ret;
			/* the rest runs where the stopper takes it (move_disallowed()) */
			if (p->exec_dest >= 0)
				return 1;
			continue;
		case SR_DM_SLEEP:
			/* a producer's sleep with the data there or the writers gone */
			sw = stream_wake(s, st);
			if (sw && !stream_blocks(s, p))
				break;
			if (!by_task(st) || sw)
				return 0;
			/* a wakeup at a point of a task's came before it got here: no block */
			if (p->tokens) {
				p->tokens--;
				break;
			}
			/* a task that feeds it waits for it: what it waits for is there */
			if (fed_waits(s, p))
				break;
			return 0;
		default:
			return 0;	/* EXIT */
		}
		p->step++;
		enter_step(s, p);
	}
	return 0;
}

/* @p's sleep no longer waits for producer prod[@i] */
static void unwatch_one(struct sim *s, struct stask *p, int i)
{
	int node = p->idx * NPROD + i, *link;

	if (!(p->watching & (1u << i)))
		return;
	p->watching &= ~(1u << i);
	for (link = &s->task[p->prod[i]].watchers; *link >= 0;
	     link = &s->task[*link / NPROD].watch_next[*link % NPROD]) {
		if (*link == node) {
			*link = p->watch_next[i];
			break;
		}
	}
}

/* @p's sleep no longer waits for producers */
static void unwatch(struct sim *s, struct stask *p)
{
	int i;

	for (i = 0; p->watching && i < p->nprod; i++)
		unwatch_one(s, p, i);
}

/* @p's sleep ends now, by producer @by (-1: none) in its context (an EV_TIMER) */
static void arm_release(struct sim *s, struct stask *p, int by)
{
	arm_timer(s, p, 0);
	p->release_by = by;
}

/* the work @w has done up to now */
static uint64_t work_now(const struct sim *s, const struct stask *w)
{
	if (w->st == ST_RUNNING && w->t.cpu >= 0 && s->cpu[w->t.cpu].curr == w &&
	    s->now > w->exec_start)
		return w->work + cap_scale(s, w->t.cpu, s->now - w->exec_start, 1);
	return w->work;
}

/*
 * @p blocks in a sleep that a producer ended in the recording
 * (SR_DM_F_STREAM, demand.c says when).  pipe_write() wakes a reader that
 * waits on an empty pipe at the next write by any of its writers (6.1 and
 * 6.12), whichever point of the writer's execution that is: the sleep
 * ends when one of @p's producers that is not done has done @ns more work
 * from now, as much as the one that ended it did from @p's block in the
 * recording (perturbed as a run burst).  A producer blocked on @p's own
 * full pipe (it waits for @p's wakeup), or none left (pipe_release() of
 * the last writer), ends the sleep at once (advance() does not block for
 * those: stream_blocks(); they come about within one simulated instant).
 */
static void watch_start(struct sim *s, struct stask *p, uint64_t ns, unsigned flags)
{
	int i, by = -1;

	p->watch_flags = flags;
	for (i = 0; i < p->nprod; i++) {
		if (s->task[p->prod[i]].st != ST_NEW)
			by = p->prod[i];
		if (waits_for(&s->task[p->prod[i]], p))
			break;
	}
	if (i == p->nprod) {
		ns = perturb(s, ns);
		for (i = 0; i < p->nprod; i++) {
			struct stask *w = &s->task[p->prod[i]];

			if (w->st == ST_DONE)
				continue;
			p->watch_target[i] = work_now(s, w) + ns;
			p->watch_next[i] = w->watchers;
			w->watchers = p->idx * NPROD + i;
			p->watching |= 1u << i;
			if (w->st == ST_RUNNING && w->t.cpu >= 0 && s->cpu[w->t.cpu].curr == w)
				arm_watch(s, w->t.cpu);
		}
	} else {
		by = p->prod[i];
	}
	if (!p->watching)
		arm_release(s, p, by);
}

static int do_wakeup(struct sim *s, struct stask *w, struct stask *p, int this_cpu,
		     unsigned flags);

/* EV_WATCH: the running task of @cpu wakes the watchers whose work it has done */
static int watch_due(struct sim *s, int cpu)
{
	struct stask *p = s->cpu[cpu].curr;
	int n, ret;

	if (!p || p->st != ST_RUNNING)
		return 0;
	update_curr(s, cpu);
	for (n = p->watchers; n >= 0; ) {
		struct stask *r = &s->task[n / NPROD];
		int i = n % NPROD;

		n = r->watch_next[i];
		if (r->watch_target[i] > p->work)
			continue;
		/* do_wakeup() unlinks all of @r's nodes: start again */
		ret = do_wakeup(s, p, r, cpu, r->watch_flags);
		if (ret)
			return ret;
		n = p->watchers;
	}
	arm_watch(s, cpu);
	return 0;
}

/*
 * @w blocks or is done.  Done: it watches for no one (a sleep left with no
 * producer ends now).  Blocked on the full pipe of one of its watchers
 * (its sleep ends by that one's wakeup): that one's sleep ends now, as
 * pipe_write() wakes the readers before its wait on wr_wait (6.1 and
 * 6.12); the others wait on.
 */
static void watch_release(struct sim *s, struct stask *w)
{
	int n = w->watchers;

	while (n >= 0) {
		struct stask *r = &s->task[n / NPROD];
		int i = n % NPROD;

		n = r->watch_next[i];
		if (w->st == ST_DONE) {
			unwatch_one(s, r, i);
			if (!r->watching)
				arm_release(s, r, w->idx);
		} else if (waits_for(w, r)) {
			unwatch(s, r);
			arm_release(s, r, w->idx);
			n = w->watchers;
		}
	}
}

/*
 * @w blocked in a sleep that task @p's wakeup ended in the recording.  If
 * @w feeds @p (feeds()) and @p sleeps in a sleep that a task ends, that
 * sleep ends now, by @w: pipe_write() wakes the readers before it waits
 * for room (wr_wait), and unix_stream_sendmsg() queues each skb on the
 * reader's receive queue and calls its sk_data_ready() before
 * sock_alloc_send_pskb() waits for the next one's room (6.1 and 6.12).  A
 * writer waiting for room in @p's buffer left @p something to read, so
 * the two never wait for each other; where the simulated order puts them
 * so (a wakeup the demand has that the order never reaches), the reader
 * did not have to wait (advance() does not block it when the writer
 * blocked first: fed_waits()).
 */
static void fed_release(struct sim *s, struct stask *w)
{
	const struct sr_dm_step *st = w->step < w->dm->nsteps ? &w->dm->step[w->step] : NULL;
	struct stask *p;

	if (w->st != ST_SLEEP || !st || !by_task(st))
		return;
	p = &s->task[st->peer];
	if (p->st != ST_SLEEP || p->step >= p->dm->nsteps || !by_task(&p->dm->step[p->step]) ||
	    !feeds(s, w, p))
		return;
	if (!stream_wake(s, &p->dm->step[p->step]))
		p->watch_flags = 0;
	unwatch(s, p);
	arm_release(s, p, w->idx);
}

/* what @p, off its CPU now, waits for at its current step */
static void sleep_wait(struct sim *s, struct stask *p)
{
	const struct sr_dm_step *st, *sw;

	p->st = ST_SLEEP;
	p->t.state = SR_TASK_BLOCKED;
	if (p->step >= p->dm->nsteps) {
		p->st = ST_DONE;
		return;
	}
	st = &p->dm->step[p->step];
	if (st->kind == SR_DM_EXIT) {
		p->st = ST_DONE;
		p->t.state = SR_TASK_DEAD;
		sr_rm_exit(s->rm, s->now, p->idx, p->dm->origin == SR_DM_ORIGIN_FORKED);
		trace_exit(s, p);
		return;
	}
	if (st->kind == SR_DM_SLEEP && (st->end == SR_DM_BY_TIMER || st->end == SR_DM_BY_UNKNOWN ||
					(st->end == SR_DM_BY_TASK && st->peer < 0)))
		arm_timer(s, p, st->ns);
	sw = stream_wake(s, st);
	if (sw)
		watch_start(s, p, sw->ns, sw->flags);
}

/* @p leaves @cpu (it blocked, exited or finished): dequeue and account */
static void block_curr(struct sim *s, int cpu, struct stask *p)
{
	const struct sr_dm_step *st = p->step < p->dm->nsteps ? &p->dm->step[p->step] : NULL;
	int dead;

	/*
	 * DELAY_DEQUEUE (6.12): a task that sleeps while not eligible stays
	 * queued until it is picked (then it leaves) or woken (then it stays,
	 * with no placement).
	 */
	if (s->delay && is_fair(p) && st && st->kind == SR_DM_SLEEP &&
	    !eligible(&s->cpu[cpu], p)) {
		p->delayed = 1;
		p->t.delayed = 1;
		s->rq[cpu].nr_delayed++;
		s->st.delayed++;
		sleep_wait(s, p);
		p->t.state = SR_TASK_QUEUED;
		return;
	}
	update_lag(s, cpu, p);
	dequeue(s, p, 1);
	sleep_wait(s, p);
	dead = p->st == ST_DONE && p->step < p->dm->nsteps &&
	       p->dm->step[p->step].kind == SR_DM_EXIT;
	if (dead) {
		detach(s, p);
		p->t.exiting = 0;
	}
}

/* a delayed task is picked: it leaves now (DEQUEUE_DELAYED; DELAY_ZERO clips its lag) */
static void finish_delayed(struct sim *s, struct stask *p)
{
	update_lag(s, p->t.cpu, p);
	if (p->vlag > 0)
		p->vlag = 0;
	p->delayed = 0;
	p->t.delayed = 0;
	if (s->rq[p->t.cpu].nr_delayed > 0)
		s->rq[p->t.cpu].nr_delayed--;
	p->st = ST_QUEUED;		/* for dequeue()'s PELT: it was on the queue */
	dequeue(s, p, 1);
	p->st = ST_SLEEP;
	p->t.state = SR_TASK_BLOCKED;
}

/* the wakeup of a delayed task: requeue_delayed_entity(), where it is, no placement */
static int wake_delayed(struct sim *s, struct stask *w, struct stask *p)
{
	struct sr_task *cur = w ? &w->t : NULL;
	int cpu = p->t.cpu;

	s->st.delayed_wakeups++;
	if (trace_waking(s, cur, p, w ? w->t.cpu : cpu))
		return s->err;
	p->step++;
	enter_step(s, p);
	/* ttwu_runnable() requeues it (6.12): no select_task_rq(), no record_wakee() */
	update_lag(s, cpu, p);
	p->delayed = 0;
	p->t.delayed = 0;
	if (s->rq[cpu].nr_delayed > 0)
		s->rq[cpu].nr_delayed--;
	if (p->vlag > 0) {
		/* DELAY_ZERO: placed again with no lag */
		p->vlag = 0;
		place_eevdf(s, cpu, p, 0);
	}
	p->st = ST_QUEUED;
	p->t.state = SR_TASK_QUEUED;
	p->seq = s->seq++;
	p->t.last_wakeup_ts = s->now;
	if (sr_rm_wakeup(s->rm, s->now, p->idx, 1))
		return -SR_E_NOMEM;
	if (trace_wakeup(s, SR_EV_WAKEUP, cur, p, w ? w->t.cpu : cpu, cpu))
		return s->err;
	s->wake_from = w ? w->t.cpu : cpu;
	check_preempt(s, cpu, p, WK_WAKEUP);
	return 0;
}

/*
 * ttwu_do_activate() of a woken task on @cpu: place_entity() for a waking
 * task (its lag, EEVDF; the GENTLE_FAIR_SLEEPERS credit, CFS), the
 * enqueue, the wakeup preemption check (@wake: its cost, see
 * check_preempt()); @cur is the task current where it is traced
 */
static int activate(struct sim *s, struct stask *p, int cpu, const struct sr_task *cur,
		    int this_cpu, int wake)
{
	/*
	 * enqueue_entity() (6.1 and 6.12) runs update_curr() before
	 * place_entity(): the wakee is placed against the current task's
	 * vruntime (EEVDF: V; CFS: min_vruntime) as of now, not as of its
	 * last update (a tick or its switch-in)
	 */
	update_curr(s, cpu);
	if (s->eevdf && is_fair(p)) {
		place_eevdf(s, cpu, p, 0);
	} else if (is_fair(p)) {
		uint64_t floor = s->cpu[cpu].min_vruntime - s->latency / 2;

		if (vr_before(p->vruntime, floor))
			p->vruntime = floor;
	}
	if (enqueue(s, p, cpu))
		return -SR_E_NOMEM;
	if (trace_wakeup(s, SR_EV_WAKEUP, cur, p, this_cpu, cpu))
		return s->err;
	s->wake_from = this_cpu;
	check_preempt(s, cpu, p, wake);
	/* the steps after the sleep up to the next burst happen as it runs */
	return 0;
}

/* a task is runnable again after @p's sleep ended (waker @w, NULL: timer on @tcpu) */
static int do_wakeup(struct sim *s, struct stask *w, struct stask *p, int this_cpu,
		     unsigned flags)
{
	const struct sr_task *cur;
	int prev = p->t.cpu >= 0 ? p->t.cpu : first_allowed(s, p), cpu, sync, exiting;

	unwatch(s, p);
	if (p->delayed)
		return wake_delayed(s, w, p);
	if (!w) {
		/*
		 * a timer's or an interrupt's wakeup: try_to_wake_up() runs on
		 * the CPU that served it (select_task_rq()'s this_cpu, 6.1 and
		 * 6.12), which the recording gives; where the timer fires is
		 * the environment's (get_nohz_timer_target(), the timer
		 * migration hierarchy, an IRQ's affinity), not a decision the
		 * model makes.  Unknown: the sleeper's own CPU.
		 */
		const struct sr_dm_step *st = &p->dm->step[p->step];

		this_cpu = st->kind == SR_DM_SLEEP && st->end == SR_DM_BY_TIMER &&
			   st->peer_step >= 0 && st->peer_step < s->ncpus ? st->peer_step : prev;
		if (this_cpu < 0)
			this_cpu = prev;
	}
	p->step++;
	if (w)
		cur = &w->t;
	else
		cur = s->cpu[this_cpu].curr ? &s->cpu[this_cpu].curr->t : &s->idle[this_cpu];
	enter_step(s, p);
	/*
	 * select_task_rq() (kernel/sched/core.c, 6.1 and 6.12) asks the class
	 * only for a task allowed on more than one CPU, and only the fair
	 * class's select_task_rq_fair() runs record_wakee() on current
	 */
	if (!p->rt && single_cpu(s, p) < 0)
		record_wakee(s, (struct sr_task *)cur, p->t.pid);
	sync = (flags & SR_DM_F_SYNC) ? 1 : 0;
	exiting = w && (w->t.exiting || (flags & SR_DM_F_EXITING));
	if (trace_waking(s, w ? cur : NULL, p, this_cpu))
		return s->err;
	s->last_place = -1;
	/*
	 * try_to_wake_up() (6.1, 6.12): a wakee that is still current on its
	 * CPU, in that CPU's newly idle balance with it as prev (p->on_cpu),
	 * is queued on that CPU's wake list (ttwu_queue_wakelist(): the CPU
	 * runs nothing) and activated there without select_task_rq(); the
	 * pick at the balance's end takes it.  It cannot run elsewhere before
	 * that CPU has switched away from it.
	 */
	if (prev >= 0 && s->cpu[prev].curr == p && s->cpu[prev].newidle && allowed(s, p, prev))
		cpu = prev;
	else
		cpu = place(s, p, SR_DEC_WAKEUP, this_cpu, prev, cur, sync, exiting);
	if (s->err)
		return s->err;
	if (p->t.cpu >= 0 && trace_move(s, p, p->t.cpu, cpu, this_cpu, SR_MIG_WAKEUP,
					s->last_place))
		return s->err;
	if (is_fair(p) && prev >= 0)
		p->t.recent_used_cpu = prev;
	/* the sleeper's PELT decays where it slept; it moves with its load */
	task_pelt(s, p);
	if (cpu != p->t.cpu) {
		detach(s, p);
		if (!s->eevdf && is_fair(p) && p->t.cpu >= 0)
			p->vruntime = p->vruntime - s->cpu[p->t.cpu].min_vruntime +
				      s->cpu[cpu].min_vruntime;
	}
	if (cpu != this_cpu)
		p->t.remote_wakeup_ts = s->now;
	p->t.last_wakeup_ts = s->now;
	if (sr_rm_wakeup(s->rm, s->now, p->idx, 1))
		return -SR_E_NOMEM;
	/*
	 * ttwu_queue_wakelist() (6.1, 6.12): a wakeup onto a CPU of another
	 * LLC is queued on that CPU's wake list, and the task is activated
	 * there when the CPU takes the IPI.  Onto a CPU that runs a task the
	 * recording gives that wait (sched_waking to sched_wakeup across
	 * LLCs, sr_demand.act); onto an idle one the idle wakeup's cost
	 * covers it.
	 */
	if (cpu != this_cpu && this_cpu >= 0 && s->xllc_act && s->xllc_act->n &&
	    !sr_cpus_share_cache(s->topo, this_cpu, cpu) && s->cpu[cpu].curr) {
		p->st = ST_WAKING;
		p->act_cpu = cpu;
		ev_push(s, s->now + draw(s, s->xllc_act), EV_ACTIVATE, p->idx, 0);
		return 0;
	}
	return activate(s, p, cpu, w ? cur : NULL, this_cpu, WK_WAKEUP);
}

/* the end of a wake-list activation: the task is enqueued on its CPU, in that CPU's IPI */
static int activate_queued(struct sim *s, struct stask *p)
{
	int cpu = p->act_cpu;
	const struct sr_task *cur = s->cpu[cpu].curr ? &s->cpu[cpu].curr->t : &s->idle[cpu];

	return activate(s, p, cpu, cur, cpu, WK_NONE);
}

/*
 * A wakeup by @w of @p (the recording's wakeup of @p's sleep @step).  The
 * waker of a sleep is the task that got there first in the recording; on
 * a wait queue with several wakers (a FIFO's writers, a parent's children)
 * whichever comes first ends the sleep, try_to_wake_up() on a task that is
 * not sleeping does nothing, and a waiter that finds its condition already
 * met does not block.  So a task's wakeups by tasks are interchangeable:
 * one ends whatever sleep by a task @p is in, else it is kept, and the next
 * such sleep @p reaches does not block.
 */
static int wake_task(struct sim *s, struct stask *w, struct stask *p, unsigned step,
		     unsigned flags)
{
	if (p->st == ST_DONE || step >= p->dm->nsteps)
		return 0;
	if (p->st == ST_SLEEP && p->step < p->dm->nsteps && by_point(s, &p->dm->step[p->step]))
		return do_wakeup(s, w, p, w ? w->t.cpu : -1, flags);
	p->tokens++;
	return 0;
}

static int fork_task(struct sim *s, struct stask *parent, struct stask *c)
{
	int pcpu = parent->t.cpu, cpu;
	uint64_t mv;

	if (c->st != ST_NEW)
		return 0;
	c->t.wakee_flips = parent->t.wakee_flips;
	c->t.wakee_flip_decay = parent->t.wakee_flip_decay;
	c->t.last_wakee = parent->t.last_wakee;
	if (!c->dm->mask_known && parent->t.allowed_known) {
		c->t.allowed = parent->t.allowed;
		c->t.allowed_known = 1;
	}
	sr_pelt_init_task(&c->t.pelt, s->now ? s->now : 1, c->t.weight);
	c->t.pelt_valid = 1;
	/* wake_up_new_task(): recent_used_cpu = task_cpu(p), before the selection */
	c->t.cpu = pcpu;
	c->t.recent_used_cpu = pcpu;
	if (trace_fork(s, parent, c))
		return s->err;
	cpu = place(s, c, SR_DEC_FORK, pcpu, pcpu, &parent->t, 0, 0);
	if (s->err)
		return s->err;
	/*
	 * task_fork_fair(): the parent's vruntime after update_curr(), then
	 * place_entity(initial) (6.1); enqueue_entity()'s update_curr() on
	 * the new task's CPU before its placement (6.1 and 6.12)
	 */
	update_curr(s, pcpu);
	update_curr(s, cpu);
	mv = s->cpu[pcpu].min_vruntime;
	c->vruntime = vr_before(mv, parent->vruntime) ? parent->vruntime : mv;
	c->vruntime += sched_slice(s, pcpu, c) * SR_NICE0_WEIGHT / (c->t.weight ? c->t.weight : 1);
	c->vruntime = c->vruntime - mv + s->cpu[cpu].min_vruntime;
	if (s->eevdf) {
		/* __sched_fork(): no lag; place_entity(ENQUEUE_INITIAL) */
		c->vlag = 0;
		place_eevdf(s, cpu, c, 1);
	}
	c->step = 0;
	enter_step(s, c);
	c->t.exec_start = 0;
	if (enqueue(s, c, cpu))
		return -SR_E_NOMEM;
	if (sr_rm_wakeup(s->rm, s->now, c->idx, 0))
		return -SR_E_NOMEM;
	if (trace_wakeup(s, SR_EV_WAKEUP_NEW, &parent->t, c, pcpu, cpu))
		return s->err;
	check_preempt(s, cpu, c, WK_FORK);
	return 0;
}

/* ---- the CPU's schedule() ---------------------------------------------------------- */

static int switch_to(struct sim *s, int cpu, struct stask *prev, int prev_runnable,
		     struct stask *next);

/*
 * NI_RANDOM (sched_balance_newidle() of Debian 6.1.192 and 6.12.117): each
 * level with SD_BALANCE_NEWIDLE balances on a 1024-sided draw at most
 * 1 + sd->newidle_ratio, the success rate of the level's last calls
 * (update_newidle_stats(): 512 of 1024 to start with, halved every 1024
 * calls).  The draws of one newly idle balance: the levels that balance
 * (sr_lb_input.levels), 0 when none does.
 */
static unsigned ni_draw(struct sim *s, int cpu)
{
	const struct sr_cpu_topo *ct = &s->topo->cpu[cpu];
	struct scpu *c = &s->cpu[cpu];
	unsigned mask = 0, w;
	int l;

	for (l = 0; l < ct->ndomains; l++) {
		if (!(ct->dom[l].flags & SR_SD_BALANCE_NEWIDLE))
			continue;
		w = 1 + c->ni_ratio[l];
		if ((unsigned)(rnd(s) >> 11) % 1024 > w)
			continue;
		mask |= 1U << l;
		c->ni_weight[l] = (1024 + w / 2) / w;
	}
	return mask;
}

static void ni_stats(struct scpu *c, int l, unsigned success)
{
	c->ni_call[l]++;
	c->ni_success[l] += success;
	if (c->ni_call[l] >= 1024) {
		c->ni_ratio[l] = c->ni_success[l];
		c->ni_call[l] /= 2;
		c->ni_success[l] /= 2;
	}
}

/*
 * After a newly idle balance with NI_RANDOM: every level the walk reached
 * counts a call, a success (of the draw's weight) where it pulled; the walk
 * stops at the level that pulled (from @src, -1: none)
 */
static void ni_account(struct sim *s, int cpu, unsigned levels, int src)
{
	const struct sr_cpu_topo *ct = &s->topo->cpu[cpu];
	struct scpu *c = &s->cpu[cpu];
	int l;

	for (l = 0; l < ct->ndomains; l++) {
		int here;

		if (!(ct->dom[l].flags & SR_SD_BALANCE_NEWIDLE))
			continue;
		if (!(levels >> l & 1)) {
			ni_stats(c, l, 0);
			continue;
		}
		here = src >= 0 && sr_cpumask_test(ct->dom[l].span, src);
		ni_stats(c, l, here ? c->ni_weight[l] : 0);
		if (here)
			break;
	}
}

/* rd->overloaded as the models read it: a CPU with two tasks or more */
static int rd_overloaded(const struct sim *s)
{
	int c;

	for (c = 0; c < s->ncpus; c++)
		if (s->rq[c].nr_running >= 2)
			return 1;
	return 0;
}

/*
 * NI_RANDOM's draws for a newly idle balance about to start on @cpu: none
 * where the kernel returns before its walk (the root domain not
 * overloaded: the models say so), else ni_draw()'s
 */
static void newidle_draw(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];

	c->nl_levels = 0;
	c->nl_drawn = s->ni_random && rd_overloaded(s);
	if (c->nl_drawn)
		c->nl_levels = ni_draw(s, cpu);
}

/* the newly idle balance's evaluation, with NI_RANDOM's draws where the kernel has them */
static int newidle_balance(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	int ret;

	s->last_pull_src = -1;
	if (c->nl_drawn && !c->nl_levels) {
		ni_account(s, cpu, 0, -1);
		return 0;		/* every level passed over: no balance */
	}
	s->lb_repeat = 0;
	ret = balance_once(s, SR_DEC_NEWIDLE, cpu, SR_LB_NEWLY_IDLE, 1, NULL);
	if (ret >= 0 && c->nl_drawn)
		ni_account(s, cpu, c->nl_levels, ret > 0 ? s->last_pull_src : -1);
	return ret;
}

static struct stask *pick_next(struct sim *s, int cpu)
{
	struct stask *next = pick(s, cpu);

	while (next && next->delayed) {
		finish_delayed(s, next);
		next = pick(s, cpu);
	}
	return next;
}

static int schedule(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *prev = c->curr, *next;
	int prev_runnable = 0, ret;

	c->resched = 0;
	/* in its newly idle balance: the pick comes at the balance's end */
	if (c->newidle)
		return 0;
	if (prev) {
		update_curr(s, cpu);
		ret = emit_slice(s, cpu, prev, c->slice_start);
		if (ret)
			return ret;
		if (prev->st == ST_RUNNING) {
			prev_runnable = 1;
			task_pelt(s, prev);
			prev->st = ST_QUEUED;
			prev->t.state = SR_TASK_QUEUED;
		}
		prev->t.exec_start = s->now;
	}
	next = pick_next(s, cpu);
	if (!next && prev && !prev_runnable) {
		/*
		 * newidle_balance() (sched_balance_newidle() in 6.12): the CPU
		 * runs out of work.  Where the recording shows what its
		 * newidle balances took (sr_demand.newidle_hist, the probes'
		 * newidle to newidle_ret), the balance takes that long, drawn:
		 * the blocked task stays the CPU's current one, a wakeup may
		 * land on it meanwhile (the model sees it as it sees one in
		 * replay), and the balance and the pick happen at its end
		 * (newidle_end()).  Else it takes no time.
		 */
		uint64_t cost;

		newidle_draw(s, cpu);
		cost = c->nl_drawn && !c->nl_levels ? 0 : draw(s, s->d->newidle_hist);
		if (cost) {
			c->newidle = 1;
			c->nl_nr = c->nl_cfs = 0;
			c->nl_weight = 0;
			c->nl_gen++;
			s->st.newidle_timed++;
			ev_push(s, s->now + cost, EV_NEWIDLE_END, cpu, c->nl_gen);
			return 0;
		}
		rq_pelt(s, cpu);
		ret = newidle_balance(s, cpu);
		if (ret < 0)
			return ret;
		next = pick_next(s, cpu);
	}
	return switch_to(s, cpu, prev, prev_runnable, next);
}

/*
 * The end of a newly idle balance that took time: the balance, then the
 * pick.  It ends when its time is up, or when a task arrives on the CPU
 * and the side's should_we_balance() bails for it (newidle-bail, 6.0+):
 * the CPU then runs the task at once instead of finishing the balance.
 */
static int newidle_end(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *prev = c->curr;
	int ret;

	c->nl_gen++;
	rq_pelt(s, cpu);
	if (c->nl_nr > 0)
		s->st.newidle_arrivals++;
	ret = newidle_balance(s, cpu);
	c->newidle = 0;
	c->nl_nr = c->nl_cfs = 0;
	c->nl_weight = 0;
	if (ret < 0)
		return ret;
	return switch_to(s, cpu, prev, 0, pick_next(s, cpu));
}

/* @cpu switches from @prev (NULL: idle) to @next (NULL: idle) */
static int switch_to(struct sim *s, int cpu, struct stask *prev, int prev_runnable,
		     struct stask *next)
{
	struct scpu *c = &s->cpu[cpu];

	rq_pelt(s, cpu);
	if (prev && next != prev && sr_rm_switch(s->rm, s->now, cpu, prev_runnable,
						  next ? next->idx : -1))
		return -SR_E_NOMEM;
	if (!prev && next && sr_rm_switch(s->rm, s->now, cpu, 0, next->idx))
		return -SR_E_NOMEM;
	if (next != prev && trace_switch(s, cpu, prev, prev_runnable, next))
		return s->err;
	c->curr = next;
	s->rq[cpu].known = 1;
	if (!next) {
		s->rq[cpu].curr = 0;
		s->rq[cpu].curr_cfs = 0;
		s->rq[cpu].idle_stamp = s->now;
		c->run_gen++;
		return 0;
	}
	if (next != prev) {
		next->parity = 1;	/* set_next_entity(): protect its slice */
		next->prev_sum_exec = next->sum_exec;
		next->t.exec_start = s->now;
		if (is_fair(next))
			lb_link_head(s, next, cpu);
	}
	task_pelt(s, next);
	next->st = ST_RUNNING;
	next->t.state = SR_TASK_RUNNING;
	next->exec_start = s->now;
	s->rq[cpu].curr = next->t.pid;
	s->rq[cpu].curr_cfs = is_fair(next);
	c->slice_start = s->now;
	arm_run_end(s, cpu);
	arm_tick(s, cpu);
	return 0;
}

/* the running task of @cpu reached the end of its burst */
static int run_end(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *p = c->curr;
	int more;

	if (!p)
		return 0;
	update_curr(s, cpu);
	more = advance(s, p);
	if (more < 0)
		return more;
	if (s->err)
		return s->err;
	if (more) {
		/* the next burst, on this CPU unless its affinity or its exec moved it */
		if (!allowed(s, p, cpu) || p->exec_dest >= 0) {
			want_resched(s, cpu);
			return 0;
		}
		arm_run_end(s, cpu);
		return 0;
	}
	block_curr(s, cpu, p);
	want_resched(s, cpu);
	watch_release(s, p);
	fed_release(s, p);
	return 0;
}

/* the stopper preempts @cpu's running task @p: it is queued there, the CPU has no curr */
static int stop_curr(struct sim *s, int cpu, struct stask *p)
{
	update_curr(s, cpu);
	if (emit_slice(s, cpu, p, s->cpu[cpu].slice_start))
		return -SR_E_INTR;
	p->st = ST_QUEUED;
	p->t.exec_start = s->now;
	s->cpu[cpu].curr = NULL;
	if (sr_rm_switch(s->rm, s->now, cpu, 1, -1))
		return -SR_E_NOMEM;
	if (trace_switch(s, cpu, p, 1, NULL))
		return s->err;
	s->rq[cpu].curr = 0;
	s->rq[cpu].curr_cfs = 0;
	return 0;
}

/*
 * a running task no longer allowed on its CPU, or sent elsewhere by its
 * exec placement (exec_place()): the stopper moves it
 */
static int move_disallowed(struct sim *s, int cpu)
{
	struct stask *p = s->cpu[cpu].curr;
	int dst, ret, exec;

	if (!p || p->st != ST_RUNNING)
		return 0;
	exec = p->exec_dest >= 0 && p->exec_dest != cpu && allowed(s, p, p->exec_dest) &&
	       allowed(s, p, cpu);
	if (!exec && allowed(s, p, cpu)) {
		p->exec_dest = -1;
		return 0;
	}
	ret = stop_curr(s, cpu, p);
	if (ret)
		return ret;
	/*
	 * affine_move_task(): the stopper moves it to the CPU the call
	 * picked; migration_cpu_stop() for sched_exec(): to the exec's
	 */
	if (exec)
		dst = p->exec_dest;
	else
		dst = allowed(s, p, p->aff_dest) ? p->aff_dest : first_allowed(s, p);
	p->exec_dest = -1;
	if (migrate_queued(s, p, dst))
		return -SR_E_NOMEM;
	if (trace_move(s, p, cpu, dst, cpu, exec ? SR_MIG_ACTIVE : SR_MIG_AFFINITY, -1))
		return s->err;
	check_preempt(s, dst, p, dst != cpu ? WK_MOVE : WK_NONE);
	want_resched(s, cpu);
	return 0;
}

static int tick(struct sim *s, int cpu)
{
	struct scpu *c = &s->cpu[cpu];
	struct stask *p = c->curr;

	c->tick_armed = 0;
	if (!p)
		return 0;		/* nohz: an idle CPU stops its tick */
	if (c->newidle)
		return 0;		/* the blocked task is off the CPU: no tick */
	s->st.ticks++;
	update_curr(s, cpu);
	rq_pelt(s, cpu);
	task_pelt(s, p);
	/* check_preempt_tick() (CFS; EEVDF's deadline check is in update_curr()) */
	if (!s->eevdf && is_fair(p) && s->rq[cpu].cfs_nr > 1) {
		uint64_t ideal = sched_slice(s, cpu, p), ran = p->sum_exec - p->prev_sum_exec;

		if (ran > ideal) {
			s->st.preemptions++;
			want_resched(s, cpu);
		} else if (ran >= s->min_gran) {
			uint64_t left;

			if (min_vr_of(c, p, &left) && (int64_t)(p->vruntime - left) > (int64_t)ideal) {
				s->st.preemptions++;
				want_resched(s, cpu);
			}
		}
	}
	arm_tick(s, cpu);
	return tick_balance(s, cpu);
}

/* ---- setup --------------------------------------------------------------------- */

static int swk_cmp(const void *a, const void *b)
{
	const struct swk *x = a, *y = b;

	return (x->task > y->task) - (x->task < y->task);
}

static int sim_setup(struct sim *s)
{
	const struct sr_demand *d = s->d;
	int i, c, factor = 1, n;
	size_t sz;
	uint64_t online = s->ncpus >= 64 ? ~0ULL : (1ULL << s->ncpus) - 1;

	for (n = s->ncpus < 8 ? s->ncpus : 8; n > 1; n >>= 1)
		factor++;
	s->latency = 6000000ULL * (uint64_t)factor;
	s->min_gran = 750000ULL * (uint64_t)factor;
	s->wakeup_gran = 1000000ULL * (uint64_t)factor;
	/* sysctl_sched_base_slice by release (kgen: 0.70 ms from 6.15 and 6.12.31) */
	s->base_slice = sr_kgen_base_slice_ns(s->o->kgen) * (uint64_t)factor;
	s->eevdf = s->o->eevdf > 0;
	s->ni_random = s->o->kgen && sr_kgen_has(s->o->kgen, SR_KF_NI_RANDOM);
	s->delay = s->o->eevdf > 1;
	s->tick_ns = 1000000000ULL / (uint64_t)s->o->hz;
	s->rng = s->o->seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
	if (!s->rng)
		s->rng = 1;
	s->task = calloc(d->ntasks ? (size_t)d->ntasks : 1, sizeof(*s->task));
	s->cpu = calloc((size_t)s->ncpus, sizeof(*s->cpu));
	s->rq = calloc((size_t)s->ncpus, sizeof(*s->rq));
	s->head = calloc((size_t)s->ncpus, sizeof(*s->head));
	s->tail = calloc((size_t)s->ncpus, sizeof(*s->tail));
	s->idle = calloc((size_t)s->ncpus, sizeof(*s->idle));
	s->resched = calloc((size_t)s->ncpus, sizeof(*s->resched));
	s->sgc_imb = calloc((size_t)s->ncpus * SR_MAX_DOMAIN_LEVELS, 1);
	s->nr_failed = calloc((size_t)s->ncpus * SR_MAX_DOMAIN_LEVELS, 1);
	s->due = calloc((size_t)s->ncpus, sizeof(*s->due));
	s->scratch = sr_lb_scratch_new(s->ncpus);
	s->rm = sr_rm_new(s->topo, d->ntasks, d->t0);
	s->xllc_act = calloc(1, sizeof(*s->xllc_act));
	if (!s->task || !s->cpu || !s->rq || !s->head || !s->tail || !s->idle || !s->resched ||
	    !s->sgc_imb || !s->nr_failed || !s->due || !s->scratch || !s->rm || !s->xllc_act)
		return -SR_E_NOMEM;
	/* the recorded activations whose CPUs this topology puts in different LLCs */
	for (sz = 0; sz < d->nact; sz++) {
		const struct sr_dm_act *a = &d->act[sz];

		if (a->from >= 0 && a->from < s->ncpus && a->to >= 0 && a->to < s->ncpus &&
		    !sr_cpus_share_cache(s->topo, a->from, a->to))
			sr_hist_add(s->xllc_act, a->ns);
	}
	s->now = d->t0;
	for (c = 0; c < s->ncpus; c++) {
		s->rq[c].curr = 0;
		s->rq[c].known = 1;
		s->idle[c].pid = 0;
		s->idle[c].cpu = c;
		s->idle[c].bound_cpu = c;
		s->idle[c].kthread = 1;
		s->idle[c].last_wakee = -1;
		s->idle[c].recent_used_cpu = -1;
		s->idle[c].lb_cpu = -1;
		sr_lb_clock_init(&s->cpu[c].clk, d->t0);
		/* sd_init(): newidle_call 512, newidle_success 256, newidle_ratio 512 */
		for (i = 0; i < SR_MAX_DOMAIN_LEVELS; i++) {
			s->cpu[c].ni_call[i] = 512;
			s->cpu[c].ni_success[i] = 256;
			s->cpu[c].ni_ratio[i] = 512;
		}
	}
	for (i = 0; i < d->ntasks; i++) {
		const struct sr_dm_task *dt = &d->task[i];
		struct stask *p = &s->task[i];

		p->idx = i;
		p->dm = dt;
		p->t.pid = dt->pid;
		memcpy(p->t.comm, dt->comm, SR_COMM_LEN);
		p->t.prio = dt->prio >= 0 ? dt->prio : 120;
		p->t.tgid = -1;
		p->rt = p->t.prio < 100;
		p->t.weight = sr_prio_to_weight(p->t.prio);
		p->t.kthread = dt->kthread;
		p->t.bound_cpu = dt->bound_cpu < s->ncpus ? dt->bound_cpu : -1;
		if (dt->mask_known && (dt->mask & online)) {
			p->t.allowed = dt->mask & online;
			p->t.allowed_known = 1;
		}
		p->t.last_wakee = -1;
		/* the flips it brought into the trace; halved a second on at the earliest */
		if (dt->flips0 >= 0) {
			p->t.wakee_flips = (unsigned)dt->flips0;
			p->t.wakee_flip_decay = dt->first_ts / s->tick_ns;
		}
		p->t.recent_used_cpu = -1;
		p->t.lb_cpu = -1;
		p->t.ttwu_cpu = -1;
		p->t.aff_cpu = -1;
		p->aff_dest = -1;
		p->exec_dest = -1;
		p->watchers = -1;
		p->release_by = -1;
		p->t.cpu = dt->first_cpu >= 0 && dt->first_cpu < s->ncpus ? dt->first_cpu : -1;
		if (p->t.cpu >= 0 && !allowed(s, p, p->t.cpu))
			p->t.cpu = first_allowed(s, p);
		p->st = ST_NEW;
	}
	/* each task's producers (SR_DM_F_STREAM wakers), for watch_start() */
	for (i = 0; i < d->ntasks; i++) {
		struct stask *p = &s->task[i];
		unsigned j;

		for (j = 0; j < d->task[i].nsteps && p->nprod < NPROD; j++) {
			const struct sr_dm_step *st = &d->task[i].step[j];
			int k;

			if (!stream_wake(s, st))
				continue;
			for (k = 0; k < p->nprod && p->prod[k] != st->peer; k++)
				;
			if (k == p->nprod)
				p->prod[p->nprod++] = st->peer;
		}
	}
	/* each task's wakers, with how many of its sleeps each ended (feeds()) */
	{
		size_t nwk = 0, k = 0;

		for (i = 0; i < d->ntasks; i++)
			for (sz = 0; sz < d->task[i].nsteps; sz++)
				nwk += by_task(&d->task[i].step[sz]);
		s->wk = malloc((nwk ? nwk : 1) * sizeof(*s->wk));
		if (!s->wk)
			return -SR_E_NOMEM;
		for (i = 0; i < d->ntasks; i++) {
			struct stask *p = &s->task[i];
			unsigned j, m = 0;

			p->wk_off = (unsigned)k;
			for (sz = 0; sz < d->task[i].nsteps; sz++) {
				if (!by_task(&d->task[i].step[sz]))
					continue;
				s->wk[k + m].task = d->task[i].step[sz].peer;
				s->wk[k + m].n = 1;
				m++;
			}
			p->nsleeps = m;
			qsort(s->wk + k, m, sizeof(*s->wk), swk_cmp);
			/* one entry per waker, with its count */
			for (j = 0, p->nwk = 0; j < m; j++) {
				if (p->nwk && s->wk[k + p->nwk - 1].task == s->wk[k + j].task)
					s->wk[k + p->nwk - 1].n++;
				else
					s->wk[k + p->nwk++] = s->wk[k + j];
			}
			k += p->nwk;
		}
	}
	/* pids named twice (reused) would be ambiguous in a balance's answer */
	for (i = 0; i < d->ntasks; i++)
		if (sr_demand_find(d, d->task[i].pid) != i)
			s->task[i].t.pid = 0x40000000 + i;
	/* the recording's state at its first event */
	for (i = 0; i < d->ntasks; i++) {
		struct stask *p = &s->task[i];
		const struct sr_dm_task *dt = p->dm;
		int ret;

		if (dt->origin == SR_DM_ORIGIN_FORKED)
			continue;
		sr_pelt_init_task(&p->t.pelt, d->t0 ? d->t0 : 1, p->t.weight);
		if (p->t.cpu < 0)
			p->t.cpu = first_allowed(s, p);
		if (dt->origin == SR_DM_ORIGIN_SLEEPING) {
			p->step = 0;
			sleep_wait(s, p);
			continue;
		}
		p->step = 0;
		enter_step(s, p);
		p->deadline = vslice(s, p);
		ret = enqueue(s, p, p->t.cpu);
		if (ret)
			return ret;
	}
	for (c = 0; c < s->ncpus; c++)
		want_resched(s, c);
	return 0;
}

static void sim_release(struct sim *s)
{
	int i;

	for (i = 0; s->cpu && i < s->ncpus; i++)
		free(s->cpu[i].q);
	free(s->task);
	free(s->cpu);
	free(s->rq);
	free(s->head);
	free(s->tail);
	free(s->idle);
	free(s->resched);
	free(s->sgc_imb);
	free(s->nr_failed);
	free(s->due);
	free(s->xllc_act);
	free(s->wk);
	free(s->heap);
	sr_lb_scratch_free(s->scratch);
	sr_rm_free(s->rm);
}

static int flush_resched(struct sim *s)
{
	int i, ret;

	for (i = 0; i < s->nresched; i++) {
		ret = move_disallowed(s, s->resched[i]);
		if (ret)
			return ret;
	}
	/* scheduling one CPU can ask for another (a pull, a preemption) */
	while (s->nresched) {
		int cpu = s->resched[--s->nresched];

		if (!s->cpu[cpu].resched)
			continue;
		ret = schedule(s, cpu);
		if (ret)
			return ret;
		if (s->err)
			return s->err;
	}
	return 0;
}

/*
 * What of the demand the run did not execute: a task left asleep in a wait
 * whose wakeup never came, or never forked because its parent was such a
 * task, keeps its RUN steps from its step on (the current one's remaining
 * time, at most its recorded length)
 */
static void unrun(struct sim *s)
{
	int i;

	for (i = 0; i < s->d->ntasks; i++) {
		const struct sr_dm_task *dt = &s->d->task[i];
		const struct stask *p = &s->task[i];
		uint64_t left = 0;
		unsigned j;

		for (j = 0; j < dt->nsteps; j++) {
			const struct sr_dm_step *st = &dt->step[j];

			if (st->kind != SR_DM_RUN)
				continue;
			s->st.demand_ns += st->ns;
			if (p->st == ST_DONE || j < p->step)
				continue;
			if (p->st != ST_NEW && j == p->step)
				left += p->rem < st->ns ? p->rem : st->ns;
			else
				left += st->ns;
		}
		if (!left)
			continue;
		s->st.unrun_ns += left;
		s->st.unrun_tasks++;
		if (p->st == ST_NEW)
			s->st.unforked++;
	}
}

int sr_sim_run(const struct sr_demand *d, const struct sr_sim_opts *o,
	       struct sr_run_metrics *out, struct sr_sim_stats *stats, char **cause)
{
	struct sim s;
	int ret, i;

	memset(&s, 0, sizeof(s));
	s.d = d;
	s.o = o;
	s.topo = o->topo;
	s.ncpus = o->topo->ncpus;
	s.last_place = -1;
	s.tracing = o->event || o->migration;
	if (o->hz <= 0 || !o->model) {
		sr_cause_set(cause, "simulate: no model or HZ");
		return -SR_E_USAGE;
	}
	ret = sim_setup(&s);
	if (!ret)
		ret = flush_resched(&s);
	while (!ret && s.nheap) {
		struct sev e = ev_pop(&s);

		s.now = e.t;
		s.st.events++;
		switch (e.kind) {
		case EV_RUN_END:
			if (e.gen == s.cpu[e.a].run_gen)
				ret = run_end(&s, e.a);
			break;
		case EV_TIMER: {
			struct stask *p = &s.task[e.a];

			if (e.gen == p->timer_gen && p->st == ST_SLEEP && p->release_by >= 0)
				ret = do_wakeup(&s, &s.task[p->release_by], p,
						s.task[p->release_by].t.cpu, p->watch_flags);
			else if (e.gen == p->timer_gen && p->st == ST_SLEEP)
				ret = do_wakeup(&s, NULL, p, -1, 0);
			break;
		}
		case EV_TICK:
			ret = tick(&s, e.a);
			break;
		case EV_IDLE_EXIT:
			s.cpu[e.a].waking = 0;
			want_resched(&s, e.a);
			break;
		case EV_PREEMPT:
			want_resched(&s, e.a);
			break;
		case EV_NEWIDLE_END:
			if (s.cpu[e.a].newidle && e.gen == s.cpu[e.a].nl_gen)
				ret = newidle_end(&s, e.a);
			break;
		case EV_WATCH:
			if (e.gen == s.cpu[e.a].run_gen)
				ret = watch_due(&s, e.a);
			break;
		case EV_ACTIVATE:
			if (s.task[e.a].st == ST_WAKING)
				ret = activate_queued(&s, &s.task[e.a]);
			break;
		case EV_NEWIDLE_ARRIVAL:
			if (s.cpu[e.a].newidle && e.gen == s.cpu[e.a].nl_gen) {
				ret = newidle_bails(&s, e.a);
				if (ret > 0) {
					s.st.newidle_bails++;
					ret = newidle_end(&s, e.a);
				}
			}
			break;
		}
		if (!ret)
			ret = s.err;
		if (!ret)
			ret = flush_resched(&s);
	}
	if (!ret) {
		for (i = 0; i < d->ntasks; i++)
			if (s.task[i].st == ST_SLEEP && s.task[i].step < d->task[i].nsteps &&
			    d->task[i].step[s.task[i].step].end == SR_DM_BY_TASK)
				s.st.stuck++;
		unrun(&s);
		s.st.t_end = s.now;
		sr_rm_finish(s.rm, s.now, out);
		if (stats)
			*stats = s.st;
	} else if (ret == -SR_E_NOMEM) {
		sr_cause_set(cause, "simulate: %s", sr_strerror(ret));
	}
	sim_release(&s);
	return ret;
}
