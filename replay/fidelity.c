// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity accounting: per model, per decision kind and per reason path,
 * how often the model's CPU equals, shares an LLC with, or shares a node
 * with the CPU the kernel chose; and the same for the baseline (stay on
 * prev for wakeups, the parent's CPU for forks).  Judge a model by the
 * moved wakeups and the forks: keeping every wakee on prev already
 * matches most wakeups.  At a balance decision a model matches when it
 * pulls from and to the CPUs the kernel did (the task may differ), or
 * pulls nothing where the kernel pulled nothing; same-llc / same-node
 * compare both ends; the baseline is "never pull".
 */
#include "schedreplay/fidelity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char *const kinds[] = {
	"wakeup", "wakeup_moved", "wakeup_kept", "fork", "fork_idle", "fork_busy",
	"balance_periodic", "balance_newidle", "balance_nohz", "newidle",
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/*
 * The last reason paths met and what they normalize to: a model's
 * decisions mostly repeat a few paths, and normalizing and hashing one
 * again cost more than the counting (callgrind, the 0.3 M-event bench trace)
 */
#define NORM_CACHE 8

struct norm_entry {
	char raw[SR_REASON_LEN], norm[SR_REASON_LEN];
	size_t rh;
};

struct sr_fidelity {
	const struct sr_topology *topo;
	struct norm_entry norm[NORM_CACHE];
	int nnorm, next_norm;
	struct sr_fidelity_row *rows;
	size_t n, cap;
	/* index of rows by (model, kind, reason): open addressing, row + 1 */
	size_t *hash;
	size_t hcap;
};

/* a reason's part of a row's hash: computed once for the rows it counts in */
static size_t reason_hash(const char *reason)
{
	size_t h = 0;

	for (; *reason; reason++)
		h = h * 131 + (unsigned char)*reason;
	return h;
}

static size_t row_hash(const char *model, const char *kind, size_t rh)
{
	size_t h = (size_t)(uintptr_t)model * 31 + (size_t)(uintptr_t)kind;

	return (h ^ rh) * 0x9e3779b97f4a7c15ULL;
}

static int rehash(struct sr_fidelity *f, size_t hcap)
{
	size_t *nh = calloc(hcap, sizeof(*nh)), i;

	if (!nh)
		return -1;
	for (i = 0; i < f->n; i++) {
		size_t j = row_hash(f->rows[i].model, f->rows[i].kind, f->rows[i].reason_hash) &
			   (hcap - 1);

		while (nh[j])
			j = (j + 1) & (hcap - 1);
		nh[j] = i + 1;
	}
	free(f->hash);
	f->hash = nh;
	f->hcap = hcap;
	return 0;
}

struct sr_fidelity *sr_fidelity_new(const struct sr_topology *topo)
{
	struct sr_fidelity *f = calloc(1, sizeof(*f));

	if (f)
		f->topo = topo;
	return f;
}

void sr_fidelity_free(struct sr_fidelity *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free((char *)f->rows[i].reason);
	free(f->rows);
	free(f->hash);
	free(f);
}

void sr_reason_normalize(const char *reason, char *out, size_t len)
{
	size_t o = 0;
	const char *s;

	if (!len)
		return;
	for (s = reason; *s && o + 1 < len; s++) {
		if ((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')) {
			out[o++] = 'N';
			while (s[1] >= '0' && s[1] <= '9')
				s++;
			continue;
		}
		out[o++] = *s;
	}
	out[o] = '\0';
}

/* @reason normalized (sr_reason_normalize) and its reason_hash(), from the cache if met lately */
static const char *normalized(struct sr_fidelity *f, const char *reason, size_t *rh)
{
	struct norm_entry *n;
	int i;

	for (i = 0; i < f->nnorm; i++) {
		n = &f->norm[i];
		if (!strcmp(n->raw, reason)) {
			*rh = n->rh;
			return n->norm;
		}
	}
	n = &f->norm[f->next_norm];
	f->next_norm = (f->next_norm + 1) % NORM_CACHE;
	if (f->nnorm < NORM_CACHE)
		f->nnorm++;
	snprintf(n->raw, sizeof(n->raw), "%s", reason);
	sr_reason_normalize(reason, n->norm, sizeof(n->norm));
	n->rh = reason_hash(n->norm);
	*rh = n->rh;
	return n->norm;
}

/* the row of (@model, @kind, @reason), made if new; @rh: reason_hash(@reason) */
static struct sr_fidelity_row *row(struct sr_fidelity *f, const char *model, const char *kind,
				   const char *reason, size_t rh)
{
	size_t j;

	if ((f->n + 1) * 2 > f->hcap && rehash(f, f->hcap ? f->hcap * 2 : 256))
		return NULL;
	for (j = row_hash(model, kind, rh) & (f->hcap - 1); f->hash[j];
	     j = (j + 1) & (f->hcap - 1)) {
		struct sr_fidelity_row *r = &f->rows[f->hash[j] - 1];

		if (r->model == model && r->kind == kind && r->reason_hash == rh &&
		    !strcmp(r->reason, reason))
			return r;
	}
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 64;
		struct sr_fidelity_row *nr = realloc(f->rows, ncap * sizeof(*nr));

		if (!nr)
			return NULL;
		f->rows = nr;
		f->cap = ncap;
	}
	memset(&f->rows[f->n], 0, sizeof(f->rows[0]));
	f->rows[f->n].model = model;
	f->rows[f->n].kind = kind;
	f->rows[f->n].reason = strdup(reason);
	f->rows[f->n].reason_hash = rh;
	if (!f->rows[f->n].reason)
		return NULL;
	f->hash[j] = ++f->n;
	return &f->rows[f->n - 1];
}

static void count(struct sr_fidelity_row *r, const struct sr_topology *t, int cpu, int actual,
		  int baseline)
{
	r->n++;
	if (cpu == actual)
		r->exact++;
	if (cpu >= 0 && cpu < t->ncpus && sr_cpus_share_cache(t, cpu, actual))
		r->same_llc++;
	if (cpu >= 0 && cpu < t->ncpus && t->cpu[cpu].node == t->cpu[actual].node)
		r->same_node++;
	if (baseline == actual)
		r->baseline_exact++;
}

static int share(const struct sr_topology *t, int a, int b, int node)
{
	if (a < 0 || b < 0 || a >= t->ncpus || b >= t->ncpus)
		return a == b;
	return node ? t->cpu[a].node == t->cpu[b].node : sr_cpus_share_cache(t, a, b);
}

static void count_balance(struct sr_fidelity_row *r, const struct sr_topology *t,
			  const struct sr_decision *d, const struct sr_eval *e)
{
	int pulls = e->cpu >= 0, kpulls = d->actual_cpu >= 0;

	r->n++;
	if (pulls == kpulls && e->cpu == d->actual_cpu && (!kpulls || e->src_cpu == d->prev_cpu))
		r->exact++;
	if (pulls == kpulls && (!kpulls || (share(t, e->cpu, d->actual_cpu, 0) &&
					    share(t, e->src_cpu, d->prev_cpu, 0))))
		r->same_llc++;
	if (pulls == kpulls && (!kpulls || (share(t, e->cpu, d->actual_cpu, 1) &&
					    share(t, e->src_cpu, d->prev_cpu, 1))))
		r->same_node++;
	if (!kpulls)
		r->baseline_exact++;
}

static int add_balance(struct sr_fidelity *f, const char *model, const struct sr_decision *d,
		       const struct sr_eval *e)
{
	const char *k = kinds[6 + (d->kind - SR_DEC_LB_PERIODIC)];
	const char *reason;
	struct sr_fidelity_row *r = row(f, model, k, "", 0);
	size_t rh;

	if (!r)
		return -1;
	count_balance(r, f->topo, d, e);
	reason = normalized(f, e->reason, &rh);
	r = row(f, model, k, reason, rh);
	if (!r)
		return -1;
	count_balance(r, f->topo, d, e);
	return 0;
}

int sr_fidelity_add(struct sr_fidelity *f, const char *model, const struct sr_decision *d,
		    const struct sr_eval *e)
{
	const char *k[2], *reason;
	size_t rh;
	int i, nk;

	if (sr_decision_is_balance(d->kind))
		return add_balance(f, model, d, e);
	if (d->skip != SR_SKIP_NONE || d->actual_cpu < 0 || d->actual_cpu >= f->topo->ncpus)
		return 0;
	if (d->kind == SR_DEC_WAKEUP) {
		k[0] = kinds[0];
		k[1] = d->actual_cpu != d->prev_cpu ? kinds[1] : kinds[2];
	} else {
		k[0] = kinds[3];
		k[1] = d->idle_cpus > 0 ? kinds[4] : kinds[5];
	}
	nk = 2;
	reason = normalized(f, e->reason, &rh);
	for (i = 0; i < nk; i++) {
		/* one row at a time: row() may move the table */
		struct sr_fidelity_row *r = row(f, model, k[i], "", 0);

		if (!r)
			return -1;
		count(r, f->topo, e->cpu, d->actual_cpu, d->prev_cpu);
		if (e->margin < SR_NEAR_PERMILLE) {
			r->near++;
			r->near_exact += e->cpu == d->actual_cpu;
		}
		r = row(f, model, k[i], reason, rh);
		if (!r)
			return -1;
		count(r, f->topo, e->cpu, d->actual_cpu, d->prev_cpu);
	}
	return 0;
}

static int kind_rank(const char *k)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (!strcmp(k, kinds[i]))
			return (int)i;
	return (int)NKINDS;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct sr_fidelity_row *x = a, *y = b;
	int c = strcmp(x->model, y->model);

	if (c)
		return c;
	if (kind_rank(x->kind) != kind_rank(y->kind))
		return kind_rank(x->kind) - kind_rank(y->kind);
	if (!x->reason[0] != !y->reason[0])
		return x->reason[0] ? 1 : -1;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->reason, y->reason);
}

