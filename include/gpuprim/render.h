/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * render.h - the gpuprim circle renderer.
 *
 * Draws scenes of semi-transparent circles into an RGBA float image, exactly
 * as the CPU reference renderer (gp_render_reference) does: circles blend
 * over each pixel in index order. The conventions are those of gpuprim.h:
 * every function returns a gp_status, nothing aborts or prints, and outputs
 * are untouched on error.
 *
 * Images are row-major, width x height pixels of 4 floats (r, g, b, a), row
 * j = 0 at the bottom of the picture (PPM output writes row height-1 first).
 * Pixel (i, j) has its centre at ((i + .5) / width, (j + .5) / height) in
 * scene coordinates, where the scene spans [0, 1] x [0, 1].
 */
#ifndef GPUPRIM_RENDER_H
#define GPUPRIM_RENDER_H

#include <gpuprim/dist.h>
#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest image side accepted (pixels). */
#define GP_RENDER_MAX_SIDE 16384
/* Largest number of circles a scene may hold (fits the renderer's 32-bit circle indices). */
#define GP_SCENE_MAX_CIRCLES ((size_t)1 << 28)

/* A scene: circles in draw order and their shading (ordinary or snow),
 * made by gp_scene_create, gp_scene_load or gp_scene_from_circles. */
typedef struct gp_scene gp_scene;

/* One circle as the renderer sees it. For snow scenes (gp_scene_is_snow) the
 * colour is unused: snowflakes are shaded from a fixed colour ramp. A circle
 * whose radius is not positive (0, or NaN or negative from
 * gp_scene_from_circles) covers no area and draws nothing, in every
 * renderer; scenes holding such circles are accepted. */
typedef struct gp_circle {
    float x, y, z;    /* centre; z is the depth, used only by snow shading */
    float radius;
    float r, g, b;    /* colour in [0, 1] */
} gp_circle;

/* Names accepted by gp_scene_create: rgb, rgby, rand10k, rand100k, rand1M,
 * micro2M, biglittle, littlebig, pattern, snow, bouncingballs, hypnosis,
 * fireworks. Generated exactly as the CMU 15-418 / Stanford CS149 circle
 * renderer generates them for the same seed (glibc rand() semantics,
 * reimplemented here so results are the same on every platform). Animated
 * scenes are returned already advanced once (frame 0).
 * Returns GP_ERROR_INVALID_ARGUMENT for NULL arguments or an unknown name,
 * GP_ERROR_OUT_OF_MEMORY if the circles cannot be allocated. */
GP_API gp_status gp_scene_create(gp_scene **scene, const char *name, unsigned seed);

/* Load a scene file (a leading UTF-8 byte-order mark is skipped). Two
 * formats, chosen by content:
 *   .par (the course's snow format): a first line with the count n, then n
 *       lines "x y z vx vy vz r". Loaded as a snow scene (snowsingle).
 *   gpuprim circles: a first line "gpuprim-circles 1", a second line with
 *       the count n, then n lines "x y z radius r g b" (ordinary circles).
 * Blank lines and lines starting with '#' are skipped in both. The count
 * must be 1 .. GP_SCENE_MAX_CIRCLES and match the lines that follow; every
 * value must be a finite number; radius >= 0 (0 draws nothing).
 * The file is untrusted: on any error the function returns GP_ERROR_IO (cannot
 * open/read) or GP_ERROR_PARSE and, when errbuf is not NULL, writes a
 * NUL-terminated message naming the file and the line into errbuf
 * (truncated to errlen bytes; bytes quoted from the file that are not
 * printable ASCII appear as \xHH). Memory use is bounded by the count
 * actually read, never by the count claimed. */
GP_API gp_status gp_scene_load(gp_scene **scene, const char *path, char *errbuf, size_t errlen);

/* Make a scene from caller data (copied). snow != 0 selects snow shading
 * and the snow background. n must be 1 .. GP_SCENE_MAX_CIRCLES. */
GP_API gp_status gp_scene_from_circles(gp_scene **scene, const gp_circle *circles, size_t n, int snow);

/* Save in the gpuprim circles format (snow scenes: the .par format). */
GP_API gp_status gp_scene_save(const gp_scene *scene, const char *path);

/* NULL is allowed and does nothing. */
GP_API void gp_scene_destroy(gp_scene *scene);

