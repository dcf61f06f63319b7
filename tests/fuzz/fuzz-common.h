/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz targets: the readers take a path, so each input is
 * written to a scratch file (in /dev/shm when it exists) and read through
 * the same sr_trace_open()/sr_trace_next() loop that "info" runs, every
 * event also fed to the replay engine (the mainline model on a flat
 * topology of the trace's CPUs, as "replay" builds when a trace carries
 * none): what a reader lets through must not hurt the engine either.  A
 * target fails only by crashing or by a sanitizer report; errors are
 * expected.
 */
#ifndef SCHEDREPLAY_FUZZ_COMMON_H
#define SCHEDREPLAY_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schedreplay/model.h"
#include "schedreplay/replay.h"
#include "schedreplay/topology.h"
#include "schedreplay/trace.h"

/* a flat topology this large is built per input: more CPUs are only read */
#define FUZZ_MAX_REPLAY_CPUS 256

static const char *fuzz_scratch_dir(void)
{
	static char dir[128];

	if (!dir[0]) {
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/schedreplay-fuzz-%d",
			 stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
		mkdir(dir, 0700);
	}
	return dir;
}

static int fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		data += n;
		size -= (size_t)n;
	}
	close(fd);
	return 0;
}

/*
 * read the whole trace the way "info" does and replay it the way "replay"
 * does; the result is ignored
 */
static void fuzz_read(const char *path, const char *format)
{
	struct sr_trace_opts opts = { .format = format };
	const struct sr_model *model = sr_model_find("mainline");
	struct sr_topology *topo = NULL;
	struct sr_replay *r = NULL;
	struct sr_trace *t = NULL;
	struct sr_event ev;
	char *cause = NULL;
	unsigned long n = 0;

	if (sr_trace_open(path, &opts, &t, &cause) == 0) {
		const struct sr_trace_info *ti = sr_trace_borrow_info(t);
		/* a trace without a CPU count: "replay" counts the CPUs, 4 will do */
		int ncpus = ti->ncpus_declared > 0 ? ti->ncpus_declared : 4;

		if (model && ncpus <= FUZZ_MAX_REPLAY_CPUS)
			topo = sr_topology_new_flat(ncpus, SR_ERA_MAINLINE);
		if (topo)
			r = sr_replay_new(topo, 250, &model, 1);
		if (r)
			sr_replay_use_probes(r, ti->has_probes);
		while (sr_trace_next(t, &ev, &cause) > 0 && n < 10000000) {
			n++;
			if (r && sr_replay_feed(r, &ev) < 0) {
				sr_replay_free(r);
				r = NULL;
			}
		}
		if (r)
			sr_replay_finish(r);
		sr_replay_free(r);
		sr_topology_free(topo);
		sr_trace_free(t);
	}
	free(cause);
}

#endif
