// SPDX-License-Identifier: GPL-2.0
/*
 * CTF reader (LTTng kernel traces and perf's CTF conversion) through
 * libbabeltrace2.  The graph is source.ctf.fs -> filter.utils.muxer -> a
 * simple sink whose consume function parks one batch of messages in a
 * queue; next() hands them out one at a time and runs the graph once more
 * when the queue is empty, so memory is bounded by one batch, not by the
 * trace.  Field positions are looked up once per event class.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>

#include "schedreplay/error.h"
#include "reader-local.h"
#include "banned.h"

/* messages queued at open while looking for every stream's first packet */
#define CTF_PREFETCH_MAX	4096
/* how deep probe and open look for 'metadata' files (LTTng UST: ust/uid/N/64-bit) */
#define CTF_WALK_DEPTH		4
#define CTF_WALK_ENTRIES	4096

#define CTF_MAGIC		0x75d11d57u
#define CTF_MAGIC_SWAPPED	0x571dd175u
#define CTF_MD_HEADER_LEN	37	/* packed metadata packet header */

#define CTF_NELEM(a)		(sizeof(a) / sizeof((a)[0]))

/* fields looked up once per event class */
enum ctf_fld {
	CF_COMM, CF_TID, CF_PRIO, CF_TARGET_CPU, CF_ORIG_CPU, CF_DEST_CPU, CF_SUCCESS,
	CF_PREV_COMM, CF_PREV_TID, CF_PREV_PRIO, CF_PREV_STATE,
	CF_NEXT_COMM, CF_NEXT_TID, CF_NEXT_PRIO,
	CF_PARENT_COMM, CF_PARENT_TID, CF_CHILD_COMM, CF_CHILD_TID,
	CF_CPU,		/* perf: the cpu is a field, not the stream */
	CF_CUR_TID,	/* the task current when the event fired */
	CF__COUNT
};

/* where a field lives; also the index into the scope array of an event */
enum ctf_scope { CS_NONE, CS_PAYLOAD, CS_SPEC_CTX, CS_COMMON_CTX, CS__COUNT };

/*
 * Candidate names, first match wins.  LTTng names thread ids "tid" (its
 * "pid" fields are thread-group ids), perf and ftrace name them "pid".
 * Context fields may keep LTTng's leading underscore.
 */
static const struct {
	const char *payload[3];
	const char *context[7];
} ctf_names[CF__COUNT] = {
	[CF_COMM] = { { "comm" }, { NULL } },
	[CF_TID] = { { "tid", "pid" }, { NULL } },
	[CF_PRIO] = { { "prio" }, { NULL } },
	[CF_TARGET_CPU] = { { "target_cpu" }, { NULL } },
	[CF_ORIG_CPU] = { { "orig_cpu" }, { NULL } },
	[CF_DEST_CPU] = { { "dest_cpu" }, { NULL } },
	[CF_SUCCESS] = { { "success" }, { NULL } },
	[CF_PREV_COMM] = { { "prev_comm" }, { NULL } },
	[CF_PREV_TID] = { { "prev_tid", "prev_pid" }, { NULL } },
	[CF_PREV_PRIO] = { { "prev_prio" }, { NULL } },
	[CF_PREV_STATE] = { { "prev_state" }, { NULL } },
	[CF_NEXT_COMM] = { { "next_comm" }, { NULL } },
	[CF_NEXT_TID] = { { "next_tid", "next_pid" }, { NULL } },
	[CF_NEXT_PRIO] = { { "next_prio" }, { NULL } },
	[CF_PARENT_COMM] = { { "parent_comm" }, { NULL } },
	[CF_PARENT_TID] = { { "parent_tid", "parent_pid" }, { NULL } },
	[CF_CHILD_COMM] = { { "child_comm" }, { NULL } },
	[CF_CHILD_TID] = { { "child_tid", "child_pid" }, { NULL } },
	[CF_CPU] = { { "perf_cpu" }, { "perf_cpu", "cpu_id", "_cpu_id" } },
	[CF_CUR_TID] = { { "common_pid", "perf_tid" },
		       { "tid", "_tid", "perf_tid", "common_pid", "pid", "_pid" } },
};

/* how a class records prio */
enum ctf_prio {
	CP_KERNEL,	/* kernel scale already (perf, ftrace) */
	CP_LTTNG,	/* LTTng: kernel prio - 100 */
	CP_LTTNG_RAW,	/* lttng-modules < 2.7.1 sched_wakeup template: p->prio as is */
};

/* what the trace environment says, per trace */
struct ctf_env {
	int lttng;		/* lttng-modules (or unknown tracer with LTTng field names) */
	int perf;
	int version;		/* tracer major * 10000 + minor * 100 + patch, -1 unknown */
	int kmajor, kminor;	/* kernel release, -1 unknown */
};

struct ctf_class {
	enum sr_event_kind kind;
	const char *name;			/* interned */
	unsigned char scope[CF__COUNT];		/* enum ctf_scope */
	uint64_t idx[CF__COUNT];		/* member index within that scope */
	enum ctf_prio prio;
	enum sr_pstate_enc enc;
};

struct ctf_stream {
	const bt_stream *s;	/* reference held until close */
	const char *name;	/* base name of the first stream file, owned by @s */
	int cpu_member;		/* index of cpu_id in the packet context, -1 if none */
	int cpu;		/* cpu of the current packet (or last perf_cpu), -1 unknown */
	int first_cpu;		/* cpu_id of the first packet, -1 unknown */
	int seen_packet;
};

/* open-addressing map from a babeltrace object to an index of ours */
struct ctf_map {
	const void **key;
	int *val;
	size_t cap;		/* power of two, 0 when empty */
	size_t n;
};

struct ctf_reader {
	bt_graph *graph;
	const bt_plugin *plugin_ctf;
	const bt_plugin *plugin_utils;
	char *dir;		/* the directory given to source.ctf.fs */

