// SPDX-License-Identifier: GPL-2.0
/*
 * CPU topologies (preset, flat, topology file) and the sched-domain
 * hierarchy the kernel would build on them (schedreplay-models(7) §2.3, §4).
 *
 * TOPOLOGY FILE FORMAT (schedreplay-replay(1))
 *
 * Plain text, one statement per line.  '#' starts a comment that runs to
 * the end of the line; blank lines are ignored; words are separated by
 * spaces or tabs.  There are two statements:
 *
 *   cpu CPULIST [core ID] [llc ID] [node ID] [package ID] [capacity N]
 *
 *	Describes the CPUs of CPULIST: "5", "0-3", "0,52" or "0-25,52-77".
 *	Every CPU from 0 to the highest one must be described exactly once.
 *	The attributes, in any order, apply to every CPU of the list:
 *
 *	core ID      CPUs with the same core ID in the same package are SMT
 *	             siblings.  As in sysfs (topology/core_id) a core ID need
 *	             only be unique within its package.  Default: each CPU is
 *	             a core of its own.  "cpu 0,52 core 0" makes one 2-thread
 *	             core.
 *	llc ID       CPUs with the same llc ID share a last-level cache; IDs
 *	             are global (sysfs cache/index3/id).  Default: one LLC
 *	             per node.
 *	node ID      NUMA node, 0..1023.  Default 0.
 *	package ID   physical package (socket).  Default: the node.  It only
 *	             scopes core IDs: as in the kernel (cpu_cpu_mask), the
 *	             PKG level spans the CPU's node.
 *	capacity N   1..1024, default 1024.
 *
 *	The threads of a core must share an LLC and a node, and the CPUs of
 *	an LLC must share a node.
 *
 *   distance NODE D0 D1 ... Dn-1
 *
 *	Row NODE of the node distance table, the contents of sysfs
 *	node/nodeNODE/distance.  Either give a row for every node 0..n-1, or
 *	none: then the nodes are 0 to the highest node named by a cpu line,
 *	each must have CPUs, and the distances are 10 to itself and 20 to
 *	any other node (the kernel's default without an ACPI SLIT).  With
 *	rows, a node may have no CPUs (a memory-only node).  Distances are
 *	1..255; every node's distance to itself is the same and less than
 *	any distance between two nodes; the table is symmetric.
 *
 *   Example, a 2-node guest with 4 CPUs per node and no SMT:
 *
 *	cpu 0-3 node 0
 *	cpu 4-7 node 1
 *	distance 0 10 20
 *	distance 1 20 10
 *
 *   Written from sysfs on the machine to describe (x86; where there is no
 *   cache/index3, use the highest cache index; arm64 has cpu_capacity):
 *
 *	cd /sys/devices/system
 *	for c in cpu/cpu[0-9]*; do
 *		n=$(echo $c/node*)
 *		echo "cpu ${c#cpu/cpu} core $(cat $c/topology/core_id)" \
 *		     "package $(cat $c/topology/physical_package_id)" \
 *		     "llc $(cat $c/cache/index3/id) node ${n##*node}"
 *	done
 *	for d in node/node[0-9]*; do
 *		echo "distance ${d#node/node} $(cat $d/distance)"
 *	done
 *
 * DOMAIN BUILDING (sr_topology_build_domains)
 *
 * Per CPU, bottom-up, the levels of the x86/default topology table plus
 * the ones sched_init_numa() appends: SMT (the core), MC (the LLC), PKG
 * (DIE in the v4 era; the node), NODE (nodes at the local distance, i.e.
 * the node again) and one NUMA level per distinct distance larger than
 * the local one (the nodes within that distance).  CLS is not modelled: a
 * topology has no cluster ids.  As in build_sched_domains(), no level is
 * built above the first one that spans every CPU, and a parent whose span
 * does not contain its child's is widened to it.  sd_init() then gives
 * each level the era's flags, imbalance_pct, cache_nice_tries and
 * busy_factor (schedreplay-models(7) §4.2).
 *
 * Degeneration is simplified from cpu_attach_domain(): a level whose span
 * equals the span of the level kept below it is dropped (the lower name
 * survives), then the bottom level is dropped if it spans one CPU.  The
 * kernel asks sd_parent_degenerate() whether the parent's flags, less the
 * ones that need groups when it has a single group, are a subset of the
 * child's; with the levels built here that holds whenever the spans are
 * equal, except in v4.x, where SD_NUMA, SD_OVERLAP and (with several
 * nodes) SD_SERIALIZE do not count as group flags, so a first NUMA level
 * that adds no CPU to a NODE/PKG child survived there; it is dropped here.
 * Mainline's transfer of SD_PREFER_SIBLING from a dropped parent to its
 * child is done; sd_degenerate()'s single-group test is not needed
 * because a bottom level of more than one CPU has one group per CPU.
 * Asymmetric capacities (SD_ASYM_CPUCAPACITY and what it changes) are not
 * modelled.  imb_numa_nr is set as build_sched_domains() sets it (6.1 and
 * 6.12, identical but for the SD_SHARE_LLC rename), before degeneration,
 * on every level built: the first level without SD_SHARE_LLC above one
 * with it gets imb = nr_llcs (its span over the child's) or, with one LLC,
 * its weight / 8, at least 1; every later level gets imb times its weight
 * over the weight of the first SD_NUMA level above that one (at least 1),
 * levels below it 0.  So a node that is one LLC (PKG spans the node, then
 * degenerates) gives 1 on a node of up to 15 CPUs, whatever the NUMA
 * level's own span.  Finally llc_id is set, as update_top_cache_domain() does, to
 * the first CPU of the highest level with SD_SHARE_LLC (the CPU itself if
 * none), and sr_topology_llc_size() is that level's weight.
 */
