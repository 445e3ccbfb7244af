/*
 * cmd_record.c — `deepprof record [-F HZ] [-o FILE] [--follow-exec] [--]
 * PROG ARGS...`: run an unmodified, dynamically linked program with
 * libprof-record.so preloaded (libprof in sampling mode, libprof/record.c),
 * wait for it and exit with its status. Part of deepprof's command line. MIT licence.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli.h"

int cmd_record(int argc, char **argv);

static const char record_usage[] =
	"usage: deepprof record [-F HZ] [-o FILE] [--follow-exec] [--] PROG [ARGS...]\n"
	"\n"
	"Run PROG, an unmodified dynamically linked program, with libprof\n"
	"preloaded in sampling mode: every thread's CPU-time timer ticks about\n"
	"HZ times a second of its CPU time (the kernel may deliver fewer: the\n"
	"profile has the measured rate), and each tick unwinds the thread's\n"
	"stack (libunwind) and counts one sample in that calling context, in\n"
	"the deep call graph instrumented builds write (recursion folded). The\n"
	"profile is a Deep.data file whose clock is \"samples\": it has times,\n"
	"no call counts; names and lines come from PROG's debug information.\n"
	"\n"
	"  -F, --freq=HZ    ticks per CPU second asked for (1..1000000, default 1000)\n"
	"  -o, --output=FILE  the profile (default Deep.data); %p is the pid.\n"
	"                   A forked child writes FILE.PID unless FILE has %p\n"
	"  --follow-exec    also sample the programs PROG executes (each image\n"
	"                   writes its own profile, FILE.execN after the Nth exec)\n"
	"  -h, --help       show this help\n"
	"\n"
	"An instrumented PROG (-finstrument-functions or deepprof-cc) runs with its\n"
	"own runtime instead, with DEEPPROF_UNWIND=1: exact calls, and its ticks\n"
	"in uninstrumented code (libc) charged to those frames.\n"
	"\n"
	"Threads and forked children are sampled; SIGINT and SIGTERM still write\n"
	"the profile. A program that installs its own SIGPROF handler or starts\n"
	"ITIMER_PROF gets a warning and a mark in its profile; one that blocks\n"
	"SIGPROF has it kept unblocked, so that every thread is sampled.\n"
	"\n"
	"Exit status: PROG's own (128+N if signal N ended it); 2 bad usage, a\n"
	"static or 32-bit PROG, or an output directory that cannot be written;\n"
	"126 PROG cannot be executed; 127 PROG not found; 1 the sampler is missing.\n";

static pid_t child;

/* SIGTERM and SIGHUP to deepprof go on to the program, which writes its
 * profile and dies of them; SIGINT and SIGQUIT reach it from the terminal. */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* PROG's path: as given when it has a '/', else the first executable file
 * of that name on $PATH. NULL (errno set) when there is none. */
static char *find_prog(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, F_OK) == 0 ? strdup(prog) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = ENOENT;
	for (const char *p = path;; ) {
		size_t n = strcspn(p, ":");
		char *cand = malloc(n + strlen(prog) + 3);
		if (!cand)
			die_status(DP_EXIT_FAIL, "record: out of memory");
		sprintf(cand, "%.*s/%s", (int)n, n ? p : ".", prog);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0)
				return cand;
			err = EACCES;
		}
		free(cand);
		if (!p[n])
			break;
		p += n + 1;
	}
	errno = err;
	return NULL;
}

/* Whether symbol table sh of the ELF file fd names libprof's entry points
 * (-finstrument-functions' or the plugin's): such a program has a runtime
 * of its own, and a second one preloaded would take its hooks over. */