	const bt_message **q;	/* ring of messages, references held */
	size_t qcap, qhead, qlen;
	int ended;		/* the muxer said END */
	int queued_event;	/* an event message was queued (prefetch) */
	int nomem;		/* the consume function ran out of memory */

	struct ctf_stream *st;
	size_t nst, stcap;
	struct ctf_map stmap;

	struct ctf_class *cls;
	size_t ncls, clscap;
	struct ctf_map clsmap;

	struct sr_trace *t;
	int last_stream;	/* where(): stream of the last message, -1 none */
	uint64_t last_ts;
	int have_ts;
};

/* ---- small helpers ---- */

static size_t map_slot(const struct ctf_map *m, const void *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & (m->cap - 1);
}

static int map_get(const struct ctf_map *m, const void *k)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = map_slot(m, k); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == k)
			return m->val[i];
	return -1;
}

static int map_put(struct ctf_map *m, const void *k, int v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct ctf_map nm = { NULL, NULL, m->cap ? m->cap * 2 : 64, 0 };

		nm.key = calloc(nm.cap, sizeof(*nm.key));
		nm.val = calloc(nm.cap, sizeof(*nm.val));
		if (!nm.key || !nm.val) {
			free(nm.key);
			free(nm.val);
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			if (m->key[i])
				map_put(&nm, m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = nm;
	}
	for (i = map_slot(m, k); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == k)
			break;
	if (!m->key[i])
		m->n++;
	m->key[i] = k;
	m->val[i] = v;
	return 0;
}

static void map_release(struct ctf_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

static const char *base_name(const char *path)
{
	const char *s;

	if (!path)
		return "?";
	s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static int is_file(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return 0;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* integer value of a field (any signedness, enumerations and booleans too) */
static int field_int(const bt_field *f, long long *v)
{
	bt_field_class_type type;

	if (!f)
		return -1;
	type = bt_field_get_class_type(f);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		*v = bt_field_integer_signed_get_value(f);
		return 0;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		uint64_t u = bt_field_integer_unsigned_get_value(f);

		*v = u > (uint64_t)INT64_MAX ? INT64_MAX : (long long)u;
		return 0;
	}
	if (type == BT_FIELD_CLASS_TYPE_BOOL) {
		*v = bt_field_bool_get_value(f) ? 1 : 0;
		return 0;
	}
	return -1;
}

/* an int-sized value (pid, cpu, prio); out-of-range values become -1 */
static int field_small(const bt_field *f, int dflt)
{
	long long v;

	if (field_int(f, &v) < 0)
		return dflt;
	if (v < -1000000000LL || v > 2000000000LL)
		return -1;
	return (int)v;
}

static void field_str(const bt_field *f, char *dst, size_t size)
{
	if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING)
		sr_strlcpy(dst, bt_field_string_get_value(f), size);
}

/* index of member @name in structure class @fc, -1 if absent */
static int64_t struct_member(const bt_field_class *fc, const char *name)
{
	uint64_t i, n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	n = bt_field_class_structure_get_member_count(fc);
	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const char *mn = bt_field_class_structure_member_get_name(m);

		if (mn && !strcmp(mn, name))
			return (int64_t)i;
	}
	return -1;
}

/* environment entry as text (integers are printed) */
static int env_str(const bt_trace *tr, const char *name, char *buf, size_t len)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(tr, name);

	if (!v)
		return -1;
	switch (bt_value_get_type(v)) {
	case BT_VALUE_TYPE_STRING:
		snprintf(buf, len, "%s", bt_value_string_get(v));
		return 0;
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		snprintf(buf, len, "%lld", (long long)bt_value_integer_signed_get(v));
		return 0;
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		snprintf(buf, len, "%llu", (unsigned long long)bt_value_integer_unsigned_get(v));
		return 0;
	default:
		return -1;
	}
}

static int env_int(const bt_trace *tr, const char *name)
{
	char buf[32];
	char *end;
	long v;

	if (env_str(tr, name, buf, sizeof(buf)) < 0)
		return -1;
	v = strtol(buf, &end, 10);
	if (end == buf || v < 0 || v > 99)
		return -1;
	return (int)v;
}

static void ctf_env_read(const bt_trace *tr, struct ctf_env *env)
{
	char name[64] = "", rel[160] = "";
	int maj, min, patch;

	memset(env, 0, sizeof(*env));
	env->version = env->kmajor = env->kminor = -1;
	env_str(tr, "tracer_name", name, sizeof(name));
	env->lttng = !strncmp(name, "lttng", 5);
	env->perf = !strcmp(name, "perf");
	maj = env_int(tr, "tracer_major");
	min = env_int(tr, "tracer_minor");
	patch = env_int(tr, "tracer_patchlevel");
	if (maj >= 0 && min >= 0)
		env->version = maj * 10000 + min * 100 + (patch > 0 ? patch : 0);
	if (env_str(tr, "kernel_release", rel, sizeof(rel)) < 0)
		env_str(tr, "release", rel, sizeof(rel));
	if (sscanf(rel, "%d.%d", &maj, &min) == 2 && maj >= 0 && min >= 0) {
		env->kmajor = maj;
		env->kminor = min;
	}
}

static enum sr_pstate_enc ctf_env_pstate(const struct ctf_env *env)
{
	int new_kernel = env->kmajor < 0 || env->kmajor > 4 ||
			 (env->kmajor == 4 && env->kminor >= 14);

	/* LTTng always records the raw p->state; ftrace (perf) the report form since 4.14 */
	if (env->lttng || !env->perf)
		return new_kernel ? SR_PSTATE_RAW_NEW : SR_PSTATE_RAW_OLD;
	return new_kernel ? SR_PSTATE_REPORT : SR_PSTATE_RAW_OLD;
}

/* ---- metadata sanity checks done before babeltrace sees the file ---- */

static uint32_t rd32(const unsigned char *p, int swap)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;

	if (swap)
		v = (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
	return v;
}

