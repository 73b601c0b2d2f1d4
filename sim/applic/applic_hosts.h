/* The hosts under the re-run's stacks (sim/host/): which cost profile each simulated host
 * gets, written as the scenario language writes it.
 *
 * A choice is a profile name and overrides of its fields, the stack line's `host=` and the
 * `host` statement of docs/scenario-format.md in one word: "zos", "linux,cpus=8,speed=150"
 * (commas or blanks between the parts). It is read by the scenario parser itself (a stack
 * of a one-stack scenario), so the names, units, ranges and messages are the scenario's. */
#ifndef SIM_APPLIC_HOSTS_H
#define SIM_APPLIC_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/host/host_profile.h"

#define APPLIC_HOST_SPEC_LEN 512

typedef struct applic_host_choice {
	bool given; /* else: not chosen (the default or the scenario's) */
	host_profile profile;
	char spec[APPLIC_HOST_SPEC_LEN]; /* canonical: applic_host_spec() of profile */
} applic_host_choice;

/* Read a choice ("zos,cpus=8"); what names it in messages ("--server-host"). 0, or -1 with
 * "WHAT 'SPEC': what is wrong; expected …" in err. */
int applic_host_parse(const char *spec, const char *what, applic_host_choice *out, char *err, size_t errlen);

/* The canonical spelling of a profile: its name, then every field that differs from the
 * built-in profile of that name, in the order of host_profile_fields(), each as the
 * scenario writes it ("zos,cpus=8,syscall=400ns,copy=160Gbps"); it reads back to p. */
void applic_host_spec(const host_profile *p, char *out, size_t n);

#endif
