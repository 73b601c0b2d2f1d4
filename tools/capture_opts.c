/* Capture options shared by the commands that run a world. */
#include "tools/capture_opts.h"

#include <stdio.h>
#include <string.h>

#include "tools/cli.h"

void capture_option_add(GOptionContext *ctx, capture_args *a)
{
	GOptionEntry entries[] = {
		{ "pcap", 0, 0, G_OPTION_ARG_FILENAME, &a->pcap,
		  "capture the whole fabric: an interface per tap point, RoCE frames commented with their SMC-R link "
		  "('-': to standard output, the text then goes to stderr); past 100 MiB a line on stderr says how large "
		  "it will be",
		  "FILE" },
		{ "pcap-format", 0, 0, G_OPTION_ARG_STRING, &a->format, "pcapng (default) or pcap (classic, ns timestamps)",
		  "FMT" },
		{ "pcap-per-stack", 0, 0, G_OPTION_ARG_FILENAME, &a->per_stack,
		  "one capture per stack in DIR (STACK.pcapng): its interfaces and RoCE ports, both directions", "DIR" },
		{ "pcap-snaplen", 0, 0, G_OPTION_ARG_STRING, &a->snaplen, "store at most N bytes of each frame", "N" },
		{ "pcap-taps", 0, 0, G_OPTION_ARG_STRING, &a->taps,
		  "whole fabric: ingress (default; each frame once, where it enters a switch) or both (every access port, "
		  "both directions)",
		  "T" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	g_option_context_add_main_entries(ctx, entries, NULL); /* copied */
}

int capture_args_apply(const char *prog, const capture_args *a, world_opts *o)
{
	o->pcap_path = a->pcap;
	o->pcap_stack_dir = a->per_stack;
	if (cli_is_stdin(a->pcap)) {
		/* both writers open a path; the run's own text moves out of the capture's way */
		o->pcap_path = "/dev/stdout";
		o->out = stderr;
	}
	if (a->format && capture_format_parse(a->format, &o->pcap_format)) {
		fprintf(stderr, "%s: bad --pcap-format '%s'; expected pcapng or pcap\n", prog, a->format);
		return 2;
	}
	if (a->snaplen) {
		unsigned long long v;
		if (cli_parse_u64(a->snaplen, &v) || v < 64 || v > 262144) {
			fprintf(stderr, "%s: bad --pcap-snaplen '%s'; expected 64..262144 bytes\n", prog, a->snaplen);
			return 2;
		}
		o->pcap_snaplen = (uint32_t)v;
	}
	if (a->taps) {
		if (!strcmp(a->taps, "ingress"))
			o->pcap_taps = WORLD_TAPS_INGRESS;
		else if (!strcmp(a->taps, "both"))
			o->pcap_taps = WORLD_TAPS_BOTH;
		else {
			fprintf(stderr, "%s: bad --pcap-taps '%s'; expected ingress or both\n", prog, a->taps);
			return 2;
		}
	}
	/* a capture of hundreds of megabytes is said as it happens (stderr, never stdout) */
	o->pcap_warn_bytes = CAPTURE_WARN_BYTES;
	o->warnings = stderr;
	if ((a->format || a->snaplen || a->taps) && !a->pcap && !a->per_stack) {
		fprintf(stderr, "%s: --pcap-format, --pcap-snaplen and --pcap-taps need --pcap or --pcap-per-stack\n", prog);
		return 2;
	}
	return 0;
}

void capture_args_free(capture_args *a)
{
	g_free(a->pcap);
	g_free(a->format);
	g_free(a->per_stack);
	g_free(a->snaplen);
	g_free(a->taps);
}
