/* fuzz_devnull(): one /dev/null stream for the whole run. */
#include <stdlib.h>

#include "fuzz/fuzz.h"

FILE *fuzz_devnull(void)
{
	static FILE *f;
	if (!f) {
		f = fopen("/dev/null", "w");
		if (!f)
			abort();
	}
	return f;
}
