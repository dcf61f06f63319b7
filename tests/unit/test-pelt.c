// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the PELT arithmetic (schedreplay-models(7) §3).  Exact values are
 * derived by hand from the kernel's integer formulas (noted beside each) or
 * from a separate integer model built on the kernel's published sched-pelt.h
 * table; a brute-force floating-point series, weighting the time spent in
 * each period by y^age, checks that the integer signals stay within
 * rounding of the real geometric average.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/pelt.h"
#include "unit.h"

#define PERIOD_NS	(1ULL << 20)		/* 1024 units of 1024 ns */
#define T0		(1ULL << 30)		/* a period boundary, not 0 */
#define MIN_DIVIDER	(SR_PELT_MAX - 1024)	/* 46718 */

/* a zeroed signal whose clock starts at T0 with period_contrib 0 */
static void start(struct sr_pelt *sa)
{
	memset(sa, 0, sizeof(*sa));
	CHECK_EQ(sr_pelt_update(sa, T0, 1, 1, 1, 1024), 0, "first update only starts the clock");
}

static void check_table(void)
{
	int n, ok = 1, mono = 1;
	uint64_t prev = UINT64_MAX;

	/* decay_load(2^32, n) = (2^32 * yN_inv[n]) >> 32 = yN_inv[n] */
	CHECK_EQ(sr_pelt_decay_load(1ULL << 32, 0), 0xffffffffLL, "yN_inv[0] = 0xffffffff");
	CHECK_EQ(sr_pelt_decay_load(1ULL << 32, 16), 0xb504f333LL, "yN_inv[16] = 0xb504f333");
	CHECK_EQ(sr_pelt_decay_load(1ULL << 32, 31), 0x82cd8698LL, "yN_inv[31] = 0x82cd8698");
	/* sched-pelt.c truncates (2^32 - 1) y^n, so ref - 1 < entry <= ref */
	for (n = 0; n < SR_PELT_PERIOD; n++) {
		uint64_t t = sr_pelt_decay_load(1ULL << 32, n);
		double ref = 4294967295.0 * exp2(-n / 32.0);

		if ((double)t > ref + 1e-6 || (double)t <= ref - 1.0 - 1e-6) {
			ok = 0;
			printf("#   yN_inv[%d] = %#llx, (2^32 - 1) y^n = %.2f\n", n,
			       (unsigned long long)t, ref);
		}
		if (t >= prev)
			mono = 0;
		prev = t;
	}
	CHECK(ok, "yN_inv[n] = floor((2^32 - 1) 2^(-n/32)) for all 32 entries");
	CHECK(mono, "yN_inv strictly decreasing");
}

