/*
 * errors.h — how the libraries report a failure a user can cause: one line,
 * naming the file, in a struct dpa_error. Apart from profile.h so that a
 * header that only needs the error type (the feedback library's public
 * headers, which C++ includes too) need not take the whole profile.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_ERRORS_H
#define DPA_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

struct dpa_profile;

/*
 * Errors: every function of the analyses and feedback libraries that can
 * fail returns 0 on success and -1 on failure, after writing one line (no
 * trailing newline) into *err that names the file and says what is wrong.
 * The libraries never print and never exit.
 */
struct dpa_error {
	char msg[512];
};

/* Write "<p's path>: <message>" into *err (if err is not NULL) and return -1,
 * for `return dpa_fail(err, p, "...", ...)`. */
__attribute__((format(printf, 3, 4)))
int dpa_fail(struct dpa_error *err, const struct dpa_profile *p, const char *fmt, ...);
/* The same for a file that is not a profile: "<path>: <message>". */
__attribute__((format(printf, 3, 4)))
int dpa_fail_at(struct dpa_error *err, const char *path, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
