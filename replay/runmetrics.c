// SPDX-License-Identifier: GPL-2.0
/*
 * The figures of a run (schedreplay/runmetrics.h), fed the same facts by
 * the demand extraction (the recording) and by the simulator, so that the
 * two are measured alike.  Figures up to the makespan's end: CPU busy time
 * and idle-while-waiting are snapshotted at every exit that can end it.
 */
#include "schedreplay/runmetrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

#define RM_SUB		32			/* buckets per octave */
#define RM_BUCKETS	SR_HIST_BUCKETS

enum { RM_SLEEP, RM_WAIT, RM_RUN };

struct rm_task {
	uint8_t state;
	int cpu;		/* last CPU it ran on, -1 none */
	uint64_t wake_ts;	/* a latency sample is open since then; 0 none */
	int sample;
};

struct sr_rm {
	const struct sr_topology *topo;
	int ncpus;
	uint64_t t0, last;
	struct rm_task *task;
	int ntasks, tcap;
	int *curr;		/* per CPU: task running, -1 idle */
	uint64_t *since;	/* per CPU: when curr began */
	uint64_t *busy;		/* per CPU: busy ns up to since */
	uint64_t *busy_snap;	/* busy at the last workload exit */
	int nbusy, nwaiting;
	double iww_ns, iww_snap;
	uint64_t end_snap;	/* the last workload exit, 0 none */
	uint64_t migr, migr_llc, migr_node;
	struct sr_hist lat;
};

static double bucket_value(int b);

static int bucket(uint64_t v)
{
	int b;

	if (!v)
		return 0;
	b = (int)floor(log2((double)v) * RM_SUB) + 1;
	return b < 1 ? 1 : b >= RM_BUCKETS ? RM_BUCKETS - 1 : b;
}

static double bucket_value(int b)
{
	return b ? exp2(((double)b - 1 + 0.5) / RM_SUB) : 0;
}

uint64_t sr_hist_sample(const struct sr_hist *h, double u)
{
	uint64_t want, acc = 0;
	double v;
	int b;

	if (!h->n)
		return 0;
	want = (uint64_t)(u * (double)h->n) + 1;
	if (want > h->n)
		want = h->n;
	for (b = 0; b < RM_BUCKETS; b++) {
		acc += h->count[b];
		if (acc >= want)
			break;
	}
	v = b < RM_BUCKETS ? bucket_value(b) : (double)h->max;
	if (v > (double)h->max)
		v = (double)h->max;
	return (uint64_t)(v + 0.5);
}

void sr_hist_add(struct sr_hist *h, uint64_t v)
{
	h->count[bucket(v)]++;
	h->n++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
}