static void check_decay_load(void)
{
	uint64_t m = 1024, next;
	int i;

	/* n = 32: (x >> 1) * (2^32 - 1) >> 32 = x/2 - 1, not x/2 */
	CHECK_EQ(sr_pelt_decay_load(1000, 32), 499, "decay_load(1000, 32) = 1000/2 - 1");
	CHECK_EQ(sr_pelt_decay_load(47839232, 32), 23919615, "decay_load(1024*46718, 32)");
	CHECK_EQ(sr_pelt_decay_load(1000, 0), 999, "decay_load(x, 0) = x - 1 (0xffffffff)");
	CHECK_EQ(sr_pelt_decay_load(0, 5), 0, "decay_load(0, n) = 0");
	CHECK_EQ(sr_pelt_decay_load(1024, 1), 1002, "decay_load(1024, 1) = 1024 y = 1002");
	CHECK_EQ(sr_pelt_decay_load(SR_PELT_MAX, 1), MIN_DIVIDER,
		 "LOAD_AVG_MAX y = LOAD_AVG_MAX - 1024");
	/* 2^40 >> 2 = 2^38, times (2^32 - 1) >> 32 = 2^38 - 2^6: no 64-bit overflow */
	CHECK_EQ(sr_pelt_decay_load(1ULL << 40, 64), (1LL << 38) - 64, "decay_load(2^40, 64)");
	/* (2^64 - 1) >> 62 = 3, 3 * yN_inv[31] >> 32 = 1 */
	CHECK_EQ(sr_pelt_decay_load(UINT64_MAX, 32 * 63 - 1), 1, "decay_load(max, 2015) = 1");
	CHECK_EQ(sr_pelt_decay_load(UINT64_MAX, 32 * 63), 0, "decay_load(max, 32*63) = 0");
	CHECK_EQ(sr_pelt_decay_load(UINT64_MAX, 32 * 63 + 1), 0, "decay_load beyond 32*63 = 0");
	CHECK_EQ(sr_pelt_decay_load(1000, 1ULL << 40), 0, "decay_load(x, 2^40) = 0");

	/* sched-pelt.c's calc_converged_max(): max = max y + 1024 until fixed */
	for (i = 0; i < 1000; i++) {
		next = sr_pelt_decay_load(m, 1) + 1024;
		if (next == m)
			break;
		m = next;
	}
	CHECK_EQ(m, SR_PELT_MAX, "converged max of the integer series = LOAD_AVG_MAX");

	/*
	 * against x y^n in floating point: the shift by n/32 loses < 1, the
	 * table entry is low by < 2^-31 relative and the final shift loses < 1
	 */
	for (i = 0; i < 2016; i += 7) {
		double ref = 123456789.0 * exp2(-i / 32.0);
		uint64_t v = sr_pelt_decay_load(123456789, i);

		if ((double)v > ref || (double)v < ref - 2.0 - ref * 0x1p-31)
			break;
	}
	CHECK(i >= 2016, "decay_load(123456789, n) within 2 below x y^n");
}

static void check_clock(void)
{
	struct sr_pelt sa, before;

	start(&sa);
	CHECK_EQ(sa.last_update, T0, "clock started at T0");

	/* less than one 1024 ns unit: nothing happens */
	before = sa;
	CHECK_EQ(sr_pelt_update(&sa, T0 + 1023, 1, 1, 1, 1024), 0, "1023 ns: no change");
	CHECK(!memcmp(&sa, &before, sizeof(sa)), "1023 ns: signal untouched");

	/* 1500 ns = 1 unit; the 476 ns residue stays ahead of last_update */
	CHECK_EQ(sr_pelt_update(&sa, T0 + 1500, 1, 1, 1, 1024), 0, "1500 ns: no period crossed");
	CHECK_EQ(sa.last_update, T0 + 1024, "last_update advanced by whole units");
	CHECK_EQ(sa.load_sum, 1, "1 unit accrued to load_sum");
	CHECK_EQ(sa.util_sum, 1024, "1 unit accrued to util_sum (<< 10)");
	CHECK_EQ(sa.period_contrib, 1, "period_contrib = 1");
	CHECK_EQ(sa.util_avg, 0, "averages not recomputed within a period");

	/* the residue counts: 1500 + 548 = 2048 ns since T0 = 2 units */
	CHECK_EQ(sr_pelt_update(&sa, T0 + 2048, 1, 1, 1, 1024), 0, "residue carried");
	CHECK_EQ(sa.last_update, T0 + 2048, "last_update on the unit grid");
	CHECK_EQ(sa.period_contrib, 2, "period_contrib = 2");

	/* time going backwards resyncs and changes nothing else */
	before = sa;
	CHECK_EQ(sr_pelt_update(&sa, T0, 1, 1, 1, 1024), 0, "backwards: no change");
	CHECK_EQ(sa.last_update, T0, "backwards: clock resynced");
	CHECK_EQ(sa.load_sum, before.load_sum, "backwards: sums kept");
}

