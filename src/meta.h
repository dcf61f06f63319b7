/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording's metadata lines (schedreplay-record(1), PROBES AND
 * METADATA): "schedreplay: ..." lines the recorder writes through
 * trace_marker.  Both ends of the format live here: the \xHH escaping the
 * writer (record-meta.c) applies to free text, and the reader replay uses.
 * Dependencies run one way: the recorder and replay include this; this
 * includes neither.
 */
#ifndef SCHEDREPLAY_META_H
#define SCHEDREPLAY_META_H

#include <stddef.h>
#include <stdint.h>

#include "schedreplay/event.h"
#include "schedreplay/trace.h"

/**
 * sr_meta_escape - @s with every byte that is not '!'..'~', and '\', as \xHH
 * (so that a value is one word of a metadata line)
 * Return: a new string (caller frees), or NULL without memory.
 */
char *sr_meta_escape(const char *s);

/* sr_meta_unescape - undo sr_meta_escape() in place */
void sr_meta_unescape(char *s);

/* what a "task" line tells of one thread */
struct sr_meta_hint {
	int pid, tgid, kthread, bound;
	uint64_t mask;		/* Cpus_allowed_list, CPUs 0-63; 0 unknown */
	long autogroup;		/* /proc/PID/autogroup's id; -1 none (kernel thread, off) */
	int agnice;		/* that autogroup's nice */
	int cgroup_root;	/* its cpu cgroup is "/": 1, another: 0, not said: -1 */
	char comm[SR_COMM_LEN];
};

/* what the recording's metadata lines tell replay */
struct sr_meta {
	char *topo;			/* the topology lines, as a topology file */
	size_t topo_len;
	int hz;
	char kernel[64];		/* the "kernel RELEASE" line's release */
	char kernel_build[128];		/* the "kernel-build VERSION" line's uname -v */
	int found;
	int probes;			/* select_rq events seen in the scanned part */
	int balance_probes;		/* balance_rq events seen in the scanned part */
	int autogroup;			/* the "autogroup 0|1" line; -1 absent */
	int affinity_uprobe;		/* "probes off affinity uprobe": some calls unseen */
	struct sr_meta_hint *hints;
	size_t nhints, cap;
};

/**
 * sr_meta_read - scan the start of the open trace *@tp (of @path) for the
 * metadata lines (until "meta end", or give up early on traces without
 * them) and for select_rq probe events, into @m (zeroed by the caller),
 * then put the trace back at its first event: rewound, or where its reader
 * cannot rewind, closed and opened again (*@tp replaced)
 * Return: 0, or a negative SR_E_* code with *@cause set (*@tp, possibly
 * NULL, is still the caller's to free).
 */
int sr_meta_read(const char *path, const struct sr_trace_opts *opts, struct sr_trace **tp,
		 struct sr_meta *m, char **cause);

/* sr_meta_release - free what sr_meta_read() put in @m */
void sr_meta_release(struct sr_meta *m);

#endif