double sr_hist_quantile(const struct sr_hist *h, double q)
{
	uint64_t want, acc = 0;
	int b;

	if (!h->n)
		return 0;
	want = (uint64_t)ceil(q * (double)h->n);
	if (want < 1)
		want = 1;
	for (b = 0; b < RM_BUCKETS; b++) {
		acc += h->count[b];
		if (acc >= want) {
			double v = bucket_value(b);

			/* never past the largest sample */
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}

struct sr_rm *sr_rm_new(const struct sr_topology *topo, int ntasks, uint64_t t0)
{
	struct sr_rm *m = calloc(1, sizeof(*m));
	int i;

	if (!m)
		return NULL;
	m->topo = topo;
	m->ncpus = topo->ncpus;
	m->t0 = m->last = t0;
	m->curr = malloc((size_t)m->ncpus * sizeof(*m->curr));
	m->since = calloc((size_t)m->ncpus, sizeof(*m->since));
	m->busy = calloc((size_t)m->ncpus, sizeof(*m->busy));
	m->busy_snap = calloc((size_t)m->ncpus, sizeof(*m->busy_snap));
	m->tcap = ntasks > 16 ? ntasks : 16;
	m->task = calloc((size_t)m->tcap, sizeof(*m->task));
	if (!m->curr || !m->since || !m->busy || !m->busy_snap || !m->task) {
		sr_rm_free(m);
		return NULL;
	}
	for (i = 0; i < m->ncpus; i++)
		m->curr[i] = -1;
	for (i = 0; i < m->tcap; i++)
		m->task[i].cpu = -1;
	return m;
}

void sr_rm_start(struct sr_rm *m, uint64_t t0)
{
	int cpu;

	m->t0 = m->last = t0;
	for (cpu = 0; cpu < m->ncpus; cpu++)
		if (m->since[cpu] < t0)
			m->since[cpu] = t0;
}

void sr_rm_free(struct sr_rm *m)
{
	if (!m)
		return;
	free(m->curr);
	free(m->since);
	free(m->busy);
	free(m->busy_snap);
	free(m->task);
	free(m);
}

static struct rm_task *task(struct sr_rm *m, int t)
{
	if (t < 0)
		return NULL;
	if (t >= m->tcap) {
		int ncap = m->tcap * 2, i;
		struct rm_task *n;

		while (ncap <= t)
			ncap *= 2;
		n = realloc(m->task, (size_t)ncap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + m->tcap, 0, (size_t)(ncap - m->tcap) * sizeof(*n));
		for (i = m->tcap; i < ncap; i++)
			n[i].cpu = -1;
		m->task = n;
		m->tcap = ncap;
	}
	if (t >= m->ntasks)
		m->ntasks = t + 1;
	return &m->task[t];
}

/* integrate idle-while-waiting up to @ts */
static void advance(struct sr_rm *m, uint64_t ts)
{
	int idle;

	if (ts <= m->last)
		return;
	idle = m->ncpus - m->nbusy;
	if (idle > 0 && m->nwaiting > 0)
		m->iww_ns += (double)(ts - m->last) * (idle < m->nwaiting ? idle : m->nwaiting);
	m->last = ts;
}

static void set_state(struct sr_rm *m, struct rm_task *p, int state)
{
	if (p->state == RM_WAIT)
		m->nwaiting--;
	if (state == RM_WAIT)
		m->nwaiting++;
	p->state = (uint8_t)state;
}

int sr_rm_switch(struct sr_rm *m, uint64_t ts, int cpu, int prev_runnable, int next)
{
	struct rm_task *p;
	int prev;

	if (cpu < 0 || cpu >= m->ncpus)
		return 0;
	advance(m, ts);
	prev = m->curr[cpu];
	if (prev >= 0) {
		m->busy[cpu] += ts - m->since[cpu];
		m->nbusy--;
		p = task(m, prev);
		if (!p)
			return -SR_E_NOMEM;
		if (p->state == RM_RUN && p->cpu == cpu)
			set_state(m, p, prev_runnable ? RM_WAIT : RM_SLEEP);
	}
	m->curr[cpu] = next;
	m->since[cpu] = ts;
	if (next < 0)
		return 0;
	m->nbusy++;
	p = task(m, next);
	if (!p)
		return -SR_E_NOMEM;
	if (p->cpu >= 0 && p->cpu != cpu && p->cpu < m->ncpus) {
		const struct sr_cpu_topo *a = &m->topo->cpu[p->cpu], *b = &m->topo->cpu[cpu];

		m->migr++;
		if (a->llc_id != b->llc_id)
			m->migr_llc++;
		if (a->node != b->node)
			m->migr_node++;
	}
	if (p->wake_ts && p->sample)
		sr_hist_add(&m->lat, ts > p->wake_ts ? ts - p->wake_ts : 0);
	p->wake_ts = 0;
	p->cpu = cpu;
	set_state(m, p, RM_RUN);
	return 0;
}

int sr_rm_wakeup(struct sr_rm *m, uint64_t ts, int t, int sample)
{
	struct rm_task *p = task(m, t);

	if (!p)
		return -SR_E_NOMEM;
	advance(m, ts);
	if (p->state == RM_RUN)
		return 0;
	set_state(m, p, RM_WAIT);
	p->wake_ts = ts ? ts : 1;
	p->sample = sample;
	return 0;
}

void sr_rm_exit(struct sr_rm *m, uint64_t ts, int t, int workload)
{
	struct rm_task *p = task(m, t);
	int cpu;

	advance(m, ts);
	if (p && p->state == RM_WAIT)
		set_state(m, p, RM_SLEEP);
	if (!workload || ts < m->end_snap)
		return;
	m->end_snap = ts;
	m->iww_snap = m->iww_ns;
	for (cpu = 0; cpu < m->ncpus; cpu++)
		m->busy_snap[cpu] = m->busy[cpu] +
			(m->curr[cpu] >= 0 && ts > m->since[cpu] ? ts - m->since[cpu] : 0);
}

void sr_rm_finish(struct sr_rm *m, uint64_t t_end, struct sr_run_metrics *out)
{
	uint64_t end = m->end_snap ? m->end_snap : t_end;
	double span;
	int cpu, node;

	memset(out, 0, sizeof(*out));
	if (!m->end_snap) {
		/* no workload exit: the whole run */
		advance(m, t_end);
		m->iww_snap = m->iww_ns;
		for (cpu = 0; cpu < m->ncpus; cpu++)
			m->busy_snap[cpu] = m->busy[cpu] + (m->curr[cpu] >= 0 && t_end > m->since[cpu] ?
							    t_end - m->since[cpu] : 0);
	}
	span = end > m->t0 ? (double)(end - m->t0) : 0;
	out->makespan_s = span / 1e9;
	/* migrations over the whole run, like the latencies */
	out->migrations = m->migr;
	out->migrations_cross_llc = m->migr_llc;
	out->migrations_cross_node = m->migr_node;
	out->wakeups = m->lat.n;
	out->lat_p50_us = sr_hist_quantile(&m->lat, 0.50) / 1e3;
	out->lat_p99_us = sr_hist_quantile(&m->lat, 0.99) / 1e3;
	out->lat_mean_us = m->lat.n ? m->lat.sum / (double)m->lat.n / 1e3 : 0;
	out->lat_max_us = (double)m->lat.max / 1e3;
	out->nnodes = m->topo->nnodes < 64 ? m->topo->nnodes : 64;
	for (node = 0; node < out->nnodes; node++) {
		double busy = 0;
		int n = 0;

		for (cpu = 0; cpu < m->ncpus; cpu++)
			if (m->topo->cpu[cpu].node == node) {
				busy += (double)m->busy_snap[cpu];
				n++;
			}
		out->busy_pct_per_node[node] = n && span > 0 ? 100.0 * busy / (n * span) : 0;
	}
	out->idle_while_waiting_s = m->iww_snap / 1e9;
}
