# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The deal sampler's exact programme, compiled: the strong bot's other hot loop.

core/bots/sampler.py's ``DealSampler`` counts the consistent deals by a dynamic programme
over card types and draws one by walking it (read its docstring first); in Play to Bid
the strong bot draws about 19 deals for each it keeps (the bid model's rejection
sampler), so drawing, not searching, was most of its time. This module runs the same
programme and the same draws in C: the counts are ``unsigned __int128`` (with 4 or 5
players they fit; past that, or on an overflow, ``status`` is ``BEYOND`` and the sampler
runs its Python programme), a hand is two 64-bit words of card bits, and the random
numbers are splitmix64 (``sampler.Stream``: the same arithmetic, so both paths give the
same deals for the same seed, tests/test_sampler.py). :class:`Fit` is the rejection
sampler (``DealSampler.fitting``) around it.

Cython, as the search kernel (``_kernel.pyx``): a build-time tool only, the module reads
as the Python it mirrors, and it builds with gcc or clang and the Python headers. The
extension is optional (setup.py): without it, or with ``XACTIKA_PURE=1``, the sampler's
Python programme runs.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc


cdef extern from *:
    """
    typedef unsigned __int128 xs_u128;
    static inline int xs_add(xs_u128 a, xs_u128 b, xs_u128 *r) {
        return __builtin_add_overflow(a, b, r);
    }
    static inline int xs_mul(xs_u128 a, xs_u128 b, xs_u128 *r) {
        return __builtin_mul_overflow(a, b, r);
    }
    static inline uint64_t xs_hi(xs_u128 x) { return (uint64_t)(x >> 64); }
    static inline uint64_t xs_lo(xs_u128 x) { return (uint64_t)x; }
    static inline xs_u128 xs_mul64(uint64_t a, uint64_t b) { return (xs_u128)a * b; }
    static inline xs_u128 xs_join(uint64_t hi, uint64_t lo) {
        return ((xs_u128)hi << 64) | lo;
    }
    static inline xs_u128 xs_shr(xs_u128 x, int k) { return x >> k; }
    static inline int xs_width(xs_u128 x) {  /* int.bit_length */
        uint64_t h = (uint64_t)(x >> 64), l = (uint64_t)x;
        if (h) return 128 - __builtin_clzll(h);
        return l ? 64 - __builtin_clzll(l) : 0;
    }
    """
    # 128 bits in C; declared as an integer so that Cython passes it through to C's
    # operators. Never handed to Python as is: :meth:`Plan.count` joins its two words.
    ctypedef unsigned long long u128 "xs_u128"
    int xs_add(u128 a, u128 b, u128* r) noexcept nogil
    int xs_mul(u128 a, u128 b, u128* r) noexcept nogil
    uint64_t xs_hi(u128 x) noexcept nogil
    uint64_t xs_lo(u128 x) noexcept nogil
    u128 xs_mul64(uint64_t a, uint64_t b) noexcept nogil
    u128 xs_join(uint64_t hi, uint64_t lo) noexcept nogil
    u128 xs_shr(u128 x, int k) noexcept nogil
    int xs_width(u128 x) noexcept nogil
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil


cdef enum:
    NCARDS = 81
    MAXS = 9  # hidden seats: 10 players
    MAXCAP = 15  # cards a hidden hand may still take: 4 bits of a node's key
    CAPBITS = 4

EXACT = 0
"""``Plan.status``: counted; ``draw`` gives uniform deals."""
TOO_MUCH_WORK = 1
"""The programme outgrew ``max_work`` (the sampler's Markov chain takes over)."""
BEYOND = 2
"""Past 128-bit counts, 9 hidden seats or 15 cards a hand (Python's programme runs)."""

cdef int S_OK = 0, S_WORK = 1, S_BEYOND = 2, S_NOMEM = 3

cdef u128 BINOM[NCARDS + 1][NCARDS + 1]


cdef void _binomials() noexcept:
    cdef int n, k
    for n in range(NCARDS + 1):
        BINOM[n][0] = 1
        for k in range(1, NCARDS + 1):
            BINOM[n][k] = 0 if k > n else (
                1 if k == n else BINOM[n - 1][k - 1] + BINOM[n - 1][k])


_binomials()


# --------------------------------------------------------------------------- stream


