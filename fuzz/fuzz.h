/* What every libFuzzer target in fuzz/ shares: the entry point's prototype (the tree
 * builds with -Wmissing-prototypes) and small helpers to cut one input into pieces
 * (fuzz/common/). A target is one file fuzz/fuzz_NAME.c; `make fuzz` builds and runs
 * them all (docs in fuzz/README.md). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A cursor over the input: pieces are taken from the front until it is used up. */
typedef struct fuzz_in {
	const uint8_t *p;
	size_t left;
} fuzz_in;

static inline fuzz_in fuzz_in_make(const uint8_t *data, size_t size) { return (fuzz_in){ data, size }; }

/* One byte (0 when the input is used up). */
static inline uint8_t fuzz_u8(fuzz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* A big-endian 16-bit value (missing bytes read as 0). */
static inline uint16_t fuzz_u16(fuzz_in *in)
{
	uint16_t hi = fuzz_u8(in);
	return (uint16_t)(hi << 8 | fuzz_u8(in));
}

/* The next record of a length-prefixed sequence: a 16-bit big-endian length, then that
 * many bytes (fewer at the end of the input). False when nothing is left. */
static inline bool fuzz_record(fuzz_in *in, const uint8_t **rec, size_t *len)
{
	if (in->left < 2)
		return false;
	size_t n = fuzz_u16(in);
	if (n > in->left)
		n = in->left;
	*rec = in->p;
	*len = n;
	in->p += n;
	in->left -= n;
	return true;
}

/* The input as a file for code that reads paths: an anonymous in-memory file
 * (memfd_create), named through /proc/self/fd. Returns the descriptor (close it after
 * use) and writes the path into path[pathlen], or -1. */
int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen);

/* Where the targets print what they would show a user (reports, summaries): /dev/null,
 * so printing runs in full without filling a terminal. */
FILE *fuzz_devnull(void);

#endif
