/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Models: a base model is a set of decision functions (struct sr_policy);
 * a patch replaces one of them.  Each function reads the engine's state
 * through struct sr_view, never changes it, and appends short tokens to the
 * reason path of the evaluation (" > " between them).
 */
#ifndef SCHEDREPLAY_MODEL_H
#define SCHEDREPLAY_MODEL_H

#include <stdarg.h>

#include "schedreplay/replay.h"

#define SR_NONE (-1)	/* the kernel's "no verdict" (nr_cpumask_bits) */

struct sr_lb_ctx;

/* everything one select_task_rq_fair evaluation reads */
struct sr_wake_ctx {
	const struct sr_view *v;
	const struct sr_model *m;
	const struct sr_decision *d;
	const struct sr_task *p;	/* wakee / new task */
	const struct sr_task *cur;	/* waker (NULL: idle task or unknown) */
	int this_cpu;
	int prev_cpu;
	int sync;			/* WF_SYNC as the caller saw it */
	int exiting;			/* current has PF_EXITING */
	int fork;			/* fork placement (SD_BALANCE_FORK) */
	struct sr_eval *out;
};

struct sr_policy {
	/* top level: select_task_rq_fair(); returns the chosen CPU */
	int (*select_task_rq)(struct sr_wake_ctx *c);
	int (*wake_wide)(struct sr_wake_ctx *c);
	/* return a CPU or SR_NONE */
	int (*wake_affine_idle)(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync);
	int (*wake_affine_weight)(struct sr_wake_ctx *c, const struct sr_domain *sd,
				  int this_cpu, int prev_cpu, int sync);
	int (*wake_affine)(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
			   int prev_cpu, int sync);
	int (*select_idle_sibling)(struct sr_wake_ctx *c, int prev, int target);
	int (*find_idlest_cpu)(struct sr_wake_ctx *c, int level, int this_cpu, int prev_cpu);

	/*
	 * Load balancing (replay/balance.c, include/schedreplay/balance.h).
	 * NULL: the base model's era form (sr_balance_policy()), so that the
	 * base models in fair.c need not name them and a patch side sets
	 * only the one it changes.
	 */
	/* the per-CPU kthread test can_migrate_task() makes first (§6.1) */
	int (*kthread_is_per_cpu)(struct sr_lb_ctx *c, const struct sr_task *p);
	/* can_migrate_task(): 1 to move p from env's busiest CPU */
	int (*can_migrate_task)(struct sr_lb_ctx *c, const struct sr_task *p, int src);
	/* should_we_balance(): 0 ends this load_balance() (§8.1) */
	int (*should_we_balance)(struct sr_lb_ctx *c);
	/* load_balance(dst, level, idle: enum sr_lb_idle): tasks pulled (§6.4) */
	int (*load_balance)(struct sr_lb_ctx *c, int dst, int level, int idle);
	/* newidle_balance(cpu) (§8.2): tasks pulled */
	int (*newidle_balance)(struct sr_lb_ctx *c, int cpu);
	/* run_rebalance_domains() on a kicked ILB: its own and the nohz pass (§7) */
	int (*idle_balance_softirq)(struct sr_lb_ctx *c, int ilb);
};

struct sr_model {
	const char *name;
	const char *summary;
	int runnable_load;		/* LOAD() = runnable_load_avg (v4.15..5.6) */
	int recent_used_cpu;		/* the kernel has recent_used_cpu (v4.16+) */
	int mask_exiting_sync;		/* sync := sync && !PF_EXITING (change 1(d), v4.17+) */
	int util_est;			/* cpu_util() = max(util_avg, util_est) (v4.17+) */
	struct sr_policy pol;
	/* a patch side (struct sr_patch): the base model it derives from */
	const struct sr_model *base;
	const char *patch;		/* NULL for a base model */
	const char *variant;		/* "original" or "patched" */
};

/**
 * sr_model_find - a base model by name ("mainline", "v4.15")
 * Return: static, or NULL.
 */
const struct sr_model *sr_model_find(const char *name);
int sr_model_count(void);
const struct sr_model *sr_model_at(int i);

/**
 * sr_model_evaluate - run @m on decision @d with the engine's state
 */
void sr_model_evaluate(const struct sr_model *m, const struct sr_view *v,
		       const struct sr_decision *d, const struct sr_task *p,
		       const struct sr_task *cur, struct sr_eval *out);

/* helpers the decision functions of base models and patches share */
int sr_ctx_idle(const struct sr_wake_ctx *c, int cpu);
int sr_ctx_share_cache(const struct sr_wake_ctx *c, int a, int b);
/*
 * the wake_affine_weight comparison (§5.5): @strict is `<` (else `<=`),
 * @sync_bias adds 1 to prev's side on sync wakeups (change 1(c))
 */
int sr_affine_weight(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
		     int prev_cpu, int sync, int strict, int sync_bias);

/* append a token to an evaluation's reason path, " > " between tokens */
void sr_eval_vreason(struct sr_eval *out, const char *fmt, va_list ap);

/* append a token to the reason path (printf format) */
void sr_reason(struct sr_wake_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