#include "schedreplay/topology.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

#define LOCAL_DISTANCE		10
#define REMOTE_DISTANCE		20	/* kernel default without a SLIT */
#define PRESET_REMOTE_DISTANCE	21	/* what x86 2-socket SLITs say */
#define RECLAIM_DISTANCE	30	/* node_reclaim_distance default */
#define MAX_DISTANCE		255
#define MAX_NODES		1024	/* x86 MAX_NUMNODES */

enum level_kind { LV_SMT, LV_MC, LV_PKG, LV_NODE, LV_NUMA };

static int mask_words(int ncpus)
{
	return (ncpus + 63) / 64;
}

static void mask_set(uint64_t *mask, int cpu)
{
	mask[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

static int mask_weight(const uint64_t *mask, int words)
{
	int i, w = 0;

	for (i = 0; i < words; i++)
		w += __builtin_popcountll(mask[i]);
	return w;
}

static int mask_first(const uint64_t *mask, int words)
{
	int i;

	for (i = 0; i < words; i++)
		if (mask[i])
			return i * 64 + __builtin_ctzll(mask[i]);
	return -1;
}

static struct sr_topology *topo_alloc(int ncpus, int nnodes, enum sr_sd_era era)
{
	struct sr_topology *t;
	int i;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncpus = ncpus;
	t->nnodes = nnodes;
	t->era = era;
	t->cpu = calloc(ncpus, sizeof(*t->cpu));
	t->distance = calloc((size_t)nnodes * nnodes, sizeof(*t->distance));
	if (!t->cpu || !t->distance) {
		sr_topology_free(t);
		return NULL;
	}
	for (i = 0; i < ncpus; i++)
		t->cpu[i].capacity = 1024;
	return t;
}

static void topo_set_distances(struct sr_topology *t, int remote)
{
	int i, j;

	for (i = 0; i < t->nnodes; i++)
		for (j = 0; j < t->nnodes; j++)
			t->distance[i * t->nnodes + j] = i == j ? LOCAL_DISTANCE : remote;
}

/* a decimal number in [min, max], nothing else */
static int parse_num(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

struct sr_topology *sr_topology_new_preset(const char *spec, enum sr_sd_era era, char **cause)
{
	long n[3], nodes, cores, threads, ncpus;
	struct sr_topology *t;
	char buf[64], *p, *x;
	int k = 0, node, core, thr;

	if (!spec || strlen(spec) >= sizeof(buf))
		goto bad;
	memcpy(buf, spec, strlen(spec) + 1);
	for (p = buf; ; p = x + 1) {
		x = strchr(p, 'x');
		if (x)
			*x = '\0';
		if (k == 3 || parse_num(p, 1, SR_TOPOLOGY_MAX_CPUS, &n[k]))
			goto bad;
		k++;
		if (!x)
			break;
	}
	nodes = k == 3 ? n[0] : 1;
	cores = n[k == 3 ? 1 : 0];
	threads = k == 1 ? 1 : n[k - 1];
	ncpus = nodes * cores * threads;	/* each <= 8192: no overflow */
	if (ncpus > SR_TOPOLOGY_MAX_CPUS) {
		sr_cause_set(cause, "topology preset '%s' has %ld cpus, at most %d are supported",
			     spec, ncpus, SR_TOPOLOGY_MAX_CPUS);
		return NULL;
	}
	if (nodes > MAX_NODES) {
		sr_cause_set(cause, "topology preset '%s' has %ld nodes, at most %d are supported",
			     spec, nodes, MAX_NODES);
		return NULL;
	}

	t = topo_alloc(ncpus, nodes, era);
	if (!t)
		goto nomem;
	/*
	 * x86 numbering: the first thread of every core of every node, node
	 * by node, then the second threads in the same order, and so on.
	 */
	for (thr = 0; thr < threads; thr++) {
		for (node = 0; node < nodes; node++) {
			for (core = 0; core < cores; core++) {
				int first = node * cores + core;
				struct sr_cpu_topo *c = &t->cpu[thr * nodes * cores + first];

				c->core_id = first;
				c->llc_id = node * cores;
				c->node = node;
				c->package = node;
			}
		}
	}
	topo_set_distances(t, PRESET_REMOTE_DISTANCE);
	snprintf(t->source, sizeof(t->source), "preset %s", spec);
	if (sr_topology_build_domains(t)) {
		sr_topology_free(t);
		goto nomem;
	}
	return t;

bad:
	sr_cause_set(cause, "invalid topology preset '%s': expected NODESxCORESxTHREADS, "
		     "CORESxTHREADS or CORES, with positive counts", spec ? spec : "");
	return NULL;
nomem:
	sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
	return NULL;
}

struct sr_topology *sr_topology_new_flat(int ncpus, enum sr_sd_era era)
{
	struct sr_topology *t;
	int i;

	if (ncpus <= 0 || ncpus > SR_TOPOLOGY_MAX_CPUS)
		return NULL;
	t = topo_alloc(ncpus, 1, era);
	if (!t)
		return NULL;
	for (i = 0; i < ncpus; i++)
		t->cpu[i].core_id = i;
	topo_set_distances(t, REMOTE_DISTANCE);
	snprintf(t->source, sizeof(t->source), "flat (no topology)");
	if (sr_topology_build_domains(t)) {
		sr_topology_free(t);
		return NULL;
	}
	return t;
}

/* ---- the topology file ---- */

struct fcpu {
	int line;		/* 0: not described */
	long core;		/* label; own core if !core_given */
	long llc;		/* label; the node's LLC if !llc_given */
	long node;
	long package;
	long capacity;
	char core_given, llc_given, package_given;
};

struct drow {
	int line;		/* 0: no row */
	int n;
	int *d;
};

struct fparse {
	const char *path;
	char **cause;
	int line;
	struct fcpu *cpu;	/* SR_TOPOLOGY_MAX_CPUS entries */
	struct drow *row;	/* MAX_NODES entries */
	int max_cpu, max_row;
};

__attribute__((format(printf, 3, 4)))
static int ferr(struct fparse *p, int line, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (line)
		sr_cause_set(p->cause, "%s:%d: %s", p->path, line, msg ? msg : "out of memory");
	else
		sr_cause_set(p->cause, "%s: %s", p->path, msg ? msg : "out of memory");
	free(msg);
	return -1;
}

/* split @s in place into at most @max words; '#' ends the line */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == max)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' && *s != '#')
			s++;
		if (*s == '#') {
			*s = '\0';
			return n;
		}
		if (*s)
			*s++ = '\0';
	}
}

