/* The out-of-memory stop: one message, exit code 3. Nothing here may allocate. */
#include "sim/engine/oom.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const void *clock_owner;
static const uint64_t *clock_now;

void sim_oom_set_clock(const void *owner, const uint64_t *now)
{
	clock_owner = owner;
	clock_now = now;
}

void sim_oom_forget_clock(const void *owner)
{
	if (clock_owner == owner) {
		clock_owner = NULL;
		clock_now = NULL;
	}
}

static _Noreturn void stop(const char *resource, const char *detail, const char *advice)
{
	char line[512];
	char when[64] = " before the simulation started";
	if (clock_now) {
		const uint64_t ns_per_s = 1000000000u;
		uint64_t t = *clock_now;
		snprintf(when, sizeof when, " at virtual time %llu.%09llu s", (unsigned long long)(t / ns_per_s),
		         (unsigned long long)(t % ns_per_s));
	}
	int n = snprintf(line, sizeof line, "smcr-sim: out of %s%s: %s; %s\n", resource, when, detail, advice);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof line)
		n = (int)sizeof line - 1;
	/* what was printed so far stays printed; the message itself goes out unbuffered */
	fflush(stdout);
	ssize_t w = write(STDERR_FILENO, line, (size_t)n);
	(void)w;
	_exit(SIM_EXIT_OUT_OF_MEMORY);
}

void sim_out_of_memory(const char *what, size_t bytes)
{
	char ran_out[256];
	if (bytes)
		snprintf(ran_out, sizeof ran_out, "%zu bytes for %s", bytes, what);
	else
		snprintf(ran_out, sizeof ran_out, "%s", what);
	stop("memory", ran_out, "run fewer stacks or connections, give them smaller buffers (smcr rmbsize/sndbufsize), "
	                        "or give the process more memory");
}

void sim_out_of_resource(const char *resource, const char *detail, const char *advice)
{
	stop(resource, detail, advice);
}

void *sim_xmalloc(size_t n, const char *what)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		sim_out_of_memory(what, n);
	return p;
}

void *sim_xcalloc(size_t nmemb, size_t size, const char *what)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		sim_out_of_memory(what, nmemb * size);
	return p;
}

void *sim_xrealloc(void *p, size_t n, const char *what)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		sim_out_of_memory(what, n);
	return q;
}

void *sim_xreallocarray(void *p, size_t nmemb, size_t size, const char *what)
{
	if (size && nmemb > SIZE_MAX / size)
		sim_out_of_memory(what, 0);
	return sim_xrealloc(p, nmemb * size, what);
}

size_t sim_heap_block_bytes(const void *p) { return p ? malloc_usable_size((void *)p) + sizeof(size_t) : 0; }
