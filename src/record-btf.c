// SPDX-License-Identifier: GPL-2.0
/*
 * Member offsets from the kernel's own BTF (/sys/kernel/btf/vmlinux), for
 * the select_rq probe on kernels whose kprobe events take no BTF arguments
 * (before 6.6): "pid=+OFF(%di):s32" needs task_struct->pid's offset.
 *
 * The format (Documentation/bpf/btf.rst): a header, then a type section of
 * variable-length records (struct btf_type and what its kind appends), then
 * a string section.  Only what finding one struct's members needs is read;
 * every length is checked against the blob, so a damaged file gives an
 * error, never a read outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record-local.h"
#include "banned.h"

#define BTF_MAGIC		0xeB9F
#define BTF_KIND_INT		1
#define BTF_KIND_PTR		2
#define BTF_KIND_ARRAY		3
#define BTF_KIND_STRUCT		4
#define BTF_KIND_UNION		5
#define BTF_KIND_ENUM		6
#define BTF_KIND_TYPEDEF	8
#define BTF_KIND_VOLATILE	9
#define BTF_KIND_CONST		10
#define BTF_KIND_RESTRICT	11
#define BTF_KIND_FUNC_PROTO	13
#define BTF_KIND_VAR		14
#define BTF_KIND_DATASEC	15
#define BTF_KIND_DECL_TAG	17
#define BTF_KIND_TYPE_TAG	18
#define BTF_KIND_ENUM64		19
#define BTF_KIND_MAX		19
/* vmlinux BTF is ~5-6 MB; anything this large is not one */
#define BTF_MAX_SIZE		(64u << 20)

struct btf {
	const unsigned char *types, *strs;
	uint32_t types_len, strs_len;
	const unsigned char **type;	/* type id -> its record; [0] is void */
	uint32_t ntypes;
};

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	if (off >= b->strs_len || !memchr(b->strs + off, '\0', b->strs_len - off))
		return NULL;
	return (const char *)b->strs + off;
}

/* bytes a record of this kind takes after its 12-byte struct btf_type */
static int extra_len(uint32_t info, uint32_t *len)
{
	uint32_t kind = info >> 24 & 0x1f, vlen = info & 0xffff;

	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		*len = 4;
		return 0;
	case BTF_KIND_ARRAY:
		*len = 12;
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		*len = 12 * vlen;
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		*len = 8 * vlen;
		return 0;
	default:
		*len = 0;
		return kind == 0 || kind > BTF_KIND_MAX ? -1 : 0;
	}
}

/* index the type records; 0, or -1 when the section does not parse */
static int btf_index(struct btf *b)
{
	uint32_t off = 0, n = 0, cap = 0;

	b->type = NULL;
	while (off < b->types_len) {
		uint32_t extra;

		if (b->types_len - off < 12 || extra_len(u32_at(b->types + off + 4), &extra) ||
		    b->types_len - off - 12 < extra)
			return -1;
		if (n + 1 >= cap) {
			const unsigned char **nt;

			cap = cap ? cap * 2 : 4096;
			nt = realloc(b->type, cap * sizeof(*nt));
			if (!nt)
				return -1;
			b->type = nt;
		}
		b->type[++n] = b->types + off;
		off += 12 + extra;
	}
	b->ntypes = n;
	return b->type ? 0 : -1;
}

