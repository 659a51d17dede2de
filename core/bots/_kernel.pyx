# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The strong bot's rollouts and exact endgames, compiled (the search's hot loop).

Cython, because the simulator is bit twiddling over 81-card masks: in C an 81-bit mask is
two ``uint64_t`` words, ``__builtin_popcountll`` counts a call's cards in one instruction
each, and the loops run without a Python object per card, while the module still reads
as the Python it mirrors (``core/bots/simulator.py``: ``policy_py``, ``playout_py``,
``solve_py``, ``move_value_py``). Cython is a build-time tool only (no run-time dependency), is kept by a
large project and builds with the gcc and Python headers every install machine has.
The extension is optional: without it (or with ``XACTIKA_PURE=1``) the search runs
the pure-Python functions, and tests/test_kernel.py checks both give the same results.

The tables (card values, the calls each card shows, the cards showing each call, ...)
are handed over once by :func:`init` from simulator.py: there is one source of them.
"""

import random

from libc.stdint cimport uint64_t


cdef extern from *:
    """
    static int xk_cpu_ok(void) {
    #if defined(__POPCNT__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt");
    #else
        return 1;
    #endif
    }
    """
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil
    int clz64 "__builtin_clzll"(unsigned long long) nogil
    int xk_cpu_ok() nogil


cdef enum:
    NCARDS = 81
    NCALLS = 12
    MAXP = 10
    MODE_WIN = 0
    MODE_LOSE = 1
    MODE_BID = 2


cdef uint64_t LO_ALL = 0xFFFFFFFFFFFFFFFF
cdef uint64_t HI_ALL = (1 << (NCARDS - 64)) - 1
cdef int VAL[NCARDS]
cdef int SHOW[NCARDS]
cdef int NCOF[NCARDS]
cdef int COF[NCARDS][NCALLS]
cdef int AKEY[NCALLS]
cdef uint64_t GE_LO[NCARDS]
cdef uint64_t GE_HI[NCARDS]
cdef uint64_t CM_LO[NCALLS]
cdef uint64_t CM_HI[NCALLS]
cdef bint READY = False


def init(val, show, calls_of, cmask, ge, akey) -> None:
    """Take simulator.py's tables (over card indices, in its order)."""
    global READY
    cdef int i, t
    if not xk_cpu_ok():
        raise RuntimeError("the kernel was built for CPUs with popcnt, and this one has none")
    if len(val) != NCARDS or len(cmask) != NCALLS:
        raise ValueError("the kernel is built for 81 cards and 12 calls")
    for i in range(NCARDS):
        VAL[i] = val[i]
        SHOW[i] = show[i]
        NCOF[i] = len(calls_of[i])
        for t in range(NCOF[i]):
            COF[i][t] = calls_of[i][t]
        GE_LO[i] = ge[i] & LO_ALL
        GE_HI[i] = ge[i] >> 64
    for i in range(NCALLS):
        CM_LO[i] = cmask[i] & LO_ALL
        CM_HI[i] = cmask[i] >> 64
        AKEY[i] = akey[i]
    READY = True


cdef inline int pc(uint64_t lo, uint64_t hi) noexcept nogil:
    return popcount64(lo) + popcount64(hi)


