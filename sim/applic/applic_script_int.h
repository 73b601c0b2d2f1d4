/* Recorded applications from the tracker's scripts (applic_script.c), for the re-run
 * (applic_rerun.c). Private to sim/applic. */
#ifndef SIM_APPLIC_SCRIPT_INT_H
#define SIM_APPLIC_SCRIPT_INT_H

#include "sim/app/app_recorded.h"
#include "sim/applic/applic_int.h"

/* The client's and the server's steps of one connection (appended to cli and srv). */
void as_steps(const ac_script *s, app_rec_conn *cli, app_rec_conn *srv);
/* The recording's own figures of the connection (rec_* of out). */
void as_recorded(const ac_script *s, applic_rerun_conn *out);

#endif
