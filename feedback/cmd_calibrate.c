/*
 * cmd_calibrate.c — `deepprof calibrate` (placeholder until it is written).
 * Part of deepprof's feedback tools. MIT licence.
 */
#include "cli.h"

int cmd_calibrate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	die_status(DP_EXIT_FAIL, "calibrate: not implemented yet");
}
