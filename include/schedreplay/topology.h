/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU topology and the sched-domain hierarchy a replay evaluates decision
 * functions against (schedreplay-models(7) §2.3, §4).  Built from a preset
 * ("2x26x2": nodes x cores per node x threads per core), from a topology
 * file (man schedreplay-replay(1)), from the recording's metadata, or flat.
 */
#ifndef SCHEDREPLAY_TOPOLOGY_H
#define SCHEDREPLAY_TOPOLOGY_H

#include <stdint.h>
#include <stdio.h>

#define SR_MAX_DOMAIN_LEVELS 8
#define SR_TOPOLOGY_MAX_CPUS 8192

/* domain flags by name, not the kernel's bit values (which move: schedreplay-models(7) §4.3) */
enum sr_sd_flag {
	SR_SD_BALANCE_NEWIDLE	= 1 << 0,
	SR_SD_BALANCE_EXEC	= 1 << 1,
	SR_SD_BALANCE_FORK	= 1 << 2,
	SR_SD_BALANCE_WAKE	= 1 << 3,
	SR_SD_WAKE_AFFINE	= 1 << 4,
	SR_SD_SHARE_CPUCAPACITY	= 1 << 5,	/* SMT */
	SR_SD_SHARE_LLC		= 1 << 6,	/* SD_SHARE_PKG_RESOURCES before 6.10 */
	SR_SD_SERIALIZE		= 1 << 7,
	SR_SD_PREFER_SIBLING	= 1 << 8,
	SR_SD_NUMA		= 1 << 9,
	SR_SD_OVERLAP		= 1 << 10,
	SR_SD_CLUSTER		= 1 << 11,
};

/* kernel era of the domain defaults (schedreplay-models(7) §4.2) */
enum sr_sd_era {
	SR_ERA_V4,		/* 4.16-4.19: imbalance 125, busy_factor 32 */
	SR_ERA_MAINLINE,	/* 5.10+: imbalance 117, busy_factor 16 */
};

struct sr_domain {
	char name[8];		/* SMT, CLS, MC, PKG (DIE), NODE, NUMA */
	unsigned flags;		/* enum sr_sd_flag */
	int imbalance_pct;
	int cache_nice_tries;
	int busy_factor;
	int span_weight;
	int imb_numa_nr;	/* as build_sched_domains() sets it (topology.c) */
	uint64_t *span;		/* cpumask of ncpus bits (words = (ncpus + 63) / 64) */
};

struct sr_cpu_topo {
	int core_id;		/* CPUs with the same core_id are SMT siblings
				 * (the loaders use the core's first CPU) */
	int llc_id;		/* sd_llc_id: first CPU of the LLC; build_domains
				 * resets it from the highest SD_SHARE_LLC level */
	int node;
	int package;		/* informational: PKG spans the node */
	int capacity;		/* 1024 on symmetric systems */
	int ndomains;		/* levels, bottom-up, after degeneration */
	struct sr_domain dom[SR_MAX_DOMAIN_LEVELS];
};

struct sr_topology {
	int ncpus;
	int nnodes;
	int *distance;		/* nnodes x nnodes node distances (10 = local) */
	int smt;		/* some core has more than one thread (set by
				 * sr_topology_build_domains) */
	enum sr_sd_era era;
	char source[160];	/* "preset 2x26x2", "file x.topo", "recording", "flat (no topology)" */
	struct sr_cpu_topo *cpu;
};

/**
 * sr_topology_new_preset - from "NODESxCORESxTHREADS" (e.g. "2x26x2"); CPUs
 * numbered as Linux numbers them on x86: first thread of every core of
 * every node, then the second threads.  One LLC per node, distance 10/21.
 * Return: caller frees with sr_topology_free(); NULL with @cause on error.
 */
struct sr_topology *sr_topology_new_preset(const char *spec, enum sr_sd_era era, char **cause);

/**
 * sr_topology_new_flat - @ncpus CPUs, one core each, one LLC, one node
 * Return: caller frees with sr_topology_free(); NULL if @ncpus is not
 * 1..SR_TOPOLOGY_MAX_CPUS or without memory.
 */
struct sr_topology *sr_topology_new_flat(int ncpus, enum sr_sd_era era);

/**
 * sr_topology_new_file - read the topology file format of schedreplay-replay(1)
 * (described at the top of replay/topology.c)
 * Return: caller frees with sr_topology_free(); NULL with @cause
 * ("FILE:LINE: ..." or "FILE: ...") on error.
 */
struct sr_topology *sr_topology_new_file(const char *path, enum sr_sd_era era, char **cause);

/**
 * sr_topology_new_stream - the same format from an open stream; @name is
 * what error causes call it ("FILE:LINE: ...")
 */
struct sr_topology *sr_topology_new_stream(FILE *f, const char *name, enum sr_sd_era era,
					   char **cause);

/**
 * sr_topology_write - write @t in the topology file format, which
 * sr_topology_new_file() reads back to the same topology
 * Return: 0, or -SR_E_IO if @f has an error.
 */
int sr_topology_write(const struct sr_topology *t, FILE *f);

/**
 * sr_topology_build_domains - (re)build every CPU's domain list from
 * core/llc/node/distance with the era's sd_init defaults, dropping
 * degenerate levels (schedreplay-models(7) §4.1, §4.2); also sets @t->smt and every llc_id
 * Return: 0; -SR_E_USAGE if a CPU's node is not 0..nnodes-1,
 * -SR_E_UNSUPPORTED if more than SR_MAX_DOMAIN_LEVELS levels survive,
 * -SR_E_NOMEM (on error no CPU has domains).
 */
int sr_topology_build_domains(struct sr_topology *t);

/* sr_topology_free - free @t, its distances and every domain span; NULL is fine */
void sr_topology_free(struct sr_topology *t);

static inline int sr_cpus_share_cache(const struct sr_topology *t, int a, int b)
{
	return t->cpu[a].llc_id == t->cpu[b].llc_id;
}

/* capacity_orig of @cpu: its topology's, SCHED_CAPACITY_SCALE (1024) where that says none */
static inline long sr_cpu_capacity(const struct sr_topology *t, int cpu)
{
	return t->cpu[cpu].capacity > 0 ? t->cpu[cpu].capacity : 1024;
}

static inline int sr_cpumask_test(const uint64_t *mask, int cpu)
{
	return (mask[cpu / 64] >> (cpu % 64)) & 1;
}

/* sd->imb_numa_nr of domain @level of @cpu, as build_sched_domains() sets it */
int sr_topology_imb_numa_nr(const struct sr_topology *t, int cpu, int level);
/* the group of domain @level of @cpu that holds @cpu: the child's span, or {cpu} in @one */
const uint64_t *sr_topology_group_span(const struct sr_topology *t, int level, int cpu,
				       uint64_t *one);

/* @cpu's sd_llc: its highest SD_SHARE_LLC level, NULL without one */
const struct sr_domain *sr_topology_llc(const struct sr_topology *t, int cpu);

/* CPUs in @cpu's LLC (sd_llc_size: weight of the highest SD_SHARE_LLC level, or 1) */
int sr_topology_llc_size(const struct sr_topology *t, int cpu);
/*
 * the lowest domain level of @cpu whose span holds @other (where a balance
 * of @cpu pulls from @other), or the CPU's number of domains when none does
 */
int sr_topology_level_of(const struct sr_topology *t, int cpu, int other);

#endif
