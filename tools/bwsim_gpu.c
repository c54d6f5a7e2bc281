/*
 * bwsim_gpu.c - bwsim sm and bwsim warps: the SM model of gpu/sm.h on a
 * PTX kernel (doc/gpu-model.md).  sm runs one kernel many times with
 * random warp start skew, conflict delays and runtime warp ids, for the
 * spread of the cycles and the L1 miss rate; warps runs the example of
 * [PredGPU] Fig. 4.1, or two instances of a kernel (K1 launched first,
 * K2 with the higher priority) under LRR, GTO and RT-PAWS ([PredGPU]
 * section 4.5).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwsim.h"
#include "fig41.h"
#include "gpu_cli.h"
#include "jsonw.h"
#include "sm.h"
#include "wsched.h"

#define WARPS_MAX_P	8

static int
bwsim_gpu_policy(const char *prog, const char *s, int *pol)
{
	int	i;

	for (i = 0; s != NULL && i < GPU_NPOLICIES; i++)
		if (strcmp(s, gpu_policy_names[i]) == 0) {
			*pol = i;
			return 0;
		}
	fprintf(stderr, "%s: --policy lrr, gto or rtpaws\n", prog);
	return -1;
}

/* ---- bwsim sm ---- */

struct sm_stats {
	uint64_t	min, max;
	double		sum, mr_sum, mr_min, mr_max;
	unsigned int	runs;
};

