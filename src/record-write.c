// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat version 6 writer (trace-cmd.dat.v6(5)): libtracecmd 1.3
 * only reads, so "schedreplay record" writes its files itself.  The layout
 * is the one "trace-cmd record --file-version 6" produces for a recording
 * of the top buffer: headers, ftrace and event formats, kallsyms, printk
 * formats, saved cmdlines, the cpu count, the options (trace clock, uname,
 * the ring buffer statistics of each cpu), then "flyrecord" with the
 * per-cpu offsets and sizes, the trace clock and the page-aligned
 * ring-buffer pages as the kernel handed them out.
 *
 * While the pages are copied, kbuffer counts the events and the lost-event
 * marks in each one: that is the "events per cpu" the recorder reports,
 * and it costs nothing while tracing.
 */
#include "record-local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "schedreplay/error.h"
#include "banned.h"

/* trace-cmd's option ids (trace-cmd.h, TRACECMD_OPTION_*) */
enum {
	OPT_DONE	= 0,
	OPT_CPUSTAT	= 2,
	OPT_TRACECLOCK	= 4,
	OPT_UNAME	= 5,
};

int sr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *sr_read_file(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *nb;
	int fd, e;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(buf);
		errno = e;
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

/* a buffered sequential writer that knows its offset */
struct out {
	int fd;
	int err;		/* first errno */
	uint64_t off;
	size_t used;
	char buf[1 << 16];
};

static int out_flush(struct out *o)
{
	if (o->err)
		return -1;
	if (o->used && sr_write_all(o->fd, o->buf, o->used) < 0) {
		o->err = errno;
		return -1;
	}
	o->used = 0;
	return 0;
}

static int out_put(struct out *o, const void *p, size_t n)
{
	if (o->err)
		return -1;
	if (n > sizeof(o->buf) - o->used) {
		if (out_flush(o) < 0)
			return -1;
		if (n > sizeof(o->buf)) {
			if (sr_write_all(o->fd, p, n) < 0) {
				o->err = errno;
				return -1;
			}
			o->off += n;
			return 0;
		}
	}
	memcpy(o->buf + o->used, p, n);
	o->used += n;
	o->off += n;
	return 0;
}

/* numbers in the host's byte order, which the file header declares */
static int out_u16(struct out *o, uint16_t v)
{
	return out_put(o, &v, sizeof(v));
}

static int out_u32(struct out *o, uint32_t v)
{
	return out_put(o, &v, sizeof(v));
}

static int out_u64(struct out *o, uint64_t v)
{
	return out_put(o, &v, sizeof(v));
}

static int out_zeros(struct out *o, uint64_t n)
{
	static const char zero[4096];

	while (n) {
		size_t k = n < sizeof(zero) ? (size_t)n : sizeof(zero);

		if (out_put(o, zero, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

/* the clock in use: the bracketed word of the trace_clock file */
static void selected_clock(const char *file, char *buf, size_t len)
{
	const char *open = file ? strchr(file, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (!open || !close || (n = (size_t)(close - open - 1)) >= len) {
		snprintf(buf, len, "local");
		return;
	}
	memcpy(buf, open + 1, n);
	buf[n] = '\0';
}

/* the commit field of a page, without the missed-events flags */
static uint64_t page_commit(const unsigned char *page, int kernel_long)
{
	uint64_t v = 0;

	if (kernel_long == 8) {
		memcpy(&v, page + 8, 8);
	} else {
		uint32_t v4;

		memcpy(&v4, page + 8, 4);
		v = v4;
	}
	return v & ((1ULL << 30) - 1);
}

static void count_page(struct kbuffer *kb, unsigned char *page, int page_size, int kernel_long,
		       struct sr_tdw_cpu *c)
{
	unsigned long long ts;
	int missed;
	void *ev;

	c->pages++;
	/* kbuffer trusts the header: a page must hold what it claims */
	if (page_commit(page, kernel_long) > (uint64_t)(page_size - 8 - kernel_long) ||
	    kbuffer_load_subbuffer(kb, page) < 0) {
		c->bad_pages++;
		return;
	}
	missed = kbuffer_missed_events(kb);
	if (missed > 0)
		c->missed += (uint64_t)missed;
	else if (missed < 0)
		c->missed_unknown++;
	for (ev = kbuffer_read_event(kb, &ts); ev; ev = kbuffer_next_event(kb, &ts))
		c->events++;
}

/* copy one cpu's pages from @fd, @size bytes, counting their events */
static int copy_cpu(struct out *o, int fd, uint64_t size, const struct sr_tdw *w,
		    struct kbuffer *kb, struct sr_tdw_cpu *c, char **cause, int cpu)
{
	size_t chunk = (size_t)w->page_size * 256;
	unsigned char *buf = malloc(chunk);
	uint64_t done = 0;
	int ret = 0;

	if (!buf)
		return -SR_E_NOMEM;
	if (out_flush(o) < 0)
		goto werr;
	while (done < size) {
		size_t want = size - done < chunk ? (size_t)(size - done) : chunk, got = 0, p;

		while (got < want) {
			ssize_t r = pread(fd, buf + got, want - got, (off_t)(done + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				sr_cause_set(cause, "cannot read the pages of cpu %d: %s", cpu,
					     r < 0 ? strerror(errno) : "file shrank");
				ret = -SR_E_IO;
				goto out;
			}
			got += (size_t)r;
		}
		for (p = 0; p + (size_t)w->page_size <= got; p += (size_t)w->page_size)
			count_page(kb, buf + p, w->page_size, w->kernel_long, c);
		if (sr_write_all(o->fd, buf, got) < 0) {
			o->err = errno;
			goto werr;
		}
		o->off += got;
		done += got;
	}
	goto out;
werr:
	sr_cause_set(cause, "cannot write: %s", strerror(o->err));
	ret = -SR_E_IO;
out:
	free(buf);
	return ret;
}

static int put_blob64(struct out *o, const struct sr_blob *b)
{
	if (out_u64(o, b->len) < 0)
		return -1;
	return out_put(o, b->data, b->len);
}

static int put_option(struct out *o, uint16_t id, const void *data, size_t len)
{
	if (out_u16(o, id) < 0 || out_u32(o, (uint32_t)len) < 0)
		return -1;
	return out_put(o, data, len);
}

int sr_tdw_write(int fd, const struct sr_tdw *w, struct sr_tdw_cpu *cpus, uint64_t *size,
		 char **cause)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct out *o;
	struct kbuffer *kb = NULL;
	uint64_t *csize = NULL, *coff = NULL, pos;
	char clock[64], bracketed[80];
	size_t i, j;
	int cpu, ret = 0;
	unsigned char b;

	if (w->ncpus <= 0 || w->page_size < 64 || (w->page_size & (w->page_size - 1)) ||
	    (w->kernel_long != 4 && w->kernel_long != 8))
		return sr_cause_set(cause, "cannot write a trace.dat for %d cpus, page size %d",
				    w->ncpus, w->page_size), -SR_E_USAGE;
	o = calloc(1, sizeof(*o));
	csize = calloc((size_t)w->ncpus, sizeof(*csize));
	coff = calloc((size_t)w->ncpus, sizeof(*coff));
	kb = kbuffer_alloc(w->kernel_long == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   host_big_endian() ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!o || !csize || !coff || !kb) {
		ret = -SR_E_NOMEM;
		goto out;
	}
	o->fd = fd;
	memset(cpus, 0, sizeof(*cpus) * (size_t)w->ncpus);

	/* initial format */
	out_put(o, magic, sizeof(magic));
	out_put(o, "6", 2);
	b = (unsigned char)host_big_endian();
	out_put(o, &b, 1);
	b = sizeof(long);
	out_put(o, &b, 1);
	out_u32(o, (uint32_t)w->page_size);

	/* header info */
	out_put(o, "header_page", 12);
	put_blob64(o, &w->header_page);
	out_put(o, "header_event", 13);
	put_blob64(o, &w->header_event);

	/* ftrace event formats */
	out_u32(o, (uint32_t)w->nftrace);
	for (i = 0; i < w->nftrace; i++)
		put_blob64(o, &w->ftrace[i]);

	/* event formats, by system */
	out_u32(o, (uint32_t)w->nsystems);
	for (i = 0; i < w->nsystems; i++) {
		out_put(o, w->systems[i].name, strlen(w->systems[i].name) + 1);
		out_u32(o, (uint32_t)w->systems[i].n);
		for (j = 0; j < w->systems[i].n; j++)
			put_blob64(o, &w->systems[i].events[j]);
	}

	/* kallsyms and printk formats have 32-bit sizes */
	out_u32(o, (uint32_t)w->kallsyms.len);
	out_put(o, w->kallsyms.data, w->kallsyms.len);
	out_u32(o, (uint32_t)w->printk.len);
	out_put(o, w->printk.data, w->printk.len);
	put_blob64(o, &w->cmdlines);

	out_u32(o, (uint32_t)w->ncpus);

	/* options */
	out_put(o, "options  ", 10);
	if (w->trace_clock)
		put_option(o, OPT_TRACECLOCK, w->trace_clock, strlen(w->trace_clock) + 1);
	if (w->uname)
		put_option(o, OPT_UNAME, w->uname, strlen(w->uname) + 1);
	for (cpu = 0; w->cpustat && cpu < w->ncpus; cpu++)
		if (w->cpustat[cpu].data)
			put_option(o, OPT_CPUSTAT, w->cpustat[cpu].data, w->cpustat[cpu].len + 1);
	out_u16(o, OPT_DONE);

	/* flyrecord: offsets and sizes, then the clock, then the pages */
	out_put(o, "flyrecord", 10);
	selected_clock(w->trace_clock, clock, sizeof(clock));
	snprintf(bracketed, sizeof(bracketed), "[%s]", clock);
	pos = o->off + 16ULL * (uint64_t)w->ncpus + 8 + strlen(bracketed);
	for (cpu = 0; cpu < w->ncpus; cpu++) {
		struct stat st;

		if (w->cpu_fd && w->cpu_fd[cpu] >= 0) {
			if (fstat(w->cpu_fd[cpu], &st) < 0) {
				sr_cause_set(cause, "cannot read the pages of cpu %d: %s", cpu,
					     strerror(errno));
				ret = -SR_E_IO;
				goto out;
			}
			csize[cpu] = (uint64_t)st.st_size;
		}
		pos = (pos + (uint64_t)w->page_size - 1) & ~((uint64_t)w->page_size - 1);
		coff[cpu] = pos;
		pos += csize[cpu];
		out_u64(o, coff[cpu]);
		out_u64(o, csize[cpu]);
	}
	out_u64(o, strlen(bracketed));
	out_put(o, bracketed, strlen(bracketed));
	for (cpu = 0; cpu < w->ncpus; cpu++) {
		if (out_zeros(o, coff[cpu] - o->off) < 0)
			break;
		if (!csize[cpu])
			continue;
		ret = copy_cpu(o, w->cpu_fd[cpu], csize[cpu], w, kb, &cpus[cpu], cause, cpu);
		if (ret < 0)
			goto out;
	}
	if (out_flush(o) < 0) {
		sr_cause_set(cause, "cannot write: %s", strerror(o->err));
		ret = -SR_E_IO;
		goto out;
	}
	if (size)
		*size = o->off;
out:
	kbuffer_free(kb);
	free(csize);
	free(coff);
	free(o);
	return ret;
}

static void blob_release(struct sr_blob *b)
{
	free(b->name);
	free(b->data);
	b->name = b->data = NULL;
	b->len = 0;
}

void sr_tdw_release(struct sr_tdw *w)
{
	size_t i, j;
	int cpu;

	blob_release(&w->header_page);
	blob_release(&w->header_event);
	for (i = 0; i < w->nftrace; i++)
		blob_release(&w->ftrace[i]);
	free(w->ftrace);
	for (i = 0; i < w->nsystems; i++) {
		for (j = 0; j < w->systems[i].n; j++)
			blob_release(&w->systems[i].events[j]);
		free(w->systems[i].events);
		free(w->systems[i].name);
	}
	free(w->systems);
	blob_release(&w->kallsyms);
	blob_release(&w->printk);
	blob_release(&w->cmdlines);
	free(w->trace_clock);
	free(w->uname);
	for (cpu = 0; w->cpustat && cpu < w->ncpus; cpu++)
		blob_release(&w->cpustat[cpu]);
	free(w->cpustat);
	free(w->cpu_fd);
	memset(w, 0, sizeof(*w));
}