/* "0-3,8,10-11" into @sel (SR_TOPOLOGY_MAX_CPUS flags) */
static int parse_cpulist(const char *s, char *sel)
{
	char item[32];
	const char *end;
	long a, b;
	char *dash;
	size_t len;

	for (;;) {
		end = strchr(s, ',');
		len = end ? (size_t)(end - s) : strlen(s);
		if (!len || len >= sizeof(item))
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (parse_num(item, 0, SR_TOPOLOGY_MAX_CPUS - 1, &a))
			return -1;
		b = a;
		if (dash && parse_num(dash + 1, a, SR_TOPOLOGY_MAX_CPUS - 1, &b))
			return -1;
		for (; a <= b; a++)
			sel[a] = 1;
		if (!end)
			return 0;
		s = end + 1;
	}
}

static const struct {
	const char *name;
	long min, max;
} cpu_attrs[] = {
	{ "core",	0, 0x7fffffff },
	{ "llc",	0, 0x7fffffff },
	{ "node",	0, MAX_NODES - 1 },
	{ "package",	0, 0x7fffffff },
	{ "capacity",	1, 1024 },
};
#define NR_CPU_ATTRS (int)(sizeof(cpu_attrs) / sizeof(cpu_attrs[0]))

static int parse_cpu_line(struct fparse *p, char **w, int n, char *sel)
{
	long val[NR_CPU_ATTRS];
	char given[NR_CPU_ATTRS] = { 0 };
	int i, a, cpu;

	if (n < 2)
		return ferr(p, p->line, "'cpu' needs a cpu list");
	memset(sel, 0, SR_TOPOLOGY_MAX_CPUS);
	if (parse_cpulist(w[1], sel))
		return ferr(p, p->line, "bad cpu list '%s' (expected e.g. 3, 0-7 or 0-3,8-11, "
			    "cpus 0..%d)", w[1], SR_TOPOLOGY_MAX_CPUS - 1);
	for (i = 2; i < n; i += 2) {
		for (a = 0; a < NR_CPU_ATTRS; a++)
			if (!strcmp(w[i], cpu_attrs[a].name))
				break;
		if (a == NR_CPU_ATTRS)
			return ferr(p, p->line, "unknown cpu attribute '%s' (expected core, llc, "
				    "node, package or capacity)", w[i]);
		if (given[a])
			return ferr(p, p->line, "'%s' given twice", w[i]);
		if (i + 1 == n)
			return ferr(p, p->line, "'%s' needs a value", w[i]);
		if (parse_num(w[i + 1], cpu_attrs[a].min, cpu_attrs[a].max, &val[a]))
			return ferr(p, p->line, "bad %s '%s' (expected %ld..%ld)", w[i], w[i + 1],
				    cpu_attrs[a].min, cpu_attrs[a].max);
		given[a] = 1;
	}
	for (cpu = 0; cpu < SR_TOPOLOGY_MAX_CPUS; cpu++) {
		struct fcpu *c = &p->cpu[cpu];

		if (!sel[cpu])
			continue;
		if (c->line)
			return ferr(p, p->line, "cpu %d is already described on line %d",
				    cpu, c->line);
		c->line = p->line;
		c->core_given = given[0];
		c->core = given[0] ? val[0] : 0;
		c->llc_given = given[1];
		c->llc = given[1] ? val[1] : 0;
		c->node = given[2] ? val[2] : 0;
		c->package_given = given[3];
		c->package = given[3] ? val[3] : c->node;
		c->capacity = given[4] ? val[4] : 1024;
		if (cpu > p->max_cpu)
			p->max_cpu = cpu;
	}
	return 0;
}

