// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for topologies and their sched-domain hierarchies
 * (schedreplay-models(7) §2.3, §4): presets with x86 numbering, flat, the
 * topology file format with its fixtures and errors, degeneration, the
 * era defaults and the write/read round trip.  Run from the repo top.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedreplay/topology.h"
#include "schedreplay/error.h"
#include "unit.h"

#define FIX "tests/fixtures/topology/"

#define DEF	(SR_SD_BALANCE_NEWIDLE | SR_SD_BALANCE_EXEC | SR_SD_BALANCE_FORK | \
		 SR_SD_WAKE_AFFINE)
#define PS	SR_SD_PREFER_SIBLING
#define F_SMT	(SR_SD_SHARE_CPUCAPACITY | SR_SD_SHARE_LLC)
#define F_NUMA	(SR_SD_NUMA | SR_SD_SERIALIZE | SR_SD_OVERLAP)
#define NO_WA	(SR_SD_BALANCE_EXEC | SR_SD_BALANCE_FORK | SR_SD_WAKE_AFFINE)

static char tmpdir[] = "/tmp/sr-test-topology-XXXXXX";

/* one domain level: name, weight, imbalance_pct, cache_nice_tries, flags */
static void check_dom(const struct sr_topology *t, int cpu, int lvl, const char *name,
		      int weight, int pct, int cnt, unsigned flags)
{
	const struct sr_domain *d;

	CHECK(lvl < t->cpu[cpu].ndomains, "cpu %d has level %d", cpu, lvl);
	if (lvl >= t->cpu[cpu].ndomains)
		return;
	d = &t->cpu[cpu].dom[lvl];
	CHECK(!strcmp(d->name, name), "cpu %d level %d is %s (got %s)", cpu, lvl, name, d->name);
	CHECK_EQ(d->span_weight, weight, "cpu %d %s weight", cpu, name);
	CHECK_EQ(d->imbalance_pct, pct, "cpu %d %s imbalance_pct", cpu, name);
	CHECK_EQ(d->cache_nice_tries, cnt, "cpu %d %s cache_nice_tries", cpu, name);
	CHECK_EQ(d->flags, flags, "cpu %d %s flags", cpu, name);
	CHECK(sr_cpumask_test(d->span, cpu), "cpu %d %s spans itself", cpu, name);
}

static int in_span(const struct sr_topology *t, int cpu, int lvl, int other)
{
	return sr_cpumask_test(t->cpu[cpu].dom[lvl].span, other);
}

/* a topology file in the temporary directory */
static char *write_tmp(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", tmpdir, name) < 0)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return path;
}

static struct sr_topology *load_text(const char *text, enum sr_sd_era era, char **cause)
{
	char *path = write_tmp("t.topo", text);
	struct sr_topology *t = sr_topology_new_file(path, era, cause);

	unlink(path);
	free(path);
	return t;
}

/* the error, with the file name cut off */
static void check_text_error(const char *text, const char *expect)
{
	char *cause = NULL;
	struct sr_topology *t = load_text(text, SR_ERA_MAINLINE, &cause);
	const char *msg = cause ? cause : "";
	size_t n = strlen(tmpdir) + strlen("/t.topo");

	CHECK(!t, "rejected: %s", expect);
	if (cause && !strncmp(cause, tmpdir, strlen(tmpdir)) && strlen(cause) > n)
		msg = cause + n;
	CHECK(!strcmp(msg, expect), "cause '%s'", expect);
	if (strcmp(msg, expect))
		printf("#   got '%s'\n", cause ? cause : "(null)");
	sr_topology_free(t);
	free(cause);
}

static void check_fixture_error(const char *name, const char *expect)
{
	char *cause = NULL, path[256];
	struct sr_topology *t;

	snprintf(path, sizeof(path), FIX "%s", name);
	t = sr_topology_new_file(path, SR_ERA_MAINLINE, &cause);
	CHECK(!t, "%s rejected", name);
	CHECK(cause && !strcmp(cause, expect), "%s: %s", name, expect);
	if (!cause || strcmp(cause, expect))
		printf("#   got '%s'\n", cause ? cause : "(null)");
	sr_topology_free(t);
	free(cause);
}

