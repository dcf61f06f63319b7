// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a run's figures (replay/runmetrics.c): on the recorded
 * pipe pair and fork-and-wait of tests/fixtures/demand/ (through the demand
 * extraction, as simulate measures a recording), and on facts fed by hand
 * for migrations across LLCs and nodes and for idle-while-waiting.
 */
#include <math.h>
#include <stdlib.h>

#include "schedreplay/demand.h"
#include "schedreplay/runmetrics.h"
#include "unit.h"

#define FIX "tests/fixtures/demand/"

#define CHECK_NEAR(a, b, tol, ...) CHECK(fabs((double)(a) - (double)(b)) <= (tol), __VA_ARGS__)

static int recorded(const char *name, const struct sr_topology *topo, struct sr_run_metrics *out)
{
	struct sr_demand *d = NULL;
	struct sr_rm *rm = sr_rm_new(topo, 4, 0);
	char *cause = NULL;
	int ret;

	ret = sr_demand_from_trace(name, rm, &d, &cause);
	CHECK(ret == 0, "%s: extracted with figures (%s)", name, cause ? cause : "ok");
	if (!ret)
		sr_rm_finish(rm, d->t1, out);
	free(cause);
	sr_demand_free(d);
	sr_rm_free(rm);
	return ret;
}

static void test_pipe_pair(const struct sr_topology *flat)
{
	struct sr_run_metrics m;

	if (recorded(FIX "pipe-pair.txt", flat, &m))
		return;
	CHECK_NEAR(m.makespan_s, 450e-6, 1e-12, "pipe pair: no exit, the whole span (%g s)",
		   m.makespan_s);
	CHECK_EQ(m.migrations, 0, "each ran on its own CPU");
	CHECK_EQ(m.wakeups, 4, "four wakeups (one early)");
	CHECK_NEAR(m.lat_mean_us, 16.25, 1e-9, "mean latency 16.25 us (%g)", m.lat_mean_us);
	CHECK_NEAR(m.lat_max_us, 20, 1e-9, "max latency 20 us");
	CHECK_NEAR(m.lat_p50_us, 15, 15 * 0.025, "p50 about 15 us (%g)", m.lat_p50_us);
	CHECK_NEAR(m.lat_p99_us, 20, 20 * 0.025, "p99 about 20 us (%g)", m.lat_p99_us);
	CHECK_EQ(m.nnodes, 1, "one node");
	CHECK_NEAR(m.busy_pct_per_node[0], 100.0 * 565 / 900, 1e-9, "busy 565 of 900 CPU-us (%g %%)",
		   m.busy_pct_per_node[0]);
	CHECK_NEAR(m.idle_while_waiting_s, 65e-6, 1e-12, "65 us idle while a task waited (%g)",
		   m.idle_while_waiting_s);
}

static void test_fork_wait(const struct sr_topology *flat)
{
	struct sr_run_metrics m;

	if (recorded(FIX "fork-wait.txt", flat, &m))
		return;
	CHECK_NEAR(m.makespan_s, 520e-6, 1e-12, "fork-wait: ends at the child's exit (%g s)",
		   m.makespan_s);
	CHECK_EQ(m.wakeups, 1, "the parent's wakeup is a sample, the child's first run is not");
	CHECK_NEAR(m.lat_mean_us, 20, 1e-9, "20 us");
	/* up to the exit: cpu0 ran 70 us, cpu1 460 us (.060 to .520) */
	CHECK_NEAR(m.busy_pct_per_node[0], 100.0 * 530 / 1040, 1e-9, "busy to the exit (%g %%)",
		   m.busy_pct_per_node[0]);
	/* the child waited 10 us (.050-.060) with cpu1 idle, the parent from its
	 * wakeup at .510 to the exit with cpu0 idle */
	CHECK_NEAR(m.idle_while_waiting_s, 20e-6, 1e-12, "20 us idle while a task waited (%g)",
		   m.idle_while_waiting_s);
}

static void test_migrations(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_run_metrics m;
	struct sr_rm *rm;

	CHECK(t && !sr_topology_build_domains(t), "preset 2x2x1");
	if (!t)
		return;
	rm = sr_rm_new(t, 2, 1000);
	/* task 0: cpu0, cpu1 (same LLC), cpu2 (other node); task 1 waits meanwhile */
	sr_rm_switch(rm, 1000, 0, 0, 0);
	sr_rm_wakeup(rm, 1000, 1, 1);
	sr_rm_switch(rm, 2000, 0, 1, -1);
	sr_rm_switch(rm, 2000, 1, 0, 0);
	sr_rm_switch(rm, 3000, 1, 1, -1);
	sr_rm_switch(rm, 3000, 2, 0, 0);
	sr_rm_switch(rm, 4000, 3, 0, 1);
	sr_rm_switch(rm, 5000, 2, 0, -1);
	sr_rm_switch(rm, 5000, 3, 0, -1);
	sr_rm_finish(rm, 5000, &m);
	CHECK_EQ(m.migrations, 2, "two moves");
	CHECK_EQ(m.migrations_cross_llc, 1, "one across LLCs");
	CHECK_EQ(m.migrations_cross_node, 1, "one across nodes");
	CHECK_EQ(m.wakeups, 1, "one latency sample");
	CHECK_NEAR(m.lat_max_us, 3, 1e-9, "3 us");
	/* task 1 waited 1000-4000 with 3 CPUs idle */
	CHECK_NEAR(m.idle_while_waiting_s, 3e-6, 1e-12, "3 us of idle while waiting (%g)",
		   m.idle_while_waiting_s);
	CHECK_EQ(m.nnodes, 2, "two nodes");
	CHECK_NEAR(m.busy_pct_per_node[0], 100.0 * 2000 / 8000, 1e-9, "node 0 busy 25 %%");
	CHECK_NEAR(m.busy_pct_per_node[1], 100.0 * 3000 / 8000, 1e-9, "node 1 busy 37.5 %%");
	sr_rm_free(rm);
	sr_topology_free(t);
}

int main(void)
{
	struct sr_topology *flat = sr_topology_new_flat(2, SR_ERA_MAINLINE);

	sr_topology_build_domains(flat);
	test_pipe_pair(flat);
	test_fork_wait(flat);
	test_migrations();
	sr_topology_free(flat);
	return unit_done();
}
