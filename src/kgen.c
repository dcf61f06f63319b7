// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel generations (include/schedreplay/kgen.h): which of the scheduler
 * changes between 6.1 and 6.18 a recording kernel has, from its release.
 *
 * Sources of the table (checked, not recalled, where it says so):
 * - Debian 6.1.192 and 6.12.117 kernel/sched/ (linux-source-6.1/-6.12):
 *   6.1 has no EEVDF and no delayed dequeue; 6.12.117 has DELAY_DEQUEUE
 *   (features.h), h_nr_delayed in __update_load_avg_cfs_rq() (pelt.c),
 *   wake_affine_idle() testing nr_running - cfs_h_nr_delayed(), and still
 *   h_nr_queued (delayed included) in update_sg_lb_stats() and
 *   sched_balance_find_src_rq(), and no sched_delayed test in
 *   can_migrate_task().
 * - The stable releases of the backports: the upstream changelogs Debian's
 *   6.12 package lists ("More PELT vs DELAYED_DEQUEUE" in 6.12.7, "Add new
 *   cfs_rq.h_nr_runnable" and "Fixup wake_up_sync() vs DELAYED_DEQUEUE" in
 *   6.12.37).
 * - Mainline releases: EEVDF 6.6, delayed dequeue 6.12, h_nr_delayed 6.13,
 *   the balancer's h_nr_runnable and can_migrate_task()'s delayed test
 *   6.14, the wake_up_sync fix 6.16 (the sched-core pull requests; see
 *   docs/kernel-generations.md of the project's shared notes).
 */
#include "schedreplay/kgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "schedreplay/event.h"
#include "banned.h"

struct kver {
	int major, minor, sublevel;
};

static const struct {
	const char *name;
	struct kver mainline;
	struct kver stable[4];		/* backports; major 0 ends the list */
} feats[SR_KF__COUNT] = {
	[SR_KF_EEVDF] = { "EEVDF", { 6, 6, 0 }, { { 0 } } },
	[SR_KF_INIT_UTIL_SE_WEIGHT] = { "new task util from se_weight", { 6, 8, 0 }, { { 0 } } },
	/* util_est_update() of Debian 6.1.192 has the {enqueued, ewma} pair and
	 * UTIL_EST_FASTUP, 6.12.117's the one value (checked) */
	[SR_KF_UTIL_EST_EWMA] = { "util_est as one EWMA", { 6, 8, 0 }, { { 0 } } },
	[SR_KF_DELAY_DEQUEUE] = { "delayed dequeue", { 6, 12, 0 }, { { 0 } } },
	[SR_KF_DELAYED_NOT_RUNNABLE] = { "runnable signal without delayed tasks", { 6, 13, 0 },
					 { { 6, 12, 7 }, { 0 } } },
	[SR_KF_SYNC_NOT_DELAYED] = { "sync wake_affine without delayed tasks", { 6, 16, 0 },
				     { { 6, 12, 37 }, { 0 } } },
	[SR_KF_LB_RUNNABLE] = { "balancer counts h_nr_runnable", { 6, 14, 0 }, { { 0 } } },
	[SR_KF_LB_SKIP_DELAYED] = { "balancer leaves delayed tasks", { 6, 14, 0 }, { { 0 } } },
	/*
	 * NI_RANDOM is in sched_balance_newidle() and features.h of Debian's
	 * 6.1.192 and 6.12.117 (checked); 6.1.160, 6.6.120 and 6.18.5 as the
	 * first stable releases with it, and v6.19, are from the project's
	 * kernel-generations notes, not checked; 6.12.117 is the first 6.12
	 * release checked to have it
	 */
	[SR_KF_NI_RANDOM] = { "NI_RANDOM newidle balance", { 6, 19, 0 },
			      { { 6, 1, 160 }, { 6, 6, 120 }, { 6, 12, 117 }, { 6, 18, 5 } } },
	[SR_KF_SIBLING_IMBALANCE] = { "prefer-sibling balance for idle CPUs only", { 6, 6, 0 },
				      { { 0 } } },
	/*
	 * 0.70 ms in sched/fair.c of Debian's 6.12.117 (checked); 6.12.31 as
	 * the first 6.12 stable release with the backport is not checked
	 */
	[SR_KF_BASE_SLICE_700US] = { "0.70 ms base slice", { 6, 15, 0 },
				     { { 6, 12, 31 }, { 0 } } },
	/*
	 * the early return of update_cfs_group() on !gcfs_rq->load.weight is
	 * in Debian's 6.12.117 and not in 6.1.192 (checked); 6.12.11 as the
	 * first stable release with it is from the stable review series of
	 * 2025-01-21 ("[PATCH 6.12 073/122]"), v6.13 from the upstream commit
	 */
	[SR_KF_GROUP_KEEP_WEIGHT] = { "empty group entity keeps its weight", { 6, 13, 0 },
				      { { 6, 12, 11 }, { 0 } } },
	/*
	 * both in Debian's 6.12.118 and neither in 6.1.192 (checked:
	 * update_sd_pick_busiest(), sched_balance_find_src_rq()); the mainline
	 * releases are the commits', not checked
	 */
	[SR_KF_FULLY_BUSY_LAST] = { "later fully busy group is the busiest", { 6, 6, 0 },
				    { { 0 } } },
	[SR_KF_LB_RUNNABLE_BOOST] = { "migrate_util busiest queue by boosted util", { 6, 5, 0 },
				      { { 0 } } },
};

static int ver_ge(int maj, int min, int maj2, int min2)
{
	return maj > maj2 || (maj == maj2 && min >= min2);
}

/* the releases whose scheduler changes the table above was checked between */
static const struct kver oldest = { 6, 1, 0 }, newest = { 6, 18, 0 };

int sr_kgen_range(const struct sr_kgen *g)
{
	if (!g || !g->major)
		return 0;
	if (!ver_ge(g->major, g->minor, oldest.major, oldest.minor))
		return -1;
	if (!ver_ge(newest.major, newest.minor, g->major, g->minor))
		return 1;
	return 0;
}

static int kgen_compute(const struct sr_kgen *g, int f)
{
	int i;

	if (!g->major)
		return 0;
	if (ver_ge(g->major, g->minor, feats[f].mainline.major, feats[f].mainline.minor))
		return 1;
	for (i = 0; i < 4 && feats[f].stable[i].major; i++) {
		const struct kver *s = &feats[f].stable[i];

		if (g->major == s->major && g->minor == s->minor &&
		    (g->sublevel < 0 || g->sublevel >= s->sublevel))
			return 1;
	}
	return 0;
}

/* @g's behaviours, from its release */
static void kgen_features(struct sr_kgen *g)
{
	int f;

	g->feat = 0;
	for (f = 0; f < SR_KF__COUNT; f++)
		if (kgen_compute(g, f))
			g->feat |= 1u << f;
}

/* a decimal number of 1 to 4 digits at *s, advancing it; -1 if none */
static int number(const char **s)
{
	int v = 0, n = 0;

	while (**s >= '0' && **s <= '9' && n < 4) {
		v = v * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	return n ? v : -1;
}

int sr_kgen_parse(const char *release, enum sr_kgen_source src, struct sr_kgen *out)
{
	const char *s = release;
	int maj, min, sub = 0;

	memset(out, 0, sizeof(*out));
	out->sublevel = -1;
	if (!s)
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == 'v')
		s++;
	maj = number(&s);
	if (maj <= 0 || *s != '.')
		return -1;
	s++;
	min = number(&s);
	if (min < 0)
		return -1;
	if (*s == '.') {
		const char *t = s + 1;

		sub = number(&t);
		if (sub < 0)
			return -1;
		s = t;
		/* Debian's ABI names: X.Y.0-N-flavour, the sublevel not said */
		if (sub == 0 && s[0] == '-' && s[1] >= '0' && s[1] <= '9')
			sub = -1;
	}
	if (*s && !strchr("-+_~. \t", *s))
		return -1;
	out->major = maj;
	out->minor = min;
	out->sublevel = sub;
	out->source = src;
	sr_strlcpy(out->release, release, sizeof(out->release));
	kgen_features(out);
	return 0;
}

int sr_kgen_build(struct sr_kgen *g, const char *version)
{
	const char *s = version ? strstr(version, "Debian ") : NULL;
	const char *start;
	int maj, min, sub;

	if (!s || !g->major || g->sublevel >= 0)
		return 0;
	s += 7;
	start = s;
	maj = number(&s);
	if (maj != g->major || *s++ != '.')
		return 0;
	min = number(&s);
	if (min != g->minor || *s++ != '.')
		return 0;
	sub = number(&s);
	if (sub < 0 || (*s && *s != '-' && *s != '+' && *s != '~' && *s != ' '))
		return 0;
	g->sublevel = sub;
	snprintf(g->build, sizeof(g->build), "Debian %.*s", (int)strcspn(start, " ()"), start);
	kgen_features(g);
	return 1;
}

const char *sr_kgen_recording(const char *trace_release, const char *meta_release,
			      const char *meta_build, struct sr_kgen *out)
{
	const char *rel = trace_release;

	if (sr_kgen_parse(rel, SR_KGEN_SRC_RECORDING, out) < 0) {
		rel = meta_release;
		sr_kgen_parse(rel, SR_KGEN_SRC_RECORDING, out);
	}
	sr_kgen_build(out, meta_build);
	return rel;
}

int sr_kgen_has(const struct sr_kgen *g, enum sr_kfeat f)
{
	return g && f >= 0 && f < SR_KF__COUNT && (g->feat >> f) & 1;
}

unsigned long long sr_kgen_base_slice_ns(const struct sr_kgen *g)
{
	return sr_kgen_has(g, SR_KF_BASE_SLICE_700US) ? 700000ULL : 750000ULL;
}

const char *sr_kfeat_name(enum sr_kfeat f)
{
	return f >= 0 && f < SR_KF__COUNT ? feats[f].name : "?";
}

const char *sr_kgen_source_name(enum sr_kgen_source s)
{
	switch (s) {
	case SR_KGEN_SRC_RECORDING:
		return "recording";
	case SR_KGEN_SRC_OPTION:
		return "--kernel";
	default:
		return "none";
	}
}

void sr_kgen_describe(const struct sr_kgen *g, char *buf, size_t len)
{
	size_t l;
	int f, n = 0;

	if (!len)
		return;
	if (!g || !g->major) {
		snprintf(buf, len, "unknown (no kernel release in the trace): modelled as 6.1 "
			 "(CFS, no delayed dequeue); give --kernel");
		return;
	}
	if (g->sublevel >= 0 && g->build[0])
		snprintf(buf, len, "%d.%d.%d (%s %s, built as %s):", g->major, g->minor,
			 g->sublevel, sr_kgen_source_name(g->source), g->release, g->build);
	else if (g->sublevel >= 0)
		snprintf(buf, len, "%d.%d.%d (%s %s):", g->major, g->minor, g->sublevel,
			 sr_kgen_source_name(g->source), g->release);
	else
		snprintf(buf, len, "%d.%d.y (%s %s; sublevel not in the release: newest "
			 "stable assumed):", g->major, g->minor, sr_kgen_source_name(g->source),
			 g->release);
	if (!sr_kgen_has(g, SR_KF_EEVDF)) {
		l = strlen(buf);
		snprintf(buf + l, len - l, " CFS, no delayed dequeue");
		n++;
	}
	for (f = 0; f < SR_KF__COUNT; f++) {
		if (!sr_kgen_has(g, f))
			continue;
		l = strlen(buf);
		snprintf(buf + l, len - l, "%s %s", n++ ? "," : "", feats[f].name);
	}
	l = strlen(buf);
	if (sr_kgen_range(g) > 0)
		snprintf(buf + l, len - l, "; newer than %d.%d, the newest release whose "
			 "changes are modelled: later ones are not", newest.major, newest.minor);
	else if (sr_kgen_range(g) < 0)
		snprintf(buf + l, len - l, "; older than %d.%d, the oldest release whose "
			 "changes are modelled: earlier ones are not (-m v4.15 is the 4.15 model)",
			 oldest.major, oldest.minor);
}