cdef inline uint64_t next64(uint64_t* s) noexcept nogil:
    """splitmix64: sampler.Stream.next."""
    cdef uint64_t z
    s[0] += <uint64_t>0x9E3779B97F4A7C15
    z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t below64(uint64_t* s, uint64_t n) noexcept nogil:
    """Stream.below for 2 <= n < 2**64: Lemire's multiply-and-reject."""
    cdef u128 m = xs_mul64(next64(s), n)
    cdef uint64_t least
    if xs_lo(m) < n:
        least = (<uint64_t>0 - n) % n
        while xs_lo(m) < least:
            m = xs_mul64(next64(s), n)
    return xs_hi(m)


cdef inline u128 below(uint64_t* s, u128 n) noexcept nogil:
    """Stream.below: uniform over range(n), nothing drawn when n <= 1."""
    cdef int width
    cdef uint64_t top
    cdef u128 r
    if n <= 1:
        return 0
    if xs_hi(n) == 0:
        return below64(s, xs_lo(n))
    width = xs_width(n - 1)
    if width <= 64:  # n == 2**64: one whole word
        return next64(s)
    while True:
        top = next64(s)  # the high word first, as Python joins them
        r = xs_shr(xs_join(top, next64(s)), 128 - width)
        if r < n:
            return r


cdef inline double unit(uint64_t* s) noexcept nogil:
    """Stream.random."""
    return <double>(next64(s) >> 11) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------- programme


cdef inline bint next_split(int* ks, const int* lim, int d, int n) noexcept nogil:
    """The split after ``ks`` in sampler._splits' order (the last seat counts fastest)."""
    cdef int j, i, pre
    for j in range(d - 1, -1, -1):
        pre = 0
        for i in range(j + 1):
            pre += ks[i]
        if ks[j] < lim[j] and pre < n:
            ks[j] += 1
            for i in range(j + 1, d):
                ks[i] = 0
            return True
    return False


cdef inline int multinomial(int n, const int* ks, int d, u128* out) noexcept nogil:
    """n! / ((n - sum ks)! * prod ks!) as a product of binomials; S_BEYOND on overflow."""
    cdef u128 v = 1
    cdef int j
    for j in range(d):
        if ks[j] > n:
            out[0] = 0
            return S_OK
        if xs_mul(v, BINOM[n][ks[j]], &v):
            return S_BEYOND
        n -= ks[j]
    out[0] = v
    return S_OK


