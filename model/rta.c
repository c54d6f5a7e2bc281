/*
 * rta.c - response-time analysis with the bandwidth lock as a critical
 * section under the priority ceiling protocol (BWLOCK++ Eq. 4), and the
 * taskset parser.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rta.h"
#include "sat.h"
#include "tok.h"

/* ceil(a/b) without the overflow of (a + b - 1)/b */
static uint64_t
rta_ceildiv(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

uint64_t
rta_demand(const struct rta_task *t)
{
	return sat_add(sat_add(t->cpu, t->gpu_mem), t->gpu_exec);
}

int
rta_task(const struct rta_taskset *ts, unsigned int i, struct rta_result *res)
{
	const struct rta_task	*t = &ts->task[i];
	uint64_t		 base, r, next;
	unsigned int		 j;

	res->blocking = 0;
	for (j = i + 1; j < ts->ntasks; j++)
		if (ts->task[j].segment > res->blocking)
			res->blocking = ts->task[j].segment;
	base = sat_add(rta_demand(t), res->blocking);
	r = base;
	/*
	 * R only grows (the sum is nondecreasing in R), and every step
	 * adds at least one ns until the fixpoint, so stopping once R
	 * passes the deadline bounds the loop.
	 */
	while (r <= t->deadline) {
		next = base;
		for (j = 0; j < i; j++)
			next = sat_add(next, sat_mul(rta_ceildiv(r,
			    ts->task[j].period), rta_demand(&ts->task[j])));
		if (next == r)
			break;
		r = next;
	}
	res->response = r;
	res->schedulable = r <= t->deadline;
	return res->schedulable;
}

int
rta_all(const struct rta_taskset *ts, struct rta_result *res)
{
	unsigned int	i;
	int		ok = 1;

	for (i = 0; i < ts->ntasks; i++)
		if (!rta_task(ts, i, &res[i]))
			ok = 0;
	return ok;
}

/* Parser. */

static int rta_error(char *, size_t, unsigned int, const char *, ...)
    __attribute__((format(printf, 4, 5)));

static int
rta_error(char *err, size_t errlen, unsigned int line, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (errlen == 0)
		return -EINVAL;
	n = snprintf(err, errlen, "line %u: ", line);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The keys of a task line, indices into vals[] and have[]. */
enum rta_key {
	RTA_PERIOD,
	RTA_DEADLINE,
	RTA_CPU,
	RTA_GPU_MEM,
	RTA_GPU_EXEC,
	RTA_SEGMENT,
	RTA_NKEYS
};

static const char *const rta_keys[RTA_NKEYS] = {
	[RTA_PERIOD] = "period", [RTA_DEADLINE] = "deadline",
	[RTA_CPU] = "cpu", [RTA_GPU_MEM] = "gpu_mem",
	[RTA_GPU_EXEC] = "gpu_exec", [RTA_SEGMENT] = "segment"
};

/* One "key=value" field of a task line into vals[]/have[]. */
static int
rta_field(const char *s, size_t len, uint64_t *vals, int *have, char *err,
    size_t errlen, unsigned int line)
{
	const char	*eq = memchr(s, '=', len);
	size_t		 k, kl;

	if (eq == NULL)
		return rta_error(err, errlen, line, "expected KEY=NS, got "
		    "'%.*s'", (int)(len > 32 ? 32 : len), s);
	kl = (size_t)(eq - s);
	for (k = 0; k < RTA_NKEYS; k++)
		if (strlen(rta_keys[k]) == kl &&
		    memcmp(rta_keys[k], s, kl) == 0)
			break;
	if (k == RTA_NKEYS)
		return rta_error(err, errlen, line, "unknown key '%.*s'",
		    (int)(kl > 32 ? 32 : kl), s);
	if (have[k])
		return rta_error(err, errlen, line, "duplicate '%s'",
		    rta_keys[k]);
	if (tok_u64(eq + 1, len - kl - 1, UINT64_MAX, &vals[k]) != 0)
		return rta_error(err, errlen, line, "bad number for '%s'",
		    rta_keys[k]);
	have[k] = 1;
	return 0;
}

static int
rta_line(const char *s, size_t len, struct rta_taskset *ts, char *err,
    size_t errlen, unsigned int line)
{
	struct rta_task	*t;
	struct tok	 w;
	uint64_t	 vals[RTA_NKEYS] = { 0 };
	int		 have[RTA_NKEYS] = { 0 }, rc, ntok = 0;
	size_t		 pos = 0;

	while (tok_next(s, len, &pos, &w)) {
		if (ntok == 0 && !tok_is(&w, "task"))
			return rta_error(err, errlen, line,
			    "unknown directive '%.*s'",
			    (int)(w.len > 32 ? 32 : w.len), w.s);
		if (ntok == 1) {
			if (ts->ntasks == RTA_MAX_TASKS)
				return rta_error(err, errlen, line,
				    "more than %u tasks", RTA_MAX_TASKS);
			if (w.len > RTA_MAX_NAME)
				return rta_error(err, errlen, line,
				    "task name longer than %u", RTA_MAX_NAME);
			t = &ts->task[ts->ntasks];
			memcpy(t->name, w.s, w.len);
			t->name[w.len] = '\0';
		}
		if (ntok >= 2 && (rc = rta_field(w.s, w.len, vals, have,
		    err, errlen, line)) != 0)
			return rc;
		ntok++;
	}
	if (ntok == 0)
		return 0;
	if (ntok == 1)
		return rta_error(err, errlen, line, "task without a name");
	t = &ts->task[ts->ntasks];
	if (!have[RTA_PERIOD] || vals[RTA_PERIOD] == 0)
		return rta_error(err, errlen, line, "missing period=NS (> 0)");
	if (!have[RTA_CPU] && !have[RTA_GPU_MEM] && !have[RTA_GPU_EXEC])
		return rta_error(err, errlen, line,
		    "no cpu=, gpu_mem= or gpu_exec= time");
	t->period = vals[RTA_PERIOD];
	t->deadline = have[RTA_DEADLINE] ? vals[RTA_DEADLINE] :
	    vals[RTA_PERIOD];
	t->cpu = vals[RTA_CPU];
	t->gpu_mem = vals[RTA_GPU_MEM];
	t->gpu_exec = vals[RTA_GPU_EXEC];
	t->segment = have[RTA_SEGMENT] ? vals[RTA_SEGMENT] :
	    sat_add(vals[RTA_GPU_MEM], vals[RTA_GPU_EXEC]);
	if (t->deadline == 0 || t->deadline > t->period)
		return rta_error(err, errlen, line,
		    "deadline must be in 1..period");
	if (t->segment > sat_add(vals[RTA_GPU_MEM], vals[RTA_GPU_EXEC]))
		return rta_error(err, errlen, line,
		    "segment longer than gpu_mem + gpu_exec");
	ts->ntasks++;
	return 0;
}

int
rta_parse(const char *buf, size_t len, struct rta_taskset *ts, char *err,
    size_t errlen)
{
	size_t		pos = 0, eol, i;
	unsigned int	line = 0;
	int		rc;

	memset(ts, 0, sizeof(*ts));
	if (errlen)
		err[0] = '\0';
	while (pos < len) {
		line++;
		for (eol = pos; eol < len && buf[eol] != '\n'; eol++)
			;
		for (i = pos; i < eol; i++)
			if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t' &&
			    buf[i] != '\r')
				return rta_error(err, errlen, line,
				    "control character in the text");
		if ((rc = rta_line(buf + pos, eol - pos, ts, err, errlen,
		    line)) != 0)
			return rc;
		pos = eol + 1;
	}
	if (ts->ntasks == 0)
		return rta_error(err, errlen, line ? line : 1, "no task");
	return 0;
}