static void check_saturation(void)
{
	struct sr_pelt sa;

	/*
	 * Running from 0 for p >= 512 periods in one update: decay_load(1024, p)
	 * and decay_load(47742, p) are 0 (shifted out), so contrib = 47742 -
	 * 1024 = 46718 = the divider, and every average is exactly full.
	 */
	start(&sa);
	CHECK_EQ(sr_pelt_update(&sa, T0 + 600 * PERIOD_NS, 1, 1, 1, 1024), 1, "600 periods");
	CHECK_EQ(sa.load_sum, 46718, "load_sum = 46718");
	CHECK_EQ(sa.util_sum, 46718 * 1024, "util_sum = 46718 << 10");
	CHECK_EQ(sa.runnable_sum, 46718 * 1024, "runnable_sum = 46718 << 10");
	CHECK_EQ(sa.period_contrib, 0, "period_contrib = 0");
	CHECK_EQ(sa.load_avg, 1024, "saturated load_avg = 1024");
	CHECK_EQ(sa.runnable_avg, 1024, "saturated runnable_avg = 1024");
	CHECK_EQ(sa.util_avg, 1024, "saturated util_avg = 1024");

	/* blocked for 32 periods: sums x/2 - 1, so 511 rather than 512 */
	CHECK_EQ(sr_pelt_update(&sa, T0 + 632 * PERIOD_NS, 0, 0, 0, 1024), 1, "blocked 32");
	CHECK_EQ(sa.load_sum, 23358, "blocked 32: load_sum = 46718/2 - 1");
	CHECK_EQ(sa.util_sum, 23919615, "blocked 32: util_sum = 23919616 - 1");
	CHECK_EQ(sa.load_avg, 511, "blocked 32: load_avg = 1024*23358/46718 = 511");
	CHECK_EQ(sa.util_avg, 511, "blocked 32: util_avg = 23919615/46718 = 511");
	CHECK_EQ(sa.runnable_avg, 511, "blocked 32: runnable_avg = 511");

	/* load = 0 forces runnable = running = 0: the same as blocked */
	start(&sa);
	sr_pelt_update(&sa, T0 + 600 * PERIOD_NS, 1, 1, 1, 1024);
	sr_pelt_update(&sa, T0 + 632 * PERIOD_NS, 0, 1, 1, 1024);
	CHECK_EQ(sa.util_sum, 23919615, "load 0, running 1: util_sum only decays");
	CHECK_EQ(sa.runnable_sum, 23919615, "load 0, runnable 1: runnable_sum only decays");
	CHECK_EQ(sa.util_avg, 511, "load 0, running 1: util_avg 511");

	/* the same 32 periods one at a time truncate 32 times */
	start(&sa);
	sr_pelt_update(&sa, T0 + 600 * PERIOD_NS, 1, 1, 1, 1024);
	for (int i = 1; i <= 32; i++)
		sr_pelt_update(&sa, T0 + (600 + i) * PERIOD_NS, 0, 0, 0, 1024);
	CHECK_EQ(sa.load_sum, 23346, "blocked 32 x 1 period: load_sum = 23346");
	CHECK_EQ(sa.util_sum, 23919603, "blocked 32 x 1 period: util_sum = 23919603");
	CHECK_EQ(sa.load_avg, 511, "blocked 32 x 1 period: load_avg 511");
	CHECK_EQ(sa.util_avg, 511, "blocked 32 x 1 period: util_avg 511");

	/* a weight scales load_avg only: nice -20 saturates at its weight */
	start(&sa);
	sr_pelt_update(&sa, T0 + 600 * PERIOD_NS, 1, 1, 0, 88761);
	CHECK_EQ(sa.load_avg, 88761, "saturated nice -20 load_avg = 88761");
	CHECK_EQ(sa.util_avg, 0, "runnable but not running: util_avg 0");
	CHECK_EQ(sa.runnable_avg, 1024, "runnable but not running: runnable_avg 1024");

	/* a cfs_rq: load = sum of weights, runnable = count, weight 1 */
	start(&sa);
	sr_pelt_update(&sa, T0 + 600 * PERIOD_NS, 2048, 2, 1, 1);
	CHECK_EQ(sa.load_sum, 2048LL * 46718, "cfs_rq load_sum = 2048 * 46718");
	CHECK_EQ(sa.load_avg, 2048, "cfs_rq load_avg = 2048");
	CHECK_EQ(sa.runnable_avg, 2048, "cfs_rq runnable_avg = 2 * 1024");
	CHECK_EQ(sa.util_avg, 1024, "cfs_rq util_avg = 1024");
}