/*
 * babeltrace2 2.0.4 loops forever on a packetized metadata file whose last
 * packet is cut short, and reports garbage metadata only as "cannot create
 * trace": check the packet framing (or that text metadata is text) first.
 */
static int ctf_check_metadata(const char *dir, char **cause)
{
	unsigned char h[CTF_MD_HEADER_LEN];
	char path[4096];
	struct stat st;
	uint64_t off = 0;
	size_t n, i;
	FILE *f;
	int swap, ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/metadata", dir) >= sizeof(path)) {
		sr_cause_set(cause, "path too long");
		return -SR_E_USAGE;
	}
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st) < 0) {
		sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -SR_E_IO;
	}
	n = fread(h, 1, sizeof(h), f);
	if (n < 4) {
		sr_cause_set(cause, "metadata file '%s' is %s", path, n ? "too short" : "empty");
		ret = -SR_E_FORMAT;
		goto out;
	}
	if (rd32(h, 0) != CTF_MAGIC && rd32(h, 0) != CTF_MAGIC_SWAPPED) {
		/* TSDL text: reject binary garbage */
		for (i = 0; i < n; i++)
			if (h[i] < 0x09 || (h[i] > 0x0d && h[i] < 0x20) || h[i] == 0x7f)
				break;
		if (i < n) {
			sr_cause_set(cause, "metadata file '%s' is neither packetized CTF "
				     "metadata nor TSDL text", path);
			ret = -SR_E_FORMAT;
		}
		goto out;
	}
	swap = rd32(h, 0) != CTF_MAGIC;
	for (;;) {
		uint32_t content, packet;

		if (fseeko(f, (off_t)off, SEEK_SET) < 0)
			break;
		n = fread(h, 1, sizeof(h), f);
		if (n < sizeof(h))
			break;	/* babeltrace stops at a partial header too */
		if (rd32(h, swap) != CTF_MAGIC) {
			sr_cause_set(cause, "metadata packet at offset %llu: bad magic 0x%08x",
				     (unsigned long long)off, rd32(h, swap));
			ret = -SR_E_CORRUPT;
			break;
		}
		content = rd32(h + 24, swap) / 8;
		packet = rd32(h + 28, swap) / 8;
		if (content < CTF_MD_HEADER_LEN || packet < content) {
			sr_cause_set(cause, "metadata packet at offset %llu: invalid sizes "
				     "(content %u bytes, packet %u bytes)",
				     (unsigned long long)off, content, packet);
			ret = -SR_E_CORRUPT;
			break;
		}
		if (off + content > (uint64_t)st.st_size) {
			sr_cause_set(cause, "metadata packet at offset %llu is truncated "
				     "(%u bytes of content, the file ends at %llu)",
				     (unsigned long long)off, content,
				     (unsigned long long)st.st_size);
			ret = -SR_E_TRUNCATED;
			break;
		}
		off += packet;
	}
out:
	fclose(f);
	return ret;
}

/* what ctf_walk() found */
struct ctf_found {
	int n;			/* traces */
	char *first;		/* the first one, or the session's "kernel" one */
	int first_is_kernel;
};

/*
 * Visit @dir and its subdirectories (bounded depth and width) for CTF
 * traces; with @found, note them.  Return the number of traces found,
 * or a negative error.
 */
static int ctf_walk(const char *dir, int depth, struct ctf_found *found, char **cause)
{
	struct dirent *de;
	int n = 0, entries = 0;
	DIR *d;

	if (is_file(dir, "metadata")) {
		/* an LTTng session: <session>/kernel next to <session>/ust/... */
		int kernel = depth == 1 && !strcmp(base_name(dir), "kernel");

		if (!found)
			return 1;	/* babeltrace does not look below a trace */
		found->n++;
		if (!found->first || (kernel && !found->first_is_kernel)) {
			free(found->first);
			found->first = strdup(dir);
			found->first_is_kernel = kernel;
			if (!found->first) {
				sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
				return -SR_E_NOMEM;
			}
		}
		return 1;
	}
	if (depth >= CTF_WALK_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && entries++ < CTF_WALK_ENTRIES) {
		char p[4096];
		struct stat st;
		int ret;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
			continue;
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		ret = ctf_walk(p, depth + 1, found, cause);
		if (ret < 0) {
			closedir(d);
			return ret;
		}
		n += ret;
		if (n && !found)
			break;	/* probe: one is enough */
	}
	closedir(d);
	return n;
}

static int ctf_probe(const char *path, int is_dir, const unsigned char *head, size_t len)
{
	char p[4096];

	(void)head;
	(void)len;
	if (!is_dir)
		return 0;
	if (is_file(path, "metadata"))
		return 100;
	if ((size_t)snprintf(p, sizeof(p), "%s/kernel", path) < sizeof(p) &&
	    is_file(p, "metadata"))
		return 90;
	return ctf_walk(path, 0, NULL, NULL) > 0 ? 60 : 0;
}

/* ---- babeltrace errors ---- */

/*
 * Turn the current thread's babeltrace error into one line: the deepest
 * cause (the first one appended) says what actually went wrong; its
 * "key=value" details with addresses are noise for a user.
 */
