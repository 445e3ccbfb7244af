/*
 * profile.c — the parts of struct dpa_profile that are not reading or
 * symbolizing: releasing it and display names for its nodes and measures.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "strtab.h"

static const char *const measure_names[DPA_NMEASURES] = {
	[DPA_CALLS] = "calls",
	[DPA_EXITS] = "exits",
	[DPA_NONLOCAL] = "nonlocal_exits",
	[DPA_CSCS] = "cscs",
	[DPA_TICKS] = "ticks",
	[DPA_ALLOCS] = "allocs",
	[DPA_BYTES] = "bytes",
};

static const char *const kind_names[DPA_CSS_NKINDS] = {
	[DPA_CSS_DYNAMIC] = "dynamic",
	[DPA_CSS_NORMAL] = "normal",
	[DPA_CSS_INDIRECT] = "indirect",
	[DPA_CSS_EXTERNAL] = "external",
	[DPA_CSS_CALLBACK] = "callback",
};

const char *dpa_measure_name(enum dpa_measure m)
{
	return (unsigned)m < DPA_NMEASURES ? measure_names[m] : "?";
}

const char *dpa_css_kind_name(enum dpa_css_kind k)
{
	return (unsigned)k < DPA_CSS_NKINDS ? kind_names[k] : "?";
}

const char *dpa_basename(const char *path)
{
	const char *slash;

	if (!path)
		return "?";
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

const char *dpa_addr_name(const struct dpa_profile *p, uint32_t module, uint64_t offset)
{
	struct dpa_profile *mp = (struct dpa_profile *)p;  /* only the string table changes */
	char buf[64 + 256];
	const char *s;
	int n;

	if (module >= 1 && module <= p->n_module)
		n = snprintf(buf, sizeof(buf), "0x%" PRIx64 " in %.255s", offset,
			     dpa_basename(p->module[module].path));
	else
		n = snprintf(buf, sizeof(buf), "0x%" PRIx64, offset);
	if (n < 0)
		return "?";
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (!mp->strings && !(mp->strings = dpa_strtab_new()))
		return "?";
	s = dpa_strtab_intern(mp->strings, buf, n);
	return s ? s : "?";
}

const char *dpa_str(const struct dpa_profile *p, uint32_t id)
{
	return id ? dpa_strtab_str(p->strings, id) : NULL;
}

uint32_t dpa_str_id(struct dpa_profile *p, const char *s)
{
	if (!s)
		return 0;
	if (!p->strings && !(p->strings = dpa_strtab_new()))
		return 0;
	return dpa_strtab_id(p->strings, s, strlen(s));
}

const char *dpa_ps_name(const struct dpa_profile *p, uint32_t ps)
{
	if (ps == 0 || ps > p->n_ps)
		return "?";
	if (p->ps[ps].name)
		return dpa_str(p, p->ps[ps].name);
	return dpa_addr_name(p, p->ps[ps].module, p->ps[ps].offset);
}

void dpa_profile_release(struct dpa_profile *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->hdr.argv);
	free(p->module);
	free(p->ps);
	free(p->css);
	free(p->pd);
	dpa_csd_release(p);
	free(p->thread);
	free(p->out_csd);
	free(p->in_csd);
	free(p->inside);
	dpa_strtab_free(p->strings);
	memset(p, 0, sizeof(*p));
}

int dpa_fail(struct dpa_error *err, const struct dpa_profile *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return -1;
	n = snprintf(err->msg, sizeof(err->msg), "%s: ", p && p->path ? p->path : "profile");
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}