static int parse_distance_line(struct fparse *p, char **w, int n)
{
	struct drow *r;
	long node, v;
	int i;

	if (n < 3)
		return ferr(p, p->line, "'distance' needs a node and its distances");
	if (parse_num(w[1], 0, MAX_NODES - 1, &node))
		return ferr(p, p->line, "bad node '%s' (expected 0..%d)", w[1], MAX_NODES - 1);
	r = &p->row[node];
	if (r->line)
		return ferr(p, p->line, "distance row for node %ld is already given on line %d",
			    node, r->line);
	if (n - 2 > MAX_NODES)
		return ferr(p, p->line, "more than %d distances", MAX_NODES);
	r->d = calloc(n - 2, sizeof(*r->d));
	if (!r->d)
		return ferr(p, p->line, "out of memory");
	for (i = 2; i < n; i++) {
		if (parse_num(w[i], 1, MAX_DISTANCE, &v))
			return ferr(p, p->line, "bad distance '%s' (expected 1..%d)",
				    w[i], MAX_DISTANCE);
		r->d[i - 2] = v;
	}
	r->n = n - 2;
	r->line = p->line;
	if (node > p->max_row)
		p->max_row = node;
	return 0;
}

/*
 * Group @n items by the key pair (@a[i], @b[i]): @first[i] is the lowest
 * index with the same key.  Sorting keeps this O(n log n) at 8192 CPUs.
 */
struct gkey {
	long a, b;
	int i;
};

static int gkey_cmp(const void *x, const void *y)
{
	const struct gkey *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->i - q->i;
}

static int group_first(int n, const long *a, const long *b, int *first)
{
	struct gkey *k = malloc(n * sizeof(*k));
	int i, lead = 0;

	if (!k)
		return -1;
	for (i = 0; i < n; i++) {
		k[i].a = a[i];
		k[i].b = b[i];
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), gkey_cmp);
	for (i = 0; i < n; i++) {
		if (!i || k[i].a != k[i - 1].a || k[i].b != k[i - 1].b)
			lead = k[i].i;
		first[k[i].i] = lead;
	}
	free(k);
	return 0;
}

static int check_distances(struct fparse *p, int nnodes)
{
	int i, j, local;

	for (i = 0; i < nnodes; i++) {
		if (!p->row[i].line)
			return ferr(p, 0, "no distance row for node %d (give rows for nodes 0..%d, "
				    "or none)", i, nnodes - 1);
		if (p->row[i].n != nnodes)
			return ferr(p, p->row[i].line, "distance row for node %d has %d values, "
				    "expected %d (one per node)", i, p->row[i].n, nnodes);
	}
	local = p->row[0].d[0];
	for (i = 0; i < nnodes; i++) {
		const struct drow *r = &p->row[i];

		if (r->d[i] != local)
			return ferr(p, r->line, "distance from node %d to itself is %d, "
				    "but node 0's is %d", i, r->d[i], local);
		for (j = 0; j < nnodes; j++) {
			if (j == i)
				continue;
			if (r->d[j] <= local)
				return ferr(p, r->line, "distance from node %d to node %d is %d, "
					    "not more than the local distance %d",
					    i, j, r->d[j], local);
			if (j < i && r->d[j] != p->row[j].d[i])
				return ferr(p, r->line, "distance from node %d to node %d is %d, "
					    "but from node %d to node %d it is %d "
					    "(the table must be symmetric)",
					    i, j, r->d[j], j, i, p->row[j].d[i]);
		}
	}
	return 0;
}

static struct sr_topology *file_build(struct fparse *p, enum sr_sd_era era)
{
	struct sr_topology *t = NULL;
	long *ka = NULL, *kb = NULL;
	int *core_first = NULL, *llc_first = NULL;
	int ncpus = p->max_cpu + 1, nnodes = 0, i, j, err;

	if (p->max_cpu < 0) {
		ferr(p, 0, "no cpus described");
		return NULL;
	}
	for (i = 0; i < ncpus; i++) {
		if (!p->cpu[i].line) {
			ferr(p, 0, "cpu %d is missing (cpu ids must be 0..%d with no gaps)",
			     i, ncpus - 1);
			return NULL;
		}
		if (p->cpu[i].node + 1 > nnodes)
			nnodes = p->cpu[i].node + 1;
	}
	if (p->max_row >= 0) {
		int last = 0;

		for (i = 0; i < ncpus; i++)
			if (p->cpu[i].node > p->cpu[last].node)
				last = i;
		if (p->cpu[last].node > p->max_row) {
			ferr(p, p->cpu[last].line, "cpu %d is on node %ld, but the distance table "
			     "covers nodes 0..%d", last, p->cpu[last].node, p->max_row);
			return NULL;
		}
		nnodes = p->max_row + 1;
		if (check_distances(p, nnodes))
			return NULL;
	} else {
		char *has = calloc(nnodes, 1);

		if (!has)
			goto nomem;
		for (i = 0; i < ncpus; i++)
			has[p->cpu[i].node] = 1;
		for (j = 0; j < nnodes && has[j]; j++)
			;
		free(has);
		if (j < nnodes) {
			ferr(p, 0, "node %d has no cpus (nodes must be 0..%d with no gaps, "
			     "or give a distance table)", j, nnodes - 1);
			return NULL;
		}
	}

