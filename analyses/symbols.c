/*
 * symbols.c — dpa_profile_symbolize(): names, files and lines for the ps
 * and css the file left unnamed, from each module's ELF file and its DWARF
 * through elfutils' libdwfl, offline (each module reported at its base).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "profile.h"
#include "strtab.h"

/* One module's debug information, opened on first need. */
struct symmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int state;              /* 0 not opened, 1 usable, -1 unusable */
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Does the file's NT_GNU_BUILD_ID equal the hex string the profile has? */
static bool build_id_matches(Dwfl_Module *mod, const char *hex)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (n <= 0 || strlen(hex) != 2 * (size_t)n)
		return false;
	for (int i = 0; i < n; i++) {
		char b[3];

		snprintf(b, sizeof(b), "%02x", bits[i]);
		if (b[0] != hex[2 * i] || b[1] != hex[2 * i + 1])
			return false;
	}
	return true;
}

static void open_module(struct dpa_profile *p, uint32_t id, struct symmod *sm)
{
	struct dpa_module *m = &p->module[id];

	sm->state = -1;
	m->symbols = -1;
	if (!m->path || !m->path[0])
		return;
	sm->dwfl = dwfl_begin(&offline_callbacks);
	if (!sm->dwfl)
		return;
	dwfl_report_begin(sm->dwfl);
	sm->mod = dwfl_report_elf(sm->dwfl, dpa_basename(m->path), m->path, -1, m->base, false);
	dwfl_report_end(sm->dwfl, NULL, NULL);
	if (!sm->mod)
		return;
	if (m->build_id && !build_id_matches(sm->mod, m->build_id))
		return;
	sm->state = 1;
	m->symbols = 1;
}

/* Module id's debug information, opened on first need (*n_bad counts the
 * modules found unusable), or NULL. */
static Dwfl_Module *module_for(struct dpa_profile *p, struct symmod *mods, uint32_t id,
			       uint32_t *n_bad)
{
	if (id == 0 || id > p->n_module)
		return NULL;
	if (mods[id].state == 0) {
		open_module(p, id, &mods[id]);
		*n_bad += mods[id].state < 0;
	}
	return mods[id].state > 0 ? mods[id].mod : NULL;
}

/* The id of s in p's strings; 0 for NULL (or out of memory: left unnamed). */
static uint32_t intern(struct dpa_profile *p, const char *s)
{
	return s ? dpa_strtab_id(p->strings, s, strlen(s)) : 0;
}

/* The function containing `addr` (a string id), or 0. */
static uint32_t function_at(struct dpa_profile *p, Dwfl_Module *mod, GElf_Addr addr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);

	if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) == STT_OBJECT)
		return 0;
	return intern(p, name);
}

/* True if `addr` lies in a data object: a plugin build's table record. */
static bool data_at(Dwfl_Module *mod, GElf_Addr addr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);

	return name && GELF_ST_TYPE(sym.st_info) == STT_OBJECT;
}

/* Source position of `addr`: returns the file (a string id) or 0. */
static uint32_t source_at(struct dpa_profile *p, Dwfl_Module *mod, GElf_Addr addr,
			     uint32_t *line, uint32_t *col)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	int ln = 0, cl = 0;
	const char *file;

	if (!l)
		return 0;
	file = dwfl_lineinfo(l, NULL, &ln, &cl, NULL, NULL);
	if (!file)
		return 0;
	*line = ln > 0 ? (uint32_t)ln : 0;
	if (col)
		*col = cl > 0 ? (uint32_t)cl : 0;
	return intern(p, file);
}

/* Site i's offset is its callee's entry in the same module: a site no call
 * instruction made (libprof's deepprof_runtime, under which the runtime's
 * own ticks go: deep-data.md), so it has no return address to look up. */
static bool names_no_call(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_css *s = &p->css[i];
	uint32_t callee = s->callee_ps;

	return callee && callee <= p->n_ps && s->module && p->ps[callee].module == s->module &&
	       dpa_ps_offset(p, callee) == dpa_css_offset(p, i);
}

