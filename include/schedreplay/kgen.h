/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel generation a replay models: the recording kernel's release
 * (the trace's uname, or the recording's metadata), or --kernel, turned
 * into the scheduler behaviours that changed between 6.1, 6.6, 6.12 and
 * 6.18 (SR_KF_*).  Each behaviour is data: the mainline release that
 * brought it and the stable releases it was backported to, so that
 * "6.12.117" and "6.12.0" are different kernels for the engine and the
 * models, as they are for the decision code.
 */
#ifndef SCHEDREPLAY_KGEN_H
#define SCHEDREPLAY_KGEN_H

#include <stddef.h>

/* where the generation comes from */
enum sr_kgen_source {
	SR_KGEN_SRC_NONE,	/* the trace names no kernel release */
	SR_KGEN_SRC_RECORDING,	/* the trace's uname or the recording's metadata */
	SR_KGEN_SRC_OPTION,	/* replay --kernel */
};

/* scheduler behaviours the engine and the models follow by generation */
enum sr_kfeat {
	/* v6.6 "sched/fair: Implement an EEVDF-like scheduling policy" */
	SR_KF_EEVDF,
	/* v6.8 "sched/fair: Fix initial util_avg calculation": post_init_entity_util_avg()
	 * scales by se_weight(), no longer by the scale_load()d se->load.weight */
	SR_KF_INIT_UTIL_SE_WEIGHT,
	/* v6.8 "sched/fair: Simplify util_est" and "sched/pelt: Avoid
	 * underestimation of task utilization": util_est is one EWMA, and a
	 * task that waited on the queue (runnable_avg above util_avg) keeps
	 * its estimate at a sleep; before, it decays as any other */
	SR_KF_UTIL_EST_EWMA,
	/* v6.12 "sched/fair: Implement delayed dequeue": dequeue_entity() of a
	 * task blocking while not eligible leaves it queued (sched_delayed) */
	SR_KF_DELAY_DEQUEUE,
	/* v6.13, 6.12.7 "sched/eevdf: More PELT vs DELAYED_DEQUEUE": the
	 * cfs_rq's runnable signal leaves delayed tasks out (h_nr_delayed) */
	SR_KF_DELAYED_NOT_RUNNABLE,
	/* v6.16, 6.12.37 "sched/fair: Fixup wake_up_sync() vs DELAYED_DEQUEUE":
	 * wake_affine_idle()'s sync test is nr_running - delayed == 1 */
	SR_KF_SYNC_NOT_DELAYED,
	/* v6.14 "sched/fair: Use the new cfs_rq.h_nr_runnable": the balancer's
	 * sum_h_nr_running and find_busiest_queue() leave delayed tasks out */
	SR_KF_LB_RUNNABLE,
	/* v6.14 "sched/fair: Do not try to migrate delayed dequeue task":
	 * can_migrate_task() refuses a delayed task unless migrate_load */
	SR_KF_LB_SKIP_DELAYED,
	/* v6.19 "sched/fair: Proportional newidle balance" (NI_RANDOM):
	 * sched_balance_newidle() balances each domain only on a draw,
	 * sched_rng() % 1024 <= 1 + sd->newidle_ratio */
	SR_KF_NI_RANDOM,
	/* v6.6 sibling_imbalance() (in Debian 6.12.117's fair.c, not in 6.1.192's):
	 * find_busiest_group()'s prefer_sibling spreads tasks only for an idle CPU */
	SR_KF_SIBLING_IMBALANCE,
	/* v6.15 2ae891b82695 "sched: Reduce the default slice to avoid tasks
	 * getting an extra tick": sysctl_sched_base_slice 0.70 ms, not 0.75 */
	SR_KF_BASE_SLICE_700US,
	/* v6.13, 6.12.11 66951e4860d3 "sched/fair: Fix update_cfs_group() vs
	 * DELAY_DEQUEUE": update_cfs_group() leaves the weight of a group
	 * entity whose cfs_rq is empty as it was; before, calc_group_shares()
	 * of the blocked load reweighted it at the dequeue that emptied it */
	SR_KF_GROUP_KEEP_WEIGHT,
	/* v6.6 "sched/fair: Determine active load balance for SMT
	 * sched groups": update_sd_pick_busiest() takes a later fully busy
	 * group of equal avg_load (0: not computed) unless the one found is of
	 * SMT siblings; before, the first one stays */
	SR_KF_FULLY_BUSY_LAST,
	/* v6.5 "sched/fair, cpufreq: Introduce 'runnable boosting'":
	 * find_busiest_queue()'s migrate_util reads cpu_util_cfs_boost(),
	 * max(util_avg, runnable_avg) */
	SR_KF_LB_RUNNABLE_BOOST,
	SR_KF__COUNT
};