	ka = calloc(ncpus, sizeof(*ka));
	kb = calloc(ncpus, sizeof(*kb));
	core_first = calloc(ncpus, sizeof(*core_first));
	llc_first = calloc(ncpus, sizeof(*llc_first));
	if (!ka || !kb || !core_first || !llc_first)
		goto nomem;
	/* cores by (package, core); an undeclared core is the CPU's own */
	for (i = 0; i < ncpus; i++) {
		ka[i] = p->cpu[i].package;
		kb[i] = p->cpu[i].core_given ? p->cpu[i].core : -1 - i;
	}
	if (group_first(ncpus, ka, kb, core_first))
		goto nomem;
	/* LLCs by global label; an undeclared LLC is the node's */
	for (i = 0; i < ncpus; i++) {
		ka[i] = 0;
		kb[i] = p->cpu[i].llc_given ? p->cpu[i].llc : -1 - p->cpu[i].node;
	}
	if (group_first(ncpus, ka, kb, llc_first))
		goto nomem;
	for (i = 0; i < ncpus; i++) {
		const struct fcpu *c = &p->cpu[i];
		int f = core_first[i], l = llc_first[i];

		if (c->node != p->cpu[f].node || llc_first[f] != l) {
			ferr(p, c->line, "cpu %d and cpu %d are threads of core %ld of package %ld "
			     "but are in different %s", f, i, c->core, c->package,
			     c->node != p->cpu[f].node ? "nodes" : "llcs");
			goto out;
		}
		if (c->node != p->cpu[l].node) {
			ferr(p, c->line, "cpu %d and cpu %d share llc %ld but are on "
			     "different nodes", l, i, c->llc);
			goto out;
		}
	}

	t = topo_alloc(ncpus, nnodes, era);
	if (!t)
		goto nomem;
	for (i = 0; i < ncpus; i++) {
		t->cpu[i].core_id = core_first[i];
		t->cpu[i].llc_id = llc_first[i];
		t->cpu[i].node = p->cpu[i].node;
		t->cpu[i].package = p->cpu[i].package;
		t->cpu[i].capacity = p->cpu[i].capacity;
	}
	if (p->max_row >= 0) {
		for (i = 0; i < nnodes; i++)
			for (j = 0; j < nnodes; j++)
				t->distance[i * nnodes + j] = p->row[i].d[j];
	} else {
		topo_set_distances(t, REMOTE_DISTANCE);
	}
	snprintf(t->source, sizeof(t->source), "file %s", p->path);
	err = sr_topology_build_domains(t);
	if (err == -SR_E_UNSUPPORTED) {
		ferr(p, 0, "more than %d sched-domain levels", SR_MAX_DOMAIN_LEVELS);
		goto fail;
	} else if (err) {
		goto nomem;
	}
	goto out;

nomem:
	ferr(p, 0, "%s", sr_strerror(SR_E_NOMEM));
fail:
	sr_topology_free(t);
	t = NULL;
out:
	free(ka);
	free(kb);
	free(core_first);
	free(llc_first);
	return t;
}

struct sr_topology *sr_topology_new_file(const char *path, enum sr_sd_era era, char **cause)
{
	struct sr_topology *t;
	FILE *f = fopen(path, "r");