int sr_fidelity_rows(const struct sr_fidelity *f, const struct sr_fidelity_row **rows)
{
	if (f->n)
		qsort(f->rows, f->n, sizeof(f->rows[0]), cmp_rows);
	/* the index points at rows by position: rebuild it */
	if (f->hcap)
		rehash((struct sr_fidelity *)f, f->hcap);
	*rows = f->rows;
	return (int)f->n;
}

static double pct(uint64_t a, uint64_t n)
{
	return n ? 100.0 * (double)a / (double)n : 0.0;
}

void sr_fidelity_print(const struct sr_fidelity *f, FILE *out, int max_reasons)
{
	const struct sr_fidelity_row *rows;
	int n = sr_fidelity_rows(f, &rows), i, shown = 0;
	const char *model = NULL, *kind = NULL;

	for (i = 0; i < n; i++) {
		const struct sr_fidelity_row *r = &rows[i];

		if (!model || strcmp(model, r->model)) {
			model = r->model;
			kind = NULL;
			fprintf(out, "\nfidelity of model '%s' (%% of decisions where the model picks "
				"what the kernel picked)\n", model);
			fprintf(out, "  %-14s %9s %8s %8s %8s %10s\n", "kind", "n", "exact",
				"same-llc", "same-node", "baseline");
		}
		if (!r->reason[0]) {
			fprintf(out, "  %-14s %9llu %7.1f%% %7.1f%% %8.1f%% %9.1f%%\n", r->kind,
				(unsigned long long)r->n, pct(r->exact, r->n),
				pct(r->same_llc, r->n), pct(r->same_node, r->n),
				pct(r->baseline_exact, r->n));
			if (r->near && r->near < r->n)
				fprintf(out, "  %-14s %9llu %7.1f%%   of them near a threshold (inferred "
					"'near'); the other %llu: %.1f%%\n", "  near", (unsigned long long)r->near,
					pct(r->near_exact, r->near),
					(unsigned long long)(r->n - r->near),
					pct(r->exact - r->near_exact, r->n - r->near));
			else if (r->near)
				fprintf(out, "  %-14s %9llu %7.1f%%   all near a threshold (inferred "
					"'near')\n", "  near", (unsigned long long)r->near,
					pct(r->near_exact, r->near));
			continue;
		}
		if (!kind || strcmp(kind, r->kind)) {
			kind = r->kind;
			shown = 0;
			fprintf(out, "  by reason path, %s:\n", kind);
		}
		if (max_reasons >= 0 && shown++ >= max_reasons)
			continue;
		fprintf(out, "    %7llu %6.1f%%  %s\n", (unsigned long long)r->n,
			pct(r->exact, r->n), r->reason);
	}
}

int sr_fidelity_check(const char *kind, uint64_t n, uint64_t exact, uint64_t baseline_exact,
		      char *buf, size_t len)
{
	static const char *const split[] = { "wakeup_moved", "wakeup_kept", "fork_idle",
					     "fork_busy", "newidle" };
	size_t i;

	for (i = 0; i < sizeof(split) / sizeof(split[0]); i++)
		if (!strcmp(kind, split[i]))
			return 0;
	if (!n || exact > baseline_exact)
		return 0;
	snprintf(buf, len, "model no better than the baseline: it chose the kernel's CPU at "
		 "%.1f%% of the %s decisions, %s at %.1f%%; its choices here are no evidence for "
		 "or against a patch", 100.0 * (double)exact / (double)n, kind,
		 !strcmp(kind, "wakeup") ? "staying on prev_cpu" :
		 !strcmp(kind, "fork") ? "the parent's CPU" : "pulling nothing",
		 100.0 * (double)baseline_exact / (double)n);
	return 1;
}
