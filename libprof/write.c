/*
 * write.c — the Deep.data writer (schemas/deep-data.md, v1): snapshots every
 * thread's graph (which may still be growing), packs it with msgpack-c's
 * packer into a static buffer flushed with write(2), and renames the file
 * into place. No malloc: it may run in a signal handler or at exit.
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <msgpack.h>
#include "internal.h"

#define MAX_MODULES 1024
#define PATH_BUF 4096

/* --- private state: all of it belongs to the holder of writer_owner --- */

static pid_t writer_owner;      /* tid of the thread writing, 0 = none */

/*
 * The modules loaded at some scan (the list only grows). A scan
 * (dl_iterate_phdr) takes the loader's lock, so a write from a signal
 * handler must not scan unless it has to: the list is scanned at start-up,
 * by every write outside a handler, before each dlclose the program makes
 * (dlwrap.c), and by a handler's write only when a node's address lies in
 * no module of the list (a library loaded since). Paths and build ids are
 * copied, so the list stays valid after a dlclose.
 */
struct module {
	const char *path;           /* in mod_pool */
	uintptr_t base, lo, hi;     /* [base + lo, base + hi) holds the PT_LOAD segments */
	unsigned char build_id[64];
	size_t build_id_len;        /* 0: none */
};
static struct module modules[MAX_MODULES];
static uint32_t n_modules;
static char exe_path[PATH_BUF];
static char mod_pool[256 << 10];
static size_t mod_pool_used;

static struct {
	int fd;
	int err;                    /* first errno of a failed write(2) */
	bool crc_on;
	uint32_t crc;               /* of the bytes before buf[crc_from] */
	size_t n, crc_from;
	char buf[1 << 16];
} out;

/* Per-csd and per-thread counters, copied once so the header's sums and the
 * records agree even while other threads keep counting. */
struct csd_snap { uint64_t calls, exits, nonlocal, ticks, allocs, bytes, loops, inside; };
struct thr_snap { uint64_t cpu_ns, ticks, ticks_out, allocs_out, bytes_out; bool exited; };

/* ==== output =============================================================== */

/* The CRC of the bytes buffered since the last: per buffer, not per packed
 * field (a field is a few bytes, a call too many). */
static void out_crc(void)
{
	if (out.crc_on)
		out.crc = dp_crc32(out.crc, out.buf + out.crc_from, out.n - out.crc_from);
	out.crc_from = out.n;
}

static void out_flush(void)
{
	out_crc();
	out.crc_from = 0;
	size_t off = 0;
	while (off < out.n && !out.err) {
		ssize_t r = write(out.fd, out.buf + off, out.n - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			out.err = r < 0 ? errno : EIO;
			break;
		}
		off += (size_t)r;
	}
	out.n = 0;
}

/* Copy len bytes that do not fit in what is left of the buffer, flushing it as it fills. */
static __attribute__((noinline)) int out_long(const char *buf, size_t len)
{
	while (len) {
		size_t room = sizeof out.buf - out.n;
		size_t k = len < room ? len : room;
		memcpy(out.buf + out.n, buf, k);
		out.n += k;
		buf += k;
		len -= k;
		if (out.n == sizeof out.buf)
			out_flush();
	}
	return 0;
}

/* msgpack's packer hands over each field as it packs it: a header of 1, 2,
 * 3, 5 or 9 bytes (copied inline: libprof is built -fno-builtin, so memcpy
 * is a call) or a string's body. */
static int out_cb(void *data, const char *buf, size_t len)
{
	(void)data;
	if (unlikely(len > sizeof out.buf - out.n))
		return out_long(buf, len);
	char *d = out.buf + out.n;
	out.n += len;
	switch (len) {
	case 1: d[0] = buf[0]; break;
	case 2: __builtin_memcpy(d, buf, 2); break;
	case 3: __builtin_memcpy(d, buf, 3); break;
	case 5: __builtin_memcpy(d, buf, 5); break;
	case 9: __builtin_memcpy(d, buf, 9); break;
	default: memcpy(d, buf, len);
	}
	return 0;
}

