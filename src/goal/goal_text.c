/* src/goal/goal_text.c — the GOAL text format: a reentrant tokenizer and parser into goal_txt,
 * and the writer. All parser state lives in one struct on the caller's stack. */
#include "goal/goal_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- label table: open addressing, keyed by label text, reset per rank by a generation stamp so
 * that a schedule with many ranks does not pay a full clear per rank. */
typedef struct label_slot {
    uint32_t gen;     /* slot is live iff gen == table gen */
    uint32_t id;      /* label id within the rank */
    uint32_t str_off; /* label text in the string pool */
    uint32_t str_len;
} label_slot;

typedef struct label_info {
    uint32_t op;   /* op index, UINT32_MAX while only referenced */
    uint32_t line; /* first mention, for "used but not defined" */
} label_info;

#define NO_OP UINT32_MAX

typedef struct parser {
    const char *p, *end;
    const char *name;
    uint32_t line;
    char *err;
    size_t errlen;
    /* label table */
    label_slot *slots;
    uint32_t cap, used, gen;
    char *pool;
    size_t pool_len, pool_cap;
    label_info *labels;
    uint32_t labels_cap;
    /* current rank being built; deps hold label ids until the block closes */
    goal_txt_op *ops;
    uint32_t nops, ops_cap;
    goal_txt_dep *deps;
    uint32_t ndeps, deps_cap;
    uint32_t *dep_lines;
    uint32_t dep_lines_cap;
} parser;

typedef struct token {
    const char *s;
    size_t len;
    uint32_t line;
} token;

static int fail(parser *ps, uint32_t line, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        int n = snprintf(ps->err, ps->errlen, "%s:%u: ", ps->name, line);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    if (nc > UINT32_MAX)
        nc = UINT32_MAX;
    void *n = realloc(*arr, (size_t)nc * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = (uint32_t)nc;
    return 0;
}

/* Skips blanks, newlines and comments. Returns -1 on an unterminated block comment. */
static int skip_space(parser *ps)
{
    for (;;) {
        while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' ||
                                   *ps->p == '\n' || *ps->p == '\f' || *ps->p == '\v')) {
            if (*ps->p == '\n')
                ps->line++;
            ps->p++;
        }
        if (ps->end - ps->p >= 2 && ps->p[0] == '/' && ps->p[1] == '/') {
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
            continue;
        }
        if (ps->end - ps->p >= 2 && ps->p[0] == '/' && ps->p[1] == '*') {
            uint32_t start = ps->line;
            ps->p += 2;
            while (ps->end - ps->p >= 2 && !(ps->p[0] == '*' && ps->p[1] == '/')) {
                if (*ps->p == '\n')
                    ps->line++;
                ps->p++;
            }
            if (ps->end - ps->p < 2)
                return fail(ps, start, "expected end of comment '*/', got end of input");
            ps->p += 2;
            continue;
        }
        return 0;
    }
}

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

/* A token is a run of word characters, or one punctuation character ({ } :). Empty at EOF. */
static int next_token(parser *ps, token *t)
{
    if (skip_space(ps))
        return -1;
    t->s = ps->p;
    t->line = ps->line;
    if (ps->p >= ps->end) {
        t->len = 0;
        return 0;
    }
    if (is_word_char(*ps->p)) {
        while (ps->p < ps->end && is_word_char(*ps->p))
            ps->p++;
    } else if ((unsigned char)*ps->p < 0x20 || (unsigned char)*ps->p >= 0x7f) {
        /* not text: say which byte, instead of printing it */
        return fail(ps, ps->line, "expected a word, '{', '}' or ':', got byte 0x%02x",
                    (unsigned)(unsigned char)*ps->p);
    } else {
        ps->p++;
    }
    t->len = (size_t)(ps->p - t->s);
    return 0;
}

static int peek_token(parser *ps, token *t)
{
    const char *p = ps->p;
    uint32_t line = ps->line;
    int rc = next_token(ps, t);
    ps->p = p;
    ps->line = line;
    return rc;
}

static int tok_is(const token *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->s, word, n) == 0;
}