static int
bwsim_sm_runs(struct gpu_cli *c, const struct gpu_trace *t, int policy,
    int reorder, uint32_t runs, uint64_t seed, struct sm_stats *st)
{
	struct sm_kernel	k;
	struct sm_opts		o;
	struct sm_result	r;
	char			err[256];
	double			mr;
	uint32_t		i;

	memset(st, 0, sizeof(*st));
	st->min = UINT64_MAX;
	st->mr_min = 1;
	memset(&k, 0, sizeof(k));
	k.t = t;
	k.prio = 1;
	k.warp_cap = c->cfg.max_warps;
	for (i = 0; i < runs; i++) {
		memset(&o, 0, sizeof(o));
		o.policy = policy;
		o.reorder = reorder;
		o.seed = seed + i;
		o.shuffle = 1;
		if (sm_run(&c->cfg, &k, 1, &o, &r, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", c->prog, err);
			return -1;
		}
		mr = r.accesses ? (double)r.misses / r.accesses : 0;
		st->min = r.cycles < st->min ? r.cycles : st->min;
		st->max = r.cycles > st->max ? r.cycles : st->max;
		st->sum += (double)r.cycles;
		st->mr_sum += mr;
		st->mr_min = mr < st->mr_min ? mr : st->mr_min;
		st->mr_max = mr > st->mr_max ? mr : st->mr_max;
		st->runs++;
	}
	return 0;
}

static void
bwsim_sm_print(const struct gpu_cli *c, int policy, int reorder,
    uint64_t seed, const struct sm_stats *st)
{
	struct jsonw	j;

	if (!c->json) {
		printf("kernel %s, %s%s, %u runs (seed %llu): cycles min %llu "
		    "mean %.1f max %llu; L1 miss rate %.4f (%.4f..%.4f)\n",
		    c->k->name, gpu_policy_names[policy], reorder ?
		    " with the reordering unit" : "", st->runs,
		    (unsigned long long)seed, (unsigned long long)st->min,
		    st->sum / st->runs, (unsigned long long)st->max,
		    st->mr_sum / st->runs, st->mr_min, st->mr_max);
		if (policy == GPU_RTPAWS)
			printf("(one kernel: RT-PAWS has one group and "
			    "schedules as GTO, Algorithm 5 line 8)\n");
		return;
	}
	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "kernel");
	jsonw_str(&j, c->k->name);
	jsonw_key(&j, "policy");
	jsonw_str(&j, gpu_policy_names[policy]);
	jsonw_key(&j, "reorder");
	jsonw_bool(&j, reorder);
	jsonw_key(&j, "runs");
	jsonw_uint(&j, st->runs);
	jsonw_key(&j, "seed");
	jsonw_uint(&j, seed);
	jsonw_key(&j, "cycles_min");
	jsonw_uint(&j, st->min);
	jsonw_key(&j, "cycles_mean");
	jsonw_double(&j, st->sum / st->runs);
	jsonw_key(&j, "cycles_max");
	jsonw_uint(&j, st->max);
	jsonw_key(&j, "miss_rate");
	jsonw_double(&j, st->mr_sum / st->runs);
	jsonw_key(&j, "miss_rate_min");
	jsonw_double(&j, st->mr_min);
	jsonw_key(&j, "miss_rate_max");
	jsonw_double(&j, st->mr_max);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

static int
bwsim_seed(const char *prog, const char *s, uint64_t *v)
{
	char	*end;

	if (s == NULL || s[0] == '-' || (*v = strtoull(s, &end, 10),
	    end == s || *end != '\0')) {
		fprintf(stderr, "%s: --seed needs a number\n", prog);
		return -1;
	}
	return 0;
}

int
bwsim_sm_main(int argc, char **argv)
{
	struct gpu_cli		c;
	struct gpu_trace	t;
	struct sm_stats		st;
	uint64_t		seed = 1;
	uint32_t		runs = 100;
	int			i, rc, policy = GPU_LRR, reorder = 0;

	gpu_cli_init(&c, "bwsim sm");
	for (i = 1; i < argc; i++) {
		if ((rc = gpu_cli_opt(&c, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--policy") == 0) {
			if (bwsim_gpu_policy(c.prog, argv[++i], &policy))
				return 2;
		} else if (strcmp(argv[i], "--reorder") == 0) {
			reorder = 1;
		} else if (strcmp(argv[i], "--runs") == 0) {
			if (gpu_cli_u32(c.prog, "--runs", argv[++i], 1,
			    1000000, &runs))
				return 2;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_seed(c.prog, argv[++i], &seed))
				return 2;
		} else {
			fprintf(stderr, "bwsim sm: unknown argument '%s' (see "
			    "bwsim(1))\n", argv[i]);
			return 2;
		}
	}
	if (gpu_cli_load(&c) != 0 || gpu_cli_trace(&c, NULL, &t) != 0) {
		gpu_cli_free(&c);
		return 2;
	}
	rc = bwsim_sm_runs(&c, &t, policy, reorder, runs, seed, &st);
	if (rc == 0)
		bwsim_sm_print(&c, policy, reorder, seed, &st);
	gpu_trace_free(&t);
	gpu_cli_free(&c);
	return rc != 0 ? 1 : 0;
}

/* ---- bwsim warps --example fig4.1 ---- */

static void
bwsim_fig41_out(struct jsonw *j, const char *name, const struct fig41_out *o)
{
	jsonw_key(j, name);
	jsonw_obj_begin(j);
	jsonw_key(j, "k1_finish");
	jsonw_uint(j, o->k1_finish);
	jsonw_key(j, "k2_finish");
	jsonw_uint(j, o->k2_finish);
	jsonw_key(j, "k1_time");
	jsonw_double(j, o->k1_time);
	jsonw_key(j, "k2_time");
	jsonw_double(j, o->k2_time);
	jsonw_key(j, "average");
	jsonw_double(j, o->average);
	jsonw_obj_end(j);
}

static void
bwsim_fig41_params(struct jsonw *j, const char *name,
    const struct fig41_params *p)
{
	jsonw_key(j, name);
	jsonw_obj_begin(j);
	jsonw_key(j, "long_instruction");
	jsonw_uint(j, p->long_pos + 1);
	jsonw_key(j, "long_latency");
	jsonw_uint(j, p->long_lat);
	jsonw_key(j, "short_latency");
	jsonw_uint(j, p->short_lat);
	jsonw_key(j, "chain");
	jsonw_bool(j, p->chain);
	jsonw_key(j, "k2_priority");
	jsonw_uint(j, p->p);
	jsonw_key(j, "from_launch");
	jsonw_bool(j, p->from_launch);
	jsonw_key(j, "finish");
	jsonw_str(j, p->finish_issue ? "last_issue" : "last_completion");
	jsonw_key(j, "sticky_greedy");
	jsonw_bool(j, p->sticky);
	jsonw_obj_end(j);
}

static void
bwsim_fig41_checks(struct jsonw *j, const struct fig41_check *k)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} f[] = {
		{ "lrr_highest_average", offsetof(struct fig41_check,
		    lrr_highest) },
		{ "rtpaws_one_above_gto", offsetof(struct fig41_check,
		    rt_one_above_gto) },
		{ "gto_k2_last", offsetof(struct fig41_check, gto_k2_last) },
		{ "rtpaws_k2_first", offsetof(struct fig41_check,
		    rt_k2_first) },
		{ "rtpaws_max_least", offsetof(struct fig41_check,
		    rt_max_least) },
		{ "rtpaws_k2_after_gto_k1", offsetof(struct fig41_check,
		    rt_k2_after_gto_k1) },
		{ "rtpaws_warp0_greedy", offsetof(struct fig41_check,
		    rt_w0_greedy) },
		{ "lrr_long_together", offsetof(struct fig41_check,
		    lrr_long_together) },
		{ "exact_averages", offsetof(struct fig41_check, exact) },
	};
	size_t	i;

	jsonw_key(j, "checks");
	jsonw_obj_begin(j);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		jsonw_key(j, f[i].key);
		jsonw_bool(j, *(const int *)(const void *)((const char *)k +
		    f[i].off));
	}
	jsonw_obj_end(j);
}