static void check_divider(void)
{
	struct sr_pelt sa;

	/*
	 * 600 periods + 300 units: contrib = 46718 + 300 and period_contrib =
	 * 300; only divider = 46718 + 300 keeps the average at exactly 1024
	 * (46718 alone would give 1030)
	 */
	start(&sa);
	CHECK_EQ(sr_pelt_update(&sa, T0 + 600 * PERIOD_NS + 300 * 1024, 1, 1, 1, 1024), 1,
		 "600 periods + 300 units");
	CHECK_EQ(sa.period_contrib, 300, "period_contrib = 300");
	CHECK_EQ(sa.load_sum, 47018, "load_sum = 46718 + 300");
	CHECK_EQ(sa.util_avg, 1024, "util_avg = 47018*1024 / (46718 + 300) = 1024");
	CHECK_EQ(sa.load_avg, 1024, "load_avg = 1024");

	/* within the period: sums move, averages wait for the boundary */
	CHECK_EQ(sr_pelt_update(&sa, T0 + 600 * PERIOD_NS + 800 * 1024, 0, 0, 0, 1024), 0,
		 "sub-period update");
	CHECK_EQ(sa.period_contrib, 800, "period_contrib = 800");
	CHECK_EQ(sa.load_sum, 47018, "blocked sub-period: sum unchanged");
	CHECK_EQ(sa.util_avg, 1024, "sub-period: util_avg unchanged");

	/* 32 periods blocked from period_contrib 300: 47018/2 - 1 = 23508 */
	start(&sa);
	sr_pelt_update(&sa, T0 + 600 * PERIOD_NS + 300 * 1024, 1, 1, 1, 1024);
	sr_pelt_update(&sa, T0 + 632 * PERIOD_NS + 300 * 1024, 0, 0, 0, 1024);
	CHECK_EQ(sa.load_sum, 23508, "blocked 32 from contrib 300: load_sum 23508");
	CHECK_EQ(sa.load_avg, 511, "blocked 32 from contrib 300: 1024*23508/47018 = 511");
}

