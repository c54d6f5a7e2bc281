/*
 * tok.c - the tokenizer shared by the profile and task-set parsers.
 */
#include <string.h>

#include "tok.h"

static int
tok_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int
tok_next(const char *s, size_t len, size_t *pos, struct tok *t)
{
	size_t	i = *pos, st;

	while (i < len && tok_blank(s[i]))
		i++;
	if (i == len || s[i] == '#') {
		*pos = len;
		return 0;
	}
	st = i;
	while (i < len && !tok_blank(s[i]) && s[i] != '#')
		i++;
	t->s = s + st;
	t->len = i - st;
	*pos = i;
	return 1;
}

int
tok_split(const char *s, size_t len, struct tok *tok, int max)
{
	struct tok	t;
	size_t		pos = 0;
	int		n = 0;

	while (tok_next(s, len, &pos, &t)) {
		if (n == max)
			return -1;
		tok[n++] = t;
	}
	return n;
}

int
tok_is(const struct tok *t, const char *w)
{
	return t->len == strlen(w) && memcmp(t->s, w, t->len) == 0;
}

int
tok_u64(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t	x = 0;
	size_t		i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    x > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}
