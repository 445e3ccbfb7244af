/*
 * export_speedscope.c — a deep profile in speedscope's JSON file format:
 * one sampled profile per thread, a sample per calling context (the folded
 * export's stacks), frames shared. Part of deepprof's analyses library.
 * MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "utf8.h"


/* s as a JSON string. Bytes that are not valid UTF-8 become U+FFFD. */
static void put_json_str(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	while (*u) {
		unsigned char c = *u;
		int n = dpa_utf8_len(u);

		if (n == 1) {
			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
			u++;
		} else if (n) {
			fwrite(u, 1, (size_t)n, f);
			u += n;
		} else {
			fputs("\\ufffd", f);
			u++;
		}
	}
	fputc('"', f);
}

static const char *unit_of(enum dpa_xmeasure m)
{
	return m == DPA_XM_TIME ? "nanoseconds" : m == DPA_XM_BYTES ? "bytes" : "none";
}

int dpa_export_speedscope(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure m,
			  struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	const char *prog = dpa_basename(p->hdr.program);
	struct dpa_stacks s;
	uint32_t *path = NULL, i = 1;
	int ret = -1;

	if (dpa_stacks_init(&s, d, m, true, err) < 0)
		return -1;
	path = malloc(((size_t)s.n + 1) * sizeof(*path));
	if (!path) {
		dpa_fail(err, p, "export: out of memory");
		goto out;
	}
	fprintf(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n");
	fprintf(out, "\"name\":");
	put_json_str(out, prog);
	fprintf(out, ",\n\"exporter\":\"deepprof export (measure %s)\",\n", dpa_xmeasure_name(m));
	fprintf(out, "\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	for (uint32_t f = 0; f < s.n_frames; f++) {
		fprintf(out, "%s\n{\"name\":", f ? "," : "");
		put_json_str(out, s.frame_name[f]);
		if (dpa_src_get(p, DPA_PS_FILE, s.frame_ps[f])) {
			fprintf(out, ",\"file\":");
			put_json_str(out, dpa_src_str(p, DPA_PS_FILE, s.frame_ps[f]));
		}
		if (dpa_src_get(p, DPA_PS_LINE, s.frame_ps[f]))
			fprintf(out, ",\"line\":%u", dpa_src_get(p, DPA_PS_LINE, s.frame_ps[f]));
		fputc('}', out);
	}
	fprintf(out, "]},\n\"profiles\":[");
	/* order[0] is node 0; then each thread node and its subtree */
	for (uint32_t t = 1; t <= s.n_thread; t++) {
		const struct dpa_thread *th = &p->thread[t];
		bool firsts = true;

		while (i < s.n && s.order[i] != t)
			i++;    /* cannot skip anything: thread subtrees come in order */
		fprintf(out, "%s\n{\"type\":\"sampled\",\"name\":", t > 1 ? "," : "");
		{
			char name[512];

			snprintf(name, sizeof(name), "%s thread %llu", prog,
				 (unsigned long long)th->tid);
			put_json_str(out, name);
		}
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\n\"samples\":[",
			unit_of(m), (unsigned long long)s.thread_total[t]);
		/* the subtree of t: order[i+1 ..] while depth > 0 */
		for (uint32_t j = i + 1; j < s.n && s.order[j] > s.n_thread; j++) {
			uint32_t v = s.order[j];

			path[s.depth[v] - 1] = s.frame[v];
			if (!s.weight[v])
				continue;
			fprintf(out, "%s[", firsts ? "\n" : ",\n");
			for (uint32_t k = 0; k < s.depth[v]; k++)
				fprintf(out, "%s%u", k ? "," : "", path[k]);
			fputc(']', out);
			firsts = false;
		}
		fprintf(out, "],\n\"weights\":[");
		firsts = true;
		for (uint32_t j = i + 1; j < s.n && s.order[j] > s.n_thread; j++) {
			uint32_t v = s.order[j];

			if (!s.weight[v])
				continue;
			fprintf(out, "%s%llu", firsts ? "" : ",", (unsigned long long)s.weight[v]);
			firsts = false;
		}
		fprintf(out, "]}");
	}
	fprintf(out, "]}\n");
	if (fflush(out) != 0 || ferror(out)) {
		dpa_fail(err, p, "export: error writing the output");
		goto out;
	}
	ret = 0;
out:
	free(path);
	dpa_stacks_release(&s);
	return ret;
}