static void check_steady_state(void)
{
	struct sr_pelt sa;
	int i;

	/*
	 * Running, updated at every boundary: contrib = decay_load(1024, 1) +
	 * 0 + 0 = 1002 each time, so load_sum -> fixed point of s = s y + 1002
	 * (46715) and util_sum -> of s = s y + 1002 << 10 (47883609): load_avg
	 * = 1024*46715/46718 = 1023, util_avg = 47883609/46718 = 1024.
	 */
	start(&sa);
	for (i = 1; i <= 2000; i++)
		sr_pelt_update(&sa, T0 + i * PERIOD_NS, 1, 1, 1, 1024);
	CHECK_EQ(sa.load_sum, 46715, "always running: load_sum = 46715");
	CHECK_EQ(sa.util_sum, 47883609, "always running: util_sum = 47883609");
	CHECK_EQ(sa.load_avg, 1023, "always running: load_avg = 1023");
	CHECK_EQ(sa.util_avg, 1024, "always running: util_avg = 1024");
	CHECK_EQ(sa.runnable_avg, 1024, "always running: runnable_avg = 1024");
	for (; i <= 2100; i++)
		sr_pelt_update(&sa, T0 + i * PERIOD_NS, 1, 1, 1, 1024);
	CHECK_EQ(sa.util_sum, 47883609, "always running: a fixed point");

	/* runnable, waiting: load and runnable as above, no util */
	start(&sa);
	for (i = 1; i <= 2000; i++)
		sr_pelt_update(&sa, T0 + i * PERIOD_NS, 1, 1, 0, 1024);
	CHECK_EQ(sa.load_avg, 1023, "always queued nice 0: load_avg 1023");
	CHECK_EQ(sa.runnable_avg, 1024, "always queued: runnable_avg 1024");
	CHECK_EQ(sa.util_avg, 0, "always queued: util_avg 0");
	start(&sa);
	for (i = 1; i <= 2000; i++)
		sr_pelt_update(&sa, T0 + i * PERIOD_NS, 1, 1, 0, 88761);
	CHECK_EQ(sa.load_avg, 88755, "always queued nice -20: 88761*46715/46718 = 88755");
	start(&sa);
	for (i = 1; i <= 2000; i++)
		sr_pelt_update(&sa, T0 + i * PERIOD_NS, 1, 1, 0, 15);
	CHECK_EQ(sa.load_avg, 14, "always queued nice 19: 15*46715/46718 = 14");

	/*
	 * Runs the first half of each period, blocks the second.  At the
	 * boundary the sums hold 512 y + 512 y^2 + ...: util_avg ~ 512.
	 */
	start(&sa);
	for (i = 0; i < 2000; i++) {
		sr_pelt_update(&sa, T0 + i * PERIOD_NS + PERIOD_NS / 2, 1, 1, 1, 1024);
		sr_pelt_update(&sa, T0 + (i + 1) * PERIOD_NS, 0, 0, 0, 1024);
	}
	CHECK_EQ(sa.load_sum, 23336, "50%%: load_sum 23336");
	CHECK_EQ(sa.util_sum, 23943162, "50%%: util_sum 23943162");
	CHECK_EQ(sa.load_avg, 511, "50%%: load_avg 511");
	CHECK_EQ(sa.runnable_avg, 512, "50%%: runnable_avg 512");
	CHECK_EQ(sa.util_avg, 512, "50%%: util_avg 512");
	CHECK_EQ(sr_pelt_update(&sa, T0 + 2000 * PERIOD_NS + PERIOD_NS / 2, 1, 1, 1, 1024), 0,
		 "50%%: mid-period update crosses nothing");
	CHECK_EQ(sa.load_sum, 23336 + 512, "50%%: mid-period load_sum + 512");
	CHECK_EQ(sa.util_avg, 512, "50%%: mid-period util_avg unchanged");
}

static void check_init(void)
{
	struct sr_pelt sa;

	sr_pelt_init_task(&sa, T0, 1024);
	CHECK_EQ(sa.last_update, T0, "init: clock at now");
	CHECK_EQ(sa.load_avg, 1024, "init: load_avg = weight");
	CHECK_EQ(sa.load_sum, 46718, "init: load_sum = divider (attach_entity_load_avg)");
	CHECK_EQ(sa.util_avg, 0, "init: util_avg 0 (set by post_init_entity_util_avg)");
	CHECK_EQ(sa.period_contrib, 0, "init: period_contrib 0");

	/* one period running: 46718 y + 1002 = 46718, the load stays full */
	CHECK_EQ(sr_pelt_update(&sa, T0 + PERIOD_NS, 1, 1, 1, 1024), 1, "init + 1 period");
	CHECK_EQ(sa.load_sum, 46718, "init + 1 period running: load_sum 46718");
	CHECK_EQ(sa.load_avg, 1024, "init + 1 period running: load_avg 1024");
	CHECK_EQ(sa.util_avg, 21, "init + 1 period running: util_avg = 1002*1024/46718 = 21");

	/* a new task that sleeps at once: half after 32 periods */
	sr_pelt_init_task(&sa, T0, 1024);
	sr_pelt_update(&sa, T0 + 32 * PERIOD_NS, 0, 0, 0, 1024);
	CHECK_EQ(sa.load_sum, 23358, "init + blocked 32: load_sum 23358");
	CHECK_EQ(sa.load_avg, 511, "init + blocked 32: load_avg 511");

	sr_pelt_init_task(&sa, T0, 88761);
	CHECK_EQ(sa.load_avg, 88761, "init nice -20: load_avg 88761");
	CHECK_EQ(sa.load_sum, 46718, "init nice -20: load_sum 46718");
}