static char *ctf_take_error(void)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *msg = NULL, *file = NULL, *q;
	uint64_t i, n;
	size_t flen = 0, len;
	char *s, *p;

	if (!err)
		return NULL;
	n = bt_error_get_cause_count(err);
	if (n > 0)
		msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, 0));
	/* the deepest cause may not say which file: the next ones quote it */
	for (i = 1; msg && !strchr(msg, '/') && i < n && !file; i++) {
		const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));

		for (q = m; q && *q && !file; q++) {
			const char *end;

			if ((*q != '`' && *q != '\'') || q[1] != '/')
				continue;
			end = strchr(q + 1, *q);
			if (end && end - q - 1 < 1024) {
				file = q + 1;
				flen = (size_t)(end - q - 1);
			}
		}
	}
	len = msg ? strlen(msg) : 0;
	s = msg ? malloc(len + flen + 16) : NULL;
	if (!s) {
		bt_error_release(err);
		return NULL;
	}
	memcpy(s, msg, len + 1);
	for (p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	p = strstr(s, "addr=");
	if (p) {
		/* cut at the ": " that starts the details */
		while (p > s + 1 && !(p[-1] == ' ' && p[-2] == ':'))
			p--;
		if (p > s + 1)
			p[-2] = '\0';
	}
	p = s + strlen(s);
	while (p > s && (p[-1] == ' ' || p[-1] == '.'))
		*--p = '\0';
	if (file)
		snprintf(p, flen + 16, " (file '%.*s')", (int)flen, file);
	bt_error_release(err);
	/* lowercase the first letter, the way our messages read */
	if (s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z'))
		s[0] = (char)(s[0] - 'A' + 'a');
	return s;
}

static int ctf_fail(char **cause, int err, const char *what)
{
	char *msg = ctf_take_error();

	sr_cause_set(cause, "%s: %s", what, msg ? msg : "babeltrace2 gave no reason");
	free(msg);
	return err;
}

/* ---- the queue and the simple sink ---- */

static int queue_push(struct ctf_reader *r, const bt_message *msg)
{
	if (r->qlen == r->qcap) {
		size_t ncap = r->qcap ? r->qcap * 2 : 64, i;
		const bt_message **nq = malloc(ncap * sizeof(*nq));

		if (!nq)
			return -1;
		for (i = 0; i < r->qlen; i++)
			nq[i] = r->q[(r->qhead + i) % r->qcap];
		free(r->q);
		r->q = nq;
		r->qcap = ncap;
		r->qhead = 0;
	}
	r->q[(r->qhead + r->qlen) % r->qcap] = msg;
	r->qlen++;
	return 0;
}

static const bt_message *queue_pop(struct ctf_reader *r)
{
	const bt_message *msg;

	if (!r->qlen)
		return NULL;
	msg = r->q[r->qhead];
	r->qhead = (r->qhead + 1) % r->qcap;
	r->qlen--;
	return msg;
}

static int stream_add(struct ctf_reader *r, const bt_stream *s)
{
	const bt_field_class *pc;
	struct ctf_stream *e;
	int64_t m;

	if (r->nst == r->stcap) {
		size_t ncap = r->stcap ? r->stcap * 2 : 16;
		struct ctf_stream *n = realloc(r->st, ncap * sizeof(*n));

		if (!n)
			return -1;
		r->st = n;
		r->stcap = ncap;
	}
	if (map_put(&r->stmap, s, (int)r->nst) < 0)
		return -1;
	e = &r->st[r->nst];
	memset(e, 0, sizeof(*e));
	bt_stream_get_ref(s);
	e->s = s;
	e->name = base_name(bt_stream_get_name(s));
	pc = bt_stream_class_borrow_packet_context_field_class_const(bt_stream_borrow_class_const(s));
	m = struct_member(pc, "cpu_id");
	e->cpu_member = m >= 0 ? (int)m : -1;
	e->cpu = -1;
	e->first_cpu = -1;
	return (int)r->nst++;
}

static int stream_find(struct ctf_reader *r, const bt_stream *s)
{
	int i = map_get(&r->stmap, s);

	return i >= 0 ? i : stream_add(r, s);
}

static int packet_cpu(const struct ctf_stream *e, const bt_packet *pkt)
{
	const bt_field *ctx;

	if (e->cpu_member < 0 || !pkt)
		return -1;
	ctx = bt_packet_borrow_context_field_const(pkt);
	if (!ctx)
		return -1;
	return field_small(bt_field_structure_borrow_member_field_by_index_const(ctx,
			   (uint64_t)e->cpu_member), -1);
}

/* note streams and first packets as they arrive, so that open can count cpus */
static int note_message(struct ctf_reader *r, const bt_message *msg)
{
	const bt_packet *pkt;
	int i;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return stream_find(r, bt_message_stream_beginning_borrow_stream_const(msg)) < 0
			? -1 : 0;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		pkt = bt_message_packet_beginning_borrow_packet_const(msg);
		i = stream_find(r, bt_packet_borrow_stream_const(pkt));
		if (i < 0)
			return -1;
		if (!r->st[i].seen_packet) {
			r->st[i].seen_packet = 1;
			r->st[i].first_cpu = packet_cpu(&r->st[i], pkt);
		}
		return 0;
	case BT_MESSAGE_TYPE_EVENT:
		r->queued_event = 1;
		return 0;
	default:
		return 0;
	}
}

static bt_graph_simple_sink_component_consume_func_status
ctf_consume(bt_message_iterator *it, void *data)
{
	struct ctf_reader *r = data;
	bt_message_array_const msgs;
	uint64_t count = 0, i;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		r->ended = 1;
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < count; i++) {
		if (r->nomem || note_message(r, msgs[i]) < 0 || queue_push(r, msgs[i]) < 0) {
			r->nomem = 1;
			bt_message_put_ref(msgs[i]);
		}
	}
	if (r->nomem)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* run the graph once; 1 = more messages may be queued, 0 = end, <0 = error */
static int ctf_refill(struct ctf_reader *r, char **cause)
{
	char what[64];

	if (r->ended)
		return 0;
	switch (bt_graph_run_once(r->graph)) {
	case BT_GRAPH_RUN_ONCE_STATUS_OK:
	case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
		return 1;
	case BT_GRAPH_RUN_ONCE_STATUS_END:
		r->ended = 1;
		return 0;
	case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	default:
		if (r->nomem) {
			bt_current_thread_clear_error();
			sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
			return -SR_E_NOMEM;
		}
		if (r->have_ts)
			snprintf(what, sizeof(what), "cannot decode CTF data after %llu ns",
				 (unsigned long long)r->last_ts);
		else
			snprintf(what, sizeof(what), "cannot decode CTF data at the start");
		return ctf_fail(cause, -SR_E_CORRUPT, what);
	}
}