	if (!f) {
		sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	t = sr_topology_new_stream(f, path, era, cause);
	fclose(f);
	return t;
}

struct sr_topology *sr_topology_new_stream(FILE *f, const char *path, enum sr_sd_era era,
					   char **cause)
{
	struct fparse p = { .path = path, .cause = cause, .max_cpu = -1, .max_row = -1 };
	struct sr_topology *t = NULL;
	char *line = NULL, *sel = NULL;
	char **w = NULL;
	size_t cap = 0;
	int n, maxw = MAX_NODES + 2, i;

	p.cpu = calloc(SR_TOPOLOGY_MAX_CPUS, sizeof(*p.cpu));
	p.row = calloc(MAX_NODES, sizeof(*p.row));
	sel = malloc(SR_TOPOLOGY_MAX_CPUS);
	w = malloc(maxw * sizeof(*w));
	if (!p.cpu || !p.row || !sel || !w) {
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		goto out;
	}
	while (getline(&line, &cap, f) >= 0) {
		p.line++;
		n = split_words(line, w, maxw);
		if (n < 0) {
			ferr(&p, p.line, "too many words (at most %d)", maxw);
			goto out;
		}
		if (!n)
			continue;
		if (!strcmp(w[0], "cpu")) {
			if (parse_cpu_line(&p, w, n, sel))
				goto out;
		} else if (!strcmp(w[0], "distance")) {
			if (parse_distance_line(&p, w, n))
				goto out;
		} else {
			ferr(&p, p.line, "unknown keyword '%s'", w[0]);
			goto out;
		}
	}
	if (ferror(f)) {
		sr_cause_set(cause, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	t = file_build(&p, era);
out:
	free(line);
	free(sel);
	free(w);
	if (p.row)
		for (i = 0; i < MAX_NODES; i++)
			free(p.row[i].d);
	free(p.row);
	free(p.cpu);
	return t;
}

int sr_topology_write(const struct sr_topology *t, FILE *f)
{
	int i, j;

	fprintf(f, "# schedreplay topology: %s\n", t->source);
	for (i = 0; i < t->ncpus; i++) {
		const struct sr_cpu_topo *c = &t->cpu[i];

		fprintf(f, "cpu %d core %d llc %d node %d package %d", i, c->core_id,
			c->llc_id, c->node, c->package);
		if (c->capacity != 1024)
			fprintf(f, " capacity %d", c->capacity);
		fputc('\n', f);
	}
	for (i = 0; i < t->nnodes; i++) {
		fprintf(f, "distance %d", i);
		for (j = 0; j < t->nnodes; j++)
			fprintf(f, " %d", t->distance[i * t->nnodes + j]);
		fputc('\n', f);
	}
	return ferror(f) ? -SR_E_IO : 0;
}

/* ---- sched domains ---- */

/* sd_init(): the era's defaults, then what the level's flags imply (schedreplay-models(7) §4.2) */
static void sd_init(struct sr_domain *d, enum level_kind kind, int distance, enum sr_sd_era era)
{
	static const char *const names[] = { "SMT", "MC", "PKG", "NODE", "NUMA" };

	snprintf(d->name, sizeof(d->name), "%s",
		 kind == LV_PKG && era == SR_ERA_V4 ? "DIE" : names[kind]);
	d->flags = SR_SD_BALANCE_NEWIDLE | SR_SD_BALANCE_EXEC | SR_SD_BALANCE_FORK |
		   SR_SD_WAKE_AFFINE;
	if (era == SR_ERA_MAINLINE)
		d->flags |= SR_SD_PREFER_SIBLING;
	d->imbalance_pct = era == SR_ERA_V4 ? 125 : 117;
	d->busy_factor = era == SR_ERA_V4 ? 32 : 16;
	d->cache_nice_tries = 0;

	switch (kind) {
	case LV_SMT:
		d->flags |= SR_SD_SHARE_CPUCAPACITY | SR_SD_SHARE_LLC | SR_SD_PREFER_SIBLING;
		d->imbalance_pct = 110;
		break;
	case LV_MC:
		d->flags |= SR_SD_SHARE_LLC | SR_SD_PREFER_SIBLING;
		d->imbalance_pct = 117;
		d->cache_nice_tries = 1;
		break;
	case LV_NUMA:
		/* every level sched_init_numa() adds past NODE is SDTL_OVERLAP */
		d->flags |= SR_SD_NUMA | SR_SD_SERIALIZE | SR_SD_OVERLAP;
		d->flags &= ~SR_SD_PREFER_SIBLING;
		d->cache_nice_tries = 2;
		if (distance > RECLAIM_DISTANCE)
			d->flags &= ~(SR_SD_BALANCE_EXEC | SR_SD_BALANCE_FORK | SR_SD_WAKE_AFFINE);
		break;
	case LV_PKG:
	case LV_NODE:
		d->flags |= SR_SD_PREFER_SIBLING;
		d->cache_nice_tries = 1;
		break;
	}
}

static int int_cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* distinct distances larger than the local one, ascending: the NUMA levels */
static int numa_distances(const struct sr_topology *t, int *out)
{
	int i, n = 0, nn = t->nnodes * t->nnodes, local = t->distance[0];

	for (i = 0; i < nn; i++)
		if (t->distance[i] > local)
			out[n++] = t->distance[i];
	qsort(out, n, sizeof(*out), int_cmp);
	for (i = 0, nn = 0; i < n; i++)
		if (!nn || out[i] != out[nn - 1])
			out[nn++] = out[i];
	return nn;
}

static void cpu_free_domains(struct sr_cpu_topo *c)
{
	int i;

	for (i = 0; i < c->ndomains; i++) {
		free(c->dom[i].span);
		c->dom[i].span = NULL;
	}
	c->ndomains = 0;
}

/*
 * Dense group numbers for a per-CPU id (core_id or llc_id): grp[cpu] in
 * 0..ngroups-1.  Return: the number of groups, -1 without memory.
 */
static int group_dense(const struct sr_topology *t, int llc, int *grp)
{
	long *a = calloc(t->ncpus, sizeof(*a)), *b = calloc(t->ncpus, sizeof(*b));
	int *first = calloc(t->ncpus, sizeof(*first));
	int i, n = -1;

	if (!a || !b || !first)
		goto out;
	for (i = 0; i < t->ncpus; i++)
		b[i] = llc ? t->cpu[i].llc_id : t->cpu[i].core_id;
	if (group_first(t->ncpus, a, b, first))
		goto out;
	n = 0;
	for (i = 0; i < t->ncpus; i++)
		grp[i] = first[i] == i ? n++ : grp[first[i]];
out:
	free(a);
	free(b);
	free(first);
	return n;
}

/* one candidate level of the topology table */
struct level {
	enum level_kind kind;
	int distance;		/* NUMA: the level's distance */
	const uint64_t *span;	/* for the CPU being built */
};

struct build {
	struct sr_topology *t;
	int words;
	struct level *lv;
	int nlv;
	uint64_t *cand;		/* nlv spans, scratch */
	struct sr_domain *keep;	/* nlv domains, scratch */
	int *imb;		/* 3 x nlv: imb_numa_nr, weights, flags; scratch */
};

/*
 * sd->imb_numa_nr of the @built levels of b->cand, before degeneration:
 * build_sched_domains() at v6.1 and v6.12 (see the top of the file)
 */
static void imb_numa_nr(struct build *b, int built)
{
	struct sr_domain d;
	int *weight = b->imb + b->nlv, *flags = b->imb + 2 * b->nlv;
	int k, j, imb = 0, imb_span = 1;

	for (k = 0; k < built; k++) {
		sd_init(&d, b->lv[k].kind, b->lv[k].distance, b->t->era);
		flags[k] = (int)d.flags;
		weight[k] = mask_weight(b->cand + (size_t)k * b->words, b->words);
	}
	for (k = 0; k < built; k++) {
		if (!(flags[k] & SR_SD_SHARE_LLC) && k && (flags[k - 1] & SR_SD_SHARE_LLC)) {
			int nr_llcs = weight[k] / weight[k - 1];

			imb = nr_llcs == 1 ? weight[k] >> 3 : nr_llcs;
			if (imb < 1)
				imb = 1;
			b->imb[k] = imb;
			/* the span of the first NUMA domain above */
			imb_span = weight[k];
			for (j = k + 1; j < built; j++)
				if (flags[j] & SR_SD_NUMA) {
					imb_span = weight[j];
					break;
				}
		} else {
			int factor = weight[k] / imb_span;

			b->imb[k] = imb * (factor > 1 ? factor : 1);
		}
	}
}

/* one CPU's domains, from the spans already set in b->lv[] */
static int build_cpu(struct build *b, int cpu)
{
	struct sr_cpu_topo *c = &b->t->cpu[cpu];
	size_t bytes = b->words * sizeof(uint64_t);
	int k, i, built = 0, nkeep = 0, first = 0, llc = -1;

	for (k = 0; k < b->nlv; k++) {
		uint64_t *m = b->cand + (size_t)k * b->words;

		memcpy(m, b->lv[k].span, bytes);
		/* build_sched_domain(): a parent covers at least its child */
		if (k)
			for (i = 0; i < b->words; i++)
				m[i] |= m[i - b->words];
		built++;
		/* build_sched_domains() stops at the first level spanning all */
		if (mask_weight(m, b->words) == b->t->ncpus)
			break;
	}

	imb_numa_nr(b, built);
	/* degeneration, simplified: see the top of the file */
	for (k = 0; k < built; k++) {
		uint64_t *m = b->cand + (size_t)k * b->words;
		struct sr_domain *d = &b->keep[nkeep];

		sd_init(d, b->lv[k].kind, b->lv[k].distance, b->t->era);
		d->imb_numa_nr = b->imb[k];
		if (nkeep && !memcmp(m, b->keep[nkeep - 1].span, bytes)) {
			if (b->t->era == SR_ERA_MAINLINE && (d->flags & SR_SD_PREFER_SIBLING))
				b->keep[nkeep - 1].flags |= SR_SD_PREFER_SIBLING;
			continue;
		}
		d->span = m;
		d->span_weight = mask_weight(m, b->words);
		nkeep++;
	}
	if (nkeep && b->keep[0].span_weight == 1)
		first = 1;
	if (nkeep - first > SR_MAX_DOMAIN_LEVELS)
		return -SR_E_UNSUPPORTED;
	for (k = first; k < nkeep; k++) {
		struct sr_domain *d = &c->dom[c->ndomains];
		uint64_t *span = malloc(bytes);

		if (!span)
			return -SR_E_NOMEM;
		*d = b->keep[k];
		memcpy(span, b->keep[k].span, bytes);
		d->span = span;
		c->ndomains++;
		if (d->flags & SR_SD_SHARE_LLC)
			llc = c->ndomains - 1;
	}
	/* update_top_cache_domain(): sd_llc_id */
	c->llc_id = llc < 0 ? cpu : mask_first(c->dom[llc].span, b->words);
	return 0;
}

int sr_topology_build_domains(struct sr_topology *t)
{
	struct build b = { .t = t, .words = mask_words(t->ncpus) };
	int nn = t->nnodes, words = b.words;
	int *dist = NULL, *core_grp = NULL, *llc_grp = NULL;
	uint64_t *core_mask = NULL, *llc_mask = NULL, *node_mask = NULL, *numa_mask = NULL;
	int ndist = 0, ncore, nllc, cpu, node, i, j, k, err = -SR_E_NOMEM;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		cpu_free_domains(&t->cpu[cpu]);
		if (t->cpu[cpu].node < 0 || t->cpu[cpu].node >= nn)
			return -SR_E_USAGE;
	}

	dist = calloc((size_t)nn * nn, sizeof(*dist));
	core_grp = calloc(t->ncpus, sizeof(*core_grp));
	llc_grp = calloc(t->ncpus, sizeof(*llc_grp));
	if (!dist || !core_grp || !llc_grp)
		goto out;
	ncore = group_dense(t, 0, core_grp);
	nllc = group_dense(t, 1, llc_grp);
	if (ncore < 0 || nllc < 0)
		goto out;
	t->smt = ncore < t->ncpus;
	if (nn > 1)
		ndist = numa_distances(t, dist);

	/* the spans of the cores, LLCs and nodes, computed once */
	core_mask = calloc((size_t)ncore * words, sizeof(uint64_t));
	llc_mask = calloc((size_t)nllc * words, sizeof(uint64_t));
	node_mask = calloc((size_t)nn * words, sizeof(uint64_t));
	/* one node's NUMA spans at a time: nodes x distances can be large */
	numa_mask = calloc((size_t)(ndist ? ndist : 1) * words, sizeof(uint64_t));
	if (!core_mask || !llc_mask || !node_mask || !numa_mask)
		goto out;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		mask_set(core_mask + (size_t)core_grp[cpu] * words, cpu);
		mask_set(llc_mask + (size_t)llc_grp[cpu] * words, cpu);
		mask_set(node_mask + (size_t)t->cpu[cpu].node * words, cpu);
	}

	/* the topology table: SMT, MC, PKG, then sched_init_numa()'s levels */
	b.lv = calloc(4 + ndist, sizeof(*b.lv));
	b.keep = calloc(4 + ndist, sizeof(*b.keep));
	b.cand = calloc((size_t)(4 + ndist) * words, sizeof(uint64_t));
	b.imb = calloc(3 * (size_t)(4 + ndist), sizeof(*b.imb));
	if (!b.lv || !b.keep || !b.cand || !b.imb)
		goto out;
	b.lv[b.nlv++].kind = LV_SMT;
	b.lv[b.nlv++].kind = LV_MC;
	b.lv[b.nlv++].kind = LV_PKG;
	if (nn > 1) {
		b.lv[b.nlv].kind = LV_NODE;
		b.lv[b.nlv++].distance = t->distance[0];
		for (k = 0; k < ndist; k++) {
			b.lv[b.nlv].kind = LV_NUMA;
			b.lv[b.nlv].distance = dist[k];
			b.lv[b.nlv++].span = numa_mask + (size_t)k * words;
		}
	}

	for (node = 0; node < nn; node++) {
		/* sd_numa_mask(): the nodes within each distance of this one */
		memset(numa_mask, 0, (size_t)(ndist ? ndist : 1) * words * sizeof(uint64_t));
		for (k = 0; k < ndist; k++) {
			uint64_t *m = numa_mask + (size_t)k * words;

			for (j = 0; j < nn; j++) {
				if (t->distance[node * nn + j] > dist[k])
					continue;
				for (i = 0; i < words; i++)
					m[i] |= node_mask[(size_t)j * words + i];
			}
		}
		for (cpu = 0; cpu < t->ncpus; cpu++) {
			if (t->cpu[cpu].node != node)
				continue;
			b.lv[0].span = core_mask + (size_t)core_grp[cpu] * words;
			b.lv[1].span = llc_mask + (size_t)llc_grp[cpu] * words;
			b.lv[2].span = node_mask + (size_t)node * words;
			if (nn > 1)
				b.lv[3].span = b.lv[2].span;
			err = build_cpu(&b, cpu);
			if (err)
				goto out;
		}
	}
	err = 0;
out:
	if (err)
		for (cpu = 0; cpu < t->ncpus; cpu++)
			cpu_free_domains(&t->cpu[cpu]);
	free(dist);
	free(core_grp);
	free(llc_grp);
	free(core_mask);
	free(llc_mask);
	free(node_mask);
	free(numa_mask);
	free(b.lv);
	free(b.keep);
	free(b.cand);
	free(b.imb);
	return err;
}

const struct sr_domain *sr_topology_llc(const struct sr_topology *t, int cpu)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	int i;

