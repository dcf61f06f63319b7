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
 * formats that pass are parsed once more by libtraceevent in a child
 * process (fork()): one that crashes it is refused with its place.
 *
 * Return: 0 if the file is sound; otherwise -SR_E_TRUNCATED, -SR_E_CORRUPT,
 * -SR_E_UNSUPPORTED (version, compression or latency data we cannot read),
 * -SR_E_FORMAT (not a trace.dat), -SR_E_IO or -SR_E_NOMEM, and *@cause is a
 * caller-freed string that names the place ("cpu 1 data of buffer 'x': ...")
 * without the file name.
 */
int sr_tracedat_check(const char *path, char **cause);

#endif