static void pack_cstr(msgpack_packer *pk, const char *s)
{
	if (!s) {
		msgpack_pack_nil(pk);
		return;
	}
	size_t n = strlen(s);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static void pack_key(msgpack_packer *pk, const char *k)
{
	pack_cstr(pk, k);
}

/* ==== modules ============================================================== */

static int module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uint32_t *seen = data;          /* the objects this scan has been given */
	const char *name = info->dlpi_name;
	if ((*seen)++ == 0 && (!name || !*name))
		name = exe_path;
	else if (!name || name[0] != '/')
		return 0;       /* the vdso, or an object without a usable path */
	for (uint32_t i = 0; i < n_modules; i++)
		if (modules[i].base == info->dlpi_addr && !strcmp(modules[i].path, name))
			return 0;       /* listed by an earlier scan */
	if (n_modules >= MAX_MODULES)
		return 1;
	struct module *m = &modules[n_modules];
	size_t len = strlen(name) + 1;
	if (len > sizeof mod_pool - mod_pool_used)
		return 1;
	m->path = memcpy(mod_pool + mod_pool_used, name, len);
	m->base = info->dlpi_addr;
	m->lo = UINTPTR_MAX;
	m->hi = 0;
	m->build_id_len = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < m->lo)
				m->lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > m->hi)
				m->hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !m->build_id_len) {
			const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
			const unsigned char *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
				size_t nsz = (nh->n_namesz + 3) & ~(size_t)3;
				size_t dsz = (nh->n_descsz + 3) & ~(size_t)3;
				const unsigned char *nm = p + sizeof *nh;
				if (nm + nsz + dsz > end)
					break;
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    memcmp(nm, "GNU", 4) == 0) {
					size_t n = nh->n_descsz;
					if (n > sizeof m->build_id)
						n = sizeof m->build_id;
					memcpy(m->build_id, nm + nsz, n);
					m->build_id_len = n;
					break;
				}
				p = nm + nsz + dsz;
			}
		}
	}
	if (m->lo == UINTPTR_MAX)
		return 0;
	mod_pool_used += len;
	n_modules++;
	return 0;
}

/* Scan the loaded modules (takes the loader's lock) and add those not
 * listed yet: a module unloaded since (dlclose) stays listed, so that the
 * nodes made while it was loaded still name it. Call with the writer lock
 * held. */
static void modules_scan(void)
{
	if (!n_modules) {
		ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
		exe_path[n > 0 ? n : 0] = 0;
	}
	uint32_t seen = 0;
	dl_iterate_phdr(module_cb, &seen);
}

void dp_write_modules_scan(void)
{
	if (dp_write_lock() < 0)
		return;
	modules_scan();
	dp_write_unlock();
}

/* The module id (1-based) holding addr and its offset; 0 when none does.
 * The latest listed first: a library loaded where an unloaded one was. */
static uint32_t module_of(uintptr_t addr, uint64_t *off)
{
	for (uint32_t i = n_modules; i-- > 0;) {
		const struct module *m = &modules[i];
		if (addr >= m->base + m->lo && addr < m->base + m->hi) {
			*off = addr - m->base;
			return i + 1;
		}
	}
	*off = addr;
	return 0;
}

/* Whether every instrumented ps and css of the first n_ps/n_css lies in a
 * module of the list: a write in a signal handler rescans only if not. */
static bool modules_cover(uint32_t n_ps, uint32_t n_css)
{
	uint64_t off;
	if (!n_modules)
		return false;
	struct dp_ps *ps = DP_LOAD_ACQ(&dp_rt.ps_head);
	for (uint32_t i = 0; i < n_ps && ps; i++, ps = DP_LOAD_ACQ(&ps->next))
		if (ps->kind != DP_PS_SYNTH && ps->kind != DP_PS_EXTERNAL && ps->fn && !module_of(ps->fn, &off))
			return false;
	struct dp_css *c = DP_LOAD_ACQ(&dp_rt.css_head);
	for (uint32_t i = 0; i < n_css && c; i++, c = DP_LOAD_ACQ(&c->next))
		if (c->site && !module_of(c->site, &off))   /* (0: a sampled stack's outermost frame) */
			return false;
	return true;
}