static void check_preset_error(const char *spec, const char *expect)
{
	char *cause = NULL;
	struct sr_topology *t = sr_topology_new_preset(spec, SR_ERA_MAINLINE, &cause);

	CHECK(!t, "preset '%s' rejected", spec ? spec : "(null)");
	CHECK(cause && !strcmp(cause, expect), "preset error: %s", expect);
	if (!cause || strcmp(cause, expect))
		printf("#   got '%s'\n", cause ? cause : "(null)");
	sr_topology_free(t);
	free(cause);
}

/* everything but the source is equal */
static int topo_equal(const struct sr_topology *a, const struct sr_topology *b)
{
	int i, j, words = (a->ncpus + 63) / 64;

	if (a->ncpus != b->ncpus || a->nnodes != b->nnodes || a->smt != b->smt ||
	    a->era != b->era)
		return 0;
	if (memcmp(a->distance, b->distance, a->nnodes * a->nnodes * sizeof(int)))
		return 0;
	for (i = 0; i < a->ncpus; i++) {
		const struct sr_cpu_topo *x = &a->cpu[i], *y = &b->cpu[i];

		if (x->core_id != y->core_id || x->llc_id != y->llc_id || x->node != y->node ||
		    x->package != y->package || x->capacity != y->capacity ||
		    x->ndomains != y->ndomains)
			return 0;
		for (j = 0; j < x->ndomains; j++) {
			const struct sr_domain *p = &x->dom[j], *q = &y->dom[j];

			if (strcmp(p->name, q->name) || p->flags != q->flags ||
			    p->imbalance_pct != q->imbalance_pct ||
			    p->cache_nice_tries != q->cache_nice_tries ||
			    p->busy_factor != q->busy_factor || p->span_weight != q->span_weight ||
			    memcmp(p->span, q->span, words * sizeof(uint64_t)))
				return 0;
		}
	}
	return 1;
}

static void round_trip(const struct sr_topology *t, const char *what)
{
	char *path = write_tmp("rt.topo", ""), *cause = NULL;
	struct sr_topology *back;
	FILE *f = fopen(path, "w");
	int err = f ? sr_topology_write(t, f) : -1;	/* CHECK evaluates twice */

	if (f && fclose(f))
		err = -1;
	CHECK_EQ(err, 0, "%s written", what);
	back = sr_topology_new_file(path, t->era, &cause);
	CHECK(back, "%s read back%s%s", what, cause ? ": " : "", cause ? cause : "");
	CHECK(back && topo_equal(t, back), "%s round trip is equal", what);
	sr_topology_free(back);
	free(cause);
	unlink(path);
	free(path);
}

static void test_preset_2x26x2(void)
{
	char *cause = NULL;
	struct sr_topology *t = sr_topology_new_preset("2x26x2", SR_ERA_MAINLINE, &cause);
	int cpu;

	CHECK(t && !cause, "preset 2x26x2");
	if (!t)
		return;
	CHECK_EQ(t->ncpus, 104, "104 cpus");
	CHECK_EQ(t->nnodes, 2, "2 nodes");
	CHECK_EQ(t->smt, 1, "smt");
	CHECK(!strcmp(t->source, "preset 2x26x2"), "source");
	CHECK_EQ(t->distance[0], 10, "local distance");
	CHECK_EQ(t->distance[1], 21, "remote distance");
	/* 0-25 node 0, 26-51 node 1 (first threads), 52-77 node 0, 78-103 node 1 */
	CHECK_EQ(t->cpu[25].node, 0, "cpu 25 on node 0");
	CHECK_EQ(t->cpu[26].node, 1, "cpu 26 on node 1");
	CHECK_EQ(t->cpu[52].node, 0, "cpu 52 on node 0");
	CHECK_EQ(t->cpu[78].node, 1, "cpu 78 on node 1");
	CHECK_EQ(t->cpu[52].core_id, t->cpu[0].core_id, "0 and 52 are siblings");
	CHECK_EQ(t->cpu[78].core_id, t->cpu[26].core_id, "26 and 78 are siblings");
	CHECK(t->cpu[1].core_id != t->cpu[0].core_id, "0 and 1 are not");

	for (cpu = 0; cpu < 104; cpu += 103) {
		CHECK_EQ(t->cpu[cpu].ndomains, 3, "cpu %d: SMT, MC, NUMA", cpu);
		check_dom(t, cpu, 0, "SMT", 2, 110, 0, DEF | PS | F_SMT);
		check_dom(t, cpu, 1, "MC", 52, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, cpu, 2, "NUMA", 104, 117, 2, DEF | F_NUMA);
		CHECK_EQ(t->cpu[cpu].dom[0].busy_factor, 16, "mainline busy_factor");
		CHECK_EQ(sr_topology_llc_size(t, cpu), 52, "cpu %d llc size", cpu);
	}
	CHECK(in_span(t, 0, 0, 52) && !in_span(t, 0, 0, 1), "SMT span of 0 is {0,52}");
	CHECK(in_span(t, 0, 1, 77) && !in_span(t, 0, 1, 26), "MC span of 0 is node 0");
	CHECK(in_span(t, 103, 0, 51), "SMT span of 103 has 51");
	CHECK_EQ(sr_cpus_share_cache(t, 0, 51), 0, "0 and 51 do not share cache");
	CHECK_EQ(sr_cpus_share_cache(t, 0, 25), 1, "0 and 25 share cache");
	CHECK_EQ(sr_cpus_share_cache(t, 0, 77), 1, "0 and 77 share cache");
	CHECK_EQ(sr_cpus_share_cache(t, 26, 103), 1, "26 and 103 share cache");
	CHECK_EQ(t->cpu[77].llc_id, 0, "llc_id of 77");
	CHECK_EQ(t->cpu[103].llc_id, 26, "llc_id of 103");

	/* rebuilding frees and gives the same */
	CHECK_EQ(sr_topology_build_domains(t), 0, "rebuild");
	CHECK_EQ(t->cpu[0].ndomains, 3, "rebuild: 3 levels");
	round_trip(t, "preset 2x26x2");
	sr_topology_free(t);
}