/* The number of circles, and whether the scene is snow-shaded (1) or not (0). */
GP_API gp_status gp_scene_count(const gp_scene *scene, size_t *count);
GP_API gp_status gp_scene_is_snow(const gp_scene *scene, int *is_snow);
/* Copy circle i out. GP_ERROR_INVALID_ARGUMENT if i >= count. */
GP_API gp_status gp_scene_get_circle(const gp_scene *scene, size_t i, gp_circle *circle);

/* Advance an animated scene by one frame (dt = 1/60). A no-op for static
 * scenes. */
GP_API gp_status gp_scene_advance(gp_scene *scene);

/* ---- rendering --------------------------------------------------------------
 * The CPU reference: one thread, the reference's float operations in their
 * order. The ground truth. rgba_host has width*height*4 floats. */
GP_API gp_status gp_render_reference(const gp_scene *scene, int width, int height, float *rgba_host);

/* Progress of long CPU renders: called on the thread that made the call
 * (never from a worker), with the fraction of the frame's work done in
 * [0, 1], at most about every 100 ms. It must not call back into the
 * renderer. */
typedef void (*gp_progress_fn)(double done, void *user);

/* gp_render_reference reporting progress through fn (NULL: none). The
 * fraction weighs each circle by its pixel box, so it tracks time. */
GP_API gp_status gp_render_reference_progress(const gp_scene *scene, int width, int height, float *rgba_host,
                                              gp_progress_fn fn, void *user);

/* A renderer: images of one size, rendered with the context's backend (the
 * CUDA tile renderer, or the multi-threaded CPU tile renderer that gives
 * the reference's exact image). It keeps its scene copy, image and scratch
 * on the backend, so repeated frames allocate nothing new unless the scene
 * grows. */
typedef struct gp_renderer gp_renderer;

/* width, height in 1 .. GP_RENDER_MAX_SIDE. The context must outlive the
 * renderer. */
GP_API gp_status gp_renderer_create(gp_renderer **renderer, gp_context *ctx, int width, int height);
GP_API void gp_renderer_destroy(gp_renderer *renderer);

/* Copy (upload) the scene's circles; call again after gp_scene_advance. */
GP_API gp_status gp_renderer_set_scene(gp_renderer *renderer, const gp_scene *scene);

/* Clear and render one frame. Asynchronous on the CUDA backend. Returns
 * GP_ERROR_OUT_OF_MEMORY where the frame's scratch does not fit. */
GP_API gp_status gp_renderer_render(gp_renderer *renderer);

/* Report the progress of each gp_renderer_render (fn NULL: none). The CPU
 * backend calls it (the fraction of the frame's tiles shaded); CUDA frames
 * take milliseconds and never do. */
GP_API gp_status gp_renderer_set_progress(gp_renderer *renderer, gp_progress_fn fn, void *user);

/* Copy the last frame into rgba_host (width*height*4 floats). Synchronizes. */
GP_API gp_status gp_renderer_read_image(gp_renderer *renderer, float *rgba_host);

/* Copy the last frame as 8-bit RGB into rgb_host (width*height*3 bytes,
 * laid out as gp_image_to_rgb8 does: the same bytes as gp_renderer_read_image
 * followed by gp_image_to_rgb8). On CUDA the conversion runs on the device
 * and a fifth of the bytes crosses to the host; the first call allocates a
 * device buffer of width*height*3 bytes that the renderer keeps.
 * Synchronizes. */
GP_API gp_status gp_renderer_read_rgb8(gp_renderer *renderer, unsigned char *rgb_host);

/* One-shot convenience: create a renderer, render, read, destroy. */
GP_API gp_status gp_render(gp_context *ctx, const gp_scene *scene, int width, int height, float *rgba_host);

/* ---- images ---------------------------------------------------------------- */
/* Files are written whole or not at all (gp_image_write*, gp_scene_save):
 * to a temporary file in the destination's directory, flushed to disk, then
 * renamed over the destination. On any failure the temporary is removed and
 * a file already at the path is left exactly as it was. Any name the file
 * system accepts works (up to its NAME_MAX: the temporary's name is
 * shortened to fit). A path that is a symbolic link (or a chain of them)
 * is followed: the file it points to is replaced, with the temporary in
 * that file's directory, and the link stays a link. A dangling link
 * creates its target when the target's directory exists (GP_ERROR_IO
 * otherwise); a loop of links is GP_ERROR_IO (ELOOP). */