/*
 * Brute force: time spent in period k (of units since T0) counts y^(P - k)
 * at the current period P; the average divides by the kernel's divider.
 */
#define REF_PERIODS	20000
static double ref_load[REF_PERIODS], ref_run[REF_PERIODS], ref_util[REF_PERIODS];

static void ref_add(double *per, uint64_t a, uint64_t b, double amount)
{
	while (a < b) {
		uint64_t k = a / 1024, end = (k + 1) * 1024;

		if (end > b)
			end = b;
		per[k] += amount * (double)(end - a);
		a = end;
	}
}

static double ref_sum(const double *per, uint64_t now_units)
{
	uint64_t p = now_units / 1024, k;
	double s = 0;

	for (k = 0; k <= p; k++)
		s += per[k] * exp2(-(double)(p - k) / 32.0);
	return s;
}

static void check_reference(void)
{
	struct sr_pelt sa;
	uint64_t now = T0, u_prev = 0, u_now, weight = 1024;
	double worst_load = 0, worst_run = 0, worst_util = 0;
	int crossings_ok = 1, compared = 0;

	srand(12345);
	start(&sa);
	for (;;) {
		int state = rand() % 3;		/* 0 blocked, 1 queued, 2 running */
		uint64_t len;

		switch (rand() % 4) {
		case 0:
			len = (uint64_t)(rand() % 2000);		/* sub-unit and sub-period */
			break;
		case 1:
			len = (uint64_t)(rand() % (int)PERIOD_NS);
			break;
		case 2:
			len = (uint64_t)(rand() % (int)(4 * PERIOD_NS));
			break;
		default:
			len = (uint64_t)(rand() % (int)(40 * PERIOD_NS));
			break;
		}
		now += len;
		u_now = (now - T0) >> 10;
		if (u_now / 1024 >= REF_PERIODS)
			break;
		ref_add(ref_load, u_prev, u_now, state ? 1.0 : 0.0);
		ref_add(ref_run, u_prev, u_now, state ? 1.0 : 0.0);
		ref_add(ref_util, u_prev, u_now, state == 2 ? 1.0 : 0.0);

		int ret = sr_pelt_update(&sa, now, state ? 1 : 0, state ? 1 : 0, state == 2, weight);

		if (ret != (u_now / 1024 != u_prev / 1024))
			crossings_ok = 0;
		if (ret) {
			double div = MIN_DIVIDER + (double)(u_now % 1024);
			double l = weight * ref_sum(ref_load, u_now) / div;
			double r = 1024 * ref_sum(ref_run, u_now) / div;
			double ut = 1024 * ref_sum(ref_util, u_now) / div;

			worst_load = fmax(worst_load, fabs((double)sa.load_avg - l));
			worst_run = fmax(worst_run, fabs((double)sa.runnable_avg - r));
			worst_util = fmax(worst_util, fabs((double)sa.util_avg - ut));
			compared++;
		}
		u_prev = u_now;
	}
	printf("# %d averages compared; worst |int - float|: load %.3f runnable %.3f util %.3f\n",
	       compared, worst_load, worst_run, worst_util);
	CHECK(compared > 500, "random schedule: enough period crossings compared");
	CHECK(crossings_ok, "update returns 1 exactly when a period boundary is crossed");
	CHECK(worst_load < 3.0, "random schedule: load_avg within 3 of the float series");
	CHECK(worst_run < 3.0, "random schedule: runnable_avg within 3 of the float series");
	CHECK(worst_util < 3.0, "random schedule: util_avg within 3 of the float series");
}