/* ==== the file name ======================================================== */

static char *append(char *p, char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	*p = 0;
	return p;
}

/* Expand "%p" to the pid; in a forked child, a name without %p gets ".<pid>". */
static int resolve_path(char *dst, size_t size, const char *path)
{
	char pid[24];
	dp_fmt_u64(pid, (uint64_t)getpid());
	char *p = dst, *end = dst + size - 1;
	bool had_pid = false;
	if (!path) {
		/* the program may have moved (a daemon to /, fts to the tree
		 * it walks): a relative name is the start directory's */
		path = dp_rt.file_env ? dp_rt.file_env : "Deep.data";
		if (path[0] != '/' && dp_rt.start_dir) {
			p = append(p, end, dp_rt.start_dir);
			if (p > dst && p[-1] != '/')
				p = append(p, end, "/");
		}
	}
	for (const char *s = path; *s && p < end; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			p = append(p, end, pid);
			had_pid = true;
			s++;
		} else {
			*p++ = *s;
		}
	}
	*p = 0;
	/* a forked child, or (sampling) a process of the program that
	 * deepprof record did not start itself, such as system()'s */
	if (!had_pid && (dp_rt.fork_of || (dp_rt.sampling && dp_rt.rec_root &&
					   dp_rt.rec_root != getpid()))) {
		p = append(p, end, ".");
		p = append(p, end, pid);
	}
	if (dp_rt.sampling && dp_rt.rec_gen) {   /* an image exec'd by the program */
		char gen[24];
		dp_fmt_u64(gen, dp_rt.rec_gen);
		p = append(p, end, ".exec");
		p = append(p, end, gen);
	}
	return p < end ? 0 : -1;
}

/* ==== the writer lock ====================================================== */