static void test_era_v4(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x26x2", SR_ERA_V4, NULL);

	CHECK(t, "preset 2x26x2 v4");
	if (!t)
		return;
	CHECK_EQ(t->cpu[0].ndomains, 3, "v4: SMT, MC, NUMA");
	check_dom(t, 0, 0, "SMT", 2, 110, 0, DEF | PS | F_SMT);
	check_dom(t, 0, 1, "MC", 52, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
	check_dom(t, 0, 2, "NUMA", 104, 125, 2, DEF | F_NUMA);
	CHECK_EQ(t->cpu[0].dom[2].busy_factor, 32, "v4 busy_factor");
	round_trip(t, "preset 2x26x2 v4");
	sr_topology_free(t);
}

static void test_small_presets(void)
{
	struct sr_topology *t;

	t = sr_topology_new_preset("1x4x1", SR_ERA_MAINLINE, NULL);
	CHECK(t, "preset 1x4x1");
	if (t) {
		CHECK_EQ(t->smt, 0, "1x4x1: no smt");
		CHECK_EQ(t->nnodes, 1, "1x4x1: one node");
		CHECK_EQ(t->cpu[2].ndomains, 1, "1x4x1: one level");
		check_dom(t, 2, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		CHECK_EQ(sr_topology_llc_size(t, 2), 4, "1x4x1 llc size");
	}
	sr_topology_free(t);

	t = sr_topology_new_preset("4", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->ncpus == 4 && t->cpu[0].ndomains == 1, "preset 4 is 1x4x1");
	sr_topology_free(t);

	t = sr_topology_new_preset("4x2", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->ncpus == 8 && t->nnodes == 1 && t->smt, "preset 4x2: 4 cores x 2 threads");
	if (t) {
		CHECK_EQ(t->cpu[4].core_id, t->cpu[0].core_id, "4x2: 0 and 4 siblings");
		CHECK_EQ(t->cpu[0].ndomains, 2, "4x2: SMT, MC");
		check_dom(t, 5, 0, "SMT", 2, 110, 0, DEF | PS | F_SMT);
		check_dom(t, 5, 1, "MC", 8, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
	}
	sr_topology_free(t);

	t = sr_topology_new_preset("4x4x1", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->ncpus == 16 && t->nnodes == 4, "preset 4x4x1");
	if (t) {
		CHECK_EQ(t->distance[0 * 4 + 3], 21, "4 nodes: remote 21");
		CHECK_EQ(t->distance[2 * 4 + 2], 10, "4 nodes: local 10");
		CHECK_EQ(t->cpu[13].node, 3, "cpu 13 on node 3");
		CHECK_EQ(t->cpu[13].ndomains, 2, "4x4x1: MC, NUMA");
		check_dom(t, 13, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, 13, 1, "NUMA", 16, 117, 2, DEF | F_NUMA);
		CHECK_EQ(t->cpu[13].llc_id, 12, "llc_id is the node's first cpu");
	}
	sr_topology_free(t);

	t = sr_topology_new_flat(2, SR_ERA_MAINLINE);
	CHECK(t, "flat 2");
	if (t) {
		CHECK(!strcmp(t->source, "flat (no topology)"), "flat source");
		CHECK_EQ(t->cpu[1].ndomains, 1, "flat 2: one level");
		check_dom(t, 1, 0, "MC", 2, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		CHECK_EQ(sr_cpus_share_cache(t, 0, 1), 1, "flat shares cache");
	}
	sr_topology_free(t);

	t = sr_topology_new_flat(1, SR_ERA_V4);
	CHECK(t && t->cpu[0].ndomains == 0, "flat 1: no domains");
	CHECK(t && sr_topology_llc_size(t, 0) == 1, "flat 1: llc size 1");
	sr_topology_free(t);
	CHECK(!sr_topology_new_flat(0, SR_ERA_V4), "flat 0 rejected");
	CHECK(!sr_topology_new_flat(8193, SR_ERA_V4), "flat 8193 rejected");
	t = sr_topology_new_flat(8192, SR_ERA_MAINLINE);
	CHECK(t && t->cpu[8191].dom[0].span_weight == 8192, "flat 8192");
	sr_topology_free(t);
	sr_topology_free(NULL);

	check_preset_error("2x0x2", "invalid topology preset '2x0x2': expected "
			   "NODESxCORESxTHREADS, CORESxTHREADS or CORES, with positive counts");
	check_preset_error("2x2x2x2", "invalid topology preset '2x2x2x2': expected "
			   "NODESxCORESxTHREADS, CORESxTHREADS or CORES, with positive counts");
	check_preset_error("2x", "invalid topology preset '2x': expected "
			   "NODESxCORESxTHREADS, CORESxTHREADS or CORES, with positive counts");
	check_preset_error("-4", "invalid topology preset '-4': expected "
			   "NODESxCORESxTHREADS, CORESxTHREADS or CORES, with positive counts");
	check_preset_error("big", "invalid topology preset 'big': expected "
			   "NODESxCORESxTHREADS, CORESxTHREADS or CORES, with positive counts");
	check_preset_error("100x50x2", "topology preset '100x50x2' has 10000 cpus, "
			   "at most 8192 are supported");
}

static void test_fixtures(void)
{
	char *cause = NULL;
	struct sr_topology *t;

	t = sr_topology_new_file(FIX "numa-guest-2x4.topo", SR_ERA_MAINLINE, &cause);
	CHECK(t && !cause, "numa-guest-2x4.topo%s%s", cause ? ": " : "", cause ? cause : "");
	if (t) {
		CHECK(!strcmp(t->source, "file " FIX "numa-guest-2x4.topo"), "file source");
		CHECK_EQ(t->ncpus, 8, "8 cpus");
		CHECK_EQ(t->nnodes, 2, "2 nodes");
		CHECK_EQ(t->smt, 0, "no smt");
		CHECK_EQ(t->distance[1], 20, "distance 20");
		CHECK_EQ(t->cpu[5].package, 1, "cpu 5 package 1");
		CHECK(t->cpu[4].core_id != t->cpu[0].core_id, "core 0 of each package differ");
		CHECK_EQ(t->cpu[6].llc_id, 4, "llc_id of 6");
		CHECK_EQ(t->cpu[6].ndomains, 2, "MC, NUMA");
		check_dom(t, 6, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, 6, 1, "NUMA", 8, 117, 2, DEF | F_NUMA);
		CHECK_EQ(sr_cpus_share_cache(t, 3, 4), 0, "3 and 4 do not share cache");
		CHECK_EQ(sr_topology_llc_size(t, 7), 4, "llc size 4");
		round_trip(t, "numa-guest-2x4.topo");
	}
	sr_topology_free(t);

	t = sr_topology_new_file(FIX "numa-guest-2x4.topo", SR_ERA_V4, NULL);
	CHECK(t, "numa-guest-2x4.topo v4");
	if (t) {
		check_dom(t, 0, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, 0, 1, "NUMA", 8, 125, 2, DEF | F_NUMA);
	}
	sr_topology_free(t);

	t = sr_topology_new_file(FIX "four-node-smt.topo", SR_ERA_MAINLINE, &cause);
	CHECK(t && !cause, "four-node-smt.topo%s%s", cause ? ": " : "", cause ? cause : "");
	if (t) {
		CHECK_EQ(t->ncpus, 16, "16 cpus");
		CHECK_EQ(t->nnodes, 4, "4 nodes");
		CHECK_EQ(t->smt, 1, "smt");
		CHECK_EQ(t->cpu[10].core_id, t->cpu[2].core_id, "2 and 10 siblings");
		CHECK(t->cpu[2].core_id != t->cpu[0].core_id, "core 0 of node 1 is not node 0's");
		CHECK_EQ(t->cpu[15].capacity, 512, "capacity of 15");
		CHECK_EQ(t->cpu[0].capacity, 1024, "default capacity");
		CHECK_EQ(t->cpu[5].ndomains, 4, "SMT, MC, NUMA 20, NUMA 40");
		check_dom(t, 5, 0, "SMT", 2, 110, 0, DEF | PS | F_SMT);
		check_dom(t, 5, 1, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, 5, 2, "NUMA", 8, 117, 2, DEF | F_NUMA);
		check_dom(t, 5, 3, "NUMA", 16, 117, 2, (DEF & ~NO_WA) | F_NUMA);
		CHECK(in_span(t, 5, 2, 14) && !in_span(t, 5, 2, 3), "NUMA 20 of 5 is nodes 2-3");
		round_trip(t, "four-node-smt.topo");
	}
	sr_topology_free(t);

	check_fixture_error("fail-unknown-keyword.topo",
			    FIX "fail-unknown-keyword.topo:3: unknown keyword 'cpus'");
	check_fixture_error("fail-missing-cpu.topo",
			    FIX "fail-missing-cpu.topo: cpu 2 is missing "
			    "(cpu ids must be 0..3 with no gaps)");
	check_fixture_error("fail-asymmetric-distance.topo",
			    FIX "fail-asymmetric-distance.topo:4: distance from node 1 to node 0 "
			    "is 21, but from node 0 to node 1 it is 20 "
			    "(the table must be symmetric)");
	check_fixture_error("fail-distance-row-length.topo",
			    FIX "fail-distance-row-length.topo:4: distance row for node 1 has "
			    "3 values, expected 2 (one per node)");
	check_fixture_error("fail-duplicate-cpu.topo",
			    FIX "fail-duplicate-cpu.topo:2: cpu 3 is already described on line 1");
	check_fixture_error("fail-core-spans-nodes.topo",
			    FIX "fail-core-spans-nodes.topo:3: cpu 0 and cpu 1 are threads of "
			    "core 0 of package 0 but are in different nodes");
	check_fixture_error("fail-bad-capacity.topo",
			    FIX "fail-bad-capacity.topo:1: bad capacity '2048' (expected 1..1024)");
	check_fixture_error("fail-local-distance.topo",
			    FIX "fail-local-distance.topo:3: distance from node 0 to node 1 is 10, "
			    "not more than the local distance 10");
	check_fixture_error("fail-missing-node.topo",
			    FIX "fail-missing-node.topo: node 1 has no cpus (nodes must be 0..2 "
			    "with no gaps, or give a distance table)");
	check_fixture_error("no-such-file.topo",
			    "cannot open '" FIX "no-such-file.topo': No such file or directory");
}

static void test_file_syntax(void)
{
	char *cause = NULL;
	struct sr_topology *t;

	/* the minimal file, comments, tabs, CRLF */
	t = load_text("# flat\r\ncpu\t0-2 # three cpus\r\n\r\ncpu 3\n", SR_ERA_MAINLINE, &cause);
	CHECK(t && !cause, "minimal file");
	if (t) {
		CHECK_EQ(t->ncpus, 4, "4 cpus");
		CHECK_EQ(t->nnodes, 1, "one node");
		CHECK_EQ(t->distance[0], 10, "local distance 10");
		check_dom(t, 3, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
	}
	sr_topology_free(t);

	/* no distance table: 10/20 */
	t = load_text("cpu 0-1 node 0\ncpu 2-3 node 1\n", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->nnodes == 2 && t->distance[1] == 20 && t->distance[3] == 10,
	      "default distances 10/20");
	sr_topology_free(t);

	/* a memory-only node 2 in the distance table */
	t = load_text("cpu 0-1 node 0\ncpu 2-3 node 1\n"
		      "distance 0 10 20 30\ndistance 1 20 10 30\ndistance 2 30 30 10\n",
		      SR_ERA_MAINLINE, &cause);
	CHECK(t && t->nnodes == 3, "memory-only node");
	if (t) {
		CHECK_EQ(t->cpu[0].ndomains, 2, "NUMA 20 spans every cpu: no NUMA 30");
		check_dom(t, 0, 1, "NUMA", 4, 117, 2, DEF | F_NUMA);
	}
	sr_topology_free(t);

	/* one node, two LLCs (CCX-like): PKG survives; DIE in v4 */
	t = load_text("cpu 0-3 llc 0\ncpu 4-7 llc 4\n", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->cpu[5].ndomains == 2, "two LLCs: MC, PKG");
	if (t) {
		check_dom(t, 5, 0, "MC", 4, 117, 1, DEF | PS | SR_SD_SHARE_LLC);
		check_dom(t, 5, 1, "PKG", 8, 117, 1, DEF | PS);
		CHECK_EQ(sr_cpus_share_cache(t, 3, 4), 0, "3 and 4 do not share cache");
	}
	sr_topology_free(t);
	t = load_text("cpu 0-3 llc 0\ncpu 4-7 llc 4\n", SR_ERA_V4, NULL);
	CHECK(t && t->cpu[5].ndomains == 2, "two LLCs v4: MC, DIE");
	if (t)
		check_dom(t, 5, 1, "DIE", 8, 125, 1, DEF | PS);
	sr_topology_free(t);

	/* an LLC per CPU and no SMT: SMT and MC span one CPU, only PKG is left */
	t = load_text("cpu 0 llc 0\ncpu 1 llc 1\ncpu 2 llc 2\ncpu 3 llc 3\n",
		      SR_ERA_MAINLINE, NULL);
	CHECK(t && t->cpu[2].ndomains == 1, "llc per cpu: one level");
	if (t) {
		check_dom(t, 2, 0, "PKG", 4, 117, 1, DEF | PS);
		CHECK_EQ(sr_topology_llc_size(t, 2), 1, "llc size 1");
		CHECK_EQ(t->cpu[2].llc_id, 2, "llc_id is the cpu");
	}
	sr_topology_free(t);

	/* the LLC is the core: MC degenerates into SMT, which keeps SHARE_LLC */
	t = load_text("cpu 0,1 core 0 llc 0\ncpu 2,3 core 1 llc 2\n", SR_ERA_MAINLINE, NULL);
	CHECK(t && t->cpu[3].ndomains == 2, "llc per core: SMT, PKG");
	if (t) {
		check_dom(t, 3, 0, "SMT", 2, 110, 0, DEF | PS | F_SMT);
		check_dom(t, 3, 1, "PKG", 4, 117, 1, DEF | PS);
		CHECK_EQ(sr_topology_llc_size(t, 3), 2, "llc size 2");
	}
	sr_topology_free(t);

	check_text_error("", ": no cpus described");
	check_text_error("# nothing\n\n", ": no cpus described");
	check_text_error("cpu\n", ":1: 'cpu' needs a cpu list");
	check_text_error("cpu 0-\n", ":1: bad cpu list '0-' (expected e.g. 3, 0-7 or 0-3,8-11, "
			 "cpus 0..8191)");
	check_text_error("cpu 3-1\n", ":1: bad cpu list '3-1' (expected e.g. 3, 0-7 or 0-3,8-11, "
			 "cpus 0..8191)");
	check_text_error("cpu 8192\n", ":1: bad cpu list '8192' (expected e.g. 3, 0-7 or 0-3,8-11, "
			 "cpus 0..8191)");
	check_text_error("cpu 0 socket 1\n", ":1: unknown cpu attribute 'socket' (expected core, "
			 "llc, node, package or capacity)");
	check_text_error("cpu 0 core\n", ":1: 'core' needs a value");
	check_text_error("cpu 0 node 0 node 1\n", ":1: 'node' given twice");
	check_text_error("cpu 0 node x\n", ":1: bad node 'x' (expected 0..1023)");
	check_text_error("cpu 0\ndistance 0\n", ":2: 'distance' needs a node and its distances");
	check_text_error("cpu 0\ndistance 0 10\ndistance 0 10\n",
			 ":3: distance row for node 0 is already given on line 2");
	check_text_error("cpu 0\ndistance 0 300\n", ":2: bad distance '300' (expected 1..255)");
	check_text_error("cpu 0 node 1\ncpu 1\ndistance 0 10\n",
			 ":1: cpu 0 is on node 1, but the distance table covers nodes 0..0");
	check_text_error("cpu 0-1\ncpu 2-3 node 1\ndistance 1 20 10\n",
			 ": no distance row for node 0 (give rows for nodes 0..1, or none)");
	check_text_error("cpu 0 node 0\ncpu 1 node 1\ndistance 0 10 20\ndistance 1 20 12\n",
			 ":4: distance from node 1 to itself is 12, but node 0's is 10");
	check_text_error("cpu 0,1 core 0 llc 0\ncpu 2,3 core 0 llc 1\n",
			 ":2: cpu 0 and cpu 2 are threads of core 0 of package 0 but are in "
			 "different llcs");
	check_text_error("cpu 0-1 llc 0 node 0\ncpu 2-3 llc 0 node 1\n",
			 ":2: cpu 0 and cpu 2 share llc 0 but are on different nodes");
	free(cause);
}

/* sd->imb_numa_nr of @cpu's domain @lvl (named @name), as the kernel sets it */
static void check_imb(const struct sr_topology *t, const char *what, int cpu, int lvl,
		      const char *name, int imb)
{
	CHECK(t && lvl < t->cpu[cpu].ndomains && !strcmp(t->cpu[cpu].dom[lvl].name, name),
	      "%s: cpu %d level %d is %s", what, cpu, lvl, name);
	if (t && lvl < t->cpu[cpu].ndomains)
		CHECK_EQ(sr_topology_imb_numa_nr(t, cpu, lvl), imb, "%s: %s imb_numa_nr", what,
			 name);
}

/*
 * imb_numa_nr as build_sched_domains() (6.1, 6.12) sets it before the
 * domains degenerate: the first level above the LLC without it (PKG, the
 * node) gives nr_llcs, or its weight / 8 with one LLC, at least 1; each
 * later level multiplies that by its weight over the first NUMA level's.
 */
static void test_imb_numa_nr(void)
{
	struct sr_topology *t;
	char *cause = NULL;

	/* 2 CPUs a node, one LLC: PKG {2} gives max(1, 2 >> 3) = 1 */
	t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	check_imb(t, "2x2x1", 3, 1, "NUMA", 1);
	sr_topology_free(t);
	/* 52 CPUs a node, one LLC: 52 >> 3 = 6 */
	t = sr_topology_new_preset("2x26x2", SR_ERA_MAINLINE, NULL);
	check_imb(t, "2x26x2", 0, 2, "NUMA", 6);
	sr_topology_free(t);
	/* two LLCs of 8 CPUs a node: PKG (kept) gives nr_llcs = 2, NUMA 2 * 32 / 32 */
	t = load_text("cpu 0-7 llc 0 node 0\ncpu 8-15 llc 1 node 0\n"
		      "cpu 16-23 llc 2 node 1\ncpu 24-31 llc 3 node 1\n", SR_ERA_MAINLINE, &cause);
	CHECK(t, "two LLCs a node: %s", cause ? cause : "loaded");
	check_imb(t, "2 LLCs a node", 0, 1, "PKG", 2);
	check_imb(t, "2 LLCs a node", 0, 2, "NUMA", 2);
	sr_topology_free(t);
	free(cause);
	cause = NULL;
	/* 4 nodes of 2, distances 20 and 30: 1, then 1 * 8 / 4 = 2 */
	t = sr_topology_new_file("tests/fixtures/scenario/4node.topo", SR_ERA_MAINLINE, &cause);
	CHECK(t, "4node.topo: %s", cause ? cause : "loaded");
	check_imb(t, "4node", 0, 1, "NUMA", 1);
	check_imb(t, "4node", 0, 2, "NUMA", 2);
	sr_topology_free(t);
	free(cause);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_preset_2x26x2();
	test_era_v4();
	test_small_presets();
	test_fixtures();
	test_file_syntax();
	test_imb_numa_nr();
	rmdir(tmpdir);
	return unit_done();
}