cdef class Plan:
    """``DealSampler``'s programme over ``types`` (card indices, in its order) with the
    seat masks ``masks``, for hidden hands of ``sizes``; ``full`` is the mask of every
    seat (the last type with it is counted in closed form). ``status``: EXACT,
    TOO_MUCH_WORK or BEYOND. ``seed``: the Stream's."""

    cdef readonly int status
    cdef int m, ntypes, full_last, work, max_work, root
    cdef int sizes[MAXS]
    cdef int rest[NCARDS + 1]
    cdef int tstart[NCARDS + 1]
    cdef int cards[NCARDS]
    cdef int tns[NCARDS]
    cdef int tseat[NCARDS][MAXS]
    cdef uint64_t state
    cdef u128 total
    # nodes: a type opened with some room, its allocations contiguous in the arrays below
    cdef int nn, ncap
    cdef u128* ntotal
    cdef int* nfirst
    cdef int* ncount
    # allocations: cumulative weight, cards per seat of the type, room after, next node
    cdef int na, acap
    cdef u128* acum
    cdef uint8_t* asplit
    cdef uint64_t* aafter
    cdef int* anext
    # (type, room) -> node, open addressing
    cdef int hbits, hused
    cdef uint64_t* hkey
    cdef int* hval

    def __cinit__(self, list types, masks, sizes, int full, seed, int max_work):
        cdef int t, i, j, x, pos = 0, rc
        cdef uint64_t seen_lo = 0, seen_hi = 0, bit
        cdef int nodeid = -1
        cdef u128 value = 0
        self.ntotal = NULL
        self.acum = NULL
        self.hkey = NULL
        self.status = EXACT
        self.state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.m = len(sizes)
        self.ntypes = len(types)
        self.max_work = max_work
        self.work = 0
        self.root = -1
        if len(masks) != self.ntypes:
            raise ValueError("a mask for each type of card")
        if self.m > MAXS or any(not 0 <= s <= MAXCAP for s in sizes):
            self.status = BEYOND
            return
        if self.ntypes > NCARDS:
            raise ValueError(f"at most {NCARDS} types of card")
        for i in range(self.m):
            self.sizes[i] = sizes[i]
        for t in range(self.ntypes):
            self.tstart[t] = pos
            for x in types[t]:
                if not 0 <= x < NCARDS or pos >= NCARDS:
                    raise ValueError(f"card indices are 0 to {NCARDS - 1}, each once")
                bit = (<uint64_t>1) << (x & 63)
                if (seen_lo if x < 64 else seen_hi) & bit:
                    raise ValueError(f"card indices are 0 to {NCARDS - 1}, each once")
                if x < 64:
                    seen_lo |= bit
                else:
                    seen_hi |= bit
                self.cards[pos] = x
                pos += 1
            mk = masks[t]
            if not 0 <= mk <= full or full >= 1 << self.m:
                raise ValueError("a type's mask names hidden seats only")
            self.tns[t] = 0
            for i in range(self.m):
                if mk >> i & 1:
                    self.tseat[t][self.tns[t]] = i
                    self.tns[t] += 1
        self.tstart[self.ntypes] = pos
        self.rest[self.ntypes] = 0
        for t in range(self.ntypes - 1, -1, -1):
            self.rest[t] = self.rest[t + 1] + self.tstart[t + 1] - self.tstart[t]
        self.full_last = self.ntypes > 0 and masks[self.ntypes - 1] == full
        self.ncap = self.acap = 64
        self.hbits = 7
        self.ntotal = <u128*>malloc(self.ncap * sizeof(u128))
        self.nfirst = <int*>malloc(self.ncap * sizeof(int))
        self.ncount = <int*>malloc(self.ncap * sizeof(int))
        self.acum = <u128*>malloc(self.acap * sizeof(u128))
        self.asplit = <uint8_t*>malloc(self.acap * MAXS)
        self.aafter = <uint64_t*>malloc(self.acap * sizeof(uint64_t))
        self.anext = <int*>malloc(self.acap * sizeof(int))
        self.hkey = <uint64_t*>malloc((1 << self.hbits) * sizeof(uint64_t))
        self.hval = <int*>malloc((1 << self.hbits) * sizeof(int))
        if (not self.ntotal or not self.nfirst or not self.ncount or not self.acum
                or not self.asplit or not self.aafter or not self.anext or not self.hkey
                or not self.hval):
            raise MemoryError()
        for i in range(1 << self.hbits):
            self.hval[i] = -1
        rc = self.tally(0, self.sizes, &value, &nodeid)
        if rc == S_NOMEM:
            raise MemoryError()
        if rc == S_WORK:
            self.status = TOO_MUCH_WORK
        elif rc == S_BEYOND:
            self.status = BEYOND
        else:
            self.total = value
            self.root = nodeid

    def __dealloc__(self):
        if self.ntotal != NULL:
            free(self.ntotal)
            free(self.nfirst)
            free(self.ncount)
        if self.acum != NULL:
            free(self.acum)
            free(self.asplit)
            free(self.aafter)
            free(self.anext)
        if self.hkey != NULL:
            free(self.hkey)
            free(self.hval)

    def count(self) -> int:
        """How many consistent deals there are (hands only), as DealSampler.count."""
        if self.status != EXACT:
            raise ValueError("the programme was not counted")
        return (<object>xs_hi(self.total) << 64) | <object>xs_lo(self.total)

    # -- the table of nodes
    cdef inline uint64_t key(self, int t, const int* caps) noexcept nogil:
        cdef uint64_t k = <uint64_t>t
        cdef int i
        for i in range(self.m):
            k = (k << CAPBITS) | <uint64_t>caps[i]
        return k

    cdef inline int slot(self, uint64_t k) noexcept nogil:
        cdef uint64_t mask = ((<uint64_t>1) << self.hbits) - 1
        cdef uint64_t h = ((k + 1) * <uint64_t>0x9E3779B97F4A7C15) >> (64 - self.hbits)
        while self.hval[h] >= 0 and self.hkey[h] != k:
            h = (h + 1) & mask
        return <int>h

    cdef int remember(self, uint64_t k, int node) noexcept nogil:
        cdef int old = 1 << self.hbits, i, h
        cdef uint64_t* keys
        cdef int* vals
        if 2 * (self.hused + 1) > old:
            keys, vals = self.hkey, self.hval
            self.hkey = <uint64_t*>malloc(2 * old * sizeof(uint64_t))
            self.hval = <int*>malloc(2 * old * sizeof(int))
            if not self.hkey or not self.hval:
                free(self.hkey)
                free(self.hval)
                self.hkey, self.hval = keys, vals
                return S_NOMEM
            self.hbits += 1
            for i in range(2 * old):
                self.hval[i] = -1
            for i in range(old):
                if vals[i] >= 0:
                    h = self.slot(keys[i])
                    self.hkey[h] = keys[i]
                    self.hval[h] = vals[i]
            free(keys)
            free(vals)
        h = self.slot(k)
        self.hkey[h] = k
        self.hval[h] = node
        self.hused += 1
        return S_OK

    cdef int grow(self, void** p, int size, int count) noexcept nogil:
        cdef void* q = realloc(p[0], <size_t>size * count)
        if q == NULL:
            return S_NOMEM
        p[0] = q
        return S_OK

    # -- counting (sampler.DealSampler._count and _expand)
    cdef int tally(self, int t, const int* caps, u128* out, int* node) noexcept nogil:
        cdef int i, s = 0
        cdef uint64_t k
        cdef int h
        node[0] = -1
        for i in range(self.m):
            s += caps[i]
        if self.rest[t] - s < 0:
            out[0] = 0
            return S_OK
        if t == self.ntypes:
            out[0] = 1
            return S_OK
        if t == self.ntypes - 1 and self.full_last:
            return multinomial(self.rest[t], caps, self.m, out)
        k = self.key(t, caps)
        h = self.slot(k)
        if self.hval[h] >= 0:
            node[0] = self.hval[h]
            out[0] = self.ntotal[node[0]]
            return S_OK
        return self.expand(t, caps, k, out, node)

    cdef int expand(self, int t, const int* caps, uint64_t k, u128* out,
                    int* node) noexcept nogil:
        cdef int n = self.tstart[t + 1] - self.tstart[t], d = self.tns[t]
        cdef int ks[MAXS]
        cdef int lim[MAXS]
        cdef int after[MAXS]
        cdef int i, j, rc, child, first, pass_
        cdef u128 sub = 0, ways = 0, w = 0, total = 0
        for pass_ in range(2):
            # pass 0 counts every split's rest (the work counted as Python counts it);
            # pass 1 lays this node's allocations out, every rest now known
            for j in range(d):
                ks[j] = 0
                lim[j] = caps[self.tseat[t][j]]
            first = self.na
            while True:
                for i in range(self.m):
                    after[i] = caps[i]
                for j in range(d):
                    after[self.tseat[t][j]] -= ks[j]
                if pass_ == 0:
                    self.work += 1
                    if self.work > self.max_work:
                        return S_WORK
                rc = self.tally(t + 1, after, &sub, &child)
                if rc:
                    return rc
                if pass_ == 1 and sub != 0:
                    rc = multinomial(n, ks, d, &ways)
                    if rc:
                        return rc
                    if xs_mul(ways, sub, &w) or xs_add(total, w, &total):
                        return S_BEYOND
                    if self.na == self.acap:
                        self.acap *= 2
                        if (self.grow(<void**>&self.acum, sizeof(u128), self.acap)
                                or self.grow(<void**>&self.asplit, MAXS, self.acap)
                                or self.grow(<void**>&self.aafter, sizeof(uint64_t),
                                             self.acap)
                                or self.grow(<void**>&self.anext, sizeof(int), self.acap)):
                            return S_NOMEM
                    self.acum[self.na] = total
                    for j in range(d):
                        self.asplit[self.na * MAXS + j] = <uint8_t>ks[j]
                    self.aafter[self.na] = self.key(t + 1, after)
                    self.anext[self.na] = child
                    self.na += 1
                if not next_split(ks, lim, d, n):
                    break
        if self.nn == self.ncap:
            self.ncap *= 2
            if (self.grow(<void**>&self.ntotal, sizeof(u128), self.ncap)
                    or self.grow(<void**>&self.nfirst, sizeof(int), self.ncap)
                    or self.grow(<void**>&self.ncount, sizeof(int), self.ncap)):
                return S_NOMEM
        self.ntotal[self.nn] = total
        self.nfirst[self.nn] = first
        self.ncount[self.nn] = self.na - first
        node[0] = self.nn
        self.nn += 1
        out[0] = total
        return self.remember(k, node[0])

    # -- drawing (sampler.DealSampler._draw_exact)
    cdef void draw_into(self, uint64_t* lo, uint64_t* hi) noexcept nogil:
        cdef int caps[MAXS]
        cdef int split[MAXS]
        cdef int pool[NCARDS]
        cdef int t, i, j, q, a, b, c, n, k, d, pos, x, y, node = self.root
        cdef u128 r
        cdef uint64_t packed
        for i in range(self.m):
            caps[i] = self.sizes[i]
            lo[i] = hi[i] = 0
        for t in range(self.ntypes):
            d = self.tns[t]
            if t == self.ntypes - 1 and self.full_last:
                for j in range(d):
                    split[j] = caps[self.tseat[t][j]]
            else:
                r = below(&self.state, self.ntotal[node])
                a = self.nfirst[node]
                b = a + self.ncount[node] - 1
                while a < b:  # the first allocation whose cumulative weight exceeds r
                    c = (a + b) // 2
                    if self.acum[c] > r:
                        b = c
                    else:
                        a = c + 1
                for j in range(d):
                    split[j] = self.asplit[a * MAXS + j]
                packed = self.aafter[a]
                for i in range(self.m - 1, -1, -1):
                    caps[i] = <int>(packed & MAXCAP)
                    packed >>= CAPBITS
                node = self.anext[a]
            k = 0
            for j in range(d):
                k += split[j]
            if k == 0:
                continue
            n = self.tstart[t + 1] - self.tstart[t]
            for i in range(n):
                pool[i] = self.cards[self.tstart[t] + i]
            for i in range(k):
                q = i + <int>below64(&self.state, <uint64_t>(n - i)) if n - i > 1 else i
                y = pool[i]
                pool[i] = pool[q]
                pool[q] = y
            pos = 0
            for j in range(d):
                for q in range(split[j]):
                    x = pool[pos]
                    pos += 1
                    if x < 64:
                        lo[self.tseat[t][j]] |= (<uint64_t>1) << x
                    else:
                        hi[self.tseat[t][j]] |= (<uint64_t>1) << (x - 64)

    cdef list hands(self, const uint64_t* lo, const uint64_t* hi):
        cdef list out = []
        cdef list hand
        cdef int i
        cdef uint64_t w
        for i in range(self.m):
            hand = []
            w = lo[i]
            while w:
                hand.append(ctz64(w))
                w &= w - 1
            w = hi[i]
            while w:
                hand.append(64 + ctz64(w))
                w &= w - 1
            out.append(hand)
        return out

    def draw(self) -> list:
        """A deal: each hidden seat's hand as sorted card indices (DealSampler.draw)."""
        cdef uint64_t lo[MAXS]
        cdef uint64_t hi[MAXS]
        if self.status != EXACT:
            raise ValueError("the programme was not counted")
        self.draw_into(lo, hi)
        return self.hands(lo, hi)