cdef int c_policy(int p, const int* hand, int hn, uint64_t ulo, uint64_t uhi,
                  const int* voids, int n, int count, int call, int best_v, bint want,
                  int* k_out) noexcept nogil:
    """simulator.policy_py over a C hand; ``ulo``/``uhi`` the unseen cards; -1 for no card."""
    cdef int i, t, k, x, kb, kk, b, key, okey, bestkey, c, av, s, st, nf, nw, nl
    cdef uint64_t glo, ghi, cmlo, cmhi
    cdef int follows[NCARDS]
    cdef bint allvoid, last
    k_out[0] = -1
    if count == 0:
        av = 0xFFF
        for s in range(n):
            if s != p:
                av &= voids[s]
        bestkey = -1
        c = -1
        for i in range(hn):
            x = hand[i]
            glo = ulo & GE_LO[x]
            ghi = uhi & GE_HI[x]
            if want:
                kb = 1 << 30
                for t in range(NCOF[x]):
                    k = COF[x][t]
                    key = pc(glo & CM_LO[k], ghi & CM_HI[k]) * 16 + k
                    if key < kb:
                        kb = key
                kk = kb & 15
                b = 0 if (av >> kk) & 1 else kb >> 4
                okey = (1 << 20) - (b * 32 + 12 - VAL[x])
            else:
                kb = -1
                kk = -1
                for t in range(NCOF[x]):
                    k = COF[x][t]
                    key = pc(glo & CM_LO[k], ghi & CM_HI[k]) * 64 + AKEY[k]
                    if key > kb:
                        kb = key
                        kk = k
                b = 0 if (av >> kk) & 1 else kb >> 6
                okey = b * 32 + 12 - VAL[x]
            if okey > bestkey:
                bestkey = okey
                c = x
                k_out[0] = kk
        return c
    nf = 0
    for i in range(hn):
        if (SHOW[hand[i]] >> call) & 1:
            follows[nf] = hand[i]
            nf += 1
    if nf == 0:
        bestkey = -1 if want else 1 << 30
        c = -1
        for i in range(hn):
            x = hand[i]
            glo = ulo & GE_LO[x]
            ghi = uhi & GE_HI[x]
            st = 1 << 30
            for t in range(NCOF[x]):
                k = COF[x][t]
                key = pc(glo & CM_LO[k], ghi & CM_HI[k])
                if key < st:
                    st = key
            key = st * 32 + 12 - VAL[x]
            if (key > bestkey) if want else (key < bestkey):
                bestkey = key
                c = x
        return c
    last = count == n - 1
    if want:
        nw = 0
        for i in range(nf):  # the winners, packed in order at the front of follows
            if VAL[follows[i]] >= best_v:
                follows[nw] = follows[i]
                nw += 1
        if nw == 0:
            return follows[0]
        allvoid = True
        for i in range(1, n - count):
            if not (voids[(p + i) % n] >> call) & 1:
                allvoid = False
                break
        if last or allvoid:
            return follows[0]
        cmlo = CM_LO[call] & ulo
        cmhi = CM_HI[call] & uhi
        for i in range(nw):
            x = follows[i]
            if not (cmlo & GE_LO[x]) and not (cmhi & GE_HI[x]):
                return x
        return follows[nw - 1]
    nl = -1
    for i in range(nf):
        if VAL[follows[i]] < best_v:
            nl = i
    if nl >= 0:
        return follows[nl]
    if last:
        return follows[nf - 1]
    return follows[0]


cdef inline void split(object m, uint64_t* lo, uint64_t* hi):
    lo[0] = m & LO_ALL
    hi[0] = m >> 64


cdef int load_hands(list hands, int n, int (*arr)[NCARDS], int* hn, uint64_t* mlo,
                    uint64_t* mhi) except -1:
    cdef int q, i, x
    cdef list h
    for q in range(n):
        h = <list?>hands[q]
        if len(h) > NCARDS:
            raise ValueError("a hand of more than 81 cards")
        hn[q] = len(h)
        mlo[q] = 0
        mhi[q] = 0
        i = 0
        for x in h:
            if not 0 <= x < NCARDS:
                raise ValueError(f"no card has the index {x}")
            arr[q][i] = x
            i += 1
            if x < 64:
                mlo[q] |= (<uint64_t>1) << x
            else:
                mhi[q] |= (<uint64_t>1) << (x - 64)
    return 0


def policy(int p, hand, hmask, played, voids, int n, int count, int call, int best_v,
           bint want) -> tuple:
    """simulator.policy_py, compiled."""
    if not READY:
        raise RuntimeError("the kernel's tables are not set (init)")
    if not 0 < n <= MAXP or len(voids) < n or not 0 <= p < n:
        raise ValueError(f"the kernel plays 1 to {MAXP} seats")
    if count > 0 and not 0 <= call < NCALLS:
        raise ValueError("a trick in progress needs its call (0 to 11)")
    cdef int h[NCARDS]
    cdef int vo[MAXP]
    cdef int hn = 0, k, c, i
    cdef uint64_t mlo, mhi, plo, phi
    for x in hand:
        if hn >= NCARDS or not 0 <= x < NCARDS:
            raise ValueError("a hand is card indices 0 to 80")
        h[hn] = x
        hn += 1
    for i in range(n):
        vo[i] = voids[i]
    split(hmask, &mlo, &mhi)
    split(played, &plo, &phi)
    c = c_policy(p, h, hn, LO_ALL & ~(mlo | plo), HI_ALL & ~(mhi | phi), vo, n, count, call,
                 best_v, want, &k)
    return c, k