/* Prints a token for an error message, bounded, or "end of input". */
#define TOKFMT "%s%.*s%s"
#define TOKARG(t)                                                                                   \
    (t)->len ? "'" : "", (int)((t)->len > 40 ? 40 : (t)->len), (t)->s, (t)->len ? "'" : "end of input"

static int expect_word(parser *ps, const char *word)
{
    token t = {0};
    if (next_token(ps, &t))
        return -1;
    if (!tok_is(&t, word))
        return fail(ps, t.line, "expected '%s', got " TOKFMT, word, TOKARG(&t));
    return 0;
}

/* Parses a decimal integer token (optionally negative, optional unit suffix 'b' when allow_b). */
static int parse_int(parser *ps, const char *what, int allow_neg, int allow_b, int64_t min,
                     int64_t max, int64_t *out)
{
    token t = {0};
    if (next_token(ps, &t))
        return -1;
    size_t i = 0, n = t.len;
    int neg = 0;
    if (allow_b && n > 1 && t.s[n - 1] == 'b')
        n--;
    if (allow_neg && n > 0 && t.s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i >= n)
        return fail(ps, t.line, "expected %s, got " TOKFMT, what, TOKARG(&t));
    uint64_t v = 0;
    for (; i < n; i++) {
        char c = t.s[i];
        if (c < '0' || c > '9')
            return fail(ps, t.line, "expected %s, got " TOKFMT, what, TOKARG(&t));
        if (v > (UINT64_MAX - 9) / 10) /* would overflow 64 bits: far outside any range */
            return fail(ps, t.line, "expected %s %s %lld, got too large " TOKFMT, what,
                        neg ? ">=" : "<=", neg ? (long long)min : (long long)max, TOKARG(&t));
        v = v * 10 + (uint64_t)(c - '0');
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX || -(int64_t)v < min)
            return fail(ps, t.line, "expected %s >= %lld, got " TOKFMT, what, (long long)min,
                        TOKARG(&t));
        *out = -(int64_t)v;
        return 0;
    }
    if (min > 0 && v < (uint64_t)min)
        return fail(ps, t.line, "expected %s >= %lld, got " TOKFMT, what, (long long)min,
                    TOKARG(&t));
    if (v > (uint64_t)max)
        return fail(ps, t.line, "expected %s <= %lld, got " TOKFMT, what, (long long)max,
                    TOKARG(&t));
    *out = (int64_t)v;
    return 0;
}

/* ---- label table ---- */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int label_rehash(parser *ps)
{
    uint32_t ncap = ps->cap ? ps->cap * 2 : 1024;
    label_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < ps->cap; i++) {
        label_slot *s = &ps->slots[i];
        if (s->gen != ps->gen)
            continue;
        uint32_t h = (uint32_t)hash_bytes(ps->pool + s->str_off, s->str_len) & (ncap - 1);
        while (ns[h].gen == ps->gen)
            h = (h + 1) & (ncap - 1);
        ns[h] = *s;
    }
    free(ps->slots);
    ps->slots = ns;
    ps->cap = ncap;
    return 0;
}

/* Returns the label id for the token text, creating it (op = NO_OP) on first mention. */
static int label_lookup(parser *ps, const token *t, uint32_t *id)
{
    if (ps->used >= (1u << 30)) /* the table doubles up to 2^31 slots */
        return fail(ps, t->line, "expected at most %u labels per rank", 1u << 30);
    if ((uint64_t)(ps->used + 1) * 2 > ps->cap && label_rehash(ps))
        return fail(ps, t->line, "out of memory");
    uint32_t h = (uint32_t)hash_bytes(t->s, t->len) & (ps->cap - 1);
    while (ps->slots[h].gen == ps->gen) {
        label_slot *s = &ps->slots[h];
        if (s->str_len == t->len && memcmp(ps->pool + s->str_off, t->s, t->len) == 0) {
            *id = s->id;
            return 0;
        }
        h = (h + 1) & (ps->cap - 1);
    }
    if (ps->pool_len + t->len > ps->pool_cap) {
        size_t nc = ps->pool_cap ? ps->pool_cap : 4096;
        while (nc < ps->pool_len + t->len)
            nc *= 2;
        char *np = realloc(ps->pool, nc);
        if (!np)
            return fail(ps, t->line, "out of memory");
        ps->pool = np;
        ps->pool_cap = nc;
    }
    if (ps->pool_len + t->len > UINT32_MAX)
        return fail(ps, t->line, "expected fewer label characters per rank");
    if (grow((void **)&ps->labels, &ps->labels_cap, ps->used + 1, sizeof *ps->labels))
        return fail(ps, t->line, "out of memory");
    memcpy(ps->pool + ps->pool_len, t->s, t->len);
    ps->slots[h] = (label_slot){.gen = ps->gen, .id = ps->used, .str_off = (uint32_t)ps->pool_len,
                                .str_len = (uint32_t)t->len};
    ps->pool_len += t->len;
    ps->labels[ps->used] = (label_info){.op = NO_OP, .line = t->line};
    *id = ps->used++;
    return 0;
}

