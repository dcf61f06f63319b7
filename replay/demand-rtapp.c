// SPDX-License-Identifier: GPL-2.0
/*
 * The demand as an rt-app workload (the JSON grammar of rt-app 1.0, the
 * version Debian 12 ships; its tutorial.txt describes it), so that a
 * recorded workload can be re-enacted on a real machine:
 *
 *   run burst              "runtimeN": microseconds of CPU time (time, not
 *                          loops: the recorded CPU time whatever the clock)
 *   sleep ended by a task  "barrierN" of a barrier of its own ("wT.S": the
 *                          wakee's task and step), which the waker's
 *                          matching point names too
 *   sleep ended otherwise  "sleepN": the recorded length (timer, interrupt,
 *                          unknown, or a waker that is not written)
 *   fork                   the child's thread starts at a barrier that the
 *                          parent reaches at the fork point (rt-app 1.0 has
 *                          no fork event; every thread exists from the
 *                          start)
 *   affinity change        a new phase with "cpus"
 *   exit, or asleep at the end of the trace: the thread's events end
 *
 * A two-party barrier rather than suspend and resume: rt-app 1.0's suspend
 * is a condition wait without a predicate, so a resume that comes before
 * the wakee suspends is lost and the pair waits for ever (the re-enacted
 * ping-pong of a pphogs recording stopped after six exchanges in the NUMA
 * guest; with barriers it ran all of its 934).
 * The barrier's counter keeps the edge whatever the order: the wakee waits
 * until the waker reaches its point, as in the trace; the waker also waits
 * until the wakee has reached its sleep, which the trace shows it had (a
 * wakeup the trace shows arriving before the wakee had blocked,
 * SR_DM_F_EARLY, is left out on both sides).  "duration" (twice the
 * recorded span, at least one second) bounds the run.
 *
 * "calibration" 10000 (ns per loop of rt-app's work function): runtime
 * spins in chunks of loadwait(32 us) until the clock says its time is up,
 * and a chunk lasts 32 us times the machine's real cost of a loop over the
 * calibration; a large value keeps the chunks short (a few loops), so the
 * run's length is the recorded one on any machine, without rt-app's
 * calibration run at start.
 */
#include "schedreplay/demand.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

struct rtw {
	const struct sr_demand *d;
	FILE *f;
	char (*name)[48];	/* thread name per task */
	char *keep;		/* the task is written */
};

static int written(const struct rtw *w, int t)
{
	return t >= 0 && t < w->d->ntasks && w->keep[t];
}

