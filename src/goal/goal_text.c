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
    token t;
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
    token t;
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
        if (v > (UINT64_MAX - 9) / 10)
            return fail(ps, t.line, "expected %s, got too large " TOKFMT, what, TOKARG(&t));
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
        token t;
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
            token k;
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
            if (ps->nops == NO_OP)
                return fail(ps, t.line, "expected fewer operations per rank");
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

static int parse_all(parser *ps, goal_txt *g)
{
    token t;
    int64_t v;
    if (expect_word(ps, "num_ranks"))
        return -1;
    if (parse_int(ps, "a rank count", 0, 0, 1, INT32_MAX, &v))
        return -1;
    g->nranks = (uint32_t)v;
    g->ranks = calloc(g->nranks, sizeof *g->ranks);
    if (!g->ranks)
        return fail(ps, ps->line, "out of memory for %u ranks", g->nranks);
    uint8_t *seen = calloc(g->nranks, 1);
    if (!seen)
        return fail(ps, ps->line, "out of memory");
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
        if (seen[v]) {
            fail(ps, rank_line, "expected each rank once, got rank %lld again", (long long)v);
            goto out;
        }
        seen[v] = 1;
        if (expect_word(ps, "{"))
            goto out;
        uint32_t close_line;
        if (parse_rank_body(ps, g->nranks, &close_line) || finish_rank(ps, &g->ranks[v]))
            goto out;
    }
    rc = 0;
out:
    free(seen);
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
    if (out)
        *out = NULL;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: expected a readable file, got: %s", path ? path : "(null)",
                     strerror(path ? errno : EINVAL));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || rd_err) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: expected a readable file, got %s", path,
                     buf ? "a read error" : "out of memory");
        free(buf);
        return -1;
    }
    int rc = goal_txt_read_mem(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

int goal_txt_write(FILE *f, const goal_txt *g)
{
    if (!f || !g)
        return -1;
    static const char *const kname[] = {"send", "recv", "calc"};
    fprintf(f, "num_ranks %u\n", g->nranks);
    for (uint32_t r = 0; r < g->nranks; r++) {
        const goal_txt_rank *rk = &g->ranks[r];
        fprintf(f, "\nrank %u {\n", r);
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
    if (g->ranks) {
        for (uint32_t r = 0; r < g->nranks; r++) {
            free(g->ranks[r].ops);
            free(g->ranks[r].deps);
        }
        free(g->ranks);
    }
    free(g);
}
