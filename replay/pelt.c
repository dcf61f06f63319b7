// SPDX-License-Identifier: GPL-2.0
/*
 * PELT signals in the kernel's own integer arithmetic (kernel/sched/pelt.c,
 * schedreplay-models(7) §3), so that a replayed load_avg, runnable_avg or util_avg
 * truncates exactly where the kernel's does.  The y^n table is generated
 * once at run time the way Documentation/scheduler/sched-pelt.c generates
 * the kernel's sched-pelt.h, rather than copied.
 */
#include "schedreplay/pelt.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "banned.h"

#define PELT_UNIT_SHIFT		10	/* the pelt clock counts 1024 ns units */
#define PELT_PERIOD_UNITS	1024	/* units in one period */
#define CAPACITY_SHIFT		10	/* SCHED_CAPACITY_SHIFT */
#define PELT_MIN_DIVIDER	(SR_PELT_MAX - PELT_PERIOD_UNITS)

/* runnable_avg_yN_inv[n] = (2^32 - 1) * y^n truncated, for n < 32 */
static uint32_t yn_inv[SR_PELT_PERIOD];
static pthread_once_t yn_inv_once = PTHREAD_ONCE_INIT;

static void yn_inv_generate(void)
{
	double y = pow(0.5, 1.0 / SR_PELT_PERIOD);
	int i;

	/* the same double expression sched-pelt.c evaluates, so the same bits */
	for (i = 0; i < SR_PELT_PERIOD; i++)
		yn_inv[i] = (uint32_t)((double)UINT32_MAX * pow(y, i));
}

/* floor(val * mul / 2^32) without losing the high bits (mul_u64_u32_shr) */
static uint64_t mul_u64_u32_shr32(uint64_t val, uint32_t mul)
{
	uint64_t hi = val >> 32, lo = val & UINT32_MAX;

	return hi * mul + ((lo * mul) >> 32);
}

uint64_t sr_pelt_decay_load(uint64_t val, uint64_t n)
{
	unsigned int local_n;

	if (n > SR_PELT_PERIOD * 63)
		return 0;
	pthread_once(&yn_inv_once, yn_inv_generate);

	/* y^n = (1/2)^(n/32) * y^(n%32) */
	local_n = (unsigned int)n;
	if (local_n >= SR_PELT_PERIOD) {
		val >>= local_n / SR_PELT_PERIOD;
		local_n %= SR_PELT_PERIOD;
	}
	return mul_u64_u32_shr32(val, yn_inv[local_n]);
}

/*
 * d1 y^p + 1024 (y + ... + y^(p-1)) + d3, the middle term taken as
 * LOAD_AVG_MAX minus its tail from y^p on, minus the y^0 term
 */
static uint32_t accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3)
{
	uint32_t c1 = (uint32_t)sr_pelt_decay_load(d1, periods);
	uint32_t c2 = SR_PELT_MAX - (uint32_t)sr_pelt_decay_load(SR_PELT_MAX, periods) -
		      PELT_PERIOD_UNITS;

	return c1 + c2 + d3;
}

/* accumulate_sum(): @delta in units; Return: the periods crossed */
static uint64_t accumulate_sum(struct sr_pelt *sa, uint64_t delta, unsigned long load,
			       unsigned long runnable, int running)
{
	uint32_t contrib = (uint32_t)delta;	/* only used as is when periods == 0 */
	uint64_t periods;

	delta += sa->period_contrib;
	periods = delta / PELT_PERIOD_UNITS;
	if (periods) {
		sa->load_sum = sr_pelt_decay_load(sa->load_sum, periods);
		sa->runnable_sum = sr_pelt_decay_load(sa->runnable_sum, periods);
		sa->util_sum = (uint32_t)sr_pelt_decay_load(sa->util_sum, periods);

		delta %= PELT_PERIOD_UNITS;
		/* load == 0 implies runnable == running == 0: contrib unused */
		if (load)
			contrib = accumulate_segments(periods,
						      PELT_PERIOD_UNITS - sa->period_contrib,
						      (uint32_t)delta);
	}
	sa->period_contrib = (uint32_t)delta;

	if (load)
		sa->load_sum += load * contrib;
	if (runnable)
		sa->runnable_sum += (uint64_t)runnable * contrib << CAPACITY_SHIFT;
	if (running)
		sa->util_sum += contrib << CAPACITY_SHIFT;
	return periods;
}