/* ---- event classes ---- */

static int class_add(struct ctf_reader *r, const bt_event_class *ec, const bt_stream *s)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *fcs[CS__COUNT] = {
		NULL,
		bt_event_class_borrow_payload_field_class_const(ec),
		bt_event_class_borrow_specific_context_field_class_const(ec),
		bt_stream_class_borrow_event_common_context_field_class_const(sc),
	};
	const char *name = bt_event_class_get_name(ec);
	struct ctf_class *c;
	struct ctf_env env;
	int f, sc_i, k;

	if (r->ncls == r->clscap) {
		size_t ncap = r->clscap ? r->clscap * 2 : 32;
		struct ctf_class *n = realloc(r->cls, ncap * sizeof(*n));

		if (!n)
			return -1;
		r->cls = n;
		r->clscap = ncap;
	}
	if (map_put(&r->clsmap, ec, (int)r->ncls) < 0)
		return -1;
	c = &r->cls[r->ncls];
	memset(c, 0, sizeof(*c));
	c->name = sr_intern(name ? name : "unknown");
	c->kind = sr_event_kind_from_name(c->name);
	if (c->kind == SR_EV_WAKING)
		r->t->info.has_waking = 1;

	for (f = 0; f < CF__COUNT; f++) {
		for (sc_i = CS_PAYLOAD; sc_i < CS__COUNT && !c->scope[f]; sc_i++) {
			const char *const *names = sc_i == CS_PAYLOAD ? ctf_names[f].payload
								      : ctf_names[f].context;
			int max = sc_i == CS_PAYLOAD ? (int)CTF_NELEM(ctf_names[f].payload)
						     : (int)CTF_NELEM(ctf_names[f].context);

			for (k = 0; k < max && names[k]; k++) {
				int64_t m = struct_member(fcs[sc_i], names[k]);

				if (m >= 0) {
					c->scope[f] = (unsigned char)sc_i;
					c->idx[f] = (uint64_t)m;
					break;
				}
			}
		}
	}

	ctf_env_read(bt_stream_borrow_trace_const(s), &env);
	/* a tracer that does not say which: LTTng is the one naming threads "tid" */
	if (!env.lttng && !env.perf &&
	    (struct_member(fcs[CS_PAYLOAD], "tid") >= 0 ||
	     struct_member(fcs[CS_PAYLOAD], "prev_tid") >= 0 ||
	     struct_member(fcs[CS_PAYLOAD], "parent_tid") >= 0))
		env.lttng = 1;
	c->enc = ctf_env_pstate(&env);
	c->prio = env.lttng ? CP_LTTNG : CP_KERNEL;
	/*
	 * lttng-modules subtracts MAX_RT_PRIO from every prio, except in the
	 * sched_wakeup template before 2.7.1 (commit 5aa835c0, "Use
	 * MAX_RT_PRIO offset in sched_wakeup_template").
	 */
	if (env.lttng && env.version >= 0 && env.version < 20701 &&
	    (c->kind == SR_EV_WAKING || c->kind == SR_EV_WAKEUP ||
	     c->kind == SR_EV_WAKEUP_NEW))
		c->prio = CP_LTTNG_RAW;
	return (int)r->ncls++;
}

/* prio on the kernel's 0..139 scale, -1 when the field is absent */
static int prio_read(const struct ctf_class *c, const bt_field *f)
{
	long long ll;
	int v;

	if (field_int(f, &ll) < 0 || ll < -100 || ll > 1000)
		return -1;
	v = (int)ll;
	switch (c->prio) {
	case CP_LTTNG:
		/* -100..39 on LTTng's scale; >= 40 can only be the kernel's own */
		return v < 40 ? v + 100 : v;
	case CP_LTTNG_RAW:
		return v < 0 ? v + 100 : v;
	default:
		return v;
	}
}

/* ---- messages to events ---- */

static int snapshot_ns(const bt_clock_snapshot *cs, uint64_t *ts)
{
	int64_t ns;

	if (!cs)
		return -1;
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return -1;
	*ts = ns < 0 ? 0 : (uint64_t)ns;
	return 0;
}

static const bt_field *cfield(const struct ctf_class *c, const bt_field *const *scope, int f)
{
	const bt_field *s = scope[c->scope[f]];

	if (!c->scope[f] || !s)
		return NULL;
	return bt_field_structure_borrow_member_field_by_index_const(s, c->idx[f]);
}