static bool uses_libprof(int fd, const Elf64_Ehdr *eh, const Elf64_Shdr *sh)
{
	static const char *const names[] = { "__cyg_profile_func_enter", "dp_register_tu" };
	Elf64_Shdr strs;
	bool found = false;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= eh->e_shnum ||
	    sh->sh_size > (64u << 20) ||
	    pread(fd, &strs, sizeof strs, (off_t)(eh->e_shoff + (uint64_t)sh->sh_link * eh->e_shentsize))
	    != (ssize_t)sizeof strs || strs.sh_size > (64u << 20))
		return false;
	Elf64_Sym *syms = malloc(sh->sh_size + 1);
	char *str = malloc(strs.sh_size + 1);
	if (syms && str && pread(fd, syms, sh->sh_size, (off_t)sh->sh_offset) == (ssize_t)sh->sh_size &&
	    pread(fd, str, strs.sh_size, (off_t)strs.sh_offset) == (ssize_t)strs.sh_size) {
		str[strs.sh_size] = 0;
		for (size_t i = 0; i < sh->sh_size / sizeof *syms && !found; i++)
			for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
				if (syms[i].st_name < strs.sh_size && !strcmp(str + syms[i].st_name, names[k]))
					found = true;
	}
	free(syms);
	free(str);
	return found;
}

/*
 * Refuse what LD_PRELOAD cannot sample (a static or 32-bit ELF program),
 * and warn when PROG has no symbol table. Anything else that is not ELF
 * (a script) runs: its interpreter is sampled. True: PROG is an
 * instrumented build, with a runtime of its own (which a second one,
 * preloaded, would fight): it runs with that runtime and DEEPPROF_UNWIND.
 */
static bool check_elf(const char *prog, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;   /* execve will say */
	Elf64_Ehdr eh;
	bool elf = read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG);
	if (!elf) {
		close(fd);
		return false;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		close(fd);
		die("record: %s is not an x86-64 program: the sampler cannot be preloaded into it", prog);
	}
	bool interp = false, symtab = false, instrumented = false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_INTERP)
			interp = true;
	}
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * eh.e_shentsize)) != (ssize_t)sizeof sh)
			break;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = true;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && !instrumented)
			instrumented = uses_libprof(fd, &eh, &sh);
	}
	close(fd);
	if (instrumented) {
		fprintf(stderr, "%s: record: %s is an instrumented build: it runs with its own "
			"runtime (exact calls; ticks in uninstrumented code go to their frames)\n",
			dp_progname, prog);
		return true;
	}
	if (!interp)
		die("record: %s is statically linked: the sampler cannot be preloaded into it "
		    "(link it dynamically, or build it with deepprof-cc)", prog);
	if (!symtab)
		fprintf(stderr, "%s: record: warning: %s has no symbol table (stripped): its own "
			"functions will show as addresses\n", dp_progname, prog);
	return false;
}

/* The directory the profile goes to must take a new file: the program
 * would run for nothing otherwise. */
static void check_output(const char *out)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(out, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == out)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
	char probe[PATH_MAX + 32];
	snprintf(probe, sizeof probe, "%s/.deepprof-record.XXXXXX", dir);
	int fd = mkstemp(probe);
	if (fd < 0)
		die("record: cannot write the profile %s: %s: %s", out, dir, strerror(errno));
	close(fd);
	unlink(probe);
}

/* libprof-record.so: $DEEPPROF_RECORD_LIB, else ../lib/ from this program
 * (the build tree and an installed PREFIX alike). */
static char *sampler_path(void)
{
	const char *env = getenv("DEEPPROF_RECORD_LIB");
	char *lib;
	if (env && *env) {
		lib = strdup(env);
	} else {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			die_status(DP_EXIT_FAIL, "record: cannot find this program's path: %s", strerror(errno));
		self[n] = 0;
		char *s = strrchr(self, '/');
		*s = 0;
		s = strrchr(self, '/');
		if (s)
			*s = 0;
		lib = malloc(strlen(self) + 32);
		if (lib)
			sprintf(lib, "%s/lib/libprof-record.so", self);
	}
	if (!lib)
		die_status(DP_EXIT_FAIL, "record: out of memory");
	if (access(lib, R_OK) != 0)
		die_status(DP_EXIT_FAIL, "record: the sampler %s is missing: %s", lib, strerror(errno));
	return lib;
}

/* The profile's name as the program will resolve it (%p: its pid). */
static void profile_name(char *dst, size_t size, const char *out, pid_t pid)
{
	size_t n = 0;
	for (const char *s = out; *s && n + 24 < size; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(dst + n, size - n, "%ld", (long)pid);
			s++;
		} else {
			dst[n++] = *s;
		}
	}
	dst[n] = 0;
}

