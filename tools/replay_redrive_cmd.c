/* `smcr-sim replay --mode redrive FILE`: placeholder until sim/redrive.c exists. */
#include <stdio.h>

#include "tools/replay_cli.h"

int replay_redrive_main(const char *prog, const char *file, replay_cli *a)
{
	(void)file;
	(void)a;
	fprintf(stderr, "%s: mode 'redrive' is not implemented yet\n", prog);
	return 2;
}