cdef int check(int n, int to_act, int call, int winner, int count) except -1:
    """The indices the C loops trust: a bad one is a ValueError, never a stray read."""
    if not (0 <= to_act < n and 0 <= winner < n and 0 <= count < n):
        raise ValueError("a seat or trick position out of range")
    if count > 0 and not 0 <= call < NCALLS:
        raise ValueError("a trick in progress needs its call (0 to 11)")
    return 0


cdef struct Sim:
    int n
    int mode
    int arr[MAXP][NCARDS]
    int hn[MAXP]
    uint64_t mlo[MAXP]
    uint64_t mhi[MAXP]
    int taken[MAXP]
    int bids[MAXP]
    int voids[MAXP]
    uint64_t plo
    uint64_t phi


cdef int load(Sim* s, list hands, taken, bids, int mode, played, voids) except -1:
    """A round from playout_py's arguments (nothing of them mutated)."""
    cdef int n = len(hands), q
    if not 1 < n <= MAXP or len(taken) < n or len(bids) < n or (
            voids is not None and len(voids) < n):
        raise ValueError(f"the kernel plays 2 to {MAXP} seats")
    s.n = n
    s.mode = mode
    load_hands(hands, n, s.arr, s.hn, s.mlo, s.mhi)
    for q in range(n):
        s.taken[q] = taken[q]
        s.bids[q] = bids[q]
        s.voids[q] = voids[q] if voids is not None else 0
    split(played, &s.plo, &s.phi)
    return 0


cdef inline void take(Sim* s, int p, int c) noexcept nogil:
    """Seat ``p`` gives up card ``c`` (which it holds)."""
    cdef int i = 0
    while s.arr[p][i] != c:
        i += 1
    while i + 1 < s.hn[p]:
        s.arr[p][i] = s.arr[p][i + 1]
        i += 1
    s.hn[p] -= 1
    if c < 64:
        s.mlo[p] ^= (<uint64_t>1) << c
        s.plo |= (<uint64_t>1) << c
    else:
        s.mhi[p] ^= (<uint64_t>1) << (c - 64)
        s.phi |= (<uint64_t>1) << (c - 64)


cdef int run(Sim* s, int to_act, int call, int best_v, int winner, int count,
             int (*lg)[3], int* nlog) noexcept nogil:
    """playout_py's loop; every play logged when ``lg``; -1: a seat had no card."""
    cdef int n = s.n, p, c, k
    cdef bint want
    while True:
        p = to_act
        if count == 0 and s.hn[p] == 0:
            return 0
        want = s.mode == MODE_WIN or (s.mode == MODE_BID and s.taken[p] < s.bids[p])
        c = c_policy(p, s.arr[p], s.hn[p], LO_ALL & ~(s.mlo[p] | s.plo),
                     HI_ALL & ~(s.mhi[p] | s.phi), s.voids, n, count, call, best_v, want, &k)
        if c < 0:
            return -1
        if count == 0:
            call = k
            best_v = VAL[c]
            winner = p
        elif (SHOW[c] >> call) & 1:
            if VAL[c] >= best_v:
                best_v = VAL[c]
                winner = p
        else:
            s.voids[p] |= 1 << call
        if lg != NULL and nlog[0] < NCARDS:
            lg[nlog[0]][0] = p
            lg[nlog[0]][1] = c
            lg[nlog[0]][2] = k
            nlog[0] += 1
        take(s, p, c)
        count += 1
        if count == n:
            s.taken[winner] += 1
            to_act = winner
            count = 0
        else:
            to_act = (to_act + 1) % n


def playout(list hands, int to_act, int call, int best_v, int winner, int count,
            list taken, bids, int mode, played, list voids, list log=None) -> list:
    """simulator.playout_py, compiled: the same arguments, mutations and result."""
    if not READY:
        raise RuntimeError("the kernel's tables are not set (init)")
    cdef Sim s
    cdef int lg[NCARDS][3]
    cdef int nlog = 0, q, i, rc
    cdef list h
    load(&s, hands, taken, bids, mode, played, voids)
    check(s.n, to_act, call, winner, count)
    rc = run(&s, to_act, call, best_v, winner, count, lg if log is not None else NULL, &nlog)
    for q in range(s.n):
        taken[q] = s.taken[q]
        voids[q] = s.voids[q]
        h = <list>hands[q]
        if s.hn[q] == 0:
            del h[:]
        else:
            h[:] = [s.arr[q][i] for i in range(s.hn[q])]
    if log is not None:
        for i in range(nlog):
            log.append((lg[i][0], lg[i][1], lg[i][2]))
    if rc < 0:
        raise ValueError("a seat has no card to play")
    return taken


