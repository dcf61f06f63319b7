// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's floor: the least any libtracecmd-based reader can do.
 * Opens a trace.dat, walks every record in timestamp order with
 * tracecmd_iterate_events() and only counts them: no field is read, nothing
 * is decoded.  schedreplay info is measured against this.  When the top
 * buffer is empty (trace-cmd extract -B NAME writes only the instance) the
 * first buffer instance that holds records is walked instead.
 *
 *   iterate TRACE.DAT        prints "<records> <buffer name or (top)>"
 */
#include <stdio.h>

#include <trace-cmd/trace-cmd.h>

static int count_record(struct tracecmd_input *handle, struct tep_record *record, int cpu,
			void *data)
{
	(void)handle;
	(void)record;
	(void)cpu;
	(*(unsigned long long *)data)++;
	return 0;
}

static int walk(struct tracecmd_input *handle, unsigned long long *n)
{
	*n = 0;
	return tracecmd_iterate_events(handle, NULL, 0, count_record, n);
}

int main(int argc, char **argv)
{
	struct tracecmd_input *top, *in;
	const char *name = "(top)";
	unsigned long long n;
	int i, nbuf;

	if (argc != 2) {
		fprintf(stderr, "usage: iterate TRACE.DAT\n");
		return 2;
	}
	tracecmd_set_loglevel(TEP_LOG_ERROR);
	top = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top) {
		fprintf(stderr, "iterate: cannot open '%s'\n", argv[1]);
		return 1;
	}
	if (walk(top, &n) < 0) {
		fprintf(stderr, "iterate: cannot read '%s'\n", argv[1]);
		return 1;
	}
	nbuf = tracecmd_buffer_instances(top);
	for (i = 0; !n && i < nbuf; i++) {
		in = tracecmd_buffer_instance_handle(top, i);
		if (!in)
			continue;
		if (walk(in, &n) < 0) {
			fprintf(stderr, "iterate: cannot read buffer '%s' of '%s'\n",
				tracecmd_buffer_instance_name(top, i), argv[1]);
			return 1;
		}
		if (n)
			name = tracecmd_buffer_instance_name(top, i);
		tracecmd_close(in);
	}
	printf("%llu %s\n", n, name);
	tracecmd_close(top);
	return 0;
}
