/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Models: a base model is a set of decision functions (struct sr_policy),
 * one member for each function of the kernel's decision paths, and the
 * data in which kernel generations differ (struct sr_model); a patch pair
 * replaces members in a copy of a base model.  The members call each other
 * through the model (c->m->pol.x, c->pol->x), never directly, so that a
 * member a pair replaces is the one every caller reaches, as in a patched
 * kernel; a pair's member can call the base model's own form of any
 * member with sr_base().  Each function reads the machine through struct
 * sr_view (include/schedreplay/replay.h), never changes it, and appends
 * short tokens to the reason path of the evaluation (" > " between them).
 */
#ifndef SCHEDREPLAY_MODEL_H
#define SCHEDREPLAY_MODEL_H

#include <stdarg.h>

#include "schedreplay/replay.h"

#define SR_NONE (-1)	/* the kernel's "no verdict" (nr_cpumask_bits) */

struct sr_lb_ctx;
struct sr_lb_sg;
struct sr_lb_sds;

/*
 * What one select_task_rq_fair() call is asked: filled by the engine from
 * a decision (replay/decision.c), or by a simulator or a test.
 */
struct sr_wake_input {
	int fork;			/* fork placement (SD_BALANCE_FORK), else wakeup */
	/*
	 * exec placement (SD_BALANCE_EXEC: sched_exec()'s WF_EXEC call for
	 * current, @p running on this_cpu = prev_cpu); the simulator's entry
	 * point, replay does not evaluate execs
	 */
	int exec;
	int this_cpu;			/* where the waker (the parent) runs */
	int prev_cpu;			/* task_cpu(p) */
	int sync;			/* WF_SYNC as the caller saw it */
	int exiting;			/* current has PF_EXITING */
	int in_irq;			/* !in_task(): the wakeup runs in interrupt context */
	const struct sr_task *p;	/* wakee / new task */
	const struct sr_task *cur;	/* waker (NULL: idle task or unknown) */
	/*
	 * the model's sgc->imbalance marks (level * ncpus + a group's first
	 * CPU) where the caller keeps them at every balance: group_classify()
	 * reads them on the slow path; NULL: not kept, not read
	 */
	const unsigned char *sgc_imb;
};

/* everything one select_task_rq_fair evaluation reads */
struct sr_wake_ctx {
	const struct sr_view *v;
	const struct sr_model *m;
	const struct sr_task *p;	/* wakee / new task */
	const struct sr_task *cur;	/* waker (NULL: idle task or unknown) */
	int this_cpu;
	int prev_cpu;
	int sync;			/* WF_SYNC as the caller saw it */
	int exiting;			/* current has PF_EXITING */
	int in_irq;			/* !in_task() (known from the trace's flags only) */
	int fork;			/* fork placement (SD_BALANCE_FORK) */
	int exec;			/* exec placement (SD_BALANCE_EXEC), p running on this_cpu */
	const unsigned char *sgc_imb;	/* sr_wake_input.sgc_imb */
	struct sr_eval *out;
};

/*
 * The decision functions, named after the kernel's (kernel/sched/fair.c;
 * in 6.x several carry a sched_balance_ prefix).  Every member is set in
 * a base model; CPUs are returned as a CPU number or SR_NONE.
 */
struct sr_policy {
	/* ---- wakeup and fork placement (replay/fair.c) ---- */
	/* select_task_rq_fair(): the CPU chosen */
	int (*select_task_rq)(struct sr_wake_ctx *c);
	/* wake_wide(): 1 to leave the affine path (waker/wakee flips) */
	int (*wake_wide)(struct sr_wake_ctx *c);
	/* wake_affine(): this_cpu or prev_cpu */
	int (*wake_affine)(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
			   int prev_cpu, int sync);
	/* wake_affine_idle() and wake_affine_weight(): a CPU or SR_NONE */
	int (*wake_affine_idle)(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync);
	int (*wake_affine_weight)(struct sr_wake_ctx *c, const struct sr_domain *sd,
				  int this_cpu, int prev_cpu, int sync);
	/* select_idle_sibling(): the CPU to wake on, target when none is idle */
	int (*select_idle_sibling)(struct sr_wake_ctx *c, int prev, int target);
	/* select_idle_cpu(): the LLC scan from target (an idle core first when
	 * @has_idle_core); SR_NONE when none is found */
	int (*select_idle_cpu)(struct sr_wake_ctx *c, const struct sr_domain *llc, int target,
			       int has_idle_core);
	/* find_idlest_cpu() (sched_balance_find_dst_cpu): the slow path from
	 * domain @level down */
	int (*find_idlest_cpu)(struct sr_wake_ctx *c, int level, int this_cpu, int prev_cpu);
	/* find_idlest_group() (sched_balance_find_dst_group) at @level of
	 * @cpu's domains: the first CPU of the group to go to, or SR_NONE to
	 * stay in the local group */
	int (*find_idlest_group)(struct sr_wake_ctx *c, int level, int cpu);
	/* find_idlest_group_cpu(): the idlest allowed CPU of @span, else @fallback */
	int (*find_idlest_group_cpu)(struct sr_wake_ctx *c, const uint64_t *span, int fallback);