/* The last failed file operation of this thread (gp_image_write*,
 * gp_scene_save): the path and the operating system's reason, e.g.
 * "out/x.ppm: cannot write: No space left on device (nothing was changed)".
 * Empty when the last such call succeeded. Never NULL. */
GP_API const char *gp_last_io_error(void);

/* Write rgba (width*height*4 floats, row 0 at the bottom) as binary PPM (P6)
 * or PNG (8-bit RGB), chosen by the path's extension (.ppm or .png; others
 * are GP_ERROR_INVALID_ARGUMENT). Each channel is (uint8)(255*clamp(v,0,1)). */
GP_API gp_status gp_image_write(const char *path, const float *rgba, int width, int height);

/* Compare two images as the 8-bit values they would be written as. Writes
 * the largest per-channel difference (0..255) and the number of pixels
 * whose r, g or b differs at all. Either out pointer may be NULL. */
GP_API gp_status gp_image_compare(const float *a, const float *b, int width, int height,
                                  int *max_diff, size_t *differing_pixels);

/* Read a PNG (any bit depth or colour type, interlaced or not, made 8-bit
 * RGB: palettes expanded, alpha dropped, 16-bit channels cut to their high
 * byte) or binary PPM (P6, maxval 255, '#' comments allowed between header
 * fields), chosen by the file's content, as 8-bit RGB laid out as
 * gp_image_to_rgb8's (row 0 at the bottom). With rgb NULL, only *width and
 * *height are filled; else rgb must hold capacity >= width*height*3 bytes
 * (GP_ERROR_INVALID_ARGUMENT otherwise, nothing written). The pixels are
 * decoded into a buffer of the library's own (width*height*3 bytes, freed
 * before returning) and copied to rgb only once the whole file has been
 * read without error: on any error rgb is untouched. GP_ERROR_IO when the
 * file cannot be opened or read (a directory included), GP_ERROR_PARSE
 * when it is not a valid image (cut short, a corrupt chunk, ...),
 * GP_ERROR_OUT_OF_MEMORY when the private buffer cannot be allocated;
 * gp_last_io_error() says why. */
GP_API gp_status gp_image_read_rgb8(const char *path, int *width, int *height, unsigned char *rgb,
                                    size_t capacity);

/* The image as 8-bit RGB: width*height*3 bytes, row 0 at the bottom like
 * the float image, each channel (uint8)(255*clamp(v,0,1)). */
GP_API gp_status gp_image_to_rgb8(const float *rgba, int width, int height, unsigned char *rgb);

/* gp_image_write for an 8-bit RGB image laid out as gp_image_to_rgb8's. */
GP_API gp_status gp_image_write_rgb8(const char *path, const unsigned char *rgb, int width, int height);

/* ---- one frame on several GPUs (gpuprim/dist.h) ----------------------------
 * Each rank of the communicator draws one band of whole 16-pixel tile rows
 * (rank r of p: tile rows [T*r/p, T*(r+1)/p) of the image's T), binning the
 * whole scene against its band only; gp_dist_renderer_gather brings the
 * 8-bit bands to one rank. The image is the one-context renderer's (and the
 * CPU reference's) bit for bit. Every rank must set the same scene. */
typedef struct gp_dist_renderer gp_dist_renderer;

/* Local (not collective). The communicator must outlive the renderer. */
GP_API gp_status gp_dist_renderer_create(gp_dist_renderer **renderer, gp_comm *comm, int width, int height);
GP_API void gp_dist_renderer_destroy(gp_dist_renderer *renderer);
/* This rank's pixel rows [*row_begin, *row_end) (possibly empty). */
GP_API gp_status gp_dist_renderer_band(const gp_dist_renderer *renderer, int *row_begin, int *row_end);
/* Local: as gp_renderer_set_scene and gp_renderer_render, for the band. */
GP_API gp_status gp_dist_renderer_set_scene(gp_dist_renderer *renderer, const gp_scene *scene);
GP_API gp_status gp_dist_renderer_render(gp_dist_renderer *renderer);
/* Collective: rank `root` receives the whole last frame in rgb, a buffer of
 * its context (device memory on CUDA: gp_download brings it to the host)
 * of width*height*3 bytes, laid out as gp_image_to_rgb8 does; the other
 * ranks pass NULL (unused). Returns once the frame is in place. */
GP_API gp_status gp_dist_renderer_gather(gp_dist_renderer *renderer, int root, unsigned char *rgb);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_RENDER_H */