static void
bwsim_fig41_timeline(const struct fig41_out *o, const char *name)
{
	uint64_t	end = 0, t;
	int		k, w, i, c;

	for (k = 0; k < 2; k++)
		for (w = 0; w < 2; w++)
			for (i = 0; i < FIG41_NINSNS; i++)
				if (o->issue[k][w][i] + 1 > end)
					end = o->issue[k][w][i] + 1;
	printf("%s: K1 finishes %llu, K2 %llu, average execution time %.1f\n",
	    name, (unsigned long long)o->k1_finish,
	    (unsigned long long)o->k2_finish, o->average);
	for (k = 0; k < 2; k++)
		for (w = 0; w < 2; w++) {
			printf("  warp %d (K%d) ", 2 * k + w, k + 1);
			for (t = 0; t < end; t++) {
				c = '.';
				for (i = 0; i < FIG41_NINSNS; i++)
					if (o->issue[k][w][i] == t)
						c = '1' + i;
				putchar(c);
			}
			putchar('\n');
		}
}

static void
bwsim_fig41_search_print(struct jsonw *j, int json,
    const struct fig41_search *s)
{
	if (!json) {
		printf("search: %llu assignments tried, %llu give every stated "
		    "outcome (%llu of them also the two extras), %llu the "
		    "averages 25 / 21.5 / 22.5 exactly (%llu with every "
		    "outcome)\n", (unsigned long long)s->tried,
		    (unsigned long long)s->qualitative,
		    (unsigned long long)s->with_extras,
		    (unsigned long long)s->exact_numbers,
		    (unsigned long long)s->exact);
		printf("closest: long instruction %u, latency %u, others %u, "
		    "%s, K2 priority %u: averages %.1f / %.1f / %.1f\n",
		    s->best.long_pos + 1, s->best.long_lat, s->best.short_lat,
		    s->best.chain ? "a dependency chain" : "independent",
		    s->best.p, s->best_out[GPU_LRR].average,
		    s->best_out[GPU_GTO].average,
		    s->best_out[GPU_RTPAWS].average);
		return;
	}
	jsonw_key(j, "search");
	jsonw_obj_begin(j);
	jsonw_key(j, "tried");
	jsonw_uint(j, s->tried);
	jsonw_key(j, "qualitative");
	jsonw_uint(j, s->qualitative);
	jsonw_key(j, "qualitative_with_extras");
	jsonw_uint(j, s->with_extras);
	jsonw_key(j, "exact_averages");
	jsonw_uint(j, s->exact_numbers);
	jsonw_key(j, "exact_and_qualitative");
	jsonw_uint(j, s->exact);
	bwsim_fig41_params(j, "closest", &s->best);
	jsonw_key(j, "closest_averages");
	jsonw_arr_begin(j);
	jsonw_double(j, s->best_out[GPU_LRR].average);
	jsonw_double(j, s->best_out[GPU_GTO].average);
	jsonw_double(j, s->best_out[GPU_RTPAWS].average);
	jsonw_arr_end(j);
	jsonw_obj_end(j);
}