static void check_weights(void)
{
	CHECK_EQ(sr_prio_to_weight(120), 1024, "prio 120 (nice 0) = 1024");
	CHECK_EQ(sr_prio_to_weight(100), 88761, "prio 100 (nice -20) = 88761");
	CHECK_EQ(sr_prio_to_weight(139), 15, "prio 139 (nice 19) = 15");
	CHECK_EQ(sr_prio_to_weight(110), 9548, "prio 110 (nice -10) = 9548");
	CHECK_EQ(sr_prio_to_weight(121), 820, "prio 121 (nice 1) = 820");
	CHECK_EQ(sr_prio_to_weight(130), 110, "prio 130 (nice 10) = 110");
	CHECK_EQ(sr_prio_to_weight(99), 1024, "prio 99 (rt) = 1024");
	CHECK_EQ(sr_prio_to_weight(140), 1024, "prio 140 = 1024");
	CHECK_EQ(sr_prio_to_weight(-1), 1024, "prio -1 (deadline) = 1024");

	/* each nice step is ~1.25x (the table's design; 18/15 rounds to 1.2) */
	int ok = 1;

	for (int p = 100; p < 139; p++) {
		double q = (double)sr_prio_to_weight(p) / (double)sr_prio_to_weight(p + 1);

		if (q < 1.25 * 0.95 || q > 1.25 * 1.05)
			ok = 0;
	}
	CHECK(ok, "adjacent weights differ by ~1.25x");
}

/*
 * sr_pelt_align(): attach_entity_load_avg()'s decay window.  The entity
 * takes the cfs_rq's last_update and period_contrib and rebuilds its sums
 * from its averages there, so both cross the next period boundary at the
 * same update: a task that runs 800 us from 700 units into the cfs_rq's
 * period recomputes its averages at its dequeue, as the cfs_rq does.
 */
static void check_align(void)
{
	struct sr_pelt cfs, se, own;
	uint64_t t0 = 1000000000ULL, divider;
	int crossed;

	start(&cfs);
	cfs.last_update = t0;
	cfs.period_contrib = 700;
	cfs.util_avg = 500;
	memset(&se, 0, sizeof(se));
	se.last_update = t0 + 5000;
	se.period_contrib = 0;
	se.load_avg = 1024;
	se.util_avg = 300;
	se.runnable_avg = 310;
	own = se;
	sr_pelt_align(&se, &cfs, 1024);
	divider = MIN_DIVIDER + 700;
	CHECK_EQ(se.last_update, t0, "aligned: the cfs_rq's last_update");
	CHECK_EQ(se.period_contrib, 700, "aligned: the cfs_rq's period_contrib");
	CHECK_EQ(se.util_sum, 300 * divider, "util_sum = util_avg * divider");
	CHECK_EQ(se.runnable_sum, 310 * divider, "runnable_sum = runnable_avg * divider");
	CHECK_EQ(se.load_sum, 1024 * divider / 1024, "load_sum = load_avg * divider / weight");
	CHECK_EQ(se.util_avg, 300, "the averages are kept");
	crossed = sr_pelt_update(&se, t0 + 800 * 1024, 1, 1, 1, 1024);
	CHECK_EQ(crossed, 1, "aligned: 800 us of running from 700 units crosses the boundary");
	CHECK(se.util_avg > 300, "... and the running time is in util_avg");
	crossed = sr_pelt_update(&own, t0 + 5000 + 800 * 1024, 1, 1, 1, 1024);
	CHECK_EQ(crossed, 0, "a window of its own: the same 800 us cross none");
	CHECK_EQ(own.util_avg, 300, "... and its util_avg stays");
	start(&cfs);
	cfs.last_update = 0;
	own.last_update = 77;
	sr_pelt_align(&own, &cfs, 1024);
	CHECK_EQ(own.last_update, 77, "a cfs_rq never updated leaves the entity's clock");
}

int main(void)
{
	check_table();
	check_decay_load();
	check_clock();
	check_saturation();
	check_divider();
	check_steady_state();
	check_init();
	check_reference();
	check_weights();
	check_align();
	return unit_done();
}
