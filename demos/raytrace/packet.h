/* SPDX-License-Identifier: BSD-3-Clause */
/* packet.h - the raytracer's packet CPU path: the samples of one pixel
 * traced together, one per vector lane, 16 (AVX-512) or 8 (AVX2) at a time
 * (packet.cpp). */
#ifndef GPUPRIM_DEMO_PACKET_H
#define GPUPRIM_DEMO_PACKET_H

#include "raytrace/card.h"

/* The widest packets this CPU runs: 16 (AVX-512 F and DQ), 8 (AVX2), or 0
 * (none). GP_CPU_PACKETS=avx2 caps it at 8 (a testing knob). */
int rt_packet_lanes();

/* Row y of the image (all its pixels, every sample) into rgb, laid out as
 * the per-ray path lays it out, with the same bytes: each lane does the
 * per-ray path's operations in the same order. Call only where
 * lanes = rt_packet_lanes() (16 or 8). */
void rt_packet_row(const card::Camera &k, const card::Spheres &sp, int size, int samples, int y,
                   unsigned char *rgb, int lanes);

#endif
