// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 004: Mel Gorman's "Reduce migrations due to load imbalance and
 * process exits" (v4.16-rc1; schedreplay-models(7) §5.8).
 *
 *   1/4  pass this_cpu to wake_affine instead of looking it up      no decision changes
 *   2/4  compute prev_eff_load only when needed                     no decision changes
 *   3/4  wake-affine-equal: wake_affine_weight pulls on `<` instead of `<=`,
 *        and sync wakeups add 1 to prev's side
 *   4/4  exit-sync, two proposed forms:
 *        Mel's (exit-sync-mel): in wake_affine_idle's sync branch, an exiting
 *        waker on a CPU that does not share cache with prev_cpu returns prev;
 *        Peter Zijlstra's (exit-sync-peterz, merged in v4.17): sync is masked
 *        in select_task_rq_fair when the waker is exiting.
 *
 * Over "mainline", which has 3/4 and Peter's 4/4, the original side puts
 * the pre-patch function back; over "v4.15", which has neither, the
 * patched side puts the patch in.
 */
#include "schedreplay/patch.h"

static int weight_le(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
		     int prev_cpu, int sync)
{
	return sr_affine_weight(c, sd, this_cpu, prev_cpu, sync, 0, 0);
}

static int weight_lt_bias(struct sr_wake_ctx *c, const struct sr_domain *sd, int this_cpu,
			  int prev_cpu, int sync)
{
	return sr_affine_weight(c, sd, this_cpu, prev_cpu, sync, 1, 1);
}

static void equal_original(struct sr_model *m)
{
	m->pol.wake_affine_weight = weight_le;
}

static void equal_patched(struct sr_model *m)
{
	m->pol.wake_affine_weight = weight_lt_bias;
}

static const struct sr_patch wake_affine_equal = {
	.abi = SR_PATCH_ABI,
	.name = "wake-affine-equal",
	.seed = "004 3/4",
	.summary = "wake_affine_weight pulls only when this is strictly less loaded (`<`, not "
		   "`<=`); sync wakeups add 1 to prev's side",
	.function = "wake_affine_weight",
	.scope = SR_SCOPE_WAKEUP,
	.original = equal_original,
	.patched = equal_patched,
	.merged = "4.17",
};
SR_PATCH_REGISTER(wake_affine_equal)

/* 4/4, Mel's form: the base's wake_affine_idle with the exiting check first */
static int idle_exit_mel(struct sr_wake_ctx *c, int this_cpu, int prev_cpu, int sync)
{
	if (sync && c->v->rq[this_cpu].nr_running == 1 && c->exiting &&
	    !sr_ctx_share_cache(c, this_cpu, prev_cpu)) {
		sr_reason(c, "sync, waker alone, exiting, no shared LLC");
		return prev_cpu;
	}
	return sr_base(c->m)->wake_affine_idle(c, this_cpu, prev_cpu, sync);
}

static void exit_unmasked(struct sr_model *m)
{
	m->mask_exiting_sync = 0;
}

static void mel_patched(struct sr_model *m)
{
	m->mask_exiting_sync = 0;
	m->pol.wake_affine_idle = idle_exit_mel;
}

static void peterz_patched(struct sr_model *m)
{
	m->mask_exiting_sync = 1;
}

static const struct sr_patch exit_sync_mel = {
	.abi = SR_PATCH_ABI,
	.name = "exit-sync-mel",
	.seed = "004 4/4 (Mel Gorman's form)",
	.summary = "an exiting sync waker whose CPU does not share cache with prev_cpu "
		   "leaves the wakee on prev (in wake_affine_idle)",
	.function = "wake_affine_idle",
	.scope = SR_SCOPE_WAKEUP,
	.original = exit_unmasked,
	.patched = mel_patched,
	.replaced = "4.17",	/* by exit-sync-peterz */
};
SR_PATCH_REGISTER(exit_sync_mel)

static const struct sr_patch exit_sync_peterz = {
	.abi = SR_PATCH_ABI,
	.name = "exit-sync-peterz",
	.seed = "004 4/4 (Peter Zijlstra's form, v4.17)",
	.summary = "select_task_rq_fair treats a wakeup from an exiting waker as not sync",
	.function = "select_task_rq_fair",
	.scope = SR_SCOPE_WAKEUP,
	.original = exit_unmasked,
	.patched = peterz_patched,
	.merged = "4.17",
};
SR_PATCH_REGISTER(exit_sync_peterz)

/* listed so that nobody looks for a difference that is not there */
static const struct sr_patch wake_affine_cpu_arg = {
	.abi = SR_PATCH_ABI,
	.name = "wake-affine-cpu-arg",
	.seed = "004 1/4",
	.summary = "wake_affine takes this_cpu from its caller: changes no decision",
	.function = "wake_affine",
	.scope = 0,
	.merged = "4.17",
};
SR_PATCH_REGISTER(wake_affine_cpu_arg)

static const struct sr_patch wake_affine_defer_prev = {
	.abi = SR_PATCH_ABI,
	.name = "wake-affine-defer-prev",
	.seed = "004 2/4",
	.summary = "prev_eff_load is computed only when it is compared: changes no decision",
	.function = "wake_affine_weight",
	.scope = 0,
	.merged = "4.17",
};
SR_PATCH_REGISTER(wake_affine_defer_prev)
