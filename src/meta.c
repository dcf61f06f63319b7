// SPDX-License-Identifier: GPL-2.0
/*
 * The recording's metadata lines: the escaping of free text, shared by the
 * writer (record-meta.c) and the reader, and the reader replay uses (see
 * meta.h).
 */
#include "meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "banned.h"

char *sr_meta_escape(const char *s)
{
	size_t n = strlen(s), i, o = 0;
	char *r = malloc(n * 4 + 1);

	if (!r)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c > '~' || c == '\\') {
			snprintf(r + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			r[o++] = (char)c;
		}
	}
	r[o] = '\0';
	return r;
}

void sr_meta_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* "0-3,8" as a mask of CPUs 0-63 (CPUs above are left out); 0 if unreadable */
static uint64_t cpu_list_mask(const char *s)
{
	uint64_t mask = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a, c;

		if (end == s || a < 0)
			return 0;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return 0;
			s = end;
		}
		for (c = a; c <= b && c < 64; c++)
			mask |= 1ULL << c;
		if (*s == ',')
			s++;
		else if (*s)
			return 0;
	}
	return mask;
}

static void meta_task(struct sr_meta *m, char *line)
{
	struct sr_meta_hint h = { .pid = -1, .tgid = -1, .kthread = -1, .bound = -1,
				  .autogroup = -1, .cgroup_root = -1 };
	char *save = NULL, *k, *v;

	for (k = strtok_r(line, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		v = strtok_r(NULL, " ", &save);
		if (!v)
			break;
		if (!strcmp(k, "pid"))
			h.pid = atoi(v);
		else if (!strcmp(k, "tgid"))
			h.tgid = atoi(v);
		else if (!strcmp(k, "kthread"))
			h.kthread = atoi(v);
		else if (!strcmp(k, "autogroup"))
			h.autogroup = strtol(v, NULL, 10);
		else if (!strcmp(k, "agnice"))
			h.agnice = atoi(v);
		else if (!strcmp(k, "cgroup"))
			h.cgroup_root = !strcmp(v, "/");
		else if (!strcmp(k, "cpus")) {
			h.mask = cpu_list_mask(v);
			if (!strpbrk(v, ",-"))
				h.bound = atoi(v);
		}
		else if (!strcmp(k, "comm")) {
			sr_meta_unescape(v);
			sr_strlcpy(h.comm, v, sizeof(h.comm));
		}
	}
	if (h.pid <= 0)
		return;
	if (m->nhints == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct sr_meta_hint *nh = realloc(m->hints, ncap * sizeof(*nh));

		if (!nh)
			return;
		m->hints = nh;
		m->cap = ncap;
	}
	m->hints[m->nhints++] = h;
}

/*
 * The recorder writes its metadata through trace_marker before the first
 * scheduler event it cares about; read until "meta end" (or give up early
 * on traces without it), then back to the first event of *@tp (the trace
 * is opened again where its reader cannot rewind).
 */
int sr_meta_read(const char *path, const struct sr_trace_opts *opts, struct sr_trace **tp,
		 struct sr_meta *m, char **cause)
{
	struct sr_trace *t = *tp;
	struct sr_event ev;
	uint64_t n = 0;
	unsigned kinds;
	int ret, scan_probes, scan_balance, meta_done = 0;

	/*
	 * a text trace cannot say up front that it holds the probe events; a
	 * trace.dat's formats say which kinds its events can be, and a probe
	 * no format gives is not looked for (read to "meta end" only)
	 */
	m->autogroup = -1;
	kinds = sr_trace_borrow_info(t)->kinds;
	scan_probes = !sr_trace_borrow_info(t)->has_probes &&
		      (!kinds || kinds >> SR_EV_SELECT_RQ & 1);
	scan_balance = !sr_trace_borrow_info(t)->has_balance_probes &&
		       (!kinds || kinds >> SR_EV_BALANCE_RQ & 1);

	while ((ret = sr_trace_next(t, &ev, cause)) > 0) {
		const char *s = ev.text;

		if (ev.kind == SR_EV_SELECT_RQ) {
			m->probes = 1;
			scan_probes = 0;
			if (meta_done && !scan_balance)
				break;
		}
		if (ev.kind == SR_EV_BALANCE_RQ && ev.lb_idle >= 0) {
			m->balance_probes = 1;
			scan_balance = 0;
			if (meta_done && !scan_probes)
				break;
		}
		if (++n > 50000 && (!m->found || meta_done))
			break;
		if (!s || strncmp(s, "schedreplay: ", 13))
			continue;
		s += 13;
		m->found = 1;
		if (!strncmp(s, "topology ", 9)) {
			size_t l = strlen(s + 9);
			char *nt = realloc(m->topo, m->topo_len + l + 2);

			if (!nt) {
				ret = -SR_E_NOMEM;
				break;
			}
			m->topo = nt;
			memcpy(m->topo + m->topo_len, s + 9, l);
			m->topo_len += l;
			m->topo[m->topo_len++] = '\n';
			m->topo[m->topo_len] = '\0';
		} else if (!strncmp(s, "kernel ", 7)) {
			const char *hz = strstr(s, " hz ");
			size_t l = strcspn(s + 7, " ");

			if (hz)
				m->hz = atoi(hz + 4);
			if (l >= sizeof(m->kernel))
				l = sizeof(m->kernel) - 1;
			memcpy(m->kernel, s + 7, l);
			m->kernel[l] = '\0';
		} else if (!strncmp(s, "kernel-build ", 13)) {
			sr_strlcpy(m->kernel_build, s + 13, sizeof(m->kernel_build));
		} else if (!strncmp(s, "task ", 5)) {
			char buf[1024];

			sr_strlcpy(buf, s + 5, sizeof(buf));
			meta_task(m, buf);
		} else if (!strncmp(s, "autogroup ", 10)) {
			m->autogroup = atoi(s + 10) > 0;
		} else if (!strcmp(s, "balance-probes on")) {
			m->balance_probes = 1;
		} else if (!strcmp(s, "probes off affinity uprobe")) {
			m->affinity_uprobe = 1;
		} else if (!strncmp(s, "meta end", 8)) {
			meta_done = 1;
			if (!scan_probes && !scan_balance)
				break;
		}
	}
	if (ret < 0)
		return ret;
	ret = sr_trace_rewind(t, cause);
	if (ret != -SR_E_UNSUPPORTED)
		return ret < 0 ? ret : 0;
	sr_trace_free(t);
	*tp = NULL;
	return sr_trace_open(path, opts, tp, cause);
}

void sr_meta_release(struct sr_meta *m)
{
	free(m->topo);
	free(m->hints);
	m->topo = NULL;
	m->hints = NULL;
	m->topo_len = m->nhints = m->cap = 0;
}
