/*
 * deepprof-cc — a drop-in compiler wrapper: compiles with the deepprof GCC
 * plugin (or -finstrument-functions) and links the runtime, so that
 * `make CC=deepprof-cc` profiles an existing project. Part of deepprof. MIT licence.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DP_PREFIX
#define DP_PREFIX "/usr/local"
#endif
#ifndef DP_GCC_VERSION
#define DP_GCC_VERSION ""
#endif
/* What a program linked with libprof.a needs after it (the build passes
 * libprof's own list, plus -fsanitize=undefined when libprof was built so). */
#ifndef DP_DEFAULT_LIBS
#define DP_DEFAULT_LIBS "-lpthread"
#endif

enum mode { MODE_PLUGIN, MODE_CYG, MODE_OFF };

struct opts {
	enum mode mode;
	const char *cc, *plugin, *runtime, *libs;
	const char **plugin_args;
	int n_plugin_args;
	bool link, shared, inputs, verbose;
	const char *output;
	bool openmp;            /* -fopenmp: libprof wraps libgomp's entry points */
	bool asan;              /* -fsanitize=address (not taken back by -fno-sanitize=) */
	/* the use build (--deepprof-use): feedback files, comma-separated as given */
	const char *use;
	bool use_instrument;    /* --deepprof-instrument: instrument the use build too */
	bool remarks;           /* --deepprof-remarks */
	const char *parallelize;    /* --deepprof-parallelize: safe, checked, none or ids */
	const char *check;      /* --deepprof-check: feedback files, comma-separated */
};

static const char *const usage =
"usage: deepprof-cc [deepprof options] [compiler options and files]\n"
"\n"
"Compiles and links like the compiler it wraps (gcc by default), adding deepprof's\n"
"instrumentation when compiling and its runtime (libprof) when linking an\n"
"executable, so that `make CC=deepprof-cc` profiles an existing project. Run the\n"
"program as usual: it writes Deep.data, which `deepprof report` reads.\n"
"\n"
"deepprof options (everything else goes to the compiler unchanged):\n"
"  --deepprof-mode=plugin  the default: the deepprof GCC plugin numbers every\n"
"                          source-level call site (before inlining), ticks loop\n"
"                          back-edges and records the program representation in\n"
"                          the object's .deepprof.progrep section. GCC " DP_GCC_VERSION " only.\n"
"  --deepprof-mode=cyg     use -finstrument-functions instead (any GCC, clang)\n"
"  --deepprof-mode=off     add nothing: behave exactly like the compiler\n"
"  --deepprof-cc=CC        the compiler to run (default: $DEEPPROF_CC, else gcc)\n"
"  --deepprof-arg=KEY=VAL  pass -fplugin-arg-deepprof-KEY=VAL to the plugin; keys:\n"
"                          progrep=0|1, backedges=0|1|call, tailcalls=0|1,\n"
"                          progrep-file=PATH, calls=source|surviving (count\n"
"                          only the calls that survive inlining), abi=2|1 (2,\n"
"                          the default: the common call path is emitted inline;\n"
"                          1: a hook call per entry, call and return; what\n"
"                          calls=surviving and backedges=call select),\n"
"                          inline-cost=plain|counted (plain, the default: GCC's\n"
"                          inliner does not count the instrumentation's code)\n"
"  --deepprof-plugin=PATH  the plugin (default: $DEEPPROF_PLUGIN, else found next to\n"
"                          this program in the build tree or under " DP_PREFIX ")\n"
"  --deepprof-runtime=LIB  link LIB instead of libprof (default: $DEEPPROF_RUNTIME)\n"
"  --deepprof-libs=\"-lx..\" libraries the runtime needs (default: $DEEPPROF_LIBS, else\n"
"                          \"" DP_DEFAULT_LIBS "\"; none with a LIB above)\n"
"  --deepprof-use=FILE[,FILE...]  a use build: compile an uninstrumented program\n"
"                          guided by deepprof feedback files (JSON or MessagePack):\n"
"                          hot/cold placement, never-run paths unlikely, parallel\n"
"                          code for the candidates --deepprof-parallelize picks, a\n"
"                          remark for each (-fopt-info shows them)\n"
"  --deepprof-instrument   with --deepprof-use: instrument the use build as well\n"
"  --deepprof-parallelize=safe|checked|none|ID[,ID...]  which candidates become\n"
"                          parallel code (default safe: what GCC proves; checked:\n"
"                          also what a dependence check found independent;\n"
"                          naming ids is consent for others, never for a conflict)\n"
"  --deepprof-check=FILE[,FILE...]  a check build: instrumented, and inside the\n"
"                          calls of the feedback's candidates every load and store\n"
"                          is recorded; each run adds its findings (conflicting\n"
"                          accesses, or none) to Deep.data, which `deepprof\n"
"                          feedback` folds into the candidates' safety\n"
"  --deepprof-remarks      with --deepprof-use: print deepprof's remarks only\n"
"  --deepprof-verbose      print the compiler command before running it\n"
"  --help                  this text (`gcc --help` for the compiler's options)\n"
"\n"
"When linking an executable the runtime's hooks are exported, so shared\n"
"libraries built with deepprof-cc -shared (which do not link the runtime) find\n"
"them when loaded. Exit status: the compiler's; 2 for a bad deepprof option or a\n"
"missing plugin/runtime, with a one-line message.\n";