int cmd_record(int argc, char **argv)
{
	const char *out = "Deep.data", *v;
	unsigned long hz = 1000;
	bool follow = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(record_usage, stdout);
			return DP_EXIT_OK;
		}
		if (!strcmp(a, "--follow-exec")) {
			follow = true;
		} else if ((v = dp_opt_value("record", argc, argv, &i, "-F", "--freq"))) {
			char *end;
			errno = 0;
			hz = strtoul(v, &end, 10);
			if (!*v || *end || errno || hz < 1 || hz > 1000000 || v[0] == '-')
				usage_error("record", "-F: '%s' is not a rate from 1 to 1000000 Hz", v);
		} else if ((v = dp_opt_value("record", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("record", "-o: an empty file name");
			out = v;
		} else {
			usage_error("record", "unknown option '%s'", a);
		}
	}
	if (i >= argc)
		usage_error("record", "no program given");
	const char *prog = argv[i];
	char *path = find_prog(prog);
	if (!path) {
		int e = errno;
		fprintf(stderr, "%s: record: %s: %s\n", dp_progname, prog,
			e == ENOENT ? "program not found" : strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (access(path, X_OK) != 0) {
		fprintf(stderr, "%s: record: %s: %s\n", dp_progname, prog, strerror(errno));
		free(path);
		return 126;
	}
	bool instrumented = check_elf(prog, path);
	check_output(out);
	char *lib = instrumented ? NULL : sampler_path();

	struct sigaction sa, ign, old_int, old_quit;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	fflush(NULL);
	child = fork();
	if (child < 0)
		die_status(DP_EXIT_FAIL, "record: cannot fork: %s", strerror(errno));
	if (child == 0) {
		char num[32];
		snprintf(num, sizeof num, "%lu", hz);
		setenv("DEEPPROF_HZ", num, 1);
		snprintf(num, sizeof num, "%ld", (long)getpid());
		setenv("DEEPPROF_RECORD_ROOT", num, 1);
		setenv("DEEPPROF_FILE", out, 1);
		if (instrumented) {
			setenv("DEEPPROF_UNWIND", "1", 1);
			execv(path, argv + i);
			int e = errno;
			fprintf(stderr, "%s: record: %s: %s\n", dp_progname, prog, strerror(e));
			_exit(e == ENOENT ? 127 : 126);
		}
		setenv("DEEPPROF_RECORD", "1", 1);
		unsetenv("DEEPPROF_RECORD_GEN");
		if (follow)
			setenv("DEEPPROF_RECORD_EXEC", "1", 1);
		else
			unsetenv("DEEPPROF_RECORD_EXEC");
		const char *pre = getenv("LD_PRELOAD");
		char *val = malloc(strlen(lib) + (pre ? strlen(pre) : 0) + 2);
		if (!val)
			_exit(126);
		sprintf(val, "%s%s%s", lib, pre && *pre ? ":" : "", pre && *pre ? pre : "");
		setenv("LD_PRELOAD", val, 1);
		execv(path, argv + i);
		int e = errno;
		fprintf(stderr, "%s: record: %s: %s\n", dp_progname, prog, strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	int status;
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die_status(DP_EXIT_FAIL, "record: waiting for %s: %s", prog, strerror(errno));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	char file[PATH_MAX];
	profile_name(file, sizeof file, out, child);
	int rc;
	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
		if ((rc == 126 || rc == 127) && access(file, F_OK) != 0) {
			free(path);
			free(lib);
			return rc;      /* the exec failed: the child said why */
		}
	} else {
		rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : DP_EXIT_FAIL;
	}
	if (access(file, F_OK) != 0)
		fprintf(stderr, "%s: record: %s ended (%s %d) without writing its profile %s\n",
			dp_progname, prog, WIFSIGNALED(status) ? "signal" : "status",
			WIFSIGNALED(status) ? WTERMSIG(status) : rc, file);
	free(path);
	free(lib);
	return rc;
}