/* the type a type id names, through typedefs and qualifiers; NULL if none */
static const unsigned char *resolve(const struct btf *b, uint32_t id)
{
	int hops;

	for (hops = 0; hops < 16 && id > 0 && id <= b->ntypes; hops++) {
		const unsigned char *t = b->type[id];

		switch (u32_at(t + 4) >> 24 & 0x1f) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = u32_at(t + 8);
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* the size in bytes of an integer type; 0 if not one */
static uint32_t int_size(const struct btf *b, uint32_t id)
{
	const unsigned char *t = resolve(b, id);
	uint32_t kind = t ? u32_at(t + 4) >> 24 & 0x1f : 0;

	if (kind == BTF_KIND_INT) {
		/* a whole integer: its bits fill its size, from bit 0 */
		uint32_t enc = u32_at(t + 12), size = u32_at(t + 8);

		return (enc & 0xff) == 8 * size && !(enc >> 16 & 0xff) ? size : 0;
	}
	return kind == BTF_KIND_ENUM ? u32_at(t + 8) : 0;
}

/* a struct type, through typedefs and qualifiers; NULL if not one */
static const unsigned char *struct_of(const struct btf *b, uint32_t id)
{
	const unsigned char *t = resolve(b, id);

	return t && (u32_at(t + 4) >> 24 & 0x1f) == BTF_KIND_STRUCT ? t : NULL;
}

/*
 * @path in struct @t: "pid", or "se.avg.load_avg" through embedded structs
 * (not pointers).  Fills @out; leaves it zero when absent or not a whole
 * byte-aligned integer.
 */
static void find_member(const struct btf *b, const unsigned char *t, const char *path,
			struct sr_btf_field *out)
{
	unsigned offset = 0;
	int depth;

	for (depth = 0; depth < 8 && t; depth++) {
		uint32_t info = u32_at(t + 4), vlen = info & 0xffff, m;
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		const unsigned char *next = NULL;

		for (m = 0; m < vlen; m++) {
			const unsigned char *mb = t + 12 + 12 * m;
			const char *mname = str_at(b, u32_at(mb));
			uint32_t bits = u32_at(mb + 8);

			/* kind_flag: a bitfield's size in the top byte; not one of ours */
			if ((info >> 31 && bits >> 24) || bits % 8 || !mname ||
			    strncmp(mname, path, len) || mname[len])
				continue;
			offset += bits / 8;
			if (!dot) {
				const unsigned char *mt = resolve(b, u32_at(mb + 4));

				out->offset = offset;
				out->size = int_size(b, u32_at(mb + 4));
				/* a pointer: 8 bytes on the 64-bit kernels the probes run on */
				if (mt && (u32_at(mt + 4) >> 24 & 0x1f) == BTF_KIND_PTR) {
					out->size = 8;
					out->ptr = 1;
				}
				return;
			}
			next = struct_of(b, u32_at(mb + 4));
			break;
		}
		t = next;
		path = dot ? dot + 1 : path;
	}
}

int sr_btf_member(const char *path, const char *sname, const char *const *members,
		  struct sr_btf_field *out, size_t n)
{
	unsigned char *blob = NULL;
	size_t len = 0, cap = 0, i;
	uint32_t hdr_len, type_off, type_len, str_off, str_len, id;
	struct btf b;
	int fd, ret = -1, found = 0;
	ssize_t got;

	for (i = 0; i < n; i++) {
		out[i].offset = out[i].size = 0;
		out[i].ptr = 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* sysfs gives no size: read to the end */
	for (;;) {
		if (len == cap) {
			unsigned char *nb;

			if (cap >= BTF_MAX_SIZE)
				goto out;
			cap = cap ? cap * 2 : 1 << 22;
			nb = realloc(blob, cap);
			if (!nb)
				goto out;
			blob = nb;
		}
		got = read(fd, blob + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto out;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (len < 24 || (blob[0] | blob[1] << 8) != BTF_MAGIC)
		goto out;	/* not BTF, or the other byte order */
	hdr_len = u32_at(blob + 4);
	type_off = u32_at(blob + 8);
	type_len = u32_at(blob + 12);
	str_off = u32_at(blob + 16);
	str_len = u32_at(blob + 20);
	if (hdr_len < 24 || hdr_len > len || (uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len)
		goto out;
	b.types = blob + hdr_len + type_off;
	b.types_len = type_len;
	b.strs = blob + hdr_len + str_off;
	b.strs_len = str_len;
	if (btf_index(&b))
		goto out_index;
	for (id = 1; id <= b.ntypes && !found; id++) {
		const unsigned char *t = b.type[id];
		uint32_t info = u32_at(t + 4), vlen = info & 0xffff;
		const char *name = str_at(&b, u32_at(t));

		if ((info >> 24 & 0x1f) != BTF_KIND_STRUCT || !vlen || !name || strcmp(name, sname))
			continue;
		found = 1;
		for (i = 0; i < n; i++)
			find_member(&b, t, members[i], &out[i]);
	}
	ret = found ? 0 : -1;
out_index:
	free(b.type);
out:
	free(blob);
	close(fd);
	return ret;
}