/* Options of the example's assignment; 1 taken, 0 not, -1 bad. */
static int
bwsim_fig41_opt(struct fig41_params *p, int argc, char **argv, int *i)
{
	const char	*a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	uint32_t	 x;
	int		 rc = 0;

	if (strcmp(a, "--long-instruction") == 0) {
		if ((rc = gpu_cli_u32("bwsim warps", a, v, 1, FIG41_NINSNS,
		    &x)) == 0)
			p->long_pos = x - 1;
	} else if (strcmp(a, "--long-latency") == 0)
		rc = gpu_cli_u32("bwsim warps", a, v, 1, 100000, &p->long_lat);
	else if (strcmp(a, "--short-latency") == 0)
		rc = gpu_cli_u32("bwsim warps", a, v, 1, 100000,
		    &p->short_lat);
	else if (strcmp(a, "--k2-priority") == 0)
		rc = gpu_cli_u32("bwsim warps", a, v, 0, 1000, &p->p);
	else if (strcmp(a, "--chain") == 0) {
		if ((rc = gpu_cli_u32("bwsim warps", a, v, 0, 1, &x)) == 0)
			p->chain = (int)x;
	} else if (strcmp(a, "--from-launch") == 0) {
		if ((rc = gpu_cli_u32("bwsim warps", a, v, 0, 1, &x)) == 0)
			p->from_launch = (int)x;
	} else if (strcmp(a, "--finish-issue") == 0) {
		if ((rc = gpu_cli_u32("bwsim warps", a, v, 0, 1, &x)) == 0)
			p->finish_issue = (int)x;
	} else if (strcmp(a, "--sticky") == 0) {
		if ((rc = gpu_cli_u32("bwsim warps", a, v, 0, 1, &x)) == 0)
			p->sticky = (int)x;
	} else
		return 0;
	if (rc != 0)
		return -1;
	(*i)++;
	return 1;
}