struct sr_kgen {
	int major, minor;		/* 0.0: unknown */
	int sublevel;			/* -1: the release does not say (Debian's
					 * "6.1.0-57-amd64" ABI names) */
	char release[64];		/* as the trace or the option gave it */
	char build[32];			/* "Debian 6.1.192-3": where a sublevel the
					 * release does not say came from; "" none */
	enum sr_kgen_source source;
	unsigned feat;			/* 1 << SR_KF_* */
};

/**
 * sr_kgen_parse - the generation of a kernel release string
 * @release: "6.12.117+deb12-amd64", "6.1.0-57-amd64", "6.18.44", "6.6" ...
 * @src: where @release comes from
 * @out: filled; on failure a generation with no behaviours and source NONE
 *
 * A Debian ABI release ("X.Y.0-N-flavour") carries no stable sublevel; it is
 * taken as the newest stable release of X.Y (Debian ships it updated), so
 * that every backport listed for X.Y applies.
 * Return: 0, or -1 when @release has no MAJOR.MINOR at its start.
 */
int sr_kgen_parse(const char *release, enum sr_kgen_source src, struct sr_kgen *out);

/**
 * sr_kgen_build - take the sublevel a Debian ABI release does not say from
 * the kernel's build string (uname -v, /proc/version: "#1 SMP
 * PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-...)") when it names the same
 * MAJOR.MINOR; @g's behaviours follow the sublevel found
 * Return: 1 when @g changed, else 0 (@g has its sublevel, or @version
 * names none: NULL, another distribution, another release)
 */
int sr_kgen_build(struct sr_kgen *g, const char *version);

/**
 * sr_kgen_recording - the generation of the kernel that recorded a trace:
 * the trace's own release (uname), else the recording metadata's, with a
 * Debian ABI release's sublevel from the metadata's build string
 * (sr_kgen_build())
 * @trace_release: the trace's release, or NULL / ""
 * @meta_release: the metadata's "kernel" line's, or NULL / ""
 * @meta_build: the metadata's "kernel-build" line's, or NULL / ""
 * Return: the release @out was made from (@meta_release when neither parses)
 */
const char *sr_kgen_recording(const char *trace_release, const char *meta_release,
			      const char *meta_build, struct sr_kgen *out);

/* 1 when @g's kernel has behaviour @f */
int sr_kgen_has(const struct sr_kgen *g, enum sr_kfeat f);

/**
 * sr_kgen_range - where @g lies against the releases the table was checked on
 *
 * Return: 0 inside 6.1..6.18 (or unknown), -1 older, 1 newer: then changes
 * of the kernel outside that range are not modelled, and the description
 * says so.
 */
int sr_kgen_range(const struct sr_kgen *g);

/*
 * sysctl_sched_base_slice of @g's kernel before its scaling by
 * 1 + ilog2(min(CPUs, 8)) (EEVDF): 700000 or 750000 ns
 */
unsigned long long sr_kgen_base_slice_ns(const struct sr_kgen *g);

/* a behaviour's short name ("delayed dequeue") */
const char *sr_kfeat_name(enum sr_kfeat f);

/* where @s comes from, in words ("the recording's uname") */
const char *sr_kgen_source_name(enum sr_kgen_source s);

/* room for sr_kgen_describe() with every feature named */
#define SR_KGEN_TEXT_MAX 1024

/**
 * sr_kgen_describe - one line for the user and the database
 *
 * "6.12.117 (recording): EEVDF, delayed dequeue, ..." or, unknown,
 * "unknown (the trace names no kernel release): modelled as 6.1".
 * A @len of SR_KGEN_TEXT_MAX holds every feature.
 */
void sr_kgen_describe(const struct sr_kgen *g, char *buf, size_t len);

#endif
