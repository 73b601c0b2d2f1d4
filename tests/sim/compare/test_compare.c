/* `smcr-sim compare`'s figures and their printing (sim/compare/compare.h): the change of
 * SMC-R against TCP in parts per million, and the CPU rows of text and JSON from a result
 * made by hand (the runs themselves: tests/cli/t_compare.sh). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/compare/compare.h"

Test(compare, delta_is_parts_per_million_of_tcp)
{
	int64_t ppm;
	cr_assert(compare_delta_ppm(150, 100, &ppm));
	cr_assert_eq(ppm, 500000);
	cr_assert(compare_delta_ppm(20, 100, &ppm));
	cr_assert_eq(ppm, -800000, "an 80 %% drop: %lld", (long long)ppm);
	cr_assert(compare_delta_ppm(100, 100, &ppm));
	cr_assert_eq(ppm, 0);
	cr_assert_not(compare_delta_ppm(5, 0, &ppm), "no base, no delta");
}

static void side(compare_side *s, uint64_t lat, uint64_t cpu_c, uint64_t cpu_s)
{
	memset(s, 0, sizeof(*s));
	s->has = true;
	s->conns = s->completed = 1;
	s->ops = 100;
	s->rate_milli = 1000000000u / lat * 1000u;
	for (int i = 0; i < 100; i++)
		app_hist_add(&s->lat, lat);
	s->cpu_client = cpu_c;
	s->cpu_server = cpu_s;
	s->has_cpu_client = s->has_cpu_server = true;
	s->costs_client = s->costs_server = true;
}

static char *print(const compare_result *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json ? compare_print_json(r, f) : compare_print_text(r, f);
	fclose(f);
	return buf;
}

/* Runs of blanks as one: the table's columns are padded. */
static char *squeeze(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++)
		if (*p != ' ' || o == s || o[-1] != ' ')
			*o++ = *p;
	*o = 0;
	return s;
}

Test(compare, cpu_rows_and_deltas_in_text_and_json)
{
	compare_workload w = { .name = "rr", .kind = "rr", .transactional = true, .client = "A", .server = "B" };
	side(&w.run[COMPARE_SMCR], 2000, 1500, 1200);
	side(&w.run[COMPARE_TCP], 10000, 3000, 6000);
	w.run[COMPARE_SMCR].smcr_conns = 1;
	compare_result r = { .scenario = "x.scn", .title = "", .seed = 3, .w = &w, .n = 1 };
	char *t = squeeze(print(&r, false));
	cr_assert(strstr(t, "latency mean 2.00us 10.0us -80.0%"), "%s", t);
	cr_assert(strstr(t, "CPU/txn client A 1.50us 3.00us -50.0%"), "%s", t);
	cr_assert(strstr(t, "CPU/txn server B 1.20us 6.00us -80.0%"), "%s", t);
	cr_assert(strstr(t, "transactions/s 500 K/s 100 K/s +400.0%"), "%s", t);
	cr_assert_null(strstr(t, "profile none"), "every host counts: no note");
	free(t);
	char *j = print(&r, true);
	cr_assert(strstr(j, "\"cpu_client_ns\": 1500"), "%s", j);
	cr_assert(strstr(j, "\"cpu_server_ns\": 6000"), "%s", j);
	cr_assert(strstr(j, "\"cpu_client\": -500000"), "%s", j);
	cr_assert(strstr(j, "\"cpu_server\": -800000"), "%s", j);
	cr_assert(strstr(j, "\"latency_p50\": -800000"), "%s", j);
	free(j);
	w.run[COMPARE_TCP].costs_server = false; /* one host without costs: no server delta */
	j = print(&r, true);
	cr_assert(strstr(j, "\"cpu_server\": null"), "%s", j);
	free(j);
	for (int k = 0; k < COMPARE_NRUNS; k++)
		app_hist_free(&w.run[k].lat);
}