static void label_reset(parser *ps)
{
    ps->gen++;
    if (ps->gen == 0) { /* wrapped: stamps from 2^32 ranks ago could look live */
        if (ps->slots)
            memset(ps->slots, 0, ps->cap * sizeof *ps->slots);
        ps->gen = 1;
    }
    ps->used = 0;
    ps->pool_len = 0;
}

static int is_keyword(const token *t)
{
    static const char *const kw[] = {"send", "recv", "calc", "to", "from", "tag", "cpu",
                                     "nic", "requires", "irequires", "rank", "num_ranks"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (tok_is(t, kw[i]))
            return 1;
    return 0;
}

static int is_label_token(const token *t)
{
    if (!t->len || t->s[0] == '-' || (t->s[0] >= '0' && t->s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < t->len; i++)
        if (!is_word_char(t->s[i]))
            return 0;
    return !is_keyword(t);
}

/* Parses the operation after an optional label; kind_tok is the already-read send/recv/calc. */
static int parse_op(parser *ps, const token *kind_tok, uint32_t nranks, goal_txt_op *op)
{
    int64_t v;
    memset(op, 0, sizeof *op);
    op->line = kind_tok->line;
    if (tok_is(kind_tok, "send") || tok_is(kind_tok, "recv")) {
        int is_send = tok_is(kind_tok, "send");
        op->kind = is_send ? GOAL_TXT_SEND : GOAL_TXT_RECV;
        if (parse_int(ps, "a size in bytes", 0, 1, 0, INT64_MAX, &v))
            return -1;
        op->size = (uint64_t)v;
        if (expect_word(ps, is_send ? "to" : "from"))
            return -1;
        if (parse_int(ps, is_send ? "a destination rank" : "a source rank (or -1)", !is_send, 0,
                      -1, (int64_t)nranks - 1, &v))
            return -1;
        op->peer = (int32_t)v;
    } else {
        op->kind = GOAL_TXT_CALC;
        if (parse_int(ps, "a calc time", 0, 0, 0, INT64_MAX, &v))
            return -1;
        op->size = (uint64_t)v;
    }
    /* optional fields, any order */
    for (;;) {
        token t = {0};
        if (peek_token(ps, &t))
            return -1;
        if (tok_is(&t, "tag") && op->kind != GOAL_TXT_CALC) {
            next_token(ps, &t);
            if (parse_int(ps, op->kind == GOAL_TXT_RECV ? "a tag (or -1)" : "a tag", op->kind == GOAL_TXT_RECV,
                          0, -1, INT32_MAX, &v))
                return -1;
            op->tag = (int32_t)v;
        } else if (tok_is(&t, "cpu") || tok_is(&t, "nic")) {
            next_token(ps, &t);
            int is_cpu = tok_is(&t, "cpu");
            if (parse_int(ps, is_cpu ? "a cpu number" : "a nic number", 0, 0, 0, 255, &v))
                return -1;
            if (is_cpu)
                op->cpu = (uint8_t)v;
            else
                op->nic = (uint8_t)v;
        } else {
            return 0;
        }
    }
}

/* Parses statements up to the closing brace of one rank block into ps->ops / ps->deps. */
static int parse_rank_body(parser *ps, uint32_t nranks, uint32_t *close_line)
{
    for (;;) {
        token t, t2;
        if (next_token(ps, &t))
            return -1;
        if (tok_is(&t, "}")) {
            *close_line = t.line;
            return 0;
        }
        if (!t.len)
            return fail(ps, t.line, "expected '}' closing the rank block, got end of input");
        if (tok_is(&t, "send") || tok_is(&t, "recv") || tok_is(&t, "calc")) {
            if (ps->nops >= GOAL_TXT_MAX_OPS_PER_RANK)
                return fail(ps, t.line, "expected at most %u operations per rank", GOAL_TXT_MAX_OPS_PER_RANK);
            if (grow((void **)&ps->ops, &ps->ops_cap, ps->nops + 1, sizeof *ps->ops))
                return fail(ps, t.line, "out of memory");
            if (parse_op(ps, &t, nranks, &ps->ops[ps->nops]))
                return -1;
            ps->nops++;
            continue;
        }
        if (!is_label_token(&t))
            return fail(ps, t.line, "expected a label, an operation or '}', got " TOKFMT,
                        TOKARG(&t));
        if (next_token(ps, &t2))
            return -1;
        uint32_t id;
        if (tok_is(&t2, ":")) {
            token k = {0};
            if (next_token(ps, &k))
                return -1;
            if (!(tok_is(&k, "send") || tok_is(&k, "recv") || tok_is(&k, "calc")))
                return fail(ps, k.line, "expected send, recv or calc, got " TOKFMT, TOKARG(&k));
            if (label_lookup(ps, &t, &id))
                return -1;
            if (ps->labels[id].op != NO_OP)
                return fail(ps, t.line, "expected a new label, got " TOKFMT
                            " already defined on line %u", TOKARG(&t),
                            ps->ops[ps->labels[id].op].line);
            if (ps->nops >= GOAL_TXT_MAX_OPS_PER_RANK)
                return fail(ps, t.line, "expected at most %u operations per rank", GOAL_TXT_MAX_OPS_PER_RANK);
            if (grow((void **)&ps->ops, &ps->ops_cap, ps->nops + 1, sizeof *ps->ops))
                return fail(ps, t.line, "out of memory");
            if (parse_op(ps, &k, nranks, &ps->ops[ps->nops]))
                return -1;
            ps->labels[id].op = ps->nops++;
            continue;
        }
        uint8_t kind;
        if (tok_is(&t2, "requires"))
            kind = GOAL_TXT_REQUIRES;
        else if (tok_is(&t2, "irequires"))
            kind = GOAL_TXT_IREQUIRES;
        else
            return fail(ps, t2.line, "expected ':', 'requires' or 'irequires' after label, got " TOKFMT,
                        TOKARG(&t2));
        token t3;
        if (next_token(ps, &t3))
            return -1;
        if (!is_label_token(&t3))
            return fail(ps, t3.line, "expected a label after '%s', got " TOKFMT,
                        kind == GOAL_TXT_REQUIRES ? "requires" : "irequires", TOKARG(&t3));
        uint32_t on;
        if (ps->ndeps >= UINT32_MAX - 1)
            return fail(ps, t.line, "expected at most %u dependencies per rank", UINT32_MAX - 1);
        if (label_lookup(ps, &t, &id) || label_lookup(ps, &t3, &on))
            return -1;
        if (grow((void **)&ps->deps, &ps->deps_cap, ps->ndeps + 1, sizeof *ps->deps) ||
            grow((void **)&ps->dep_lines, &ps->dep_lines_cap, ps->ndeps + 1, sizeof *ps->dep_lines))
            return fail(ps, t.line, "out of memory");
        ps->deps[ps->ndeps] = (goal_txt_dep){.op = id, .on = on, .kind = kind};
        ps->dep_lines[ps->ndeps] = t.line;
        ps->ndeps++;
    }
}

/* Resolves label ids in deps to op indices and moves the rank's arrays into r (trimmed). */
static int finish_rank(parser *ps, goal_txt_rank *r)
{
    for (uint32_t i = 0; i < ps->ndeps; i++) {
        goal_txt_dep *d = &ps->deps[i];
        uint32_t ids[2] = {d->op, d->on};
        for (int k = 0; k < 2; k++) {
            if (ps->labels[ids[k]].op == NO_OP) {
                label_slot *s = NULL;
                for (uint32_t j = 0; j < ps->cap; j++)
                    if (ps->slots[j].gen == ps->gen && ps->slots[j].id == ids[k])
                        s = &ps->slots[j];
                return fail(ps, ps->dep_lines[i], "expected a label defined in this rank, got '%.*s'",
                            s ? (int)s->str_len : 0, s ? ps->pool + s->str_off : "");
            }
        }
        d->op = ps->labels[ids[0]].op;
        d->on = ps->labels[ids[1]].op;
        if (d->op == d->on)
            return fail(ps, ps->dep_lines[i], "expected a dependency on another operation, got a self-dependency");
    }
    r->nops = ps->nops;
    r->ndeps = ps->ndeps;
    /* Hand the arrays over, trimmed, instead of copying: peak memory stays at one rank's worth. */
    r->ops = NULL;
    r->deps = NULL;
    if (ps->nops) {
        goal_txt_op *o = realloc(ps->ops, (size_t)ps->nops * sizeof *o);
        r->ops = o ? o : ps->ops;
        ps->ops = NULL;
        ps->ops_cap = 0;
    }
    if (ps->ndeps) {
        goal_txt_dep *d = realloc(ps->deps, (size_t)ps->ndeps * sizeof *d);
        r->deps = d ? d : ps->deps;
        ps->deps = NULL;
        ps->deps_cap = 0;
    }
    ps->nops = ps->ndeps = 0;
    label_reset(ps);
    return 0;
}

/* Ranks seen so far: open addressing on rank + 1 (0 = empty), sized by the blocks read, never by
 * num_ranks. */
typedef struct rank_set {
    uint32_t *slot;
    uint32_t cap, used;
} rank_set;

static uint32_t rank_hash(uint32_t r)
{
    uint64_t h = (uint64_t)r * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* 1 if r was new (and is now in), 0 if seen before, -1 out of memory. */
static int rank_set_add(rank_set *rs, uint32_t r)
{
    if ((uint64_t)(rs->used + 1) * 2 > rs->cap) {
        uint32_t ncap = rs->cap ? rs->cap * 2 : 64;
        uint32_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (uint32_t i = 0; i < rs->cap; i++) {
            if (!rs->slot[i])
                continue;
            uint32_t h = rank_hash(rs->slot[i] - 1) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = rs->slot[i];
        }
        free(rs->slot);
        rs->slot = ns;
        rs->cap = ncap;
    }
    uint32_t h = rank_hash(r) & (rs->cap - 1);
    while (rs->slot[h]) {
        if (rs->slot[h] == r + 1)
            return 0;
        h = (h + 1) & (rs->cap - 1);
    }
    rs->slot[h] = r + 1;
    rs->used++;
    return 1;
}

static int block_cmp(const void *a, const void *b)
{
    uint32_t x = ((const goal_txt_rank *)a)->rank, y = ((const goal_txt_rank *)b)->rank;
    return x < y ? -1 : x > y;
}

static int parse_all(parser *ps, goal_txt *g)
{
    token t = {0};
    int64_t v;
    uint32_t blocks_cap = 0;
    int sorted = 1;
    if (skip_space(ps))
        return -1;
    g->nranks_line = ps->line;
    if (expect_word(ps, "num_ranks"))
        return -1;
    if (parse_int(ps, "a rank count", 0, 0, 1, GOAL_TXT_MAX_RANKS, &v))
        return -1;
    g->nranks = (uint32_t)v;
    rank_set seen = {0};
    int rc = -1;
    for (;;) {
        if (next_token(ps, &t))
            goto out;
        if (!t.len)
            break;
        if (!tok_is(&t, "rank")) {
            fail(ps, t.line, "expected 'rank' or end of input, got " TOKFMT, TOKARG(&t));
            goto out;
        }
        uint32_t rank_line = t.line;
        if (parse_int(ps, "a rank number", 0, 0, 0, (int64_t)g->nranks - 1, &v))
            goto out;
        int added = rank_set_add(&seen, (uint32_t)v);
        if (added < 0) {
            fail(ps, rank_line, "out of memory after %u rank blocks", g->nblocks);
            goto out;
        }
        if (!added) {
            fail(ps, rank_line, "expected each rank once, got rank %lld again", (long long)v);
            goto out;
        }
        if (expect_word(ps, "{"))
            goto out;
        if (grow((void **)&g->blocks, &blocks_cap, g->nblocks + 1, sizeof *g->blocks)) {
            fail(ps, rank_line, "out of memory after %u rank blocks", g->nblocks);
            goto out;
        }
        goal_txt_rank *r = &g->blocks[g->nblocks];
        memset(r, 0, sizeof *r);
        r->rank = (uint32_t)v;
        if (g->nblocks && g->blocks[g->nblocks - 1].rank > r->rank)
            sorted = 0;
        g->nblocks++; /* counted before it is filled: goal_txt_free frees what finish_rank gave it */
        uint32_t close_line;
        if (parse_rank_body(ps, g->nranks, &close_line) || finish_rank(ps, r))
            goto out;
    }
    if (!sorted)
        qsort(g->blocks, g->nblocks, sizeof *g->blocks, block_cmp);
    if (g->nblocks && g->nblocks < blocks_cap) {
        goal_txt_rank *b = realloc(g->blocks, (size_t)g->nblocks * sizeof *b);
        if (b)
            g->blocks = b;
    }
    rc = 0;
out:
    free(seen.slot);
    return rc;
}

int goal_txt_read_mem(const char *text, size_t len, const char *name, goal_txt **out, char *err,
                      size_t errlen)
{
    if (out)
        *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    parser ps = {.p = text, .end = text + len, .name = name ? name : "<memory>", .line = 1,
                 .err = err, .errlen = errlen, .gen = 1};
    if (!out || (!text && len))
        return fail(&ps, 0, "expected a text buffer and an output pointer");
    goal_txt *g = calloc(1, sizeof *g);
    int rc = g ? parse_all(&ps, g) : fail(&ps, 0, "out of memory");
    free(ps.slots);
    free(ps.pool);
    free(ps.labels);
    free(ps.ops);
    free(ps.deps);
    free(ps.dep_lines);
    if (rc) {
        goal_txt_free(g);
        return -1;
    }
    *out = g;
    return 0;
}

int goal_txt_read_file(const char *path, goal_txt **out, char *err, size_t errlen)
{
    return goal_txt_read_file_max(path, 0, out, err, errlen);
}

/* Line (1-based) of byte `off` of buf. */
static uint32_t line_of(const char *buf, size_t off)
{
    uint32_t line = 1;
    for (size_t i = 0; i < off; i++)
        line += buf[i] == '\n';
    return line;
}

int goal_txt_read_file_max(const char *path, uint64_t max_bytes, goal_txt **out, char *err,
                           size_t errlen)
{
    if (out)
        *out = NULL;
    if (!max_bytes)
        max_bytes = GOAL_TXT_MAX_FILE_BYTES;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: expected a readable file, got: %s", path ? path : "(null)",
                     strerror(path ? errno : EINVAL));
        return -1;
    }
    /* Read in chunks up to the limit (one byte more tells a file of exactly the limit from a larger
     * one); each chunk is looked at for a NUL byte, so /dev/zero ends at its first chunk. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    const char *why = NULL;
    int rd_errno = 0;
    uint32_t bad_line = 0;
    while (buf) {
        size_t want = cap - len;
        if ((uint64_t)len + want > max_bytes + 1)
            want = (size_t)(max_bytes + 1 - len);
        size_t n = fread(buf + len, 1, want, f);
        const char *nul = n ? memchr(buf + len, '\0', n) : NULL;
        len += n;
        if (nul) {
            bad_line = line_of(buf, (size_t)(nul - buf));
            why = "nul";
            break;
        }
        if (len > max_bytes) {
            why = "big";
            break;
        }
        if (n < want) {
            if (ferror(f)) {
                rd_errno = errno;
                why = "read";
            }
            break;
        }
        if (len < cap)
            continue;
        size_t ncap = (uint64_t)cap * 2 > max_bytes + 1 ? (size_t)(max_bytes + 1) : cap * 2;
        char *nb = realloc(buf, ncap);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap = ncap;
    }
    fclose(f);
    if (!buf || why) {
        if (err && errlen) {
            if (!buf)
                snprintf(err, errlen, "%s:0: expected a readable file, got out of memory after %zu bytes",
                         path, len);
            else if (why[0] == 'n')
                snprintf(err, errlen, "%s:%u: expected GOAL text, got a NUL byte (not a text file)",
                         path, bad_line);
            else if (why[0] == 'b')
                snprintf(err, errlen, "%s:0: expected at most %llu bytes of GOAL text, got more",
                         path, (unsigned long long)max_bytes);
            else
                snprintf(err, errlen, "%s:0: expected a readable file, got a read error: %s", path,
                         strerror(rd_errno ? rd_errno : EIO));
        }
        free(buf);
        return -1;
    }
    int rc = goal_txt_read_mem(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

const goal_txt_rank *goal_txt_rank_of(const goal_txt *g, uint32_t rank)
{
    if (!g)
        return NULL;
    uint32_t lo = 0, hi = g->nblocks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->blocks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->nblocks && g->blocks[lo].rank == rank ? &g->blocks[lo] : NULL;
}

/* ---- static matching ---- */
typedef struct msg_key {
    uint32_t src, dst;
    int32_t tag;
    uint32_t blk, op; /* where: blocks[blk].ops[op] */
    uint32_t pad;
} msg_key;

static int key_cmp(const void *a, const void *b)
{
    const msg_key *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    if (x->blk != y->blk)
        return x->blk < y->blk ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static int same_key(const msg_key *x, const msg_key *y)
{
    return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

/* Sends in S (sorted by destination first) to rank dst. */
static size_t sends_to(const msg_key *S, size_t ns, uint32_t dst)
{
    size_t lo = 0, hi = ns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (S[mid].dst < dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t first = lo;
    hi = ns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (S[mid].dst <= dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - first;
}

int goal_txt_check_matching(const goal_txt *g, const char *name, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!name)
        name = "<memory>";
    uint64_t nsend = 0, nrecv = 0;
    for (uint32_t b = 0; b < g->nblocks; b++)
        for (uint32_t i = 0; i < g->blocks[b].nops; i++) {
            const goal_txt_op *o = &g->blocks[b].ops[i];
            if (o->kind == GOAL_TXT_SEND)
                nsend++;
            else if (o->kind == GOAL_TXT_RECV && o->peer >= 0 && o->tag >= 0)
                nrecv++;
        }
    msg_key *S = malloc((size_t)(nsend ? nsend : 1) * sizeof *S);
    msg_key *R = malloc((size_t)(nrecv ? nrecv : 1) * sizeof *R);
    uint64_t *wild = calloc(g->nblocks ? g->nblocks : 1, sizeof *wild); /* per block */
    int rc = -1;
    if (!S || !R || !wild) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: out of memory for %llu messages", name,
                     (unsigned long long)(nsend + nrecv));
        goto out;
    }
    size_t ns = 0, nr = 0;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const goal_txt_rank *r = &g->blocks[b];
        for (uint32_t i = 0; i < r->nops; i++) {
            const goal_txt_op *o = &r->ops[i];
            if (o->kind == GOAL_TXT_SEND)
                S[ns++] = (msg_key){r->rank, (uint32_t)o->peer, o->tag, b, i, 0};
            else if (o->kind == GOAL_TXT_RECV && (o->peer < 0 || o->tag < 0))
                wild[b]++;
            else if (o->kind == GOAL_TXT_RECV)
                R[nr++] = (msg_key){(uint32_t)o->peer, r->rank, o->tag, b, i, 0};
        }
    }
    qsort(S, ns, sizeof *S, key_cmp);
    qsort(R, nr, sizeof *R, key_cmp);
    /* Walk both sorted lists key by key. */
    size_t i = 0, j = 0;
    while (i < ns || j < nr) {
        int c = i < ns && j < nr ? key_cmp(&S[i], &R[j]) : i < ns ? -1 : 1;
        msg_key k = c <= 0 ? S[i] : R[j];
        size_t si = i, rj = j;
        while (i < ns && same_key(&S[i], &k))
            i++;
        while (j < nr && same_key(&R[j], &k))
            j++;
        size_t cs = i - si, cr = j - rj;
        const goal_txt_rank *d = goal_txt_rank_of(g, k.dst);
        int has_wild = d && wild[d - g->blocks];
        if (cr > cs) { /* exact receives beyond the sends of their key: never matched */
            const msg_key *x = &R[rj + cs];
            const goal_txt_op *o = &g->blocks[x->blk].ops[x->op];
            if (err && errlen)
                snprintf(err, errlen,
                         "%s:%u: schedule cannot complete: rank %u, op %u (recv %llub from %u tag %d): "
                         "no matching send (%zu such receive%s, %zu send%s)",
                         name, o->line, k.dst, x->op, (unsigned long long)o->size, k.src, k.tag, cr,
                         cr == 1 ? "" : "s", cs, cs == 1 ? "" : "s");
            goto out;
        }
        if (cs > cr && !has_wild) { /* sends beyond the receives of their key: none can take them */
            const msg_key *x = &S[si + cr];
            const goal_txt_op *o = &g->blocks[x->blk].ops[x->op];
            if (err && errlen)
                snprintf(err, errlen,
                         "%s:%u: schedule cannot complete: message from rank %u to rank %u (tag %d, %llu bytes) "
                         "is never received (%zu such send%s, %zu matching receive%s)",
                         name, o->line, k.src, k.dst, k.tag, (unsigned long long)o->size, cs,
                         cs == 1 ? "" : "s", cr, cr == 1 ? "" : "s");
            goto out;
        }
    }
    /* Ranks with wildcard receives: the totals must still agree. */
    for (uint32_t b = 0; b < g->nblocks; b++) {
        if (!wild[b])
            continue;
        const goal_txt_rank *r = &g->blocks[b];
        uint64_t recvd = 0, sent = sends_to(S, ns, r->rank);
        uint32_t line = 0;
        for (uint32_t x = 0; x < r->nops; x++)
            if (r->ops[x].kind == GOAL_TXT_RECV) {
                recvd++;
                if (!line)
                    line = r->ops[x].line;
            }
        if (recvd == sent)
            continue;
        if (err && errlen)
            snprintf(err, errlen,
                     "%s:%u: schedule cannot complete: rank %u receives %llu message%s (%llu with a wildcard) "
                     "but is sent %llu",
                     name, line, r->rank, (unsigned long long)recvd, recvd == 1 ? "" : "s",
                     (unsigned long long)wild[b], (unsigned long long)sent);
        goto out;
    }
    rc = 0;
out:
    free(S);
    free(R);
    free(wild);
    return rc;
}

int goal_txt_write(FILE *f, const goal_txt *g)
{
    if (!f || !g)
        return -1;
    static const char *const kname[] = {"send", "recv", "calc"};
    fprintf(f, "num_ranks %u\n", g->nranks);
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const goal_txt_rank *rk = &g->blocks[b];
        fprintf(f, "\nrank %u {\n", rk->rank);
        for (uint32_t i = 0; i < rk->nops; i++) {
            const goal_txt_op *o = &rk->ops[i];
            if (o->kind > GOAL_TXT_CALC)
                return -1;
            if (o->kind == GOAL_TXT_CALC)
                fprintf(f, "l%u: calc %llu", i, (unsigned long long)o->size);
            else
                fprintf(f, "l%u: %s %llub %s %d tag %d", i, kname[o->kind],
                        (unsigned long long)o->size, o->kind == GOAL_TXT_SEND ? "to" : "from",
                        o->peer, o->tag);
            if (o->cpu)
                fprintf(f, " cpu %u", o->cpu);
            if (o->nic)
                fprintf(f, " nic %u", o->nic);
            fputc('\n', f);
        }
        for (uint32_t i = 0; i < rk->ndeps; i++)
            fprintf(f, "l%u %s l%u\n", rk->deps[i].op,
                    rk->deps[i].kind == GOAL_TXT_IREQUIRES ? "irequires" : "requires", rk->deps[i].on);
        fputs("}\n", f);
    }
    return ferror(f) ? -1 : 0;
}

void goal_txt_free(goal_txt *g)
{
    if (!g)
        return;
    if (g->blocks) {
        for (uint32_t b = 0; b < g->nblocks; b++) {
            free(g->blocks[b].ops);
            free(g->blocks[b].deps);
        }
        free(g->blocks);
    }
    free(g);
}