def move_value(list hands, int seat, int c, int k, taken, voids, int count, int call,
               int best_v, int winner, played, bids, int mode, bint exact) -> int:
    """simulator.move_value_py, compiled."""
    if not READY:
        raise RuntimeError("the kernel's tables are not set (init)")
    cdef Sim s
    cdef Pos pos
    cdef int res[MAXP]
    cdef int n, q, to_act, cards = 0
    load(&s, hands, taken, bids, mode, played, voids)
    n = s.n
    check(n, seat, call, winner, count)
    if not 0 <= seat < n or not 0 <= c < NCARDS or not (
            (s.mlo[seat] >> c) & 1 if c < 64 else (s.mhi[seat] >> (c - 64)) & 1):
        raise ValueError("the seat does not hold the card")
    if count == 0:
        call, best_v, winner = k, VAL[c], seat
    elif not (SHOW[c] >> call) & 1:
        s.voids[seat] |= 1 << call
    elif VAL[c] >= best_v:
        best_v, winner = VAL[c], seat
    take(&s, seat, c)
    count += 1
    if count == n:
        s.taken[winner] += 1
        to_act, call, best_v, count = winner, -1, -1, 0
    else:
        to_act = (seat + 1) % n
    if exact:
        pos.n = n
        pos.mode = mode
        pos.nodes = 0
        for q in range(n):
            pos.hlo[q] = s.mlo[q]
            pos.hhi[q] = s.mhi[q]
            pos.taken[q] = s.taken[q]
            pos.bids[q] = s.bids[q]
            cards += s.hn[q]
        pos.left = (cards + count + n - 1) // n
        solve_rec(&pos, to_act, call, best_v, winner, count, res)
        return points(mode, s.bids[seat], res[seat])
    if run(&s, to_act, call, best_v, winner, count, NULL, NULL) < 0:
        raise ValueError("a seat has no card to play")
    return points(mode, s.bids[seat], s.taken[seat])


# --------------------------------------------------------------------------- endgames

cdef struct Pos:
    int n
    int mode
    uint64_t hlo[MAXP]
    uint64_t hhi[MAXP]
    int taken[MAXP]
    int bids[MAXP]
    int left   # tricks still to take, the current one included
    long nodes


cdef inline int points(int mode, int bid, int t) noexcept nogil:
    if mode == MODE_WIN:
        return t
    if mode == MODE_LOSE:
        return -t
    if bid == t:
        return t
    return -(bid - t if bid > t else t - bid)


cdef inline int ceiling(Pos* s, int p) noexcept nogil:
    """The most ``p`` can still score: a move reaching it needs no rival."""
    cdef int t = s.taken[p]
    cdef int b = s.bids[p]
    if s.mode == MODE_WIN:
        return t + s.left
    if s.mode == MODE_LOSE:
        return -t
    if b < t:
        return b - t
    if b <= t + s.left:
        return b
    return -(b - t - s.left)