cdef class Fit:
    """``DealSampler.fitting``'s rejection sampler over a counted :class:`Plan`."""

    cdef Plan plan
    cdef int n, tries
    cdef int seat[MAXS]
    cdef int start[MAXS]
    cdef int width[MAXS]
    cdef double odds[MAXS][64]
    cdef int score[NCARDS]

    def __cinit__(self, Plan plan, score, checks, int tries):
        cdef int i, j
        if plan.status != EXACT:
            raise ValueError("the programme was not counted")
        if len(score) != NCARDS:
            raise ValueError(f"a score for each of the {NCARDS} cards")
        if len(checks) > MAXS:
            raise ValueError(f"at most {MAXS} checks")
        self.plan = plan
        self.tries = tries
        self.n = len(checks)
        for i in range(NCARDS):
            self.score[i] = score[i]
        for j, (i, w, odds) in enumerate(checks):
            if not 0 <= i < plan.m or len(odds) > 64:
                raise ValueError("a check names a hidden seat, with at most 64 odds")
            self.seat[j] = i
            self.start[j] = w
            self.width[j] = len(odds)
            for i in range(len(odds)):
                self.odds[j][i] = odds[i]

    def __call__(self) -> list:
        cdef uint64_t lo[MAXS]
        cdef uint64_t hi[MAXS]
        cdef int attempt, j, s, x
        cdef double p
        cdef uint64_t w
        cdef Plan plan = self.plan
        plan.draw_into(lo, hi)
        for attempt in range(self.tries):
            p = 1.0
            for j in range(self.n):
                s = self.start[j]
                w = lo[self.seat[j]]
                while w:
                    s += self.score[ctz64(w)]
                    w &= w - 1
                w = hi[self.seat[j]]
                while w:
                    s += self.score[64 + ctz64(w)]
                    w &= w - 1
                if not 0 <= s < self.width[j]:
                    raise IndexError("a hand's score is past its odds")
                p *= self.odds[j][s]
            if unit(&plan.state) < p:
                break
            plan.draw_into(lo, hi)
        return plan.hands(lo, hi)
