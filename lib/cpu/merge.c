/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/merge.c - the reference merge: two cursors over the order images,
 * taking from a unless b's key is strictly before a's (a first on ties). */
#include "search_internal.h"

#include <string.h>

gp_status gpi_cpu_merge(const gpi_merge_args *a)
{
    const size_t ks = gp_dtype_size(a->key_dtype), vs = a->value_size;
    size_t i = 0, j = 0, o;
    for (o = 0; o < a->na + a->nb; o++) {
        int take_a = i < a->na;
        if (take_a && j < a->nb)
            take_a = !(gpi_order_image(a->key_dtype, a->descending, a->b_keys, j) <
                       gpi_order_image(a->key_dtype, a->descending, a->a_keys, i));
        if (take_a) {
            memcpy((char *)a->keys_out + o * ks, (const char *)a->a_keys + i * ks, ks);
            if (vs) memcpy((char *)a->values_out + o * vs, (const char *)a->a_values + i * vs, vs);
            i++;
        } else {
            memcpy((char *)a->keys_out + o * ks, (const char *)a->b_keys + j * ks, ks);
            if (vs) memcpy((char *)a->values_out + o * vs, (const char *)a->b_values + j * vs, vs);
            j++;
        }
    }
    return GP_SUCCESS;
}