static int
bwsim_fig41(int argc, char **argv, int i0)
{
	struct fig41_params	p;
	struct fig41_out	out[GPU_NPOLICIES];
	struct fig41_check	chk;
	struct fig41_search	s;
	struct jsonw		j;
	int			i, rc, json = 0, search = 0, pol;

	fig41_default(&p);
	for (i = i0; i < argc; i++) {
		if ((rc = bwsim_fig41_opt(&p, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--search") == 0)
			search = 1;
		else {
			fprintf(stderr, "bwsim warps: unknown argument '%s' "
			    "(see bwsim(1))\n", argv[i]);
			return 2;
		}
	}
	if (fig41_run(&p, out, NULL, NULL) != 0) {
		fprintf(stderr, "bwsim warps: bad assignment\n");
		return 2;
	}
	fig41_check(&p, out, &chk);
	if (search && fig41_search(40, 4, &s) != 0) {
		fprintf(stderr, "bwsim warps: search failed\n");
		return 1;
	}
	if (json) {
		jsonw_init(&j, stdout);
		jsonw_obj_begin(&j);
		for (pol = 0; pol < GPU_NPOLICIES; pol++)
			bwsim_fig41_out(&j, gpu_policy_names[pol], &out[pol]);
		bwsim_fig41_params(&j, "assignment", &p);
		bwsim_fig41_checks(&j, &chk);
		if (search)
			bwsim_fig41_search_print(&j, 1, &s);
		jsonw_obj_end(&j);
		jsonw_end(&j);
		return 0;
	}
	printf("[PredGPU] Fig. 4.1: warps 0-1 of K1 from t = 0, 2-3 of K2 "
	    "(priority %u, K1 1) from t = 1; instruction %u of 6 has latency "
	    "%u, the others %u%s; digits are the instruction issued\n", p.p,
	    p.long_pos + 1, p.long_lat, p.short_lat, p.chain ?
	    ", each needing the one before" : "");
	for (pol = 0; pol < GPU_NPOLICIES; pol++)
		bwsim_fig41_timeline(&out[pol], gpu_policy_names[pol]);
	printf("stated: LRR highest average %s, RT-PAWS one above GTO %s, "
	    "K2 last under GTO %s, K2 first under RT-PAWS %s, max(K1, K2) "
	    "least under RT-PAWS %s, averages 25 / 21.5 / 22.5 %s\n",
	    chk.lrr_highest ? "yes" : "no", chk.rt_one_above_gto ? "yes" :
	    "no", chk.gto_k2_last ? "yes" : "no", chk.rt_k2_first ? "yes" :
	    "no", chk.rt_max_least ? "yes" : "no", chk.exact ? "yes" : "no");
	if (search)
		bwsim_fig41_search_print(NULL, 0, &s);
	return 0;
}

/* ---- bwsim warps FILE.ptx: two instances, K2 the higher priority ---- */

struct warps_resp {
	double	k1, k2;
};

static int
bwsim_pair(struct gpu_cli *c, struct sm_kernel k[2], int policy,
    uint32_t runs, uint64_t seed, struct warps_resp *res)
{
	struct sm_opts		o;
	struct sm_result	r;
	char			err[256];
	uint32_t		i;

	res->k1 = res->k2 = 0;
	for (i = 0; i < runs; i++) {
		memset(&o, 0, sizeof(o));
		o.policy = policy;
		o.seed = seed + i;
		o.shuffle = 1;
		if (sm_run(&c->cfg, k, 2, &o, &r, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", c->prog, err);
			return -1;
		}
		res->k1 += (double)(r.finish[0] - k[0].launch) / runs;
		res->k2 += (double)(r.finish[1] - k[1].launch) / runs;
	}
	return 0;
}

static void
bwsim_resp_json(struct jsonw *j, const struct warps_resp *r)
{
	jsonw_key(j, "k1");
	jsonw_double(j, r->k1);
	jsonw_key(j, "k2");
	jsonw_double(j, r->k2);
	jsonw_key(j, "average");
	jsonw_double(j, (r->k1 + r->k2) / 2);
}

/* "2,4,8" */
static int
bwsim_plist(const char *s, uint32_t *p, unsigned int *n)
{
	char	buf[128], *tok, *save = NULL;

	*n = 0;
	if (s == NULL || strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (*n == WARPS_MAX_P || gpu_cli_u32("bwsim warps", "--p", tok,
		    2, 1000, &p[*n]) != 0)
			goto bad;
		(*n)++;
	}
	if (*n > 0)
		return 0;
bad:
	fprintf(stderr, "bwsim warps: --p needs up to %d priorities above "
	    "K1's 1, e.g. 2,4,8\n", WARPS_MAX_P);
	return -1;
}

static void
bwsim_warps_print(const struct gpu_cli *c, uint32_t runs,
    const struct warps_resp r[2], const struct warps_resp *rp,
    const uint32_t *p, unsigned int np, unsigned int best)
{
	struct jsonw	j;
	unsigned int	i;

	if (!c->json) {
		printf("kernel %s, two instances, K2 (higher priority) launched "
		    "after K1; mean response times over %u runs (cycles):\n",
		    c->k->name, runs);
		printf("  lrr     K1 %.1f  K2 %.1f  average %.1f\n", r[0].k1,
		    r[0].k2, (r[0].k1 + r[0].k2) / 2);
		printf("  gto     K1 %.1f  K2 %.1f  average %.1f\n", r[1].k1,
		    r[1].k2, (r[1].k1 + r[1].k2) / 2);
		for (i = 0; i < np; i++)
			printf("  rtpaws  K1 %.1f  K2 %.1f  average %.1f  (p = "
			    "%u%s)\n", rp[i].k1, rp[i].k2,
			    (rp[i].k1 + rp[i].k2) / 2, p[i], i == best ?
			    ", the lowest K2" : "");
		return;
	}
	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "kernel");
	jsonw_str(&j, c->k->name);
	jsonw_key(&j, "runs");
	jsonw_uint(&j, runs);
	for (i = 0; i < 2; i++) {
		jsonw_key(&j, i == 0 ? "lrr" : "gto");
		jsonw_obj_begin(&j);
		bwsim_resp_json(&j, &r[i]);
		jsonw_obj_end(&j);
	}
	jsonw_key(&j, "rtpaws");
	jsonw_obj_begin(&j);
	jsonw_key(&j, "p");
	jsonw_uint(&j, p[best]);
	bwsim_resp_json(&j, &rp[best]);
	jsonw_key(&j, "by_p");
	jsonw_arr_begin(&j);
	for (i = 0; i < np; i++) {
		jsonw_obj_begin(&j);
		jsonw_key(&j, "p");
		jsonw_uint(&j, p[i]);
		bwsim_resp_json(&j, &rp[i]);
		jsonw_obj_end(&j);
	}
	jsonw_arr_end(&j);
	jsonw_obj_end(&j);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

/* Options of bwsim warps FILE.ptx; 0, or -1 after a message. */
static int
bwsim_warps_opts(struct gpu_cli *c, int argc, char **argv, uint32_t *p,
    unsigned int *np, uint32_t *runs, uint32_t *delay, uint64_t *seed)
{
	int	i, rc;

	for (i = 1; i < argc; i++) {
		if ((rc = gpu_cli_opt(c, argc, argv, &i)) < 0)
			return -1;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--p") == 0)
			rc = bwsim_plist(argv[++i], p, np);
		else if (strcmp(argv[i], "--runs") == 0)
			rc = gpu_cli_u32(c->prog, "--runs", argv[++i], 1, 100000,
			    runs);
		else if (strcmp(argv[i], "--delay") == 0)
			rc = gpu_cli_u32(c->prog, "--delay", argv[++i], 0,
			    1000000, delay);
		else if (strcmp(argv[i], "--seed") == 0)
			rc = bwsim_seed(c->prog, argv[++i], seed);
		else {
			fprintf(stderr, "bwsim warps: unknown argument '%s' "
			    "(see bwsim(1))\n", argv[i]);
			return -1;
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int
bwsim_warps_kernel(int argc, char **argv)
{
	struct gpu_cli		c;
	struct gpu_launch	l2;
	struct gpu_trace	t[2];
	struct sm_kernel	k[2];
	struct warps_resp	r[2], rp[WARPS_MAX_P];
	uint32_t		p[WARPS_MAX_P] = { 2, 4, 8 }, runs = 20;
	uint32_t		delay = 1;
	uint64_t		seed = 1;
	unsigned int		np = 3, i, best = 0;
	int			rc = 2;

	gpu_cli_init(&c, "bwsim warps");
	memset(t, 0, sizeof(t));
	if (bwsim_warps_opts(&c, argc, argv, p, &np, &runs, &delay,
	    &seed) != 0)
		return 2;
	if (gpu_cli_load(&c) != 0)
		goto out;
	/* K2 works on its own buffers: pointers half a region further */
	l2 = c.launch;
	for (i = 0; i < c.k->nparams; i++)
		if (c.k->params[i].is_ptr)
			l2.param[i] += WEXEC_PTR_STRIDE / 2;
	if (gpu_cli_trace(&c, NULL, &t[0]) != 0 ||
	    gpu_cli_trace(&c, &l2, &t[1]) != 0)
		goto out;
	rc = 1;
	memset(k, 0, sizeof(k));
	for (i = 0; i < 2; i++) {
		k[i].t = &t[i];
		k[i].warp_cap = c.cfg.max_warps / 2;
		k[i].prio = 1;
	}
	k[1].launch = delay;
	if (bwsim_pair(&c, k, GPU_LRR, runs, seed, &r[0]) != 0 ||
	    bwsim_pair(&c, k, GPU_GTO, runs, seed, &r[1]) != 0)
		goto out;
	for (i = 0; i < np; i++) {
		k[1].prio = p[i];
		if (bwsim_pair(&c, k, GPU_RTPAWS, runs, seed, &rp[i]) != 0)
			goto out;
		/* [PredGPU] 4.5.2: the p with the lowest K2 response */
		if (rp[i].k2 < rp[best].k2)
			best = i;
	}
	bwsim_warps_print(&c, runs, r, rp, p, np, best);
	rc = 0;
out:
	gpu_trace_free(&t[0]);
	gpu_trace_free(&t[1]);
	gpu_cli_free(&c);
	return rc;
}

int
bwsim_warps_main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--example") == 0) {
		if (strcmp(argv[2], "fig4.1") != 0) {
			fprintf(stderr, "bwsim warps: the example is fig4.1\n");
			return 2;
		}
		return bwsim_fig41(argc, argv, 3);
	}
	return bwsim_warps_kernel(argc, argv);
}
