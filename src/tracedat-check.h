/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structural check of a trace.dat file (versions 6 and 7), run before
 * libtracecmd sees the file: libtracecmd trusts the offsets and sizes it
 * reads, maps CPU data past the end of a truncated file and crashes in its
 * own error paths, so every offset, size, count and string is checked here
 * first, with pread() and an error that names the place.
 */
#ifndef SCHEDREPLAY_TRACEDAT_CHECK_H
#define SCHEDREPLAY_TRACEDAT_CHECK_H

#include <stddef.h>

/**
 * sr_tracedat_check - check the structure of a trace.dat file
 * @path: the file
 * @cause: where to store the reason of a failure (may be NULL)
 *
 * Walks the headers, event formats, options, sections and the per-cpu data
 * descriptors of every buffer (top and instances): each must lie inside the
 * file and be well formed.  Of the CPU data only the header of every page
 * is read (16 bytes a page), never the events; compressed data has to be
 * decompressed for that, chunk by chunk.  The texts the libraries parse
 * are checked too: every event format and header format must be text (a
 * NUL or a control byte crashes libtraceevent's parser), every printk
 * format line must have the shape libtraceevent's parser can copy without
 * reading outside it, in plain and in compressed header sections (which
 * are decompressed with libtracecmd's decompressor when it exports one).
 * An event format's print fmt may name only its own fields, and the event
 * formats that pass of the systems libtracecmd's open parses (see
 * sr_tracedat_parsed_at_open()) are parsed once more by libtraceevent in a
 * child process (fork()): one that crashes it is refused with its place.
 * The reader checks any other format so (sr_tracedat_format_check()) before
 * it parses it, at the first record of its id.
 *
 * Return: 0 if the file is sound; otherwise -SR_E_TRUNCATED, -SR_E_CORRUPT,
 * -SR_E_UNSUPPORTED (version, compression or latency data we cannot read),
 * -SR_E_FORMAT (not a trace.dat), -SR_E_IO or -SR_E_NOMEM, and *@cause is a
 * caller-freed string that names the place ("cpu 1 data of buffer 'x': ...")
 * without the file name.
 */
int sr_tracedat_check(const char *path, char **cause);

/**
 * sr_tracedat_parsed_at_open - whether the trace.dat reader parses the event
 * formats of system @sys as it opens a file (sched, schedreplay, ftrace)
 *
 * The reader keeps the text of every other format and parses it only when
 * a record of its id comes (src/read-tracedat.c): a file of a whole
 * kernel's formats opens without parsing thousands it never needs.
 *
 * Return: 1 or 0.
 */
int sr_tracedat_parsed_at_open(const char *sys);

/**
 * sr_tracedat_format_check - parse one event format in a child process
 * @text: the format, @len bytes (as libtracecmd hands it to tep_parse_event())
 * @sys: its system; @id: its event id, for the message
 * @big: the file is big-endian; @long_size: its long size
 * @cause: where to store the reason of a failure (may be NULL)
 *
 * What sr_tracedat_check() does for the formats of the systems parsed at
 * open, for a format the reader parses later: libtraceevent parses @text in
 * a child process first, and a format that takes the child down is refused.
 *
 * Return: 0 if the child parsed it; -SR_E_CORRUPT ("event format of id N
 * of system 'S': libtraceevent's parser crashes on it (...)" in *@cause,
 * caller-freed), -SR_E_IO or -SR_E_NOMEM.
 */
int sr_tracedat_format_check(const char *text, size_t len, const char *sys, int id, int big,
			     int long_size, char **cause);

/* where one cpu's data of one buffer lies in the file */
struct sr_tracedat_cpu {
	char buffer[64];		/* "" for the top buffer */
	int cpu;
	unsigned long long off, size;	/* in the file */
	int zipped;			/* chunks of compressed pages */
	unsigned page_size;
};

/* a buffer: the top one ("") or an instance */
struct sr_tracedat_buffer {
	char name[64];
	int ncpus;			/* the cpus it declares */
	char clock[64];			/* v7: its trace clock; "" for the top's */
};

/* what a page reader needs besides what libtracecmd parses (the event formats) */
struct sr_tracedat_layout {
	int version;			/* 6 or 7 */
	char zname[64], zver[64];	/* the compression ("" for none) */
	int ts_adjust;			/* OFFSET, TSC2NSEC, TIME_SHIFT or GUEST: timestamps
					 * are corrected on reading */
	struct sr_tracedat_cpu *cpu;
	int ncpu;
	struct sr_tracedat_buffer *buf;
	int nbuf;
};

/**
 * sr_tracedat_check_layout - the structural check, and the layout of the data
 * @path: the file
 * @lay: filled with where each buffer's cpu data lies (free with
 *	 sr_tracedat_layout_free(), also after a failure)
 * @cause: as for sr_tracedat_check()
 *
 * Checks what sr_tracedat_check() checks but the pages of compressed data
 * (it does not decompress the chunks): a reader that takes the data from
 * @lay checks each page it decompresses (sr_tracedat_page_ok()).
 *
 * Return: as sr_tracedat_check().
 */
int sr_tracedat_check_layout(const char *path, struct sr_tracedat_layout *lay, char **cause);
void sr_tracedat_layout_free(struct sr_tracedat_layout *lay);

/**
 * sr_tracedat_page_ok - the checks of one page's header (see page_header_ok)
 * @page: the page; @page_size: its size; @commit_size: of the header's commit
 *	  field (4 or 8); @big: the file is big-endian
 * Return: 0, or -1 with @why set to a static text.
 */
int sr_tracedat_page_ok(const unsigned char *page, unsigned page_size, int commit_size, int big,
			const char **why);

#endif