/* "comm-pid": letters, digits and - _ . only, so that the name needs no escape */
static void make_name(char *out, size_t size, const struct sr_dm_task *t, int idx, int dup)
{
	char comm[SR_COMM_LEN];
	size_t i;

	for (i = 0; i + 1 < sizeof(comm) && t->comm[i]; i++) {
		char c = t->comm[i];

		comm[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.') ? c : '_';
	}
	comm[i] = '\0';
	if (!comm[0])
		sr_strlcpy(comm, "task", sizeof(comm));
	if (dup)
		snprintf(out, size, "%s-%d.%d", comm, t->pid, idx);
	else
		snprintf(out, size, "%s-%d", comm, t->pid);
}

static long long usec(uint64_t ns)
{
	return (long long)((ns + 500) / 1000);
}

/* a task is written unless it is a kernel thread (without @kthreads) or
 * never ran a microsecond: a thread with no events is nothing to re-enact */
static int keep_task(const struct sr_dm_task *t, int kthreads)
{
	unsigned i;

	if (t->kthread && !kthreads)
		return 0;
	for (i = 0; i < t->nsteps; i++)
		if (t->step[i].kind == SR_DM_RUN && usec(t->step[i].ns) > 0)
			return 1;
	return 0;
}

/* the SLEEP step @s of task @t: written as a barrier (1), a sleep (0) or left out (-1) */
static int sleep_form(const struct rtw *w, const struct sr_dm_step *s)
{
	if (s->end == SR_DM_NEVER)
		return -1;
	if (s->end == SR_DM_BY_TASK && written(w, s->peer))
		return (s->flags & SR_DM_F_EARLY) ? -1 : 1;
	return 0;
}

static void write_cpus(FILE *f, uint64_t mask)
{
	int cpu, first = 1;

	fprintf(f, "\"cpus\": [");
	for (cpu = 0; cpu < 64; cpu++)
		if (mask & (1ULL << cpu)) {
			fprintf(f, "%s%d", first ? "" : ", ", cpu);
			first = 0;
		}
	fprintf(f, "]");
}

static void phase_open(struct rtw *w, int *nphase, int has_mask, uint64_t mask)
{
	fprintf(w->f, "%s\t\t\t\t\"p%d\": {\n\t\t\t\t\t\"loop\": 1", *nphase ? ",\n" : "", *nphase);
	if (has_mask) {
		fprintf(w->f, ",\n\t\t\t\t\t");
		write_cpus(w->f, mask);
	}
	(*nphase)++;
}

static void write_task(struct rtw *w, int idx)
{
	const struct sr_dm_task *t = &w->d->task[idx];
	FILE *f = w->f;
	int nphase = 0, nev = 0, prio = t->prio;
	uint64_t mask = t->mask;
	int has_mask = t->mask_known || t->bound_cpu >= 0;
	unsigned i;

	if (!t->mask_known && t->bound_cpu >= 0)
		mask = 1ULL << t->bound_cpu;
	fprintf(f, "\t\t\"%s\": {\n\t\t\t\"loop\": 1,\n", w->name[idx]);
	if (prio >= 0 && prio < 100)
		fprintf(f, "\t\t\t\"policy\": \"SCHED_FIFO\",\n\t\t\t\"priority\": %d,\n",
			99 - prio);
	else if (prio >= 100 && prio < 140)
		fprintf(f, "\t\t\t\"priority\": %d,\n", prio - 120);
	fprintf(f, "\t\t\t\"phases\": {\n");
	phase_open(w, &nphase, has_mask, mask);
	/* a child waits for its parent's fork point first (the barrier "fT") */
	if (t->origin == SR_DM_ORIGIN_FORKED && written(w, t->parent))
		fprintf(f, ",\n\t\t\t\t\t\"barrier%d\": \"f%d\"", nev++, idx);
	for (i = 0; i < t->nsteps; i++) {
		const struct sr_dm_step *s = &t->step[i];
		const struct sr_dm_step *ps;
		long long us;

		switch (s->kind) {
		case SR_DM_RUN:
			us = usec(s->ns);
			if (us > 0)
				fprintf(f, ",\n\t\t\t\t\t\"runtime%d\": %lld", nev++, us);
			break;
		case SR_DM_WAKE:
			if (!written(w, s->peer) || s->peer_step < 0)
				break;
			ps = &w->d->task[s->peer].step[s->peer_step];
			if (sleep_form(w, ps) == 1)
				fprintf(f, ",\n\t\t\t\t\t\"barrier%d\": \"w%d.%d\"", nev++,
					s->peer, s->peer_step);
			break;
		case SR_DM_FORK:
			if (written(w, s->peer) && w->d->task[s->peer].origin == SR_DM_ORIGIN_FORKED &&
			    w->d->task[s->peer].parent == idx)
				fprintf(f, ",\n\t\t\t\t\t\"barrier%d\": \"f%d\"", nev++, s->peer);
			break;
		case SR_DM_AFFINITY:
			fprintf(f, "\n\t\t\t\t}");
			phase_open(w, &nphase, 1, s->mask);
			break;
		case SR_DM_SLEEP:
			switch (sleep_form(w, s)) {
			case 1:
				fprintf(f, ",\n\t\t\t\t\t\"barrier%d\": \"w%d.%u\"", nev++, idx, i);
				break;
			case 0:
				us = usec(s->ns);
				if (us > 0)
					fprintf(f, ",\n\t\t\t\t\t\"sleep%d\": %lld", nev++, us);
				break;
			default:
				break;
			}
			break;
		case SR_DM_EXIT:
		case SR_DM_EXEC:	/* rt-app runs no exec: its placement is the kernel's */
			break;
		}
	}
	fprintf(f, "\n\t\t\t\t}\n\t\t\t}\n\t\t}");
}

static const struct sr_demand *sort_d;

static int by_pid(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int px = sort_d->task[x].pid, py = sort_d->task[y].pid;

	if (px != py)
		return px < py ? -1 : 1;
	return x < y ? -1 : x > y;
}

int sr_demand_write_rtapp(const struct sr_demand *d, FILE *f, int kthreads)
{
	struct rtw w = { .d = d, .f = f };
	uint64_t span = d->t1 > d->t0 ? d->t1 - d->t0 : 0;
	long long duration = (long long)((2 * span + 999999999ULL) / 1000000000ULL);
	int i, first = 1, *order;

	if (duration < 1)
		duration = 1;
	w.name = calloc(d->ntasks ? (size_t)d->ntasks : 1, sizeof(*w.name));
	w.keep = calloc(d->ntasks ? (size_t)d->ntasks : 1, 1);
	order = calloc(d->ntasks ? (size_t)d->ntasks : 1, sizeof(*order));
	if (!w.name || !w.keep || !order) {
		free(w.name);
		free(w.keep);
		free(order);
		return -SR_E_NOMEM;
	}
	for (i = 0; i < d->ntasks; i++) {
		w.keep[i] = (char)keep_task(&d->task[i], kthreads);
		order[i] = i;
	}
	/* a pid that names more than one task (reused) gets the index too */
	sort_d = d;
	qsort(order, (size_t)d->ntasks, sizeof(*order), by_pid);
	for (i = 0; i < d->ntasks; i++) {
		int t = order[i], pid = d->task[t].pid;
		int dup = (i > 0 && d->task[order[i - 1]].pid == pid) ||
			  (i + 1 < d->ntasks && d->task[order[i + 1]].pid == pid);

		make_name(w.name[t], sizeof(w.name[t]), &d->task[t], t, dup);
	}
	free(order);
	fprintf(f, "{\n\t\"global\": {\n"
		"\t\t\"duration\": %lld,\n"
		"\t\t\"calibration\": 10000,\n"
		"\t\t\"default_policy\": \"SCHED_OTHER\",\n"
		"\t\t\"lock_pages\": false,\n"
		"\t\t\"ftrace\": false,\n"
		"\t\t\"gnuplot\": false\n"
		"\t},\n\t\"tasks\": {\n", duration);
	for (i = 0; i < d->ntasks; i++) {
		if (!written(&w, i))
			continue;
		if (!first)
			fprintf(f, ",\n");
		first = 0;
		write_task(&w, i);
	}
	fprintf(f, "\n\t}\n}\n");
	free(w.name);
	free(w.keep);
	return ferror(f) ? -SR_E_IO : 0;
}