int dpa_profile_symbolize(struct dpa_profile *p)
{
	struct symmod *mods;
	uint32_t n_bad = 0;     /* modules found unusable */
	int missing = 0;

	if (!p->strings && !(p->strings = dpa_strtab_new()))
		return 0;
	mods = calloc((size_t)p->n_module + 1, sizeof(*mods));
	if (!mods)
		return 0;

	/* a source field that cannot be stored for want of memory stays 0,
	 * like one the debug information lacks */
	for (uint32_t i = 1; i <= p->n_ps; i++) {
		const struct dpa_ps *ps = &p->ps[i];
		uint32_t name = dpa_src_get(p, DPA_PS_NAME, i), file = dpa_src_get(p, DPA_PS_FILE, i);
		uint32_t line = dpa_src_get(p, DPA_PS_LINE, i);
		Dwfl_Module *mod;
		GElf_Addr addr;

		if (name && file)
			continue;
		if (!(mod = module_for(p, mods, ps->module, &n_bad))) {
			if (n_bad == p->n_module)
				break;  /* no module can name the rest (their files are gone) */
			continue;
		}
		addr = p->module[ps->module].base + dpa_ps_offset(p, i);
		if (!name)
			dpa_src_set(p, DPA_PS_NAME, i, function_at(p, mod, addr));
		if (!file) {
			file = source_at(p, mod, addr, &line, NULL);
			dpa_src_set(p, DPA_PS_FILE, i, file);
			dpa_src_set(p, DPA_PS_LINE, i, line);
		}
	}

	/* with every module unusable only sites whose file the profile has
	 * get anything (their function, from their caller's name) */
	for (uint32_t i = 1; i <= p->n_css && !(n_bad == p->n_module && !p->src[DPA_CSS_FILE].n); i++) {
		const struct dpa_css *s = &p->css[i];
		uint32_t in_fn = dpa_src_get(p, DPA_CSS_IN_FN, i), file = dpa_src_get(p, DPA_CSS_FILE, i);
		Dwfl_Module *mod;
		GElf_Addr addr;

		if (in_fn && file)
			continue;
		if (file || names_no_call(p, i)) {
			/* from a plugin table (deep-data.md, "Plugin builds"): the
			 * offset is the table record, not a return address, and
			 * the site lies in its caller; likewise a site at its
			 * callee's entry, which no call made */
			dpa_src_set(p, DPA_CSS_IN_FN, i, dpa_src_get(p, DPA_PS_NAME, s->caller_ps));
			continue;
		}
		if (!(mod = module_for(p, mods, s->module, &n_bad)))
			continue;
		/* offset is the return address: the call itself is just before it */
		addr = p->module[s->module].base + dpa_css_offset(p, i) - (dpa_css_offset(p, i) > 0);
		/* a plugin callback's record: data, with no source line to look
		 * up (looking would load the module's whole DWARF for nothing) */
		bool record = data_at(mod, addr);
		if (!in_fn) {
			in_fn = function_at(p, mod, addr);
			if (!in_fn && record)
				in_fn = dpa_src_get(p, DPA_PS_NAME, s->caller_ps);
			dpa_src_set(p, DPA_CSS_IN_FN, i, in_fn);
		}
		if (!record) {
			uint32_t line = dpa_src_get(p, DPA_CSS_LINE, i), col = dpa_src_get(p, DPA_CSS_COL, i);

			file = source_at(p, mod, addr, &line, &col);
			dpa_src_set(p, DPA_CSS_FILE, i, file);
			dpa_src_set(p, DPA_CSS_LINE, i, line);
			dpa_src_set(p, DPA_CSS_COL, i, col < (1u << 29) ? col : 0);    /* css.col's limit */
		}
	}

	for (uint32_t i = 1; i <= p->n_module; i++) {
		if (mods[i].state < 0)
			missing++;
		if (mods[i].dwfl)
			dwfl_end(mods[i].dwfl);
	}
	free(mods);
	return missing;
}