cdef void solve_rec(Pos* s, int to_act, int call, int best_v, int winner, int count,
                    int* res) noexcept nogil:
    """Every line of play from here, each seat maximising its own points (max^n);
    ``res`` gets the tricks each seat ends with. Ties go to the first move in card order.
    """
    cdef int p = to_act, n = s.n, q, x, t, k, j, v, bestv, top, nb, nw
    cdef uint64_t lo = s.hlo[p], hi = s.hhi[p], flo, fhi, olo = 0, ohi = 0, bit
    cdef uint64_t seen_lo[NCALLS]
    cdef uint64_t seen_hi[NCALLS]
    cdef int tmp[MAXP]
    cdef int nseen
    cdef bint dup
    s.nodes += 1
    if count == 0 and lo == 0 and hi == 0:
        for q in range(n):
            res[q] = s.taken[q]
        return
    top = ceiling(s, p)
    bestv = -(1 << 30)
    if count == 0:
        for q in range(n):
            if q != p:
                olo |= s.hlo[q]
                ohi |= s.hhi[q]
        flo, fhi = lo, hi
    else:
        flo = lo & CM_LO[call]
        fhi = hi & CM_HI[call]
        if flo == 0 and fhi == 0:
            flo, fhi = lo, hi
    while flo or fhi:
        if flo:
            x = ctz64(flo)
            bit = (<uint64_t>1) << x
            flo ^= bit
            s.hlo[p] ^= bit
        else:
            x = ctz64(fhi)
            bit = (<uint64_t>1) << x
            fhi ^= bit
            s.hhi[p] ^= bit
            x += 64
        if count == 0:
            nseen = 0
            for t in range(NCOF[x]):
                k = COF[x][t]
                # calls that the same cards of the other hands show play the same
                dup = False
                for j in range(nseen):
                    if seen_lo[j] == (CM_LO[k] & olo) and seen_hi[j] == (CM_HI[k] & ohi):
                        dup = True
                        break
                if dup:
                    continue
                seen_lo[nseen] = CM_LO[k] & olo
                seen_hi[nseen] = CM_HI[k] & ohi
                nseen += 1
                solve_rec(s, (p + 1) % n, k, VAL[x], p, 1, tmp)
                v = points(s.mode, s.bids[p], tmp[p])
                if v > bestv:
                    bestv = v
                    for q in range(n):
                        res[q] = tmp[q]
                    if v >= top:
                        break
        else:
            nb, nw = best_v, winner
            if (SHOW[x] >> call) & 1 and VAL[x] >= best_v:
                nb, nw = VAL[x], p
            if count + 1 == n:
                s.taken[nw] += 1
                s.left -= 1
                solve_rec(s, nw, -1, -1, nw, 0, tmp)
                s.left += 1
                s.taken[nw] -= 1
            else:
                solve_rec(s, (p + 1) % n, call, nb, nw, count + 1, tmp)
            v = points(s.mode, s.bids[p], tmp[p])
            if v > bestv:
                bestv = v
                for q in range(n):
                    res[q] = tmp[q]
        if x < 64:
            s.hlo[p] ^= bit
        else:
            s.hhi[p] ^= bit
        if bestv >= top:
            break


def solve(list hands, int to_act, int call, int best_v, int winner, int count,
          list taken, bids, int mode) -> tuple:
    """simulator.solve_py, compiled: (the tricks each seat ends with, positions searched)."""
    if not READY:
        raise RuntimeError("the kernel's tables are not set (init)")
    cdef int n = len(hands)
    if not 1 < n <= MAXP or len(taken) < n or len(bids) < n:
        raise ValueError(f"the kernel plays 2 to {MAXP} seats")
    cdef Pos s
    cdef int arr[MAXP][NCARDS]
    cdef int hn[MAXP]
    cdef int res[MAXP]
    cdef int q, cards = 0
    check(n, to_act, call, winner, count)
    load_hands(hands, n, arr, hn, s.hlo, s.hhi)
    s.n = n
    s.mode = mode
    s.nodes = 0
    for q in range(n):
        s.taken[q] = taken[q]
        s.bids[q] = bids[q]
        cards += hn[q]
    s.left = (cards + count + n - 1) // n
    with nogil:
        solve_rec(&s, to_act, call, best_v, winner, count, res)
    return [res[q] for q in range(n)], s.nodes


# --------------------------------------------------------------------------- deals

cdef extern from "math.h":
    double log(double) nogil
    double ceil(double) nogil


cdef inline int width_of(Py_ssize_t n) noexcept nogil:
    """int.bit_length for 0 < n."""
    return 64 - clz64(<unsigned long long>n)


cdef inline Py_ssize_t below(object bits, Py_ssize_t n, int width) except -1:
    """random.Random._randbelow_with_getrandbits: the same draws from the same stream."""
    cdef Py_ssize_t r = bits(width)
    while r >= n:
        r = bits(width)
    return r


def sample(rng, list population, Py_ssize_t k) -> list:
    """``rng.sample(population, k)`` for a plain ``random.Random``: the same result and
    the same state after it (CPython's algorithm, over ``getrandbits``), without its
    per-draw Python overhead. The deal sampler's hot call (core/bots/sampler.py)."""
    cdef Py_ssize_t n = len(population), i, j, setsize = 21
    if type(rng) is not random.Random:  # a subclass may draw otherwise
        return rng.sample(population, k)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    bits = rng.getrandbits
    cdef list result = [None] * k
    cdef list pool
    cdef set selected
    if k > 5:
        setsize += <Py_ssize_t>(4 ** ceil(log(k * 3) / log(4)))
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = below(bits, n - i, width_of(n - i))
            result[i] = pool[j]
            pool[j] = pool[n - i - 1]
    else:
        selected = set()
        for i in range(k):
            j = below(bits, n, width_of(n))
            while j in selected:
                j = below(bits, n, width_of(n))
            selected.add(j)
            result[i] = population[j]
    return result
