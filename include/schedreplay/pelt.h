/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PELT (per-entity load tracking) in the kernel's own integer arithmetic
 * (schedreplay-models(7) §3): geometric series with y^32 = 1/2 over 1024-unit
 * periods of the pelt clock (ns >> 10), so that reconstructed load_avg,
 * runnable_avg and util_avg round as the kernel's do.
 */
#ifndef SCHEDREPLAY_PELT_H
#define SCHEDREPLAY_PELT_H

#include <stdint.h>

#define SR_PELT_PERIOD		32	/* LOAD_AVG_PERIOD: y^32 = 1/2 */
#define SR_PELT_MAX		47742	/* LOAD_AVG_MAX */
#define SR_NICE0_WEIGHT		1024
#define SR_SCHED_CAPACITY	1024

struct sr_pelt {
	uint64_t last_update;	/* ns; 0 = never updated */
	uint64_t load_sum;
	uint64_t runnable_sum;
	uint32_t util_sum;
	uint32_t period_contrib;
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long util_avg;
};

/**
 * sr_pelt_decay_load - val * y^n as the kernel computes it (decay_load)
 * Return: the decayed value, truncated as the kernel truncates it (so
 * decay_load(x, 32) is (x >> 1) - 1 for 2 <= x <= 2^33); 0 for n > 32 * 63.
 */
uint64_t sr_pelt_decay_load(uint64_t val, uint64_t n);

/**
 * sr_pelt_update - accumulate from sa->last_update to @now
 * @sa: the signal
 * @now: ns
 * @load: 1 when the entity is runnable (task) or the sum of weights
 *        (cfs_rq; pass 1 and use @weight for a task)
 * @runnable: 1 (task on_rq) or the number of runnable tasks (cfs_rq)
 * @running: 1 when the entity runs
 * @weight: the weight load_avg is scaled by (task: nice weight; cfs_rq: 1)
 *
 * Mirrors ___update_load_sum() + ___update_load_avg(): the averages change
 * only when a period boundary was crossed.  A signal never updated
 * (last_update 0) or a @now before last_update only sets last_update = @now.
 * Return: 1 if a period boundary was crossed and the averages recomputed.
 */
int sr_pelt_update(struct sr_pelt *sa, uint64_t now, unsigned long load,
		   unsigned long runnable, int running, unsigned long weight);

/**
 * sr_pelt_set - take a task's averages as the kernel had them
 * @sa: the signal; its last_update and period_contrib are kept
 * @load, @util, @runnable: se.avg.load_avg, util_avg, runnable_avg
 * @weight: the task's weight
 *
 * The sums are rebuilt from the averages as attach_entity_load_avg()
 * rebuilds them, so that the signal evolves from there.
 */
void sr_pelt_set(struct sr_pelt *sa, unsigned long load, unsigned long util,
		 unsigned long runnable, unsigned long weight);

/**
 * sr_pelt_align - an entity joins a cfs_rq (attach_entity_load_avg())
 * @se: the entity's signal: its averages are kept
 * @cfs: the cfs_rq's signal, brought to the attach time by the caller
 * @weight: the entity's weight
 *
 * The entity takes the cfs_rq's last_update and period_contrib, so that
 * both cross their period boundaries together, and its sums are rebuilt
 * from its averages at that point of the period (sr_pelt_set()).  A
 * cfs_rq never updated leaves the entity's clock as it is.
 */
void sr_pelt_align(struct sr_pelt *se, const struct sr_pelt *cfs, unsigned long weight);

/**
 * sr_pelt_set_load - take a runqueue's load_avg as the kernel had it
 * @sa: the runqueue's signal (weights folded into its sums)
 * @load: cfs_rq->avg.load_avg
 *
 * load_sum follows it at the current point of the period.
 */
void sr_pelt_set_load(struct sr_pelt *sa, unsigned long load);

/**
 * sr_pelt_init_task - a new task's signal (fork): load_avg = weight,
 * sums consistent with it (init_entity_runnable_average)
 *
 * load_sum = LOAD_AVG_MAX - 1024, what the first enqueue's
 * attach_entity_load_avg() derives from load_avg at period_contrib 0;
 * util and runnable start at 0 (post_init_entity_util_avg() needs the
 * cfs_rq).  @now must not be 0, which means "never updated".
 */
void sr_pelt_init_task(struct sr_pelt *sa, uint64_t now, unsigned long weight);

/**
 * sr_prio_to_weight - CFS weight of a kernel prio (100..139 → nice -20..19)
 * Return: W(nice); 1024 for prios outside the CFS range.
 */
unsigned long sr_prio_to_weight(int prio);

#endif