int sr_pelt_update(struct sr_pelt *sa, uint64_t now, unsigned long load,
		   unsigned long runnable, int running, unsigned long weight)
{
	uint64_t delta;
	uint32_t divider;

	/* never updated (or time went backwards): start the clock here */
	if (!sa->last_update || now < sa->last_update) {
		sa->last_update = now;
		return 0;
	}

	/* whole 1024 ns units only; the residue stays in now - last_update */
	delta = (now - sa->last_update) >> PELT_UNIT_SHIFT;
	if (!delta)
		return 0;
	sa->last_update += delta << PELT_UNIT_SHIFT;

	/* a dequeued entity can still be cfs_rq->curr: it accrues nothing */
	if (!load)
		runnable = running = 0;

	if (!accumulate_sum(sa, delta, load, runnable, running))
		return 0;

	/* the largest sum reachable at this point of the current period */
	divider = PELT_MIN_DIVIDER + sa->period_contrib;
	sa->load_avg = (unsigned long)(weight * sa->load_sum / divider);
	sa->runnable_avg = (unsigned long)(sa->runnable_sum / divider);
	sa->util_avg = sa->util_sum / divider;
	return 1;
}

void sr_pelt_set(struct sr_pelt *sa, unsigned long load, unsigned long util,
		 unsigned long runnable, unsigned long weight)
{
	uint32_t divider = PELT_MIN_DIVIDER + sa->period_contrib;

	sa->load_avg = load;
	sa->util_avg = util;
	sa->runnable_avg = runnable;
	sa->util_sum = (uint32_t)(util * divider);
	sa->runnable_sum = (uint64_t)runnable * divider;
	sa->load_sum = weight && (uint64_t)load * divider > weight ?
		       (uint64_t)load * divider / weight : 1;
}

void sr_pelt_align(struct sr_pelt *se, const struct sr_pelt *cfs, unsigned long weight)
{
	if (cfs->last_update) {
		se->last_update = cfs->last_update;
		se->period_contrib = cfs->period_contrib;
	}
	sr_pelt_set(se, se->load_avg, se->util_avg, se->runnable_avg, weight);
}

void sr_pelt_set_load(struct sr_pelt *sa, unsigned long load)
{
	sa->load_avg = load;
	sa->load_sum = (uint64_t)load * (PELT_MIN_DIVIDER + sa->period_contrib);
}

void sr_pelt_init_task(struct sr_pelt *sa, uint64_t now, unsigned long weight)
{
	memset(sa, 0, sizeof(*sa));
	sa->last_update = now;

	/*
	 * init_entity_runnable_average() sets only load_avg = weight; the
	 * first enqueue's attach_entity_load_avg() then rebuilds load_sum =
	 * load_avg * divider / weight (1 if that would be 0).  Without that
	 * sum the next period boundary would drop load_avg to about 0.
	 */
	sa->load_avg = weight;
	if (weight)
		sa->load_sum = PELT_MIN_DIVIDER;
}

/* sched_prio_to_weight[]: each nice step is ~1.25x, nice 0 = 1024 */
static const unsigned long prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */  9548,  7620,  6100,  4904,  3906,
	/*  -5 */  3121,  2501,  1991,  1586,  1277,
	/*   0 */  1024,   820,   655,   526,   423,
	/*   5 */   335,   272,   215,   172,   137,
	/*  10 */   110,    87,    70,    56,    45,
	/*  15 */    36,    29,    23,    18,    15,
};

unsigned long sr_prio_to_weight(int prio)
{
	if (prio < 100 || prio > 139)
		return SR_NICE0_WEIGHT;
	return prio_to_weight[prio - 100];
}
