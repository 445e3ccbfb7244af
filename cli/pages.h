/*
 * pages.h — where deepprof-cgi and cmd_serve.c find the pages API: it lives
 * in the analyses library (analyses/pages.h, linked from libdpa.a).
 * Part of deepprof's command line. MIT licence.
 */
#include "../analyses/pages.h"