	/* ---- load balancing (replay/balance.c, include/schedreplay/balance.h) ---- */
	/* kthread_is_per_cpu(), the test can_migrate_task() makes first (schedreplay-models(7) §6.1) */
	int (*kthread_is_per_cpu)(struct sr_lb_ctx *c, const struct sr_task *p);
	/* task_hot(): 1 when p ran too recently to move */
	int (*task_hot)(struct sr_lb_ctx *c, const struct sr_task *p);
	/* can_migrate_task(): 1 to move p from @src to env's dst_cpu */
	int (*can_migrate_task)(struct sr_lb_ctx *c, const struct sr_task *p, int src);
	/* detach_tasks(): tasks moved from @src to env's dst_cpu */
	int (*detach_tasks)(struct sr_lb_ctx *c, int src);
	/* should_we_balance(): 0 ends this load_balance() (schedreplay-models(7) §8.1) */
	int (*should_we_balance)(struct sr_lb_ctx *c);
	/* update_sg_lb_stats() + group_classify() of the group @span at @level */
	void (*update_sg_lb_stats)(struct sr_lb_ctx *c, const uint64_t *span, int level,
				   struct sr_lb_sg *sg);
	/* update_sd_pick_busiest(): 1 when @sg is busier than @busiest */
	int (*update_sd_pick_busiest)(struct sr_lb_ctx *c, const struct sr_lb_sg *sg,
				      const struct sr_lb_sg *busiest);
	/* find_busiest_group(): 1 with sds->busiest and env's imbalance set, 0 balanced */
	int (*find_busiest_group)(struct sr_lb_ctx *c, struct sr_lb_sds *sds);
	/* calculate_imbalance(): sets env's imbalance (tasks) */
	void (*calculate_imbalance)(struct sr_lb_ctx *c, struct sr_lb_sds *sds);
	/* find_busiest_queue(): the CPU of @busiest to pull from, or -1 */
	int (*find_busiest_queue)(struct sr_lb_ctx *c, const struct sr_lb_sg *busiest);
	/* load_balance(dst, level, idle: enum sr_lb_idle): tasks pulled (schedreplay-models(7) §6.4) */
	int (*load_balance)(struct sr_lb_ctx *c, int dst, int level, int idle);
	/* rebalance_domains(cpu, idle): tasks pulled, every level due */
	int (*rebalance_domains)(struct sr_lb_ctx *c, int cpu, int idle);
	/* newidle_balance() (sched_balance_newidle) (schedreplay-models(7) §8.2): tasks pulled */
	int (*newidle_balance)(struct sr_lb_ctx *c, int cpu);
	/* nohz_idle_balance() on the kicked @ilb: the other tickless idle CPUs
	 * (mainline: and the ILB itself last) (schedreplay-models(7) §7); 1 once one pulled */
	int (*nohz_idle_balance)(struct sr_lb_ctx *c, int ilb);
	/* run_rebalance_domains() on the kicked @ilb: the nohz pass and the
	 * ILB's own balance, in the generation's order; 1 once one pulled */
	int (*run_rebalance_domains)(struct sr_lb_ctx *c, int ilb);
};

struct sr_model {
	const char *name;
	const char *summary;
	/* what kernel generations differ in besides functions */
	int runnable_load;		/* LOAD() = runnable_load_avg (v4.15..5.6) */
	int recent_used_cpu;		/* the kernel has recent_used_cpu (v4.16+) */
	/* sync := sync && !PF_EXITING (change 1(d), v4.17+); replay/fair.c reads it
	 * through mask_exiting_sync(), which tells the engine (replay/depend-local.h) */
	int mask_exiting_sync;
	int util_est;			/* cpu_util() = max(util_avg, util_est) (v4.17+) */
	enum sr_sd_era sd_era;		/* the sched-domain parameters of its kernels */
	struct sr_policy pol;
	/* a patch side (struct sr_patch): the base model it derives from */
	const struct sr_model *base;
	const char *patch;		/* NULL for a base model */
	const char *variant;		/* "original" or "patched" */
};

/* the base model's own functions (@m's, for a base model) */
static inline const struct sr_policy *sr_base(const struct sr_model *m)
{
	return m->base ? &m->base->pol : &m->pol;
}

/**
 * sr_model_find - a base model by name ("mainline", "v4.15")
 * Return: static, or NULL.
 */
const struct sr_model *sr_model_find(const char *name);
int sr_model_count(void);
const struct sr_model *sr_model_at(int i);

/**
 * sr_model_select - run @m's select_task_rq_fair for @in on the machine @v;
 * the CPU chosen and the reason path go into @out
 */
void sr_model_select(const struct sr_model *m, const struct sr_view *v,
		     const struct sr_wake_input *in, struct sr_eval *out);

/* helpers the decision functions of base models and patches share */
int sr_ctx_idle(const struct sr_wake_ctx *c, int cpu);
int sr_ctx_allowed(const struct sr_wake_ctx *c, int cpu);
int sr_ctx_share_cache(const struct sr_wake_ctx *c, int a, int b);
/* the load the model's generation compares (cpu_load, or weighted_cpuload) */
long sr_ctx_cpu_load(const struct sr_wake_ctx *c, int cpu);
/* the sched domain of @cpu that spans its LLC, or NULL */
const struct sr_domain *sr_ctx_llc(const struct sr_wake_ctx *c, int cpu);
/*
 * the wake_affine_weight comparison (schedreplay-models(7) §5.5): @strict is `<` (else `<=`),
 * @sync_bias adds 1 to prev's side on sync wakeups (change 1(c))
 */
int sr_affine_weight(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
		     int prev_cpu, int sync, int strict, int sync_bias);
/*
 * the LLC scan of select_idle_cpu()/select_idle_core(): @llc ∩ allowed,
 * wrapping from @first; @want_core: the first idle core, else the first
 * idle CPU seen; otherwise the first idle CPU within @nr CPUs (-1: all)
 */
int sr_scan_llc(struct sr_wake_ctx *c, const struct sr_domain *llc, int first, int want_core,
		int nr);

/* append a token to an evaluation's reason path, " > " between tokens */
void sr_eval_vreason(struct sr_eval *out, const char *fmt, va_list ap);

/* append a token to the reason path (printf format) */
void sr_reason(struct sr_wake_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
