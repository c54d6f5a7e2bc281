/*
 * tok.h - the tokenizer of the model's line-based text formats (.bwk
 * profiles, RTA task sets): blanks (space, tab, CR) separate tokens and
 * '#' starts a comment up to the end of the line.  Pure: it points into
 * the caller's buffer and copies nothing.
 */
#ifndef BWSCHED_TOK_H
#define BWSCHED_TOK_H

#include <stddef.h>
#include <stdint.h>

struct tok {
	const char	*s;
	size_t		 len;
};

/*
 * The next token of the line s[0..len) from *pos on (start at 0).
 * Returns 1 and fills t, or 0 at the end of the line or a comment.
 */
int	tok_next(const char *s, size_t len, size_t *pos, struct tok *t);

/* All tokens of a line into tok[0..max): their number, -1 over max. */
int	tok_split(const char *s, size_t len, struct tok *tok, int max);

/* Whether t is the word w. */
int	tok_is(const struct tok *t, const char *w);

/* A decimal number, no sign, at most max: 0, or -1 when it is not. */
int	tok_u64(const char *s, size_t len, uint64_t max, uint64_t *v);

#endif /* BWSCHED_TOK_H */
