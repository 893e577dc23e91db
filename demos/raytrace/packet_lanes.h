/* SPDX-License-Identifier: BSD-3-Clause */
/* packet_lanes.h - the raytracer's packet path, written once for any
 * vector width: kLanes samples of one pixel traced together, one per lane.
 * packet.cpp includes it inside a namespace per width (AVX-512: 16 lanes;
 * AVX2: 8), after defining there the vector types vf (floats), vi (ints,
 * masks -1 or 0), vq (64-bit lanes, half as many), vh (ints, half as many),
 * kLanes, and splat, splati, any, vsqrt, vceil, gather, concat, lane_index
 * and half_index. Every lane does the per-ray path's operations in the same
 * order, with selects where that path branches (packet.cpp says why the
 * image is the same). Not a header of its own: no include guard. */

/* kLanes points or directions; the operations of card.h's V, lane by lane. */
struct P {
    vf x, y, z;
};
inline P pk(vf x, vf y, vf z) { return P{x, y, z}; }
inline P pk(V v) { return P{splat(v.x), splat(v.y), splat(v.z)}; }
inline P add(P a, P b) { return pk(a.x + b.x, a.y + b.y, a.z + b.z); }
inline P mul(P a, vf s) { return pk(a.x * s, a.y * s, a.z * s); }
inline vf dot(P a, P b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline P unit(P a) { return mul(a, 1.0f / vsqrt(dot(a, a))); }
inline P select(vi m, P a, P b) { return pk(m ? a.x : b.x, m ? a.y : b.y, m ? a.z : b.z); }

/* card.h's rnd for the lanes: base0/base1 hold the first and second half. */
inline vf rnd(const vq &base0, const vq &base1, unsigned &draw)
{
    const uint64_t offset = (uint64_t)(draw++) + 0x9E3779B97F4A7C15ull;
    vq x0 = base0 + offset, x1 = base1 + offset;
    x0 = (x0 ^ (x0 >> 30)) * 0xBF58476D1CE4E5B9ull;
    x1 = (x1 ^ (x1 >> 30)) * 0xBF58476D1CE4E5B9ull;
    x0 = (x0 ^ (x0 >> 27)) * 0x94D049BB133111EBull;
    x1 = (x1 ^ (x1 >> 27)) * 0x94D049BB133111EBull;
    x0 ^= x0 >> 31;
    x1 ^= x1 >> 31;
    /* x >> 40 < 2^24: exact as int32 and as float */
    vh lo = __builtin_convertvector(x0 >> 40, vh), hi = __builtin_convertvector(x1 >> 40, vh);
    return __builtin_convertvector(concat(lo, hi), vf) * (1.0f / 16777216.0f);
}

/* One axis of raytrace.cu's box_span for the lanes; ok drops lanes that miss. */
inline void slab(vf oo, vf dd, float lo, float hi, vf &t0, vf &t1, vi &ok)
{
    const vi flat = dd == 0.f;
    ok &= ~(flat & ((oo < lo) | (oo > hi)));
    vf inv = 1.f / dd, ta = (lo - oo) * inv, tb = (hi - oo) * inv;
    const vi swap = ta > tb;
    const vf a = swap ? tb : ta, b = swap ? ta : tb;
    t0 = flat ? t0 : (a > t0 ? a : t0);
    t1 = flat ? t1 : (b < t1 ? b : t1);
    ok &= ~(t0 > t1);
}

/* raytrace.cu's trace for the lanes in act: 0 sky, 1 floor, 2 sphere.
 * ANY (shadow rays): only whether it is non-zero. */
template <bool ANY>
vi trace(P o, P d, vi act, vf &t, P &n, const Spheres &sp)
{
    const vf p = -o.z / d.z;
    const vi floor = act & (.01f < p);
    vi m = floor ? splati(1) : splati(0);
    t = floor ? p : splat(1e9f);
    n = pk(splat(0.f), splat(0.f), splat(1.f));
    vi live = ANY ? act & ~floor : act;
    if (!any(live)) return m;

    /* the culls: bounding sphere, box, and a floor hit before the box */
    const P q = pk(o.x - kBoundX, o.y, o.z - kBoundZ);
    const vf qb = dot(q, d), qc = dot(q, q) - kBoundR2;
    live &= (qc <= 0.f) | ((qb < 0.f) & (qb * qb - qc > 0.f));
    if (!any(live)) return m;
    vf t0 = splat(0.f), t1 = splat(1e30f);
    slab(o.x, d.x, kBoxLoX, kBoxHiX, t0, t1, live);
    slab(o.y, d.y, kBoxLoY, kBoxHiY, t0, t1, live);
    slab(o.z, d.z, kBoxLoZ, kBoxHiZ, t0, t1, live);
    live &= ~(t0 > t);
    if (!any(live)) return m;

    /* the x and z each lane reaches inside the box, for the group cull */
    vf xa = o.x + d.x * t0, xb = o.x + d.x * t1, za = o.z + d.z * t0, zb = o.z + d.z * t1;
    const vi sx = xa > xb, sz = za > zb;
    const vf xlo = sx ? xb : xa, xhi = sx ? xa : xb, zlo = sz ? zb : za, zhi = sz ? za : zb;
    vi best = splati(-1), hit = splati(0);
    for (int g = 0; 8 * g < sp.n; g++) {
        const vi gm = live & ~((xhi < sp.gx0[g]) | (xlo > sp.gx1[g]) | (zhi < sp.gz0[g]) | (zlo > sp.gz1[g]));
        if (!any(gm)) continue;
        for (int i = 8 * g; i < 8 * g + 8 && i < sp.n; i++) {
            const vf px = o.x - sp.x[i], py = o.y, pz = o.z - sp.z[i];
            const vf b = px * d.x + py * d.y + pz * d.z;
            const vf c = px * px + py * py + pz * pz - 1.f;
            const vf qq = b * b - c;
            const vi pos = qq > 0.f;
            const vf s = pos ? -b - vsqrt(pos ? qq : splat(0.f)) : splat(1e30f);
            const vi win = gm & (s < t) & (s > .01f);
            if (ANY) {
                hit |= win;
            } else {
                t = win ? s : t;
                best = win ? splati(i) : best;
            }
        }
    }
    if (ANY) return m | hit;
    const vi sphere = best >= 0;
    if (any(sphere)) {
        const vi idx = sphere ? best : splati(0);
        const vf cx = gather(sp.x, idx), cz = gather(sp.z, idx);
        n = select(sphere, unit(add(pk(o.x - cx, o.y, o.z - cz), mul(d, t))), n);
        m = sphere ? splati(2) : m;
    }
    return m;
}

inline vf pow99(vf x)
{
    vf x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8, x32 = x16 * x16, x64 = x32 * x32;
    return x64 * x32 * x2 * x;
}

/* raytrace.cu's shade for the lanes in act. */
P shade(P o, P d, vi act, const vq &base0, const vq &base1, unsigned draw, const Spheres &sp)
{
    P sum = pk(splat(0.f), splat(0.f), splat(0.f));
    vf w = splat(1.f);
    vi live = act;
    for (int depth = 0; depth < 32 && any(live); depth++) {
        vf t;
        P n;
        const vi m = trace<false>(o, d, live, t, n, sp);
        const vi sky = live & (m == 0);
        if (any(sky)) {
            const vf k = 1.f - d.z, k2 = k * k;
            sum = select(sky, add(sum, mul(pk(mk(.7f, .6f, 1.f)), w * (k2 * k2))), sum);
            live &= ~sky;
            if (!any(live)) break;
        }
        const P h = add(o, mul(d, t));
        const vf lx = 9.f + rnd(base0, base1, draw), ly = 9.f + rnd(base0, base1, draw);
        const P l = unit(add(pk(lx, ly, splat(16.f)), mul(h, splat(-1.f))));
        vf b = dot(l, n), ts;
        P ns;
        const vi below = b < 0.f;
        const vi shadow = trace<true>(h, l, live & ~below, ts, ns, sp);
        b = (below | (shadow != 0)) ? splat(0.f) : b;
        const vi floor = live & (m == 1);
        if (any(floor)) {
            const P g = mul(h, splat(.2f));
            const vi red = (__builtin_convertvector(vceil(g.x) + vceil(g.y), vi) & 1) != 0;
            const P col = pk(splat(3.f), red ? splat(1.f) : splat(3.f), red ? splat(1.f) : splat(3.f));
            sum = select(floor, add(sum, mul(col, w * (b * .2f + .1f))), sum);
            live &= ~floor;
            if (!any(live)) break;
        }
        const P r = add(d, mul(n, dot(n, d) * -2.f));
        const vf p = pow99(dot(l, r) * (b > 0.f ? splat(1.f) : splat(0.f)));
        sum = select(live, add(sum, mul(pk(p, p, p), w)), sum);
        w *= .5f;
        o = h;
        d = r;
    }
    return sum;
}

void row(const Camera &k, const Spheres &sp, int size, int samples, int y, unsigned char *rgb)
{
    const vi lane = lane_index();
    const vq half = half_index();
    const float weight = 3.5f * 64.f / (float)samples;
    const P A = pk(k.a), B = pk(k.b), C = pk(k.c);
    for (int x = 0; x < size; x++) {
        const uint64_t id = (uint64_t)y * (uint64_t)size + (uint64_t)x;
        V acc = mk(13, 13, 13);
        for (int s0 = 0; s0 < samples; s0 += kLanes) {
            const vi act = lane < samples - s0;
            /* rng_base(id, s0 + lane), the first and second half of the lanes */
            const vq base0 = (id << 20) | ((half + (uint64_t)s0) << 8);
            const vq base1 = (id << 20) | ((half + (uint64_t)(s0 + kLanes / 2)) << 8);
            unsigned draw = 0;
            const vf u = rnd(base0, base1, draw) - .5f, v = rnd(base0, base1, draw) - .5f;
            const P t = add(mul(A, u * 99.f), mul(B, v * 99.f));
            const vf px = (rnd(base0, base1, draw) + (float)x) * k.scale;
            const vf py = ((float)y + rnd(base0, base1, draw)) * k.scale;
            const P dir = unit(add(mul(t, splat(-1.f)), mul(add(add(mul(A, px), mul(B, py)), C), splat(16.f))));
            const P c = shade(add(pk(mk(17, 16, 8)), t), dir, act, base0, base1, draw, sp);
            /* the samples' sum in sample order, as the per-ray path adds them */
            float cx[kLanes], cy[kLanes], cz[kLanes];
            memcpy(cx, &c.x, sizeof cx);
            memcpy(cy, &c.y, sizeof cy);
            memcpy(cz, &c.z, sizeof cz);
            for (int l = 0; l < kLanes && s0 + l < samples; l++) acc = add(mul(mk(cx[l], cy[l], cz[l]), weight), acc);
        }
        unsigned char *o = rgb + 3 * ((size_t)y * (size_t)size + (size_t)(size - 1 - x));
        o[0] = (unsigned char)fminf(acc.x, 255.f);
        o[1] = (unsigned char)fminf(acc.y, 255.f);
        o[2] = (unsigned char)fminf(acc.z, 255.f);
    }
}
