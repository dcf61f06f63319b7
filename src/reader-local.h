/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a reader implements.  The core (trace.c) owns struct sr_trace, picks
 * a reader by probing, checks time order, keeps per-cpu counters and wraps
 * every error cause with the file name; a reader only turns its format into
 * struct sr_event.
 */
#ifndef SCHEDREPLAY_READER_LOCAL_H
#define SCHEDREPLAY_READER_LOCAL_H

#include <stddef.h>
#include "schedreplay/trace.h"

/* Most CPUs a trace may have (the topology's limit too); more mean corruption. */
#define SR_MAX_CPUS 8192

struct sr_reader_ops {
	const char *name;	/* "tracedat", "ctf", "text" */
	/*
	 * Return a score > 0 if the path looks like this format: @head holds the
	 * first @len bytes of a regular file (NULL for a directory).
	 */
	int (*probe)(const char *path, int is_dir, const unsigned char *head, size_t len);
	/*
	 * Open @path and fill t->info (format, kernel, ncpus_declared, ...) and
	 * t->priv.  Causes name the place only ("at offset 4096", "line 12");
	 * the core prefixes the file name.
	 */
	int (*open)(struct sr_trace *t, const struct sr_trace_opts *opts, char **cause);
	/* 1 = event, 0 = end, <0 = -SR_E_* with a cause naming the place */
	int (*next)(struct sr_trace *t, struct sr_event *ev, char **cause);
	/* optional: back to the first event (0, or <0 with a cause) */
	int (*rewind)(struct sr_trace *t, char **cause);
	/* describe where the last event came from ("line 12", "cpu 3 offset 0x4000") */
	void (*where)(struct sr_trace *t, char *buf, size_t len);
	void (*close)(struct sr_trace *t);
};

struct sr_trace {
	const struct sr_reader_ops *ops;
	void *priv;
	struct sr_trace_info info;
	uint64_t last_ts;
	uint64_t nevents;		/* events handed out, for messages */
	int have_last;
	int failed;
};

extern const struct sr_reader_ops sr_reader_tracedat;
extern const struct sr_reader_ops sr_reader_ctf;
extern const struct sr_reader_ops sr_reader_text;

/**
 * sr_trace_cpu_stats - counters of @cpu, growing the table as needed
 * Return: NULL if @cpu is negative or absurdly large, or on allocation failure.
 */
struct sr_cpu_stats *sr_trace_cpu_stats(struct sr_trace *t, int cpu);

/**
 * sr_intern - a copy of @s that lives as long as the process
 * (event and field names of pass-through events; the set is small)
 * Return: never NULL (aborts on allocation failure).
 */
const char *sr_intern(const char *s);

#endif
