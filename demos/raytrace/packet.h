/* SPDX-License-Identifier: BSD-3-Clause */
/* packet.h - the raytracer's AVX-512 CPU path: 16 samples of one pixel
 * traced together, one per vector lane (packet.cpp). */
#ifndef GPUPRIM_DEMO_PACKET_H
#define GPUPRIM_DEMO_PACKET_H

#include "raytrace/card.h"

/* Whether this CPU runs the packet path (AVX-512 F and DQ). */
bool rt_packets_supported();

/* Row y of the image (all its pixels, every sample) into rgb, laid out as
 * the per-ray path lays it out, with the same bytes: each lane does the
 * per-ray path's operations in the same order. Call only where
 * rt_packets_supported(). */
void rt_packet_row(const card::Camera &k, const card::Spheres &sp, int size, int samples, int y,
                   unsigned char *rgb);

#endif
