/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patches: a named pair of decision functions, the original and the
 * patched one, applied over a base model.  Replay evaluates both sides at
 * every decision the patch can touch and keeps both choices and reasons;
 * where they differ is a divergence.
 *
 * Adding a pair takes one new file under replay/ (or a shared object
 * loaded with --patch-file; schedreplay-pairs(7)): define a struct
 * sr_patch whose two apply functions replace the members of struct
 * sr_policy the patch changes in a copy of the base model, and register it
 * with SR_PATCH_REGISTER().  A replaced member reads the machine through
 * the view, like every decision function, appends reason tokens with
 * sr_reason() / sr_lb_reason(), and can hand over to the base model's own
 * form of any member: sr_base(c->m)->wake_wide(c).  A side that leaves the
 * copy as it is (NULL apply) is the base model.
 */
#ifndef SCHEDREPLAY_PATCH_H
#define SCHEDREPLAY_PATCH_H

#include "schedreplay/balance.h"
#include "schedreplay/model.h"

/*
 * The version of everything a pair sees: struct sr_patch, the model and
 * its policy, the contexts, the view and what it holds (runqueues, tasks,
 * topology, PELT), the evaluation.  3: the policy follows the kernel's
 * call graph (ABI 1 and 2 pairs are refused: rebuild them).  Besides the
 * number, SR_PATCH_REGISTER() passes the sizes of those structures as the
 * pair was compiled (SR_PATCH_LAYOUT); a pair built against other headers
 * is refused even when the number agrees.
 */
#define SR_PATCH_ABI 3

#define SR_PATCH_LAYOUT							\
	((unsigned long)sizeof(struct sr_patch) +			\
	 3UL * sizeof(struct sr_model) + 5UL * sizeof(struct sr_policy) +	\
	 7UL * sizeof(struct sr_wake_ctx) + 11UL * sizeof(struct sr_wake_input) + \
	 13UL * sizeof(struct sr_lb_ctx) + 17UL * sizeof(struct sr_lb_env) +	\
	 19UL * sizeof(struct sr_lb_input) + 23UL * sizeof(struct sr_lb_sg) +	\
	 29UL * sizeof(struct sr_lb_sds) + 31UL * sizeof(struct sr_view) +	\
	 37UL * sizeof(struct sr_rq) + 41UL * sizeof(struct sr_task) +		\
	 43UL * sizeof(struct sr_eval) + 47UL * sizeof(struct sr_topology) +	\
	 53UL * sizeof(struct sr_cpu_topo) + 59UL * sizeof(struct sr_domain) +	\
	 61UL * sizeof(struct sr_pelt) + 67UL * sizeof(struct sr_decision))

/* which decisions a patch can change */
enum sr_patch_scope {
	SR_SCOPE_WAKEUP		= 1 << 0,	/* select_task_rq_fair on wakeup */
	SR_SCOPE_FORK		= 1 << 1,	/* select_task_rq_fair on fork */
	SR_SCOPE_BALANCE	= 1 << 2,	/* load balancing (periodic, newidle, nohz) */
};

struct sr_patch {
	int abi;			/* SR_PATCH_ABI */
	const char *name;		/* for --patch, e.g. "wake-affine-equal" */
	const char *seed;		/* where it comes from, e.g. "004 3/4" */
	const char *summary;		/* one line: what it changes */
	const char *function;		/* the kernel function it replaces */
	unsigned scope;			/* enum sr_patch_scope; 0: changes no decision */
	/* make each side from a copy of the base model */
	void (*original)(struct sr_model *m);
	void (*patched)(struct sr_model *m);
	/*
	 * Which kernels run which side, as releases "X.Y" (NULL: none): the
	 * patched side is mainline's since @merged; before that, or for a pair
	 * never merged, kernels run the original side, until @replaced when
	 * another form of the change went in instead (then neither side).
	 */
	const char *merged;
	const char *replaced;
};

/*
 * add @p to the list (from a constructor; see SR_PATCH_REGISTER), unless
 * its abi or the @layout it was compiled with is not this library's
 */
void sr_patch_register_layout(const struct sr_patch *p, unsigned long layout);

/* the registration of pairs built before ABI 3: refuses them, for the message */
void sr_patch_register(const struct sr_patch *p);

#define SR_PATCH_REGISTER(p)                                                   \
	static void __attribute__((constructor)) sr_patch_register_##p(void) \
	{                                                                      \
		sr_patch_register_layout(&(p), SR_PATCH_LAYOUT);              \
	}

const struct sr_patch *sr_patch_find(const char *name);
int sr_patch_count(void);
const struct sr_patch *sr_patch_at(int i);

/**
 * sr_patch_load - dlopen a shared object whose constructors register pairs
 * Return: 0, or -1 with @cause.
 */
int sr_patch_load(const char *path, char **cause);

/**
 * sr_patch_side - a model for one side of @p over @base ("original" or
 * "patched"); free it with free().
 * Return: NULL when out of memory.
 */
struct sr_model *sr_patch_side(const struct sr_patch *p, const struct sr_model *base,
			       int patched);

/* the decision kinds of @scope: does @p touch decision kind @kind? */
int sr_patch_touches(const struct sr_patch *p, enum sr_decision_kind kind);

/**
 * sr_kernel_version_cmp - compare the release @kernel ("6.12.117+deb12-amd64")
 * with @release ("6.0") by major and minor number
 * Return: <0, 0 or >0; 0 also when @kernel does not start with X.Y.
 */
int sr_kernel_version_cmp(const char *kernel, const char *release);

/**
 * sr_patch_kernel_side - the side of @p that a kernel of release @kernel runs
 * Return: 0 the original, 1 the patched, -1 neither or unknown (no release).
 */
int sr_patch_kernel_side(const struct sr_patch *p, const char *kernel);

/**
 * sr_patch_contained - "the patched side (in kernels since 6.0)", or the
 * original's equivalent, for the side @side of @p, into @buf
 * Return: @buf.
 */
const char *sr_patch_contained(const struct sr_patch *p, int side, char *buf, size_t len);

/**
 * sr_patch_check - does a pair's result contradict the recording kernel?
 * At @divergent decisions the original side chose the kernel's CPU
 * @original_exact times and the patched side @patched_exact times; the side
 * the kernel of release @kernel runs should match it at least as often as
 * the other.  When it does not, a one-line note for the reader goes into
 * @buf ("model error likely: ...").
 * Return: 1 with the note, 0 when there is nothing to say.
 */
int sr_patch_check(const struct sr_patch *p, const char *kernel, long long divergent,
		   long long original_exact, long long patched_exact, char *buf, size_t len);

#endif
