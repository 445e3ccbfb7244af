/*
 * cmd_feedback.c — `deepprof feedback` (placeholder until it is written).
 * Part of deepprof's feedback tools. MIT licence.
 */
#include "cli.h"

int cmd_feedback(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	die_status(DP_EXIT_FAIL, "feedback: not implemented yet");
}