static int ctf_event(struct ctf_reader *r, const bt_message *msg, struct sr_event *ev,
		     char **cause)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	const bt_stream *s = bt_event_borrow_stream_const(e);
	const bt_event_class *ec = bt_event_borrow_class_const(e);
	const bt_field *scope[CS__COUNT];
	const struct ctf_class *c;
	struct ctf_stream *st;
	const bt_field *f;
	long long v;
	int si, ci;

	si = stream_find(r, s);
	ci = map_get(&r->clsmap, ec);
	if (ci < 0)
		ci = class_add(r, ec, s);
	if (si < 0 || ci < 0) {
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	st = &r->st[si];
	c = &r->cls[ci];
	scope[CS_NONE] = NULL;
	scope[CS_PAYLOAD] = bt_event_borrow_payload_field_const(e);
	scope[CS_SPEC_CTX] = bt_event_borrow_specific_context_field_const(e);
	scope[CS_COMMON_CTX] = bt_event_borrow_common_context_field_const(e);

	ev->kind = c->kind;
	ev->name = c->name;
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(msg) ||
	    snapshot_ns(bt_message_event_borrow_default_clock_snapshot_const(msg), &ev->ts) < 0)
		ev->ts = r->last_ts;

	/* the packet's cpu_id; perf's single stream carries it per event */
	ev->cpu = st->cpu_member >= 0 ? st->cpu : -1;
	if (ev->cpu < 0) {
		ev->cpu = field_small(cfield(c, scope, CF_CPU), -1);
		if (ev->cpu >= 0)
			st->cpu = ev->cpu;
	}
	if (ev->cpu < 0) {
		r->last_stream = si;
		sr_cause_set(cause, "stream %s at %llu ns: event '%s' has no cpu (no packet "
			     "cpu_id and no perf_cpu field)", st->name,
			     (unsigned long long)ev->ts, c->name);
		return -SR_E_MISSING;
	}
	ev->common_pid = field_small(cfield(c, scope, CF_CUR_TID), SR_PID_NONE);

	switch (c->kind) {
	case SR_EV_SWITCH:
		field_str(cfield(c, scope, CF_PREV_COMM), ev->comm, sizeof(ev->comm));
		ev->pid = field_small(cfield(c, scope, CF_PREV_TID), SR_PID_NONE);
		ev->prio = prio_read(c, cfield(c, scope, CF_PREV_PRIO));
		field_str(cfield(c, scope, CF_NEXT_COMM), ev->comm2, sizeof(ev->comm2));
		ev->pid2 = field_small(cfield(c, scope, CF_NEXT_TID), SR_PID_NONE);
		ev->prio2 = prio_read(c, cfield(c, scope, CF_NEXT_PRIO));
		f = cfield(c, scope, CF_PREV_STATE);
		if (field_int(f, &v) == 0) {
			ev->prev_state_raw = v;
			ev->prev_state = sr_prev_state_decode(v, c->enc);
		} else if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING) {
			ev->prev_state = sr_prev_state_parse(bt_field_string_get_value(f),
							     &ev->prev_state_raw);
		}
		break;
	case SR_EV_FORK:
		field_str(cfield(c, scope, CF_PARENT_COMM), ev->comm, sizeof(ev->comm));
		ev->pid = field_small(cfield(c, scope, CF_PARENT_TID), SR_PID_NONE);
		field_str(cfield(c, scope, CF_CHILD_COMM), ev->comm2, sizeof(ev->comm2));
		ev->pid2 = field_small(cfield(c, scope, CF_CHILD_TID), SR_PID_NONE);
		break;
	default:
		field_str(cfield(c, scope, CF_COMM), ev->comm, sizeof(ev->comm));
		ev->pid = field_small(cfield(c, scope, CF_TID), SR_PID_NONE);
		ev->prio = prio_read(c, cfield(c, scope, CF_PRIO));
		if (c->kind == SR_EV_MIGRATE) {
			ev->target_cpu = field_small(cfield(c, scope, CF_ORIG_CPU), SR_CPU_NONE);
			ev->dest_cpu = field_small(cfield(c, scope, CF_DEST_CPU), SR_CPU_NONE);
		} else {
			ev->target_cpu = field_small(cfield(c, scope, CF_TARGET_CPU), SR_CPU_NONE);
		}
		ev->success = field_small(cfield(c, scope, CF_SUCCESS), -1);
		break;
	}
	r->last_stream = si;
	return 1;
}