	/* sd_llc is the highest level with SD_SHARE_LLC */
	for (i = c->ndomains - 1; i >= 0; i--)
		if (c->dom[i].flags & SR_SD_SHARE_LLC)
			return &c->dom[i];
	return NULL;
}

int sr_topology_llc_size(const struct sr_topology *t, int cpu)
{
	const struct sr_domain *llc = sr_topology_llc(t, cpu);

	return llc ? llc->span_weight : 1;
}

int sr_topology_level_of(const struct sr_topology *t, int cpu, int other)
{
	const struct sr_cpu_topo *c = &t->cpu[cpu];
	int l;

	for (l = 0; l < c->ndomains; l++)
		if (sr_cpumask_test(c->dom[l].span, other))
			break;
	return l;
}

void sr_topology_free(struct sr_topology *t)
{
	int i;

	if (!t)
		return;
	if (t->cpu)
		for (i = 0; i < t->ncpus; i++)
			cpu_free_domains(&t->cpu[i]);
	free(t->cpu);
	free(t->distance);
	free(t);
}

int sr_topology_imb_numa_nr(const struct sr_topology *t, int cpu, int level)
{
	return t->cpu[cpu].dom[level].imb_numa_nr;
}

const uint64_t *sr_topology_group_span(const struct sr_topology *t, int level, int cpu,
				       uint64_t *one)
{
	if (level > 0)
		return t->cpu[cpu].dom[level - 1].span;
	memset(one, 0, (size_t)mask_words(t->ncpus) * sizeof(uint64_t));
	one[cpu / 64] |= 1ULL << (cpu % 64);
	return one;
}
