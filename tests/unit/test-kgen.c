// SPDX-License-Identifier: GPL-2.0
/* the kernel generation of a release string (src/kgen.c) */
#include <string.h>

#include "schedreplay/kgen.h"
#include "unit.h"

int main(void)
{
	struct sr_kgen g;
	char buf[512];

	CHECK_EQ(sr_kgen_parse("6.12.117+deb12-amd64", SR_KGEN_SRC_RECORDING, &g), 0,
		 "Debian 6.12 release parses");
	CHECK(g.major == 6 && g.minor == 12 && g.sublevel == 117, "6.12.117");
	CHECK(sr_kgen_has(&g, SR_KF_EEVDF), "6.12 has EEVDF");
	CHECK(sr_kgen_has(&g, SR_KF_DELAY_DEQUEUE), "6.12 has delayed dequeue");
	CHECK(sr_kgen_has(&g, SR_KF_DELAYED_NOT_RUNNABLE), "6.12.117 has 6.12.7's h_nr_delayed");
	CHECK(sr_kgen_has(&g, SR_KF_SYNC_NOT_DELAYED), "6.12.117 has 6.12.37's sync fix");
	CHECK(!sr_kgen_has(&g, SR_KF_LB_RUNNABLE), "6.12.117: balancer still counts delayed");
	CHECK(!sr_kgen_has(&g, SR_KF_LB_SKIP_DELAYED), "6.12.117: can_migrate_task moves delayed");

	CHECK_EQ(sr_kgen_parse("6.12.0", SR_KGEN_SRC_OPTION, &g), 0, "6.12.0 parses");
	CHECK(sr_kgen_has(&g, SR_KF_DELAY_DEQUEUE) && !sr_kgen_has(&g, SR_KF_DELAYED_NOT_RUNNABLE) &&
	      !sr_kgen_has(&g, SR_KF_SYNC_NOT_DELAYED), "6.12.0: delayed dequeue, no fixes yet");
	CHECK_EQ(sr_kgen_parse("6.12.36", SR_KGEN_SRC_OPTION, &g), 0, "6.12.36 parses");
	CHECK(sr_kgen_has(&g, SR_KF_DELAYED_NOT_RUNNABLE) && !sr_kgen_has(&g, SR_KF_SYNC_NOT_DELAYED),
	      "6.12.36: h_nr_delayed, not the sync fix");

	CHECK_EQ(sr_kgen_parse("6.1.0-57-amd64", SR_KGEN_SRC_RECORDING, &g), 0, "Debian 6.1 ABI name");
	CHECK(g.major == 6 && g.minor == 1 && g.sublevel == -1, "6.1.y, sublevel unknown");
	CHECK_EQ(g.feat, 1u << SR_KF_NI_RANDOM, "6.1.y: none of the later behaviours but NI_RANDOM");
	sr_kgen_describe(&g, buf, sizeof(buf));
	CHECK(strstr(buf, "6.1.y") && strstr(buf, "CFS"), "described: %s", buf);

	/* the sublevel from the build string (uname -v) of the same release */
	CHECK_EQ(sr_kgen_build(&g, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.85-1 (2024-04-11)"), 1,
		 "Debian 6.1.85-1: the sublevel taken");
	CHECK(g.sublevel == 85 && !strcmp(g.build, "Debian 6.1.85-1"), "6.1.85, built as %s",
	      g.build);
	CHECK_EQ(g.feat, 0u, "6.1.85: older than NI_RANDOM's backport (6.1.160)");
	sr_kgen_describe(&g, buf, sizeof(buf));
	CHECK(strstr(buf, "6.1.85 (recording 6.1.0-57-amd64, built as Debian 6.1.85-1)") != NULL,
	      "described: %s", buf);
	CHECK_EQ(sr_kgen_build(&g, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-01-01)"), 0,
		 "a known sublevel is kept");
	sr_kgen_parse("6.1.0-57-amd64", SR_KGEN_SRC_RECORDING, &g);
	CHECK_EQ(sr_kgen_build(&g, "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1~deb12u1 (2026)"), 0,
		 "another release's build string is not taken");
	CHECK_EQ(sr_kgen_build(&g, "#100-Ubuntu SMP PREEMPT_DYNAMIC Fri Jan 1"), 0,
		 "no Debian version: nothing taken");
	CHECK_EQ(sr_kgen_build(&g, NULL), 0, "no build string: nothing taken");
	CHECK(g.sublevel == -1 && g.feat == 1u << SR_KF_NI_RANDOM && !g.build[0],
	      "still 6.1.y, newest stable assumed");
	CHECK_EQ(sr_kgen_build(&g, "#1 SMP Debian 6.1.192-3 (2026-01-01)"), 1, "Debian 6.1.192-3");
	CHECK_EQ(g.feat, 1u << SR_KF_NI_RANDOM, "6.1.192: NI_RANDOM");

	CHECK_EQ(sr_kgen_parse("6.18.44", SR_KGEN_SRC_RECORDING, &g), 0, "6.18.44");
	CHECK_EQ(g.feat, (1u << SR_KF__COUNT) - 1, "6.18 has every behaviour");
	CHECK_EQ(sr_kgen_parse("6.6", SR_KGEN_SRC_OPTION, &g), 0, "6.6 without sublevel");
	CHECK_EQ(g.feat, 1u << SR_KF_EEVDF | 1u << SR_KF_SIBLING_IMBALANCE |
		 1u << SR_KF_FULLY_BUSY_LAST | 1u << SR_KF_LB_RUNNABLE_BOOST,
		 "6.6: EEVDF, sibling_imbalance(), the fully busy pick and runnable boosting only "
		 "(6.6.0: NI_RANDOM came in 6.6.120)");
	/* sibling_imbalance(): in Debian 6.12.117's fair.c, not in 6.1.192's */
	CHECK_EQ(sr_kgen_parse("6.1.192", SR_KGEN_SRC_OPTION, &g), 0, "6.1.192");
	CHECK(!sr_kgen_has(&g, SR_KF_SIBLING_IMBALANCE), "6.1.192: 6.1's prefer_sibling test");
	CHECK_EQ(sr_kgen_parse("6.12.117", SR_KGEN_SRC_OPTION, &g), 0, "6.12.117");
	CHECK(sr_kgen_has(&g, SR_KF_SIBLING_IMBALANCE), "6.12.117: sibling_imbalance()");
	/* the base slice: 0.70 ms in Debian 6.12.117's fair.c and from 6.15 */
	CHECK_EQ(sr_kgen_base_slice_ns(&g), 700000ULL, "6.12.117: a 0.70 ms base slice");
	CHECK_EQ(sr_kgen_parse("6.12.10", SR_KGEN_SRC_OPTION, &g), 0, "6.12.10");
	CHECK_EQ(sr_kgen_base_slice_ns(&g), 750000ULL, "6.12.10: 0.75 ms");
	CHECK_EQ(sr_kgen_parse("6.15.1", SR_KGEN_SRC_OPTION, &g), 0, "6.15.1");
	CHECK_EQ(sr_kgen_base_slice_ns(&g), 700000ULL, "6.15.1: 0.70 ms");
	CHECK_EQ(sr_kgen_parse("6.6.60", SR_KGEN_SRC_OPTION, &g), 0, "6.6.60");
	CHECK_EQ(sr_kgen_base_slice_ns(&g), 750000ULL, "6.6.60: 0.75 ms");
	CHECK_EQ(sr_kgen_base_slice_ns(NULL), 750000ULL, "unknown: 0.75 ms");
	/* update_cfs_group()'s empty-group return: Debian 6.12.117 and not 6.1.192 (checked) */
	CHECK_EQ(sr_kgen_parse("6.12.10", SR_KGEN_SRC_OPTION, &g), 0, "6.12.10 again");
	CHECK(!sr_kgen_has(&g, SR_KF_GROUP_KEEP_WEIGHT), "6.12.10: an emptied group is reweighted");
	CHECK_EQ(sr_kgen_parse("6.12.11", SR_KGEN_SRC_OPTION, &g), 0, "6.12.11");
	CHECK(sr_kgen_has(&g, SR_KF_GROUP_KEEP_WEIGHT), "6.12.11: an empty group keeps its weight");
	CHECK_EQ(sr_kgen_parse("6.1.192", SR_KGEN_SRC_OPTION, &g), 0, "6.1.192 again");
	CHECK(!sr_kgen_has(&g, SR_KF_GROUP_KEEP_WEIGHT), "6.1.192: an emptied group is reweighted");
	CHECK_EQ(sr_kgen_parse("6.13", SR_KGEN_SRC_OPTION, &g), 0, "6.13");
	CHECK(sr_kgen_has(&g, SR_KF_GROUP_KEEP_WEIGHT), "6.13: an empty group keeps its weight");
	/* NI_RANDOM: Debian 6.1.192 and 6.12.117 checked; the rest as noted in kgen.c */
	CHECK_EQ(sr_kgen_parse("6.1.159", SR_KGEN_SRC_OPTION, &g), 0, "6.1.159");
	CHECK(!sr_kgen_has(&g, SR_KF_NI_RANDOM), "6.1.159: no NI_RANDOM");
	CHECK_EQ(sr_kgen_parse("6.1.192", SR_KGEN_SRC_OPTION, &g), 0, "6.1.192");
	CHECK(sr_kgen_has(&g, SR_KF_NI_RANDOM) && !sr_kgen_has(&g, SR_KF_EEVDF), "6.1.192: NI_RANDOM, CFS");
	CHECK_EQ(sr_kgen_parse("6.12.116", SR_KGEN_SRC_OPTION, &g), 0, "6.12.116");
	CHECK(!sr_kgen_has(&g, SR_KF_NI_RANDOM), "6.12.116: no NI_RANDOM");
	CHECK_EQ(sr_kgen_parse("6.12.117", SR_KGEN_SRC_OPTION, &g), 0, "6.12.117 again");
	CHECK(sr_kgen_has(&g, SR_KF_NI_RANDOM), "6.12.117: NI_RANDOM");
	CHECK_EQ(sr_kgen_parse("6.18.4", SR_KGEN_SRC_OPTION, &g), 0, "6.18.4");
	CHECK(!sr_kgen_has(&g, SR_KF_NI_RANDOM), "6.18.4: no NI_RANDOM");
	CHECK_EQ(sr_kgen_parse("6.19", SR_KGEN_SRC_OPTION, &g), 0, "6.19");
	CHECK(sr_kgen_has(&g, SR_KF_NI_RANDOM), "6.19: NI_RANDOM");
	CHECK_EQ(sr_kgen_parse("v6.13-rc1", SR_KGEN_SRC_OPTION, &g), 0, "v6.13-rc1");
	CHECK(sr_kgen_has(&g, SR_KF_DELAYED_NOT_RUNNABLE), "6.13 has h_nr_delayed");

	CHECK_EQ(sr_kgen_parse("", SR_KGEN_SRC_RECORDING, &g), -1, "empty refused");
	CHECK_EQ(sr_kgen_parse("linux", SR_KGEN_SRC_OPTION, &g), -1, "word refused");
	CHECK_EQ(sr_kgen_parse("6", SR_KGEN_SRC_OPTION, &g), -1, "no minor refused");
	CHECK_EQ(sr_kgen_parse("6.12x", SR_KGEN_SRC_OPTION, &g), -1, "trailing junk refused");
	CHECK(!g.feat && !g.major, "a refused release has no behaviours");
	sr_kgen_describe(&g, buf, sizeof(buf));
	CHECK(strstr(buf, "unknown") != NULL, "unknown described: %s", buf);
	CHECK_EQ(sr_kgen_parse(NULL, SR_KGEN_SRC_RECORDING, &g), -1, "NULL refused");
	return unit_done();
}