/* ================= helpers ================= */

static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("deepprof-cc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static bool file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A runtime given as a shared object (lib.so, lib.so.1.2), not an archive
 * or object file linked into the program (lib.a, even lib.so.a). */
static bool shared_object(const char *rt)
{
	if (!rt || !*rt)
		return false;
	const char *base = strrchr(rt, '/') ? strrchr(rt, '/') + 1 : rt;
	for (const char *so = strstr(base, ".so"); so; so = strstr(so + 1, ".so")) {
		const char *v = so + 3;         /* then nothing, or .N.N... */
		while (*v == '.' && v[1] >= '0' && v[1] <= '9')
			for (v++; *v >= '0' && *v <= '9'; v++)
				;
		if (!*v)
			return true;
	}
	return false;
}

/* The directory this program lives in (resolved), e.g. .../build/bin. */
static void self_dir(char *buf, size_t n)
{
	ssize_t r = readlink("/proc/self/exe", buf, n - 1);
	if (r <= 0) {
		snprintf(buf, n, ".");
		return;
	}
	buf[r] = 0;
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
}

/* The first that exists of `rel` (build tree) and `inst` (install tree)
 * under <self>/.., then `inst` under the configured prefix; or NULL. */
static char *find(const char *rel, const char *inst)
{
	static char paths[2][PATH_MAX];
	static int next;
	char dir[PATH_MAX];
	char *out = paths[next++ & 1];
	self_dir(dir, sizeof dir);
	if (snprintf(out, PATH_MAX, "%.3000s/../%s", dir, rel) < PATH_MAX && file_exists(out))
		return out;
	if (snprintf(out, PATH_MAX, "%.3000s/../%s", dir, inst) < PATH_MAX && file_exists(out))
		return out;
	if (snprintf(out, PATH_MAX, "%s/%s", DP_PREFIX, inst) < PATH_MAX && file_exists(out))
		return out;
	return NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* `$CC -dumpfullversion`, or NULL when it cannot be run. */
static char *compiler_version(const char *cc)
{
	int fd[2];
	if (pipe(fd))
		return NULL;
	pid_t pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(cc, cc, "-dumpfullversion", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	static char buf[64];
	ssize_t n = read(fd[0], buf, sizeof buf - 1);
	close(fd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (n <= 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return NULL;
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	return buf;
}

/* ================= options ================= */

/* safe, none, or a comma-separated list of candidate ids (decimal, > 0). */
static bool parallelize_ok(const char *v)
{
	if (!strcmp(v, "safe") || !strcmp(v, "none") || !strcmp(v, "checked"))
		return true;
	const char *p = v;
	for (;;) {
		if (*p < '1' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

static void parse_deepprof_opt(struct opts *o, const char *a)
{
	if (starts(a, "--deepprof-mode=")) {
		const char *m = a + 16;
		if (!strcmp(m, "plugin"))
			o->mode = MODE_PLUGIN;
		else if (!strcmp(m, "cyg"))
			o->mode = MODE_CYG;
		else if (!strcmp(m, "off"))
			o->mode = MODE_OFF;
		else
			die("%s: unknown mode (plugin, cyg or off)", a);
	} else if (starts(a, "--deepprof-cc=")) {
		o->cc = a + 14;
	} else if (starts(a, "--deepprof-arg=")) {
		const char *kv = a + 15;
		if (!*kv || *kv == '=')
			die("%s: expected --deepprof-arg=KEY or KEY=VALUE", a);
		o->plugin_args[o->n_plugin_args++] = kv;
	} else if (starts(a, "--deepprof-plugin=")) {
		o->plugin = a + 18;
	} else if (starts(a, "--deepprof-runtime=")) {
		o->runtime = a + 19;
	} else if (starts(a, "--deepprof-libs=")) {
		o->libs = a + 16;
	} else if (!strcmp(a, "--deepprof-verbose")) {
		o->verbose = true;
	} else if (starts(a, "--deepprof-use=")) {
		o->use = a + 15;
		if (!*o->use)
			die("%s: expected --deepprof-use=FILE[,FILE...]", a);
	} else if (!strcmp(a, "--deepprof-instrument")) {
		o->use_instrument = true;
	} else if (!strcmp(a, "--deepprof-remarks")) {
		o->remarks = true;
	} else if (starts(a, "--deepprof-parallelize=")) {
		o->parallelize = a + 23;
		if (!parallelize_ok(o->parallelize))
			die("%s: expected safe, checked, none or candidate ids (1,2,...)", a);
	} else if (starts(a, "--deepprof-check=")) {
		o->check = a + 17;
		if (!*o->check)
			die("%s: expected --deepprof-check=FEEDBACK[,FEEDBACK...]", a);
	} else {
		die("unknown option %s (see deepprof-cc --help)", a);
	}
}

/* -fplugin-arg-deepprof-KEY=FILE:FILE... from --deepprof-KEY=FILE,FILE...,
 * each file checked here. */
static char *feedback_arg(const char *key, const char *files)
{
	char *q = malloc(strlen(files) + 64);
	if (!q)
		die("out of memory");
	char *e = q + sprintf(q, "-fplugin-arg-deepprof-%s=", key);
	for (const char *f = files; *f;) {
		size_t len = strcspn(f, ",");
		char path[PATH_MAX];
		if (!len || len >= sizeof path)
			die("--deepprof-%s=%s: an empty or too long file name", key, files);
		memcpy(path, f, len);
		path[len] = 0;
		if (access(path, R_OK) != 0)
			die("cannot read feedback file %s: %s", path, strerror(errno));
		if (strchr(path, ':'))
			die("feedback file %s: a name with ':' cannot be passed to the plugin", path);
		e += sprintf(e, "%s%s", e[-1] == '=' ? "" : ":", path);
		f += len + (f[len] == ',');
	}
	return q;
}

/* Options of the compiler that take their value as the next argument. */
static bool takes_value(const char *a)
{
	static const char *const two[] = { "-o", "-I", "-D", "-U", "-include", "-imacros",
		"-isystem", "-idirafter", "-iquote", "-x", "-MF", "-MT", "-MQ", "-L", "-l",
		"-Xlinker", "-Xassembler", "-Xpreprocessor", "-T", "-u", "-z", "-aux-info",
		"--param", "-isysroot", "-imultilib", "-iprefix", "-e", NULL };
	for (int i = 0; two[i]; i++)
		if (!strcmp(a, two[i]))
			return true;
	return false;
}

/* Whether the comma-separated LIST names SAN */
static bool names(const char *list, const char *san)
{
	size_t n = strlen(san);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, san, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static void scan_compiler_args(struct opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (starts(a, "--deepprof-"))
			continue;
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
		    !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
			o->link = false;
		else if (!strcmp(a, "-shared"))
			o->shared = true;
		else if (!strcmp(a, "-fopenmp"))
			o->openmp = true;
		else if (starts(a, "-fsanitize=") && names(a + 11, "address"))
			o->asan = true;
		else if (starts(a, "-fno-sanitize=") && (names(a + 14, "address") || names(a + 14, "all")))
			o->asan = false;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			o->output = argv[i + 1];
		else if (starts(a, "-o") && a[2])
			o->output = a + 2;
		if (a[0] != '-' || !strcmp(a, "-"))
			o->inputs = true;
		if (takes_value(a))
			i++;
	}
}

/* ================= main ================= */

int main(int argc, char **argv)
{
	struct opts o = { .mode = MODE_PLUGIN, .link = true };
	o.plugin_args = calloc(argc + 1, sizeof *o.plugin_args);
	if (!o.plugin_args)
		die("out of memory");
	o.cc = getenv("DEEPPROF_CC");
	o.plugin = getenv("DEEPPROF_PLUGIN");
	o.runtime = getenv("DEEPPROF_RUNTIME");
	o.libs = getenv("DEEPPROF_LIBS");
	const char *env_mode = getenv("DEEPPROF_MODE");
	if (env_mode && *env_mode) {
		char tmp[64];
		snprintf(tmp, sizeof tmp, "--deepprof-mode=%s", env_mode);
		parse_deepprof_opt(&o, tmp);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "--deepprof-help")) {
			fputs(usage, stdout);
			free(o.plugin_args);
			return 0;
		}
		if (starts(argv[i], "--deepprof-"))
			parse_deepprof_opt(&o, argv[i]);
		else if (takes_value(argv[i]))
			i++;
	}
	if (!o.cc || !*o.cc)
		o.cc = "gcc";
	scan_compiler_args(&o, argc, argv);

	/* An output whose directory does not exist: say so before the compiler does. */
	if (o.output && strcmp(o.output, "-")) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", o.output);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = 0;
			if (!*dir)
				strcpy(dir, "/");
			if (access(dir, W_OK) != 0)
				die("cannot write output file %s: directory %s: %s", o.output, dir,
				    strerror(errno));
		}
	}

	const char **args = calloc(argc + o.n_plugin_args + 24, sizeof *args);
	char **owned = calloc(o.n_plugin_args + 8, sizeof *owned);
	if (!args || !owned)
		die("out of memory");
	int n = 0, n_owned = 0;
	args[n++] = o.cc;

	/* A use build (--deepprof-use) loads the plugin to read the feedback,
	 * and instruments only with --deepprof-instrument. */
	bool use = o.use && o.mode != MODE_OFF;
	if (use && o.mode == MODE_CYG)
		die("--deepprof-use needs the deepprof plugin (GCC %s), not --deepprof-mode=cyg",
		    DP_GCC_VERSION);
	if ((o.remarks || o.parallelize || o.use_instrument) && !o.use)
		die("%s needs --deepprof-use=FILE", o.remarks ? "--deepprof-remarks" :
		    o.parallelize ? "--deepprof-parallelize" : "--deepprof-instrument");
	bool check = o.check && o.mode != MODE_OFF;
	if (check && o.mode == MODE_CYG)
		die("--deepprof-check needs the deepprof plugin (GCC %s), not --deepprof-mode=cyg",
		    DP_GCC_VERSION);
	if (check && use)
		die("--deepprof-check and --deepprof-use do not go together: check first, then use "
		    "the feedback made from the check's profiles");
	bool instrument = o.inputs && o.mode != MODE_OFF && (!use || o.use_instrument);
	bool parallel = use && (!o.parallelize || strcmp(o.parallelize, "none"));
	if (parallel && !o.openmp) {
		/* parallel code is OpenMP tasks: what -fopenmp adds, it adds */
		args[n++] = "-fopenmp";
		o.openmp = true;
	}
	if (o.inputs && o.mode == MODE_PLUGIN && (instrument || use || check)) {
		const char *base = strrchr(o.cc, '/') ? strrchr(o.cc, '/') + 1 : o.cc;
		if (strstr(base, "clang"))
			die("%s: plugin mode needs GCC %s; use --deepprof-mode=cyg with clang",
			    o.cc, DP_GCC_VERSION);
		if (!o.plugin || !*o.plugin)
			o.plugin = find("lib/gcc-plugin/deepprof.so", "lib/deepprof/gcc-plugin/deepprof.so");
		if (!o.plugin)
			die("cannot find the deepprof GCC plugin (gcc-plugin/deepprof.so next to "
			    "this program's ../lib or in " DP_PREFIX "/lib/deepprof); set DEEPPROF_PLUGIN");
		if (!file_exists(o.plugin))
			die("cannot read the deepprof GCC plugin %s", o.plugin);
		const char *pb = strrchr(o.plugin, '/') ? strrchr(o.plugin, '/') + 1 : o.plugin;
		if (o.n_plugin_args && strcmp(pb, "deepprof.so"))
			die("%s: plugin arguments reach the plugin only when it is named deepprof.so",
			    o.plugin);
		if (*DP_GCC_VERSION && !getenv("DEEPPROF_NO_VERSION_CHECK")) {
			char *v = compiler_version(o.cc);
			if (!v)
				die("cannot run %s -dumpfullversion", o.cc);
			if (strcmp(v, DP_GCC_VERSION))
				die("%s is GCC %s but the deepprof plugin was built for GCC %s: "
				    "rebuild deepprof with this compiler, or use --deepprof-mode=cyg",
				    o.cc, v, DP_GCC_VERSION);
		}
		char *p = malloc(strlen(o.plugin) + 16);
		if (!p)
			die("out of memory");
		sprintf(p, "-fplugin=%s", o.plugin);
		args[n++] = owned[n_owned++] = p;
		/* an executable's code reaches dp_cur by local-exec, which only
		 * a runtime linked into it (libprof.a) can satisfy: a shared one
		 * is reached through the GOT (the user's tls= comes after) */
		if (shared_object(o.runtime))
			args[n++] = "-fplugin-arg-deepprof-tls=initial-exec";
		for (int i = 0; i < o.n_plugin_args; i++) {
			char *q = malloc(strlen(o.plugin_args[i]) + 32);
			if (!q)
				die("out of memory");
			sprintf(q, "-fplugin-arg-deepprof-%s", o.plugin_args[i]);
			args[n++] = owned[n_owned++] = q;
		}
		if (check)
			args[n++] = owned[n_owned++] = feedback_arg("check", o.check);
		if (use) {
			args[n++] = owned[n_owned++] = feedback_arg("use", o.use);
			if (!instrument)
				args[n++] = "-fplugin-arg-deepprof-instrument=0";
			if (o.remarks)
				args[n++] = "-fplugin-arg-deepprof-remarks=1";
			if (o.parallelize) {
				char *r = malloc(strlen(o.parallelize) + 40);
				if (!r)
					die("out of memory");
				sprintf(r, "-fplugin-arg-deepprof-parallelize=%s", o.parallelize);
				args[n++] = owned[n_owned++] = r;
			}
		}
	} else if (instrument && o.mode == MODE_CYG) {
		args[n++] = "-finstrument-functions";
	} else if (o.n_plugin_args && o.mode != MODE_PLUGIN) {
		die("--deepprof-arg needs --deepprof-mode=plugin");
	}

	for (int i = 1; i < argc; i++)
		if (!starts(argv[i], "--deepprof-"))
			args[n++] = argv[i];

	/* <deepprof.h> (dp_write) from the build or install tree, searched
	 * after every directory the user or the system names */
	const char *hdr = instrument ? find("include/deepprof.h", "include/deepprof.h") : NULL;
	if (hdr) {
		char *d = malloc(strlen(hdr) + 16);
		if (!d)
			die("out of memory");
		sprintf(d, "-idirafter%s", hdr);
		*strrchr(d, '/') = 0;
		args[n++] = owned[n_owned++] = d;
	}

	if (instrument && o.link && !o.shared) {
		/* libprof takes over malloc, as ASan's runtime does: such a
		 * program aborted before main in ASan's own checks */
		if (o.asan)
			die("-fsanitize=address: a program linked with libprof cannot run under "
			    "AddressSanitizer (both take over malloc); profile it without (-fsanitize=undefined works)");
		const char *rt = o.runtime && *o.runtime ? o.runtime : NULL;
		const char *libs = o.libs;
		if (!rt) {
			rt = find("lib/libprof.a", "lib/libprof.a");
			if (!rt)
				die("cannot find the runtime libprof.a (in this program's ../lib or "
				    DP_PREFIX "/lib); set DEEPPROF_RUNTIME");
			if (!libs)
				libs = DP_DEFAULT_LIBS;
		} else if (!file_exists(rt)) {
			die("cannot read the runtime %s", rt);
		}
		args[n++] = rt;
		args[n++] = "-Wl,--export-dynamic-symbol=dp_*,--export-dynamic-symbol=__cyg_profile_func_*";
		/* the program's sigaction and signal pass through libprof's
		 * (libprof/sigwrap.c): taking SIGPROF stops the clock first,
		 * or the runtime's next tick would end a program that resets
		 * it to SIG_DFL; and its dlclose (dlwrap.c): the library's
		 * module is listed before it goes */
		if (!o.runtime || !*o.runtime)
			args[n++] = "-Wl,--wrap=sigaction,--wrap=signal,--wrap=dlclose";
		/* -finstrument-functions hooks see no call into libc: _exit and
		 * the exec functions pass through libprof's (procwrap.c), which
		 * write the profile first (a plugin build's code does it itself) */
		if ((!o.runtime || !*o.runtime) && o.mode == MODE_CYG)
			args[n++] = "-Wl,--wrap=_exit,--wrap=_Exit,--wrap=execve,--wrap=execv,--wrap=execvp,"
				    "--wrap=execvpe,--wrap=execl,--wrap=execlp,--wrap=execle,--wrap=fexecve";
		if (o.openmp) {
			/* libprof's wrappers of GOMP_parallel & co (libprof/omp.c)
			 * call libgomp's own: keep it linked even when they were
			 * all the program called (--as-needed would drop it), and
			 * let shared libraries' OpenMP code find the wrappers */
			args = realloc(args, (n + 8) * sizeof *args);
			if (!args)
				die("out of memory");
			args[n++] = "-Wl,--export-dynamic-symbol=GOMP_*";
			args[n++] = "-Wl,--push-state,--no-as-needed";
			args[n++] = "-lgomp";
			args[n++] = "-Wl,--pop-state";
		}
		/* the libraries, split at spaces */
		if (libs && *libs) {
			char *copy = strdup(libs);
			if (!copy)
				die("out of memory");
			args = realloc(args, (n + strlen(libs) + 2) * sizeof *args);
			if (!args)
				die("out of memory");
			for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t"))
				args[n++] = t;
		}
	}
	args[n] = NULL;

	if (o.verbose) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", args[i]);
		fputc('\n', stderr);
	}
	execvp(o.cc, (char *const *)args);
	die("cannot run %s: %s", o.cc, strerror(errno));
	return 2;
}