int dp_write_lock(void)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	for (;;) {
		pid_t expect = 0;
		if (__atomic_compare_exchange_n(&writer_owner, &expect, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		if (expect == me)
			return -1;      /* a signal handler interrupted our own write */
		sched_yield();
	}
}

void dp_write_unlock(void)
{
	__atomic_store_n(&writer_owner, 0, __ATOMIC_RELEASE);
}

void dp_write_reset_child(void)
{
	writer_owner = 0;
}

/* ==== records ============================================================== */

/* The header; with the timer on, also the split of recursions (split.c):
 * inside_samples and inside, the pairs (csd id, inside) of cs[0 .. n_csd)
 * whose inside is not 0, by id. */
static void pack_header(msgpack_packer *pk, bool final, const uint64_t *tot, double ns_per_tick,
			const struct csd_snap *cs, uint64_t n_csd, uint64_t n_inside)
{
	enum { T_CPU, T_TICKS, T_TOUT, T_CALLS, T_ALLOCS, T_BYTES, T_AOUT, T_BOUT, T_MEM, T_LOST, T_LOOPS };
	bool split = dp_rt.timer_hz != 0;
	/* a sampled profile (record.c) is format 2: readers of 1 know no
	 * "samples" clock and would show its zero calls as real */
	bool sampled = dp_rt.sampling;
	/* a check build's findings (check.c, linked only there), when a
	 * candidate call ran */
	bool check = dp_check_regions && dp_check_regions() > 0;
	msgpack_pack_map(pk, (split ? 27 : 25) + (sampled ? 3 : 0) + check);
	pack_key(pk, "magic");       pack_cstr(pk, "deepprof");
	pack_key(pk, "version");     msgpack_pack_uint64(pk, sampled ? 2 : 1);
	pack_key(pk, "min_version"); msgpack_pack_uint64(pk, sampled ? 2 : 1);
	pack_key(pk, "program");     pack_cstr(pk, exe_path);
	pack_key(pk, "argv");
	int argc = dp_rt.argv ? dp_rt.argc : 0;
	msgpack_pack_array(pk, (size_t)argc);
	for (int i = 0; i < argc; i++)
		pack_cstr(pk, dp_rt.argv[i] ? dp_rt.argv[i] : "");
	pack_key(pk, "pid");         msgpack_pack_uint64(pk, (uint64_t)getpid());
	pack_key(pk, "ppid");        msgpack_pack_uint64(pk, (uint64_t)getppid());
	pack_key(pk, "fork_of");     msgpack_pack_uint64(pk, (uint64_t)dp_rt.fork_of);
	pack_key(pk, "final");
	if (final)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
	pack_key(pk, "start_ns");    msgpack_pack_uint64(pk, dp_rt.start_ns);
	uint64_t now = dp_now_ns(CLOCK_MONOTONIC);
	pack_key(pk, "wall_ns");     msgpack_pack_uint64(pk, now > dp_rt.start_mono_ns ? now - dp_rt.start_mono_ns : 0);
	pack_key(pk, "clock");
	pack_cstr(pk, sampled ? "samples" : DP_LOAD(&dp_rt.clock_loops) ? "calls+loops" : "calls");
	if (sampled) {
		pack_key(pk, "record_flags");      msgpack_pack_uint64(pk, DP_LOAD(&dp_rt.rec_flags));
		pack_key(pk, "samples_truncated"); msgpack_pack_uint64(pk, DP_LOAD(&dp_rt.rec_truncated));
		pack_key(pk, "samples_failed");    msgpack_pack_uint64(pk, DP_LOAD(&dp_rt.rec_failed));
	}
	pack_key(pk, "timer_hz");    msgpack_pack_uint64(pk, dp_rt.timer_hz);
	pack_key(pk, "cpu_ns");      msgpack_pack_uint64(pk, tot[T_CPU]);
	pack_key(pk, "ticks");       msgpack_pack_uint64(pk, tot[T_TICKS]);
	pack_key(pk, "ticks_outside"); msgpack_pack_uint64(pk, tot[T_TOUT]);
	pack_key(pk, "ns_per_tick"); msgpack_pack_double(pk, ns_per_tick);
	pack_key(pk, "calls");       msgpack_pack_uint64(pk, tot[T_CALLS]);
	pack_key(pk, "cscs");        msgpack_pack_uint64(pk, tot[T_CALLS] + tot[T_LOOPS]);
	pack_key(pk, "allocs");      msgpack_pack_uint64(pk, tot[T_ALLOCS]);
	pack_key(pk, "bytes");       msgpack_pack_uint64(pk, tot[T_BYTES]);
	pack_key(pk, "allocs_outside"); msgpack_pack_uint64(pk, tot[T_AOUT]);
	pack_key(pk, "bytes_outside");  msgpack_pack_uint64(pk, tot[T_BOUT]);
	pack_key(pk, "mem_bytes");   msgpack_pack_uint64(pk, tot[T_MEM]);
	pack_key(pk, "lost");        msgpack_pack_uint64(pk, tot[T_LOST]);
	if (check) {
		pack_key(pk, "check");
		dp_check_pack(pk);
	}
	if (!split)
		return;
	pack_key(pk, "inside_samples"); msgpack_pack_uint64(pk, DP_LOAD(&dp_split_samples));
	pack_key(pk, "inside");
	msgpack_pack_array(pk, (size_t)(2 * n_inside));
	for (uint64_t k = 0, done = 0; k < n_csd && done < n_inside; k++)
		if (cs[k].inside) {
			msgpack_pack_uint64(pk, k + 1);
			msgpack_pack_uint64(pk, cs[k].inside);
			done++;
		}
}

/*
 * Write the profile to path (NULL: $DEEPPROF_FILE or Deep.data, see
 * resolve_path). A final profile (once per process) first counts every
 * activation still on a stack as a non-local exit and stops recording.
 * in_signal: called from a signal handler, which avoids the loader's lock
 * (see the module list).
 * Returns 0, or -1 after one "deepprof:" line on stderr. Never exits.
 */
int dp_write_profile(const char *path, bool final, bool in_signal)
{
	static char dst[PATH_BUF], tmp[PATH_BUF + 32];
	dp_runtime_init();
	if (!dp_rt.root_ps)
		return -1;
	if (final && __atomic_exchange_n(&dp_rt.final_done, 1, __ATOMIC_ACQ_REL))
		return 0;
	if (dp_write_lock() < 0) {
		dp_log("a profile write is already in progress on this thread", NULL, NULL);
		return -1;
	}
	struct dp_thread *me = dp_self;
	uint32_t was_busy = me ? __atomic_fetch_or(&me->h->stop, DP_BUSY, __ATOMIC_RELAXED) & DP_BUSY : 1;
	int ret = -1;
	void *snap = NULL;
	size_t snap_size = 0;

	if (final) {
		DP_STORE_REL(&dp_rt.stopped, 1);
		for (struct dp_thread *t = DP_LOAD_ACQ(&dp_rt.threads); t; t = DP_LOAD_ACQ(&t->next))
			if (!DP_LOAD_ACQ(&t->exited))   /* an ended thread's TLS is gone */
				__atomic_fetch_or(&t->h->stop, DP_STOPPED, __ATOMIC_RELAXED);
		for (struct dp_thread *t = DP_LOAD_ACQ(&dp_rt.threads); t; t = DP_LOAD_ACQ(&t->next))
			if (!DP_LOAD_ACQ(&t->exited))
				dp_graph_unwind_all(t, t == me && DP_LOAD(&dp_rt.normal_end));
	}
	if (dp_rt.sampling && dp_record_check)
		dp_record_check();
	if (resolve_path(dst, sizeof dst, path) < 0) {
		dp_log("output file name too long:", dst, NULL);
		goto done;
	}
	char *p = append(tmp, tmp + sizeof tmp - 1, dst);
	p = append(p, tmp + sizeof tmp - 1, ".tmp.");
	dp_fmt_u64(p, (uint64_t)getpid());

	/* Snapshot the counts, newest kinds first: a node is published after
	 * everything it references, so every reference lands inside the snapshot. */
	uint32_t n_thr = 0;
	struct dp_thread *threads = DP_LOAD_ACQ(&dp_rt.threads);
	{
		uint32_t nt = DP_LOAD_ACQ(&dp_rt.n_threads);
		for (struct dp_thread *t = threads; t && n_thr < nt; t = DP_LOAD_ACQ(&t->next))
			n_thr++;
	}
	uint64_t n_csd = 0;
	{
		struct dp_thread *t = threads;
		for (uint32_t i = 0; i < n_thr; i++, t = t->next)
			n_csd += (t->w_csd = DP_LOAD_ACQ(&t->n_csd));
		t = threads;
		for (uint32_t i = 0; i < n_thr; i++, t = t->next)
			t->w_pd = DP_LOAD_ACQ(&t->n_pd);
	}
	uint32_t n_css = DP_LOAD_ACQ(&dp_rt.n_css);
	uint32_t n_ps = DP_LOAD_ACQ(&dp_rt.n_ps);
	uint64_t mem_bytes = DP_LOAD(&dp_rt.mem_bytes);

	snap_size = (size_t)n_csd * sizeof(struct csd_snap) + (size_t)n_thr * sizeof(struct thr_snap);
	snap = mmap(NULL, snap_size ? snap_size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (snap == MAP_FAILED) {
		snap = NULL;
		dp_log(dst, "out of memory for the write", NULL);
		goto done;
	}
	struct csd_snap *cs = snap;
	struct thr_snap *ts = (struct thr_snap *)(cs + n_csd);

	/* Ids and totals. */
	uint64_t tot[11] = { 0 };
	uint32_t pd_id = 0, csd_id = 0, css_id = 0;
	uint64_t n_inside = 0;      /* csds with a split measure (split.c) */
	{
		uint32_t id = 0;
		struct dp_css *c = DP_LOAD_ACQ(&dp_rt.css_head);
		for (uint32_t i = 0; i < n_css && c; i++, c = DP_LOAD_ACQ(&c->next))
			c->id = ++id;
		css_id = id;
		uint32_t ti = 0;
		for (struct dp_thread *t = threads; ti < n_thr; t = t->next, ti++) {
			t->id = ti + 1;
			struct dp_pd *pd = t->pd_head;
			for (uint32_t i = 0; i < t->w_pd && pd; i++, pd = DP_LOAD_ACQ(&pd->next))
				pd->id = ++pd_id;
			uint32_t first = csd_id + 1;
			if (DP_LOAD(&dp_rt.abi2))
				dp_plugin2_prepare(t);
			uint64_t thr_ticks = 0;     /* a thread's ticks: its csds' and its outside ones */
			uint64_t inh[3] = { 0 };    /* ticks, allocs, bytes moved to the sink */
			struct dp_csd *c = DP_LOAD_ACQ(&t->csd_head);
			for (uint32_t i = 0; i < t->w_csd && c; i++, c = DP_LOAD_ACQ(&c->next)) {
				struct csd_snap *s = &cs[csd_id];
				c->id = ++csd_id;
				s->exits = DP_LOAD(&c->exits);
				s->nonlocal = DP_LOAD(&c->nonlocal);
				s->calls = s->exits + s->nonlocal;
				if (c->v2)
					dp_plugin2_counts(c, &s->calls, &s->exits, &s->nonlocal);
				s->ticks = DP_LOAD(&c->ticks);
				thr_ticks += s->ticks;
				s->allocs = DP_LOAD(&c->allocs);
				s->bytes = DP_LOAD(&c->bytes);
				s->loops = DP_LOAD(&c->loops) + DP_LOAD(&c->hot.loop_cscs);
				s->inside = DP_LOAD(&c->inside);
				if (c->inherited && !s->calls) {
					/* ABI v2, a forked child: costs of a call made
					 * before the fork go to the sink, as v1's do */
					inh[0] += s->ticks;
					inh[1] += s->allocs;
					inh[2] += s->bytes;
					thr_ticks -= s->ticks;
					s->ticks = s->allocs = s->bytes = s->loops = s->inside = 0;
				}
				n_inside += s->inside != 0;
				tot[10] += s->loops;
				tot[3] += s->calls;
				tot[4] += s->allocs;
				tot[5] += s->bytes;
			}
			struct thr_snap *h = &ts[ti];
			h->exited = DP_LOAD_ACQ(&t->exited);
			/* A snapshot counts the calls still running (a final profile
			 * has already counted them as non-local exits). */
			struct dp_frame *lo, *hi;
			if (!final && !h->exited && dp_graph_frames(t, &lo, &hi)) {
				for (struct dp_frame *f = hi; f >= lo; f--) {
					if (DP_LOAD(&f->sp) == DP_SP_DEAD)
						continue;       /* a push in progress: not running yet */
					uint32_t id = DP_LOAD(&f->csd)->id;
					if (id >= first && id <= csd_id) {
						cs[id - 1].calls++;
						tot[3]++;
					}
				}
				/* and the activations their tail calls replaced (plugin.c) */
				uint32_t nt = DP_LOAD(&t->n_tails);
				for (uint32_t k = 0; k < nt; k++) {
					struct dp_csd *rc = DP_LOAD(&t->tails[k].csd);
					uint32_t id = rc ? rc->id : 0;
					if (id >= first && id <= csd_id) {
						cs[id - 1].calls += t->tails[k].n;
						tot[3] += t->tails[k].n;
					}
				}
			}
			h->cpu_ns = dp_thread_cpu_ns(t);
			h->ticks_out = DP_LOAD(&t->outside.ticks) + inh[0];
			h->ticks = thr_ticks + h->ticks_out;
			h->allocs_out = DP_LOAD(&t->outside.allocs) + inh[1];
			h->bytes_out = DP_LOAD(&t->outside.bytes) + inh[2];
			tot[0] += h->cpu_ns;
			tot[1] += h->ticks;
			tot[2] += h->ticks_out;
			tot[6] += h->allocs_out;
			tot[7] += h->bytes_out;
			tot[9] += DP_LOAD(&t->lost);
		}
		tot[6] += DP_LOAD(&dp_rt.allocs_outside);
		tot[7] += DP_LOAD(&dp_rt.bytes_outside);
		tot[4] += tot[6];
		tot[5] += tot[7];
		tot[8] = mem_bytes;
		tot[9] += DP_LOAD(&dp_rt.lost);
	}
	/* the CPU time the ticks stand for: all of it, or what had run when
	 * the program took SIGPROF and the ticks stopped */
	uint64_t ticked_ns = dp_rt.given_up_cpu_ns && dp_rt.given_up_cpu_ns < tot[0] ? dp_rt.given_up_cpu_ns
										       : tot[0];
	double ns_per_tick = tot[1] ? (double)ticked_ns / (double)tot[1]
				    : (dp_rt.timer_hz ? 1e9 / dp_rt.timer_hz : 0.0);

	if (!in_signal || !modules_cover(n_ps, n_css))
		modules_scan();
	/* A file that is not a regular one (/dev/null, a FIFO, a terminal) is
	 * written in place: renaming over it would replace the device with a
	 * regular file (as root, /dev/null itself) */
	struct stat st;
	bool direct = stat(dst, &st) == 0 && !S_ISREG(st.st_mode);
	out.fd = direct ? open(dst, O_WRONLY | O_CLOEXEC)
			: open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out.fd < 0) {
		dp_log(direct ? dst : tmp, "cannot create:", strerror(errno));
		goto done;
	}
	out.err = 0;
	out.n = 0;
	out.crc_from = 0;
	out.crc = 0;
	out.crc_on = true;
	msgpack_packer pk;
	msgpack_packer_init(&pk, NULL, out_cb);

	pack_header(&pk, final, tot, ns_per_tick, cs, csd_id, n_inside);
	for (uint32_t i = 0; i < n_modules; i++) {
		const struct module *m = &modules[i];
		msgpack_pack_array(&pk, 6);
		msgpack_pack_uint64(&pk, 1);
		msgpack_pack_uint64(&pk, i + 1);
		pack_cstr(&pk, m->path);
		msgpack_pack_uint64(&pk, m->base);
		msgpack_pack_uint64(&pk, m->hi - m->lo);
		if (m->build_id_len) {
			msgpack_pack_bin(&pk, m->build_id_len);
			msgpack_pack_bin_body(&pk, m->build_id, m->build_id_len);
		} else {
			msgpack_pack_nil(&pk);
		}
	}
	{
		struct dp_ps *ps = DP_LOAD_ACQ(&dp_rt.ps_head);
		for (uint32_t i = 0; i < n_ps && ps; i++, ps = DP_LOAD_ACQ(&ps->next)) {
			uint64_t off = 0;
			/* synthetic ones (<root>, uninstrumented callees known by
			 * name) have module 0; a plugin ps is at its table record */
			bool synth = ps->kind == DP_PS_SYNTH || ps->kind == DP_PS_EXTERNAL;
			uint32_t mod = synth ? 0 : module_of(ps->fn, &off);
			msgpack_pack_array(&pk, 7);
			msgpack_pack_uint64(&pk, 2);
			msgpack_pack_uint64(&pk, ps->idx);
			msgpack_pack_uint64(&pk, mod);
			msgpack_pack_uint64(&pk, synth ? 0 : off);
			const char *name = ps->name, *file = ps->file;
			uint32_t line = ps->line;
			if (!name && !synth)
				dp_runtime_ps(ps->fn, &name, &file, &line);
			pack_cstr(&pk, name ? name : mod ? NULL : "<unknown>");
			pack_cstr(&pk, file);
			msgpack_pack_uint64(&pk, line);
		}
	}
	{
		struct dp_css *c = DP_LOAD_ACQ(&dp_rt.css_head);
		for (uint32_t i = 0; i < n_css && c; i++, c = DP_LOAD_ACQ(&c->next)) {
			uint64_t off;
			uint32_t mod = module_of(c->site, &off);
			msgpack_pack_array(&pk, 10);
			msgpack_pack_uint64(&pk, 3);
			msgpack_pack_uint64(&pk, c->id);
			msgpack_pack_uint64(&pk, c->caller->idx);
			msgpack_pack_uint64(&pk, mod);
			msgpack_pack_uint64(&pk, off);
			msgpack_pack_uint64(&pk, c->kind);
			msgpack_pack_uint64(&pk, c->callee ? c->callee->idx : 0);
			pack_cstr(&pk, c->file);
			msgpack_pack_uint64(&pk, c->line);
			msgpack_pack_uint64(&pk, c->col);
		}
	}
	{
		struct dp_thread *t = threads;
		for (uint32_t ti = 0; ti < n_thr; ti++, t = t->next) {
			struct dp_pd *pd = t->pd_head;
			for (uint32_t i = 0; i < t->w_pd && pd; i++, pd = DP_LOAD_ACQ(&pd->next)) {
				msgpack_pack_array(&pk, 3);
				msgpack_pack_uint64(&pk, 5);
				msgpack_pack_uint64(&pk, pd->id);
				msgpack_pack_uint64(&pk, pd->ps->idx);
			}
		}
		t = threads;
		uint64_t k = 0;
		for (uint32_t ti = 0; ti < n_thr; ti++, t = t->next) {
			struct dp_csd *c = DP_LOAD_ACQ(&t->csd_head);
			for (uint32_t i = 0; i < t->w_csd && c; i++, c = DP_LOAD_ACQ(&c->next), k++) {
				const struct csd_snap *s = &cs[k];
				msgpack_pack_array(&pk, 12);
				msgpack_pack_uint64(&pk, 6);
				msgpack_pack_uint64(&pk, c->id);
				msgpack_pack_uint64(&pk, c->css->id);
				msgpack_pack_uint64(&pk, c->caller->id);
				msgpack_pack_uint64(&pk, c->callee->id);
				msgpack_pack_uint64(&pk, s->calls);
				msgpack_pack_uint64(&pk, s->exits);
				msgpack_pack_uint64(&pk, s->nonlocal);
				msgpack_pack_uint64(&pk, s->calls + s->loops);
				msgpack_pack_uint64(&pk, s->ticks);
				msgpack_pack_uint64(&pk, s->allocs);
				msgpack_pack_uint64(&pk, s->bytes);
			}
		}
		t = threads;
		for (uint32_t ti = 0; ti < n_thr; ti++, t = t->next) {
			const struct thr_snap *h = &ts[ti];
			msgpack_pack_array(&pk, 10);
			msgpack_pack_uint64(&pk, 7);
			msgpack_pack_uint64(&pk, t->id);
			msgpack_pack_uint64(&pk, (uint64_t)t->tid);
			msgpack_pack_uint64(&pk, t->root->id);
			msgpack_pack_uint64(&pk, h->cpu_ns);
			msgpack_pack_uint64(&pk, h->ticks);
			msgpack_pack_uint64(&pk, h->ticks_out);
			msgpack_pack_uint64(&pk, h->allocs_out);
			msgpack_pack_uint64(&pk, h->bytes_out);
			if (h->exited)
				msgpack_pack_true(&pk);
			else
				msgpack_pack_false(&pk);
		}
	}
	out_crc();              /* the END record is not in it */
	out.crc_on = false;
	msgpack_pack_array(&pk, 8);
	msgpack_pack_uint64(&pk, 9);
	msgpack_pack_uint64(&pk, n_modules);
	msgpack_pack_uint64(&pk, n_ps);
	msgpack_pack_uint64(&pk, css_id);
	msgpack_pack_uint64(&pk, pd_id);
	msgpack_pack_uint64(&pk, csd_id);
	msgpack_pack_uint64(&pk, n_thr);
	msgpack_pack_uint64(&pk, out.crc);
	out_flush();
	if (close(out.fd) != 0 && !out.err)
		out.err = errno;
	if (out.err) {
		dp_log(direct ? dst : tmp, "write failed:", strerror(out.err));
		if (!direct)
			unlink(tmp);
		goto done;
	}
	if (!direct && rename(tmp, dst) != 0) {
		dp_log(dst, "cannot rename the profile into place:", strerror(errno));
		unlink(tmp);
		goto done;
	}
	ret = 0;
done:
	if (snap)
		munmap(snap, snap_size ? snap_size : 1);
	if (me && !was_busy)
		__atomic_fetch_and(&me->h->stop, ~(uint32_t)DP_BUSY, __ATOMIC_RELAXED);
	dp_write_unlock();
	return ret;
}