/* discarded events or packets: one lost marker on the stream's cpu */
static int ctf_lost(struct ctf_reader *r, const bt_message *msg, struct sr_event *ev,
		    char **cause)
{
	int packets = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	const bt_stream *s = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
				     : bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	const bt_clock_snapshot *cs = NULL;
	struct sr_cpu_stats *stats;
	uint64_t count = 0;
	bt_property_availability avail;
	int si = stream_find(r, s);

	if (si < 0) {
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	ev->kind = SR_EV_LOST;
	if (packets) {
		avail = bt_message_discarded_packets_get_count(msg, &count);
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
	} else {
		avail = bt_message_discarded_events_get_count(msg, &count);
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
	}
	ev->lost = -1;
	if (avail == BT_PROPERTY_AVAILABILITY_AVAILABLE && count <= (uint64_t)INT64_MAX && !packets)
		ev->lost = (long long)count;
	/* the range starts at the end of the previous packet: never go back in time */
	if (snapshot_ns(cs, &ev->ts) < 0 || ev->ts < r->last_ts)
		ev->ts = r->last_ts;
	/* perf's single stream has no cpu of its own: use the last one seen */
	ev->cpu = r->st[si].cpu >= 0 ? r->st[si].cpu : 0;
	if (packets) {
		stats = sr_trace_cpu_stats(r->t, ev->cpu);
		if (stats)
			stats->lost_packets += avail == BT_PROPERTY_AVAILABILITY_AVAILABLE ? count : 1;
	}
	r->last_stream = si;
	return 1;
}

static int ctf_next(struct sr_trace *t, struct sr_event *ev, char **cause)
{
	struct ctf_reader *r = t->priv;
	const bt_message *msg;
	const bt_packet *pkt;
	int ret, si;

	for (;;) {
		msg = queue_pop(r);
		if (!msg) {
			ret = ctf_refill(r, cause);
			if (ret <= 0)
				return ret;
			continue;
		}
		ret = 0;
		switch (bt_message_get_type(msg)) {
		case BT_MESSAGE_TYPE_PACKET_BEGINNING:
			pkt = bt_message_packet_beginning_borrow_packet_const(msg);
			si = stream_find(r, bt_packet_borrow_stream_const(pkt));
			if (si >= 0 && r->st[si].cpu_member >= 0)
				r->st[si].cpu = packet_cpu(&r->st[si], pkt);
			break;
		case BT_MESSAGE_TYPE_EVENT:
			sr_event_reset(ev);
			ret = ctf_event(r, msg, ev, cause);
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
			sr_event_reset(ev);
			ret = ctf_lost(r, msg, ev, cause);
			break;
		default:
			break;
		}
		bt_message_put_ref(msg);
		if (ret > 0) {
			r->last_ts = ev->ts;
			r->have_ts = 1;
		}
		if (ret)
			return ret;
	}
}

static void ctf_where(struct sr_trace *t, char *buf, size_t len)
{
	struct ctf_reader *r = t->priv;

	if (!r || r->last_stream < 0) {
		snprintf(buf, len, "before the first event");
		return;
	}
	snprintf(buf, len, "stream %s (cpu %d) at %llu ns", r->st[r->last_stream].name,
		 r->st[r->last_stream].cpu, (unsigned long long)r->last_ts);
}

/* ---- open ---- */

static int ctf_build_graph(struct ctf_reader *r, char **cause)
{
	const bt_component_class_source *src_cls;
	const bt_component_class_filter *mux_cls;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_value *params = NULL, *inputs = NULL;
	uint64_t i, n;
	int ret;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &r->plugin_ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &r->plugin_utils) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		sr_cause_set(cause, "babeltrace2 plugins 'ctf' and 'utils' not found "
			     "(is the babeltrace2 package complete?)");
		return -SR_E_UNSUPPORTED;
	}
	src_cls = bt_plugin_borrow_source_component_class_by_name_const(r->plugin_ctf, "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(r->plugin_utils, "muxer");
	if (!src_cls || !mux_cls) {
		sr_cause_set(cause, "babeltrace2 has no source.ctf.fs or filter.utils.muxer");
		return -SR_E_UNSUPPORTED;
	}
	r->graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!r->graph || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, r->dir) !=
		BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
		bt_value_put_ref(params);
		bt_current_thread_clear_error();
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	if (bt_graph_add_source_component(r->graph, src_cls, "src", params,
					  BT_LOGGING_LEVEL_NONE, &src) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		char *msg = ctf_take_error();

		bt_value_put_ref(params);
		/* 2.0.4 reports metadata syntax errors only in its (silenced) log */
		if (!msg || !strncmp(msg, "cannot create trace for", 23)) {
			sr_cause_set(cause, "not a valid CTF trace: invalid metadata");
			ret = -SR_E_FORMAT;
		} else {
			sr_cause_set(cause, "not a valid CTF trace: %s", msg);
			ret = strstr(msg, "metadata") ? -SR_E_FORMAT : -SR_E_CORRUPT;
		}
		free(msg);
		return ret;
	}
	bt_value_put_ref(params);
	if (bt_graph_add_filter_component(r->graph, mux_cls, "mux", NULL,
					  BT_LOGGING_LEVEL_NONE, &mux) !=
		BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(r->graph, "sink", NULL, ctf_consume, NULL, r,
					       &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		return ctf_fail(cause, -SR_E_NOMEM, "cannot set up the babeltrace2 graph");
	n = bt_component_source_get_output_port_count(src);
	if (!n) {
		sr_cause_set(cause, "not a valid CTF trace: no data streams (stream files "
			     "missing or empty)");
		return -SR_E_FORMAT;
	}
	/* the muxer adds an input port each time one gets connected */
	for (i = 0; i < n; i++) {
		const bt_port_input *in = bt_component_filter_borrow_input_port_by_index_const(mux, i);

		if (!in || bt_graph_connect_ports(r->graph,
				bt_component_source_borrow_output_port_by_index_const(src, i),
				in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return ctf_fail(cause, -SR_E_NOMEM, "cannot connect the babeltrace2 muxer");
	}
	if (bt_graph_connect_ports(r->graph,
			bt_component_filter_borrow_output_port_by_index_const(mux, 0),
			bt_component_sink_borrow_input_port_by_index_const(sink, 0),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return ctf_fail(cause, -SR_E_NOMEM, "cannot connect the babeltrace2 sink");
	return 0;
}

static void ctf_fill_info(struct ctf_reader *r)
{
	struct sr_trace_info *info = &r->t->info;
	const bt_stream_class *sc;
	const bt_clock_class *cc;
	const bt_trace *tr;
	struct ctf_map seen = { NULL, NULL, 0, 0 };
	struct ctf_env env;
	char name[40] = "", ver[40] = "";
	int all_seen = 1, ncpu = 0, maxper = 0;
	size_t i, j;

	snprintf(info->format, sizeof(info->format), "CTF 1.8");
	if (!r->nst)
		return;
	tr = bt_stream_borrow_trace_const(r->st[0].s);
	ctf_env_read(tr, &env);
	info->pstate_enc = ctf_env_pstate(&env);
	if (env_str(tr, "tracer_name", name, sizeof(name)) == 0) {
		/* lttng: tracer_major.tracer_minor; perf: its own version string */
		if (env.version >= 0)
			snprintf(ver, sizeof(ver), "%d.%d", env.version / 10000,
				 env.version / 100 % 100);
		else if (env.perf)
			env_str(tr, "version", ver, sizeof(ver));
		snprintf(info->format, sizeof(info->format), "CTF 1.8 (%s%s%s)", name,
			 ver[0] ? " " : "", ver);
	}
	if (env_str(tr, "hostname", info->hostname, sizeof(info->hostname)) < 0)
		env_str(tr, "host", info->hostname, sizeof(info->hostname));
	if (env_str(tr, "kernel_release", info->kernel, sizeof(info->kernel)) < 0)
		env_str(tr, "release", info->kernel, sizeof(info->kernel));
	sc = bt_stream_borrow_class_const(r->st[0].s);
	cc = bt_stream_class_borrow_default_clock_class_const(sc);
	if (cc && bt_clock_class_get_name(cc))
		sr_strlcpy(info->clock, bt_clock_class_get_name(cc), sizeof(info->clock));

	/*
	 * cpus: distinct cpu_id of the streams' first packets; when some
	 * stream had not shown a packet yet, the streams per channel.
	 */
	for (i = 0; i < r->nst; i++) {
		struct ctf_stream *a = &r->st[i];
		int dup = 0, per = 0;

		if (a->cpu_member < 0)
			continue;
		if (!a->seen_packet)
			all_seen = 0;
		for (j = 0; j < r->nst; j++) {
			if (j < i && a->first_cpu >= 0 && r->st[j].first_cpu == a->first_cpu)
				dup = 1;
			if (bt_stream_borrow_class_const(r->st[j].s) ==
			    bt_stream_borrow_class_const(a->s))
				per++;
		}
		if (a->first_cpu >= 0 && !dup)
			ncpu++;
		if (per > maxper)
			maxper = per;
	}
	if (maxper)
		info->ncpus_declared = all_seen && ncpu ? ncpu : maxper;

	/* sched_waking declared anywhere (not only used) */
	for (i = 0; i < r->nst && !info->has_waking; i++) {
		uint64_t k, ne;

		sc = bt_stream_borrow_class_const(r->st[i].s);
		if (map_get(&seen, sc) >= 0)
			continue;
		if (map_put(&seen, sc, 1) < 0)
			break;
		ne = bt_stream_class_get_event_class_count(sc);
		for (k = 0; k < ne; k++) {
			const char *en = bt_event_class_get_name(
				bt_stream_class_borrow_event_class_by_index_const(sc, k));

			if (en && sr_event_kind_from_name(en) == SR_EV_WAKING) {
				info->has_waking = 1;
				break;
			}
		}
	}
	map_release(&seen);
}

/*
 * babeltrace2 2.0.4's CTF source can spin forever initializing on some
 * malformed metadata (tests/fuzz/known/); the babeltrace2 CLI hangs the
 * same way.  Initialize it once in a child process first, with a deadline:
 * a child that does not finish in time is killed and the trace refused,
 * instead of the whole command hanging.
 */
#define CTF_INIT_DEADLINE_MS 10000

static int ctf_probe_init(struct ctf_reader *r, char **cause)
{
	struct ctf_reader probe;
	int status, waited = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0;	/* no child to spare: read in-process */
	if (pid == 0) {
		char *c = NULL;

		memset(&probe, 0, sizeof(probe));
		probe.dir = r->dir;
		_exit(ctf_build_graph(&probe, &c) < 0 ? 1 : 0);
	}
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return 0;	/* finished: errors are reported by the real run */
		if (w < 0 && errno != EINTR)
			return 0;
		if (waited >= CTF_INIT_DEADLINE_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			sr_cause_set(cause, "not a valid CTF trace: babeltrace2 did not finish reading "
				     "its metadata within %d s", CTF_INIT_DEADLINE_MS / 1000);
			return -SR_E_CORRUPT;
		}
		usleep(waited < 100 ? 1000 : 20000);
		waited += waited < 100 ? 1 : 20;
	}
}

static int ctf_open(struct sr_trace *t, const struct sr_trace_opts *opts, char **cause)
{
	const char *path = t->info.path;
	struct ctf_found found = { 0, NULL, 0 };
	struct ctf_reader *r;
	struct stat st;
	int ret;

	(void)opts;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		sr_cause_set(cause, "not a directory (a CTF trace is a directory with a "
			     "'metadata' file)");
		return -SR_E_FORMAT;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	t->priv = r;
	r->t = t;
	r->last_stream = -1;

	/*
	 * source.ctf.fs reads one trace directory.  Below a directory, take
	 * its only trace, or the "kernel" one of an LTTng session (not its
	 * UST traces).
	 */
	ret = ctf_walk(path, 0, &found, cause);
	if (ret < 0) {
		free(found.first);
		return ret;
	}
	if (!found.n) {
		sr_cause_set(cause, "no CTF trace (no 'metadata' file) in the directory");
		return -SR_E_FORMAT;
	}
	if (found.n > 1 && !found.first_is_kernel) {
		sr_cause_set(cause, "%d CTF traces below the directory; give one of them, "
			     "e.g. '%s'", found.n, found.first);
		free(found.first);
		return -SR_E_USAGE;
	}
	r->dir = found.first;
	ret = ctf_check_metadata(r->dir, cause);
	if (ret < 0)
		return ret;

	/* babeltrace logs and error dumps never reach our stderr */
	bt_logging_set_global_level(BT_LOGGING_LEVEL_NONE);
	bt_current_thread_clear_error();
	ret = ctf_probe_init(r, cause);
	if (ret < 0)
		return ret;
	ret = ctf_build_graph(r, cause);
	if (ret < 0)
		return ret;

	/*
	 * Stream beginnings come first out of the muxer; keep running until
	 * every stream has shown its first packet (its cpu_id) and an event is
	 * queued, within a bound.
	 */
	for (;;) {
		size_t i;
		int pending = 0;

		for (i = 0; i < r->nst; i++)
			if (!r->st[i].seen_packet)
				pending = 1;
		if ((r->queued_event && !pending) || r->qlen >= CTF_PREFETCH_MAX)
			break;
		ret = ctf_refill(r, cause);
		if (ret < 0)
			return ret;
		if (ret == 0)
			break;
	}
	ctf_fill_info(r);
	return 0;
}

static void ctf_close(struct sr_trace *t)
{
	struct ctf_reader *r = t->priv;
	const bt_message *msg;
	size_t i;

	if (!r)
		return;
	while ((msg = queue_pop(r)))
		bt_message_put_ref(msg);
	free(r->q);
	for (i = 0; i < r->nst; i++)
		bt_stream_put_ref(r->st[i].s);
	free(r->st);
	map_release(&r->stmap);
	free(r->cls);
	map_release(&r->clsmap);
	bt_graph_put_ref(r->graph);
	bt_plugin_put_ref(r->plugin_ctf);
	bt_plugin_put_ref(r->plugin_utils);
	bt_current_thread_clear_error();
	free(r->dir);
	free(r);
	t->priv = NULL;
}

const struct sr_reader_ops sr_reader_ctf = {
	.name	= "ctf",
	.probe	= ctf_probe,
	.open	= ctf_open,
	.next	= ctf_next,
	.where	= ctf_where,
	.close	= ctf_close,
};
